// The scenario tables of lib/io: [scenario], the N-body initial conditions (read by
// io/initial_conditions.cpp), [units], [run] and [render]; the built-in scenarios' text; the
// name lists.
#include "io/scenario_schema.hpp"

#include <partcl/integrate/integrator.hpp>
#include <partcl/backend/error.hpp>

#include <algorithm>
#include <cmath>

#include "io/embedded_scenarios.hpp"

namespace partcl {

namespace detail {

namespace {

namespace fs = std::filesystem;

std::string check_n(const S& s) {
    const std::uint64_t max_n = 0xffffffffull;  // the snapshot header's 32-bit counts
    if (s.n > max_n)
        return "must be at most " + std::to_string(max_n) + " (got " + std::to_string(s.n) + ")";
    if (s.initial == InitialConditions::snapshot) return ok();  // 0 = as many as the file has
    if (s.n == 0) return "must be at least 1 (got 0)";
    if (s.initial == InitialConditions::kepler)
        return s.n == 2 ? ok()
                        : "must be 2 for initial = \"kepler\" (got " + std::to_string(s.n) + ")";
    if (s.initial == InitialConditions::galaxies && s.n < 2)
        return "must be at least 2 for initial = \"galaxies\" (got " + std::to_string(s.n) +
               ")";
    return s.n >= 1 ? ok() : "must be at least 1 (got " + std::to_string(s.n) + ")";
}

// [units]: each given unit reads as one of its dimension; one given alone is an error (two
// derive the third from G, three derive G).
std::string check_unit(const S& s, const std::string& text, Dimension dimension) {
    if (text.empty()) return ok();
    try {
        parse_quantity(text, dimension);
    } catch (const UsageError& error) {
        return error.what();
    }
    const auto& u = s.units;
    if (u.length.empty() + u.mass.empty() + u.velocity.empty() == 2)
        return "is the only unit given: give two of length, mass and velocity ([gravity] G "
               "derives the third) or all three (they derive G)";
    return ok();
}

// [run] end_time: 0, or a time a fixed-step integrator reaches in a whole number of steps of dt
// (to 1e-9 of a step) and an adaptive one in at most 10^12 steps of its first dt.
std::string check_end_time(const S& s) {
    if (auto problem = non_negative(s.end_time); !problem.empty()) return problem;
    if (s.end_time == 0 || !(s.dt > 0) || !std::isfinite(s.dt)) return ok();
    const double steps = s.end_time / s.dt;
    if (steps > 1e12)
        return "is more than 10^12 steps of [integrator] dt = " + format_number(s.dt) + " (got " +
               format_number(s.end_time) + ")";
    if (integrator_adapts_step(s.integrator)) return ok();
    if (steps < 1 - 1e-9 || std::fabs(steps - std::round(steps)) > 1e-9 * steps)
        return "must be a whole number of steps of [integrator] dt = " + format_number(s.dt) +
               " for " + s.integrator + " (got " + format_number(s.end_time) + ", " +
               format_number(steps) + " steps); the adaptive methods (rkck5, rkdp5, rkdverk6, rkf78) shorten their last step instead";
    return ok();
}

std::string pixels(int v) {
    return v >= 1 && v <= 16384 ? ok() : "must be in 1..16384 (got " + std::to_string(v) + ")";
}

} // namespace

const std::vector<Field>& scenario_table() {
    static const std::vector<Field> fields = of_model("", {
        {"scenario", "name", TextRef([](S& s) -> std::string& { return s.name; }),
         [](const S& s) { return s.name.empty() ? std::string("must not be empty") : ok(); }, ""},
        {"scenario", "description", TextRef([](S& s) -> std::string& { return s.description; }),
         [](const S&) { return ok(); }, ""},
        {"scenario", "model", TextRef([](S& s) -> std::string& { return s.model; }),
         [](const S& s) { return one_of(s.model, model_names(), "a model"); },
         "nbody | mps | pic | cosmology"},
    });
    return fields;
}

const std::vector<Field>& initial_condition_tables() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"bodies", "initial",
         EnumRef{[](const S& s) { return to_string(s.initial); },
                 [](S& s, const std::string& name) { return from_name(initial_conditions, name, s.initial); },
                 [] { return names_of(initial_conditions); }, "a kind of initial conditions"},
         any_value, "galaxies | plummer | kepler | cube | snapshot"},
        {"bodies", "n", CountRef([](S& s) -> std::uint64_t& { return s.n; }), check_n,
         "kepler: 2; snapshot: 0 = all in the file"},
        {"bodies", "seed", CountRef([](S& s) -> std::uint64_t& { return s.seed; }),
         [](const S& s) { return count_limit(s.seed); }, ""},
        {"bodies", "snapshot", PathRef([](S& s) -> fs::path& { return s.snapshot; }),
         [](const S& s) {
             return s.initial == InitialConditions::snapshot && s.snapshot.empty()
                        ? std::string("must name an HDF5 file for initial = \"snapshot\"")
                        : ok();
         },
         "HDF5 file for initial = \"snapshot\""},

