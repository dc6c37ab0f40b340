#pragma once
// The MPS fluid's parameters, without the device code (models/mps/mps_fluid.hpp): each one's
// default is its initialiser here and its range is checked by the predicate here, for MpsFluid
// and for scenarios ([fluid], run/scenario.hpp) alike; each keeps its own message.
#include <array>
#include <cmath>
#include <limits>

#include <partcl/models/option_names.hpp>

namespace partcl {

// The weight w(r) of the number density and the gradient (the Laplacian's too): Koshizuka's
// re/r - 1 (the seed's), or (1 - r/re)^2, finite at r = 0, so that one close pair does not swing a
// particle's number density and pressure (docs/mps.md, "Still water, sloshing and pressure noise").
enum class MpsWeight : int { koshizuka = 0, quadratic = 1 };
// The pressure gradient: Koshizuka's sum over neighbours (the seed's), or that sum corrected by
// the inverse of the neighbourhood's moment matrix, exact for a linear pressure on a disordered
// arrangement (Khayyer & Gotoh 2011's corrective matrix), where the plain sum is not.
enum class MpsGradient : int { koshizuka = 0, corrected = 1 };

inline constexpr OptionName<MpsWeight> mps_weights[] = {{MpsWeight::koshizuka, "koshizuka"},
                                                        {MpsWeight::quadratic, "quadratic"}};
inline constexpr OptionName<MpsGradient> mps_gradients[] = {
    {MpsGradient::koshizuka, "koshizuka"}, {MpsGradient::corrected, "corrected"}};
inline const char* to_string(MpsWeight w) noexcept { return name_of(mps_weights, w); }
inline const char* to_string(MpsGradient g) noexcept { return name_of(mps_gradients, g); }

// w(r) of `kind` for influence radius re (0 outside (0, re)): the host's lattice sums and the
// CPU reference step; the kernels' mps_weight is its device twin.
template <class T>
T mps_weight(MpsWeight kind, T r, T re) {
    if (!(r > T(0) && r < re)) return T(0);
    return kind == MpsWeight::quadratic ? (T(1) - r / re) * (T(1) - r / re) : re / r - T(1);
}

// The constants of the fluid and of the method that a scenario sets as they are.
struct MpsOptions {
    double density = 1000;         // rho0 [kg/m^3]
    double viscosity = 1e-6;       // kinematic [m^2/s]
    double sound_speed = 20;       // c [m/s]; about 10x the fastest flow keeps |n - n0| ~ 1%
    double re_ratio = 2.1;         // re / l0 for the number density and the gradient
    double re_laplacian_ratio = 3.1;  // re / l0 for the viscosity's Laplacian
    double collision_ratio = 0.5;  // collision distance / l0
    // The collision distance to wall and dummy partners / l0; 0: collision_ratio. In 3-D a fluid
    // particle in a gap of a wall layer lies 0.71 l0 from the wall particles around it, beyond
    // 0.5 l0, and nothing else holds it there (the dummies take no part in the gradient): a
    // distance above 0.71 l0 holds it (0.8 held a 3-D tank for 20 s; docs/mps.md, "Second pass").
    double wall_collision_ratio = 0;
    double restitution = 0.2;
    double courant = 0.2;
    MpsWeight weight = MpsWeight::koshizuka;
    MpsGradient gradient = MpsGradient::koshizuka;
    // Monaghan's alpha: approaching pairs of fluid particles repel with a pressure
    // alpha rho0 c l0 |v.r| / r^2, which damps the particle-scale noise of the explicit pressure
    // (0: off). Walls take none: it would act as a wall friction far above water's.
    double artificial_viscosity = 0;
    // The viscosity's pair velocities reconstructed linearly towards the pair's midpoint from
    // each particle's velocity gradient (Rosswog 2015; Frontiere, Raskin & Owen 2017), by this
    // share of the way (0: off, 1: all of it), the approach speed limited by the pair's own
    // (minmod): a linear velocity field, which a wave or a shear is locally, then takes 1 - share
    // of the viscosity, and the particle-scale noise nearly all of it. Costs one more neighbour
    // loop (mps_velocity_gradient); needs artificial_viscosity > 0.
    double viscosity_reconstruction = 0;
    // Close-pair shifting: each step a fluid particle nearer than l0 to fluid or wall particles
    // moves apart from them, position only, by shifting c dt (1 - r/l0)^2 along each pair, a
    // separation speed of shifting c (1 - r/l0)^2 (0: off). Where P = 0 (the free surface, the
    // walls beside it) pressure does not hold particles apart: pairs close up to the collision
    // distance and spring apart later, the bursts of still water (docs/mps.md, "Close pairs").
    double shifting = 0;
    // The free surface's layer: within re of the surface a particle's number density misses
    // neighbours, so the layer (3 rows at re = 3.1 l0) has P = 0 below the surface, and only
    // collisions hold it. Each of these sweeps gives a fluid particle still at P = 0 the
    // w-weighted mean of P_j - rho0 g.(r_j - r_i) over its fluid neighbours within re that have
    // a pressure (at least 0), so P = 0 falls at the surface, not below the layer
    // (0: off; docs/mps.md, "The layer given a hydrostatic pressure").
    int surface_sweeps = 0;

    static bool valid_density(double v) noexcept { return v > 0 && std::isfinite(v); }
    static bool valid_viscosity(double v) noexcept { return v >= 0 && std::isfinite(v); }
    static bool valid_sound_speed(double v) noexcept { return v > 0 && std::isfinite(v); }
    // Either influence radius (re_ratio, re_laplacian_ratio) exceeds the spacing.
    static bool valid_re_ratio(double v) noexcept { return v > 1 && std::isfinite(v); }
    // Particles collide closer than this, within the number density's radius re.
    static bool valid_collision_ratio(double v, double re_ratio) noexcept {
        return v >= 0 && v < re_ratio;
    }
    // The collision distance to walls (wall_collision_ratio, 0 for collision_ratio's).
    double wall_collision() const noexcept {
        return wall_collision_ratio > 0 ? wall_collision_ratio : collision_ratio;
    }
    static bool valid_restitution(double v) noexcept { return v >= 0 && v <= 1; }
    static bool valid_courant(double v) noexcept { return v > 0 && v <= 1; }
    static bool valid_artificial_viscosity(double v) noexcept { return v >= 0 && v <= 10; }
    static bool valid_shifting(double v) noexcept { return v >= 0 && v <= 1; }
    static bool valid_surface_sweeps(int v) noexcept { return v >= 0 && v <= 8; }
    // A share of the way (viscosity_reconstruction) ...
    static bool valid_viscosity_reconstruction(double v) noexcept { return v >= 0 && v <= 1; }
    // ... that shapes the artificial viscosity, without which it does nothing.
    bool reconstruction_has_viscosity() const noexcept {
        return viscosity_reconstruction == 0 || artificial_viscosity > 0;
    }
    bool reconstructs() const noexcept { return viscosity_reconstruction > 0; }
};

// Everything MpsFluid takes: the options and the set-up's lattice, gravity and step limit.
struct MpsParameters : MpsOptions {
    int dimensions = 2;
    double spacing = 0.01;         // l0, the initial particle distance [m]
    std::array<double, 3> gravity{0, -9.81, 0};
    double max_dt = std::numeric_limits<double>::infinity();

    static bool valid_dimensions(int d) noexcept { return d == 2 || d == 3; }
    static bool valid_spacing(double l0) noexcept { return l0 > 0 && std::isfinite(l0); }
};

} // namespace partcl
