// The MPS fluid's scenario table beside its run (mps_run.cpp): [fluid].
#include <partcl/run/scenario.hpp>

#include <partcl/models/mps/mps_tank.hpp>

#include <cmath>
#include <cstring>

#include "run/model_tables.hpp"

namespace partcl {

const std::vector<std::string>& fluid_setup_names() {
    static const std::vector<std::string> names = names_of(fluid_setups);
    return names;
}

namespace detail {

namespace {

// [fluid]: a water or tank size along one axis: a whole multiple of the spacing (mps_tank's
// rule, within 1e-6), not more than 10^5 of them.
std::string lattice_length(const S& s, double length) {
    if (auto problem = positive(length); !problem.empty()) return problem;
    const double l0 = s.fluid.spacing;
    if (!MpsParameters::valid_spacing(l0)) return ok();  // [fluid] spacing reports it
    const double cells = length / l0;
    if (cells > 1e5)
        return "is more than 100000 spacings (got " + format_number(length) + " with spacing " +
               format_number(l0) + ")";
    if (cells < 1 - 1e-6 || std::fabs(cells - std::round(cells)) > 1e-6 * cells)
        return "must be a whole multiple of the spacing " + format_number(l0) + " (got " +
               format_number(length) + ")";
    return ok();
}
// The water must lie inside the tank (particles outside the domain); a hydrostatic column
// fills the tank's width (and depth).
std::string water_in_tank(const S& s, double water, double tank, const char* tank_key) {
    if (auto problem = lattice_length(s, water); !problem.empty()) return problem;
    if (!(tank > 0) || !std::isfinite(tank)) return ok();  // the tank's own key reports it
    if (water > tank * (1 + 1e-9))
        return "must not exceed [fluid] " + std::string(tank_key) + " " + format_number(tank) +
               ": the water would lie outside the tank (got " + format_number(water) + ")";
    if (s.fluid.setup == FluidSetup::hydrostatic && std::strcmp(tank_key, "tank_height") != 0 &&
        std::fabs(water - tank) > 1e-9 * tank)
        return "must equal [fluid] " + std::string(tank_key) + " " + format_number(tank) +
               " for setup = \"hydrostatic\" (got " + format_number(water) + ")";
    return ok();
}
// A value in the range of its predicate (models/mps/mps_options.hpp), or what is wrong: not
// finite, or `rule` (got v).
std::string in_range(double v, bool valid, const std::string& rule) {
    if (!std::isfinite(v)) return finite(v);
    return valid ? ok() : rule + " (got " + format_number(v) + ")";
}
// An influence radius ratio: the model's range, and in a scenario at most 8 spacings.
std::string radius_ratio(double v, const char* what) {
    if (auto problem = in_range(v, MpsOptions::valid_re_ratio(v),
                                "must be larger than 1: " + std::string(what) +
                                    " = ratio x spacing must exceed the spacing");
        !problem.empty())
        return problem;
    return v <= 8 ? ok() : "must be at most 8 (got " + format_number(v) + ")";
}

} // namespace

const std::vector<Field>& fluid_table() {
    static const std::vector<Field> fields = of_model("mps", {
        {"fluid", "setup",
         EnumRef{[](const S& s) { return to_string(s.fluid.setup); },
                 [](S& s, const std::string& name) { return from_name(fluid_setups, name, s.fluid.setup); },
                 [] { return names_of(fluid_setups); }, "a fluid set-up"},
         any_value,
         "dambreak | hydrostatic"},
        {"fluid", "dimensions", IntRef([](S& s) -> int& { return s.fluid.dimensions; }),
         [](const S& s) {
             const int d = s.fluid.dimensions;
             return MpsParameters::valid_dimensions(d) ? ok() : "must be 2 or 3 (got " + std::to_string(d) + ")";
         },
         ""},
        {"fluid", "spacing", RealRef([](S& s) -> double& { return s.fluid.spacing; }),
         [](const S& s) {
             const double l0 = s.fluid.spacing;
             return in_range(l0, MpsParameters::valid_spacing(l0), "must be positive");
         },
         "l0 [m]"},
        {"fluid", "water_width", RealRef([](S& s) -> double& { return s.fluid.water_width; }),
         [](const S& s) { return water_in_tank(s, s.fluid.water_width, s.fluid.tank_width, "tank_width"); },
         "dambreak: a [m]"},
        {"fluid", "water_height", RealRef([](S& s) -> double& { return s.fluid.water_height; }),
         [](const S& s) { return water_in_tank(s, s.fluid.water_height, s.fluid.tank_height, "tank_height"); },
         ""},
        {"fluid", "water_depth", RealRef([](S& s) -> double& { return s.fluid.water_depth; }),
         [](const S& s) {
             return s.fluid.dimensions == 3
                        ? water_in_tank(s, s.fluid.water_depth, s.fluid.tank_depth, "tank_depth")
                        : positive(s.fluid.water_depth);
         },
         "3-D only"},
        {"fluid", "tank_width", RealRef([](S& s) -> double& { return s.fluid.tank_width; }),
         [](const S& s) { return lattice_length(s, s.fluid.tank_width); }, ""},
        {"fluid", "tank_height", RealRef([](S& s) -> double& { return s.fluid.tank_height; }),
         [](const S& s) { return lattice_length(s, s.fluid.tank_height); }, ""},
        {"fluid", "tank_depth", RealRef([](S& s) -> double& { return s.fluid.tank_depth; }),
         [](const S& s) {
             return s.fluid.dimensions == 3 ? lattice_length(s, s.fluid.tank_depth)
                                            : positive(s.fluid.tank_depth);
         },
         "3-D only"},
        {"fluid", "dummy_layers", CountRef([](S& s) -> std::uint64_t& { return s.fluid.dummy_layers; }),
         [](const S& s) {
             const std::uint64_t l = s.fluid.dummy_layers;
             return l <= 10 ? ok() : "must be in 0..10 (got " + std::to_string(l) + ")";
         },
         "behind the wall layer"},
        {"fluid", "density", RealRef([](S& s) -> double& { return s.fluid.density; }),
         [](const S& s) {
             const double v = s.fluid.density;
             return in_range(v, MpsOptions::valid_density(v), "must be positive");
         },
         "[kg/m^3]"},
        {"fluid", "viscosity", RealRef([](S& s) -> double& { return s.fluid.viscosity; }),
         [](const S& s) {
             const double v = s.fluid.viscosity;
             return in_range(v, MpsOptions::valid_viscosity(v), "must not be negative");
         },
         "kinematic [m^2/s]"},
        {"fluid", "gravity", RealRef([](S& s) -> double& { return s.fluid.gravity; }),
         [](const S& s) { return non_negative(s.fluid.gravity); }, "[m/s^2], downwards"},
        {"fluid", "sound_speed", RealRef([](S& s) -> double& { return s.fluid.sound_speed; }),
         [](const S& s) {
             const double v = s.fluid.sound_speed;
             if (auto problem = in_range(v, MpsOptions::valid_sound_speed(v), "must be positive");
                 !problem.empty())
                 return problem;
             // The column starts compressed by g h / c^2 at its floor (mps_tank's strain); a bad
             // gravity or height is its own key's problem.
             const double gh = s.fluid.gravity * s.fluid.water_height;
             if (s.fluid.setup == FluidSetup::hydrostatic && std::isfinite(gh) &&
                 !MpsTank::valid_hydrostatic_strain(s.fluid.gravity / (v * v), s.fluid.water_height))
                 return "must be at least sqrt(10 g h) = " + format_number(std::sqrt(10 * gh)) +
                        " m/s for a hydrostatic column of water_height h (the column would start " +
                        "compressed by more than 10%; got " + format_number(v) + ")";
             return ok();
         },
         "[m/s]"},
        {"fluid", "re_ratio", RealRef([](S& s) -> double& { return s.fluid.re_ratio; }),
         [](const S& s) { return radius_ratio(s.fluid.re_ratio, "re"); },
         "re / spacing"},
        {"fluid", "re_laplacian_ratio",
         RealRef([](S& s) -> double& { return s.fluid.re_laplacian_ratio; }),
         [](const S& s) { return radius_ratio(s.fluid.re_laplacian_ratio, "re of the Laplacian"); },
         "re / spacing"},
        {"fluid", "collision_ratio", RealRef([](S& s) -> double& { return s.fluid.collision_ratio; }),
         [](const S& s) {
             // A scenario's collision distance is under the spacing (the model's bound: re).
             const double v = s.fluid.collision_ratio;
             return in_range(v, MpsOptions::valid_collision_ratio(v, 1), "must be in [0, 1)");
         },
         "collision distance / spacing"},
        {"fluid", "wall_collision_ratio",
         RealRef([](S& s) -> double& { return s.fluid.wall_collision_ratio; }),
         [](const S& s) {
             const double v = s.fluid.wall_collision_ratio;
             return in_range(v, MpsOptions::valid_collision_ratio(v, 1), "must be in [0, 1)");
         },
         "collision distance to walls / spacing (0: collision_ratio)"},
        {"fluid", "restitution", RealRef([](S& s) -> double& { return s.fluid.restitution; }),
         [](const S& s) {
             const double v = s.fluid.restitution;
             return in_range(v, MpsOptions::valid_restitution(v), "must be in [0, 1]");
         },
         ""},
        {"fluid", "courant", RealRef([](S& s) -> double& { return s.fluid.courant; }),
         [](const S& s) {
             const double v = s.fluid.courant;
             return in_range(v, MpsOptions::valid_courant(v), "must be in (0, 1]");
         },
         ""},
        {"fluid", "weight",
         EnumRef{[](const S& s) { return to_string(s.fluid.weight); },
                 [](S& s, const std::string& name) { return from_name(mps_weights, name, s.fluid.weight); },
                 [] { return names_of(mps_weights); }, "a weight function"},
         any_value,
         "koshizuka (re/r - 1) | quadratic ((1 - r/re)^2)"},
        {"fluid", "gradient",
         EnumRef{[](const S& s) { return to_string(s.fluid.gradient); },
                 [](S& s, const std::string& name) { return from_name(mps_gradients, name, s.fluid.gradient); },
                 [] { return names_of(mps_gradients); }, "a pressure gradient"},
         any_value,
         "koshizuka | corrected (by the neighbourhood's moment matrix)"},
        {"fluid", "artificial_viscosity",
         RealRef([](S& s) -> double& { return s.fluid.artificial_viscosity; }),
         [](const S& s) {
             const double v = s.fluid.artificial_viscosity;
             return in_range(v, MpsOptions::valid_artificial_viscosity(v), "must be in [0, 10]");
         },
         "Monaghan's alpha, 0 = off"},
        {"fluid", "shifting", RealRef([](S& s) -> double& { return s.fluid.shifting; }),
         [](const S& s) {
             const double v = s.fluid.shifting;
             return in_range(v, MpsOptions::valid_shifting(v), "must be in [0, 1]");
         },
         "close pairs (nearer than l0) move apart at shifting c (1 - r/l0)^2, 0 = off"},
        {"fluid", "surface_sweeps", IntRef([](S& s) -> int& { return s.fluid.surface_sweeps; }),
         [](const S& s) {
             const int v = s.fluid.surface_sweeps;
             return in_range(v, MpsOptions::valid_surface_sweeps(v), "must be 0 to 8");
         },
         "sweeps giving the free surface's layer a hydrostatic pressure, 0 = off"},
        {"fluid", "viscosity_reconstruction",
         RealRef([](S& s) -> double& { return s.fluid.viscosity_reconstruction; }),
         [](const S& s) {
             const double v = s.fluid.viscosity_reconstruction;
             if (auto problem = in_range(v, MpsOptions::valid_viscosity_reconstruction(v), "must be in [0, 1]");
                 !problem.empty())
                 return problem;
             return in_range(v, s.fluid.reconstruction_has_viscosity(), "needs artificial_viscosity > 0");
         },
         "the share of the way the viscosity's pair velocities are reconstructed to the pair's "
         "midpoint, 0 = off"},
        {"fluid", "end_time", RealRef([](S& s) -> double& { return s.fluid.end_time; }),
         [](const S& s) { return positive(s.fluid.end_time); }, "[s]"},
        {"fluid", "steps", CountRef([](S& s) -> std::uint64_t& { return s.fluid.steps; }),
         [](const S& s) { return count_limit(s.fluid.steps); },
         "> 0: stop after this many steps instead of end_time"},
        {"fluid", "sample_every", RealRef([](S& s) -> double& { return s.fluid.sample_every; }),
         [](const S& s) {
             if (auto p = positive(s.fluid.sample_every); !p.empty()) return p;
             return s.fluid.end_time / s.fluid.sample_every <= 1e6
                        ? ok()
                        : "must be at least end_time / 10^6 (got " + format_number(s.fluid.sample_every) + ")";
         },
         "[s] between CSV rows"},
        {"fluid", "frame_every", RealRef([](S& s) -> double& { return s.fluid.frame_every; }),
         [](const S& s) { return interval_or_zero(s.fluid.frame_every, s.fluid.end_time); },
         "[s] between frames, 0 = none"},
        {"fluid", "checkpoint_every", RealRef([](S& s) -> double& { return s.fluid.checkpoint_every; }),
         [](const S& s) { return interval_or_zero(s.fluid.checkpoint_every, s.fluid.end_time); },
         "[s] between checkpoints, 0 = at the end only"},
    });
    return fields;
}

} // namespace detail

} // namespace partcl