        {"plummer", "scale", RealRef([](S& s) -> double& { return s.plummer.scale; }),
         [](const S& s) { return positive(s.plummer.scale); }, "Plummer radius a"},
        {"plummer", "total_mass", RealRef([](S& s) -> double& { return s.plummer.total_mass; }),
         [](const S& s) { return positive(s.plummer.total_mass); }, ""},

        {"galaxies", "separation",
         RealRef([](S& s) -> double& { return s.galaxies.separation; }),
         [](const S& s) { return non_negative(s.galaxies.separation); }, ""},
        {"galaxies", "impact_parameter",
         RealRef([](S& s) -> double& { return s.galaxies.impact_parameter; }),
         [](const S& s) { return finite(s.galaxies.impact_parameter); }, ""},
        {"galaxies", "approach_speed",
         RealRef([](S& s) -> double& { return s.galaxies.approach_speed; }),
         [](const S& s) { return finite(s.galaxies.approach_speed); }, ""},
        {"galaxies", "mass_ratio",
         RealRef([](S& s) -> double& { return s.galaxies.mass_ratio; }),
         [](const S& s) { return positive(s.galaxies.mass_ratio); }, "M2 / M1"},
        {"galaxies", "total_mass",
         RealRef([](S& s) -> double& { return s.galaxies.total_mass; }),
         [](const S& s) { return positive(s.galaxies.total_mass); }, ""},
        {"galaxies", "scale", RealRef([](S& s) -> double& { return s.galaxies.scale; }),
         [](const S& s) { return positive(s.galaxies.scale); }, ""},

        {"kepler", "eccentricity",
         RealRef([](S& s) -> double& { return s.kepler.eccentricity; }),
         [](const S& s) {
             const double e = s.kepler.eccentricity;
             if (!std::isfinite(e)) return finite(e);
             return e >= 0 && e < 1 ? ok()
                                    : "must be in [0, 1) (got " + format_number(e) + ")";
         },
         ""},
        {"kepler", "semi_major_axis",
         RealRef([](S& s) -> double& { return s.kepler.semi_major_axis; }),
         [](const S& s) { return positive(s.kepler.semi_major_axis); }, ""},
        {"kepler", "masses",
         PairRef([](S& s) -> std::array<double, 2>& { return s.kepler.masses; }),
         [](const S& s) {
             for (double m : s.kepler.masses)
                 if (auto problem = positive(m); !problem.empty())
                     return "must both be positive (got " + format_number(m) + ")";
             return ok();
         },
         ""},

        {"cube", "side", RealRef([](S& s) -> double& { return s.cube.side; }),
         [](const S& s) { return positive(s.cube.side); }, ""},
        {"cube", "total_mass", RealRef([](S& s) -> double& { return s.cube.total_mass; }),
         [](const S& s) { return positive(s.cube.total_mass); }, ""},
        {"cube", "velocity", RealRef([](S& s) -> double& { return s.cube.velocity; }),
         [](const S& s) { return non_negative(s.cube.velocity); }, ""},
    });
    return fields;
}

// [units] and [run] but its precision, and [render] but its width, are N-body's.
const std::vector<Field>& units_table() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"units", "length", TextRef([](S& s) -> std::string& { return s.units.length; }),
         [](const S& s) { return check_unit(s, s.units.length, Dimension::length); },
         "e.g. \"1 kpc\"; \"\" = none"},
        {"units", "mass", TextRef([](S& s) -> std::string& { return s.units.mass; }),
         [](const S& s) { return check_unit(s, s.units.mass, Dimension::mass); },
         "e.g. \"1e10 Msun\""},
        {"units", "velocity", TextRef([](S& s) -> std::string& { return s.units.velocity; }),
         [](const S& s) { return check_unit(s, s.units.velocity, Dimension::velocity); },
         "e.g. \"1 km/s\""},
    });
    return fields;
}

