#pragma once
// Explicit MPS against cases whose answer is exact (docs/mps.md, "Still water, sloshing and
// pressure noise"): water at rest that must stay at rest, and the first sloshing mode of a
// rectangular tank against linear theory. One measurement for the benchmark
// (partcl_bench_mps_validation) and the tests that hold the bounds.
//
// Both cases fill a tank as wide as the water (mps_tank; 3-D: a channel `channel` deep across)
// to `depth` on the lattice of `spacing`, with gravity g = 9.81 m/s^2 and rho0 = 1000 kg/m^3.
// h is the depth the particles' volume gives (l0^d each over the floor's area).
#include <cstddef>
#include <functional>
#include <vector>

#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_options.hpp>

namespace partcl {

struct MpsTankCase {
    int dimensions = 2;
    double spacing = 0.005, depth = 0.1, width = 0.2, channel = 0.03;
    // The method; its sound_speed <= 0 means 10.6 sqrt(g h) (a Mach number below 0.1 for the
    // sloshing's fastest flow).
    MpsOptions method{};
    Precision precision = Precision::float32;
    // Still water: seconds it settles before its clock starts, its velocities set to 0 every
    // 5 ms (kinetic damping), so that it starts at the method's own equilibrium rather than on
    // the continuum's compressed lattice (0: it starts on the lattice).
    double settle_time = 0;
};

// The default method but for the sound speed, which the case chooses.
inline MpsTankCase mps_tank_case() {
    MpsTankCase c;
    c.method.sound_speed = 0;
    return c;
}

struct MpsTankSample {
    double t, x_cm, y_cm;    // the fluid's centre of mass (y: up)
    double max_speed;        // the fastest fluid particle
    double bottom_pressure;  // mean over the bottom row of P + rho g y (referred to the floor)
    double bottom_spread;    // the rms of that row's particles about the mean
    // The fastest fluid particle (where still water's bursts are): its position and velocity
    // along the tank's axes (the last one up; 0 beyond the dimensions) and its pressure.
    double fastest_position[3], fastest_velocity[3], fastest_pressure;
};

// Called with every sample while a case runs (progress, CSV).
using MpsSampleObserver = std::function<void(const MpsTankSample&)>;

struct MpsStillWater {
    std::size_t fluid = 0, steps = 0;
    double depth = 0, end_time = 0;
    double max_speed_after_1s_over_sqrt_gh = 0;
    double bottom_pressure_mean_over_rho_g_h = 0;  // over the samples after 1 s
    double bottom_pressure_sd_over_rho_g_h = 0;    // their standard deviation over time
    double bottom_row_spread_over_rho_g_h = 0;     // rms over the row and the samples
    double height_change = 0;                      // y_cm at the end over y_cm at the start, - 1
};

// Water started on its lattice compressed as hydrostatic equilibrium asks
// (n / n0 - 1 = g (h - y) / c^2), settled for the case's settle_time, then run to end_time
// (the clock starting after the settling), sampled every 5 ms. Error when a fluid
// particle leaves the tank's water (counted as lost from the fluid).
MpsStillWater mps_still_water(Context& context, const MpsTankCase& tank, double end_time = 20,
                              const MpsSampleObserver& observe = {});

struct MpsSloshing {
    std::size_t fluid = 0, steps = 0;
    double depth = 0, kh = 0;
    double theory_period = 0;  // 2 pi / omega, omega^2 = g k tanh(k h), k = pi / width
    // Tadjbakhsh & Keller's (1960) second-order standing wave of the case's amplitude a:
    // omega (1 + (k a)^2 (9 T^-4 - 12 T^-2 - 3 - 2 T^2) / 64), T = tanh(k h); longer than the
    // linear period for k h above 1.058.
    double second_order_period = 0;
    std::size_t crossings = 0;
    double period = 0, period_deviation = 0;    // from 3 crossings on (else 0); against linear
    double period_deviation_second_order = 0;   // against second_order_period
    double amplitude_ratio_per_period = 0;      // from 3 half-period extremes on (else 0)
};

// Settled 0.2 s, then given the velocity field of the first standing mode with surface amplitude
// `amplitude` and run for `duration` (<= 0: three theoretical periods), sampled every 2.5 ms. The
// period from the fluid's horizontal centre of mass crossing the tank's middle (each crossing to
// the next in the same direction, so an offset of the rest state cancels); the damping as the
// ratio of its largest excursions one period apart (the geometric mean over the run).
MpsSloshing mps_sloshing(Context& context, const MpsTankCase& tank, double amplitude = 0.015,
                         double duration = 0, const MpsSampleObserver& observe = {});

} // namespace partcl
