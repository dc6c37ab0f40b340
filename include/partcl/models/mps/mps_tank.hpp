#pragma once
// mps_tank: the particles of a rectangular tank with a block of water in its corner, the set-up
// of the dam break (water narrower than the tank) and of the hydrostatic column (water as wide
// as the tank). The last axis points up (y in 2-D, z in 3-D). Particles sit at the centres of a
// lattice of spacing l0: water fills [0, water)^d from the corner at the origin; the tank's
// inner walls are the planes 0 and `tank` along each horizontal axis and the floor 0, each
// lined by one layer of wall particles and `dummy_layers` of dummy ones behind it, up to the
// tank's height. Water at rest may start compressed as hydrostatic equilibrium asks, so that
// it does not first drop and ring acoustically.
#include <array>

#include <partcl/models/mps/mps_fluid.hpp>

namespace partcl {

struct MpsTank {
    int dimensions = 2;
    double spacing = 0.01;
    std::array<double, 3> tank{0.5, 0.2, 0.2};    // inner size: along x, (y,) up
    std::array<double, 3> water{0.1, 0.1, 0.1};   // the water block, same axes
    int dummy_layers = 3;                         // 3 complete n0 for re up to 3.1 l0
    // g / c^2 of a weakly compressible fluid at rest: each water particle is lowered by
    // strain (h y - y^2 / 2), the integral of n / n0 - 1 = g (h - y) / c^2 up to its height y
    // (h the water's height). 0 leaves the water on the lattice.
    double hydrostatic_strain = 0;
    // At most 10% at the floor (strain x height): beyond it c is too small for the weakly
    // compressible model. False for a negative or NaN strain.
    static bool valid_hydrostatic_strain(double strain, double height) noexcept {
        return strain >= 0 && strain * height <= 0.1;
    }
};

struct MpsScene {
    MpsParticles particles;
    // A box holding the tank with its walls, with room above it to twice the tank's height
    // (the cell grid's box: splashes stay inside it).
    std::array<double, 3> lower{}, upper{};
};

// UsageError when the water does not fit the tank, a size is not a positive multiple of the
// spacing (within 1e-6 of one), or the strain is negative, not finite, or would compress the
// water by more than 10%.
MpsScene mps_tank(const MpsTank& tank);

// A dam break's surge front along x: the leading edge of the continuous liquid, as Martin & Moyce
// (1952) measured it (droplets thrown ahead do not count): from the back wall on, the end of the
// first run of fluid particles whose x differ by less than 2 l0, plus l0 / 2 (a particle's half
// width, so a column of width a starts with its front at a). UsageError without fluid.
double mps_front(const MpsParticles& particles, double spacing);

} // namespace partcl