const std::vector<Field>& run_table() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"run", "steps", CountRef([](S& s) -> std::uint64_t& { return s.steps; }),
         [](const S& s) {
             if (s.steps == 0) return std::string("must be at least 1 (got 0)");
             return count_limit(s.steps);
         },
         ""},
        {"run", "end_time", RealRef([](S& s) -> double& { return s.end_time; }), check_end_time,
         "> 0: run to this time instead of steps"},
        {"run", "precision", PrecisionRef([](S& s) -> Precision& { return s.precision; }),
         [](const S&) { return ok(); }, "float | double", ""},
        {"run", "diagnostics_every",
         CountRef([](S& s) -> std::uint64_t& { return s.diagnostics_every; }),
         [](const S& s) { return count_limit(s.diagnostics_every); }, "0 = first and last step"},
        {"run", "snapshot_every",
         CountRef([](S& s) -> std::uint64_t& { return s.snapshot_every; }),
         [](const S& s) { return count_limit(s.snapshot_every); }, "0 = only at the end"},
        {"run", "frame_every", CountRef([](S& s) -> std::uint64_t& { return s.frame_every; }),
         [](const S& s) { return count_limit(s.frame_every); }, "0 = no frames"},
        {"run", "checkpoint_every",
         CountRef([](S& s) -> std::uint64_t& { return s.checkpoint_every; }),
         [](const S& s) { return count_limit(s.checkpoint_every); }, "0 = only at the end"},
    });
    return fields;
}

const std::vector<Field>& render_table() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"render", "width", IntRef([](S& s) -> int& { return s.render.width; }),
         [](const S& s) { return pixels(s.render.width); }, "pixels", ""},
        {"render", "height", IntRef([](S& s) -> int& { return s.render.height; }),
         [](const S& s) { return pixels(s.render.height); }, "pixels"},
        {"render", "extent", RealRef([](S& s) -> double& { return s.render.extent; }),
         [](const S& s) { return non_negative(s.render.extent); },
         "half-width of the frame; 0 = automatic from the initial positions"},
        {"render", "decades", RealRef([](S& s) -> double& { return s.render.decades; }),
         [](const S& s) { return positive(s.render.decades); },
         "dynamic range of the log density"},
        {"render", "smoothing", RealRef([](S& s) -> double& { return s.render.smoothing; }),
         [](const S& s) {
             const double v = s.render.smoothing;
             if (!std::isfinite(v)) return finite(v);
             return v >= 0 && v <= 64 ? ok() : "must be in [0, 64] (got " + format_number(v) + ")";
         },
         "Gaussian sigma in pixels"},
    });
    return fields;
}

void initial_condition_defaults(S& s, const Given& given) {
    if (!given.count("bodies.n")) {
        if (s.initial == InitialConditions::kepler) s.n = 2;
        if (s.initial == InitialConditions::snapshot) s.n = 0;
    }
}

double units_G(const S& s) {
    const auto& u = s.units;
    if (u.length.empty() || u.mass.empty() || u.velocity.empty()) return 0;
    try {
        return unit_system_from(u.length, u.mass, u.velocity).gravitational_constant();
    } catch (const UsageError&) {
        return 0;
    }
}

// What make_bodies reads: the initial conditions and [units] (not [gravity]: G is checked with
// the whole scenario).
void validate_initial_conditions(const Scenario& scenario) {
    static const Schema schema = [] {
        Schema s;
        s.fields = initial_condition_tables();
        s.fields.insert(s.fields.end(), units_table().begin(), units_table().end());
        return s;
    }();
    validate(schema, scenario);
}

} // namespace detail

std::vector<std::string> builtin_scenario_names() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < detail::embedded_scenario_file_count; ++i) {
        const std::string path = detail::embedded_scenario_files[i].path;
        names.push_back(path.substr(0, path.size() - 5));  // less ".toml"
    }
    return names;
}

const std::string& builtin_scenario_toml(const std::string& name) {
    static const std::vector<std::string> texts = [] {
        std::vector<std::string> list;
        for (std::size_t i = 0; i < detail::embedded_scenario_file_count; ++i)
            list.emplace_back(detail::embedded_scenario_files[i].data,
                              detail::embedded_scenario_files[i].size);
        return list;
    }();
    const auto names = builtin_scenario_names();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return texts[i];
    throw UsageError("no built-in scenario '" + name + "' (built-in: " +
                     detail::join(names) + ")");
}

UnitSystem unit_system(const Scenario& s) {
    try {
        return unit_system_from(s.units.length, s.units.mass, s.units.velocity, s.gravity.G);
    } catch (const UsageError& error) {
        throw UsageError("scenario '" + s.name + "': [units] " + error.what());
    }
}

const std::vector<std::string>& initial_condition_names() {
    static const std::vector<std::string> names = names_of(initial_conditions);
    return names;
}

const std::vector<std::string>& model_names() {
    static const std::vector<std::string> names = {"nbody", "mps", "pic", "cosmology"};
    return names;
}

} // namespace partcl
