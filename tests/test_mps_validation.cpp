// Explicit MPS against the cases of issue 25 whose answers are exact
// (include/partcl/models/mps/mps_validation.hpp; docs/mps.md, "Still water, sloshing and pressure
// noise"), at sizes CI affords, with the stabilised method (quadratic weight, corrected
// gradient, re = 3.1 l0, one sweep of the surface's layer, artificial viscosity 2 with half its
// reconstruction). The benchmark partcl_bench_mps_validation runs the same cases at finer
// spacings and in 3-D (docs/mps.md, "Eleventh pass").
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <partcl/run/mps_run.hpp>
#include <partcl/run/scenario.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

MpsTankCase stabilised(int dims, double spacing, double depth, double width) {
    MpsTankCase c = mps_tank_case();
    c.dimensions = dims;
    c.spacing = spacing;
    c.depth = depth;
    c.width = width;
    c.method.weight = MpsWeight::quadratic;
    c.method.gradient = MpsGradient::corrected;
    c.method.re_ratio = 3.1;
    c.method.surface_sweeps = 1;
    c.method.artificial_viscosity = 2;
    c.method.viscosity_reconstruction = 0.5;
    return c;
}

} // namespace

TEST_SUITE("mps") {

TEST_CASE("bad validation cases are usage errors naming the problem") {
    Context& context = test_context();
    MpsTankCase c = stabilised(2, 0.02, 0.1, 0.1);
    CHECK_THROWS_WITH_AS(mps_still_water(context, c, 0.5), doctest::Contains("first second"), UsageError);
    CHECK_THROWS_WITH_AS(mps_sloshing(context, c, 0), doctest::Contains("amplitude"), UsageError);
    CHECK_THROWS_WITH_AS(mps_sloshing(context, c, 0.2), doctest::Contains("amplitude"), UsageError);
    c.dimensions = 4;
    CHECK_THROWS_WITH_AS(mps_sloshing(context, c, 0.01), doctest::Contains("dimensions"), UsageError);
    c.dimensions = 2;
    for (double settle : {-0.1, double(NAN)}) {
        c.settle_time = settle;
        CHECK_THROWS_WITH_AS(mps_still_water(context, c, 2), doctest::Contains("settling time"), UsageError);
    }
    c.settle_time = 0;
    c.depth = 0.11;  // not a multiple of the spacing
    CHECK_THROWS_WITH_AS(mps_still_water(context, c, 2), doctest::Contains("multiple of the spacing"), UsageError);
}

// A short still-water case runs end to end at a coarse spacing (the physics suite holds the
// bounds): the samples arrive in time order, the counts add up, the fastest particle is in
// the tank's water and moves at the largest speed.
TEST_CASE("mps_still_water samples every 5 ms and reports the case") {
    std::vector<double> times;
    std::size_t misplaced = 0, wrong_speed = 0;
    const MpsStillWater r = mps_still_water(test_context(), stabilised(2, 0.02, 0.1, 0.1), 1.2,
                                            [&](const MpsTankSample& s) {
        times.push_back(s.t);
        const double* x = s.fastest_position;
        const double* u = s.fastest_velocity;
        misplaced += !(x[0] > 0 && x[0] < 0.1 && x[1] > 0 && x[1] < 0.12 && x[2] == 0 && u[2] == 0);
        wrong_speed += !(std::hypot(u[0], u[1]) == doctest::Approx(s.max_speed).epsilon(1e-6));
    });
    CHECK(misplaced == 0);
    CHECK(wrong_speed == 0);
    CHECK(r.fluid == 25);
    CHECK(r.depth == doctest::Approx(0.1));
    REQUIRE(times.size() == 240);
    CHECK(times.front() == doctest::Approx(0.005));
    CHECK(times.back() == doctest::Approx(1.2));
    CHECK(std::is_sorted(times.begin(), times.end()));
    CHECK(r.bottom_pressure_mean_over_rho_g_h > 0.5);
    CHECK(r.bottom_pressure_mean_over_rho_g_h < 1.5);
}

// Settling first (kinetic damping: the velocities zeroed every 5 ms) restarts the clock after
// it and quiets the start: the lattice's first second rings at several % of sqrt(g h).
TEST_CASE("mps_still_water settles first when asked, its clock starting after") {
    MpsTankCase c = stabilised(2, 0.02, 0.1, 0.1);
    double first_plain = 0, first_settled = 0;
    std::vector<double> times;
    mps_still_water(test_context(), c, 1.05, [&](const MpsTankSample& s) {
        if (s.t < 0.2) first_plain = std::max(first_plain, s.max_speed);
    });
    c.settle_time = 0.5;
    mps_still_water(test_context(), c, 1.05, [&](const MpsTankSample& s) {
        times.push_back(s.t);
        if (s.t < 0.2) first_settled = std::max(first_settled, s.max_speed);
    });
    REQUIRE(times.size() == 210);
    CHECK(times.front() == doctest::Approx(0.005));
    CHECK(times.back() == doctest::Approx(1.05));
    MESSAGE("largest speed in the first 0.2 s: " << first_plain << " m/s from the lattice, "
            << first_settled << " m/s settled");
    CHECK(first_settled < 0.5 * first_plain);
}

}

// Two suites, two CTest entries: they run side by side.
TEST_SUITE("mps_still_water") {

// 20 s of still water 0.1 m deep at l0 = 1 cm (100 particles), started on its lattice. The
// issue's bounds: the largest speed after the first second below 1% of sqrt(g h) (measured
// here 0.68%), the bottom pressure's noise (standard deviation over time <= 10% of rho g h) and
// the volume (height within 1%); no particle leaves the fluid (mps_still_water throws if one
// does). docs/mps.md, eleventh pass: from the lattice the method meets it in 2-D at h/l0 = 20 and
// in 3-D too; settled first, 2-D at h/l0 = 20 peaked at 1.26%.
TEST_CASE("still water for 20 s: speed below 1% of sqrt(g h), pressure noise within 10% of rho g h, volume within 1%") {
    const MpsStillWater r = mps_still_water(test_context(), stabilised(2, 0.01, 0.1, 0.1), 20);
    MESSAGE("still water, " << r.fluid << " particles, " << r.steps << " steps: bottom pressure mean "
            << r.bottom_pressure_mean_over_rho_g_h << ", s.d. " << r.bottom_pressure_sd_over_rho_g_h
            << " of rho g h; height change " << r.height_change << "; largest speed after 1 s "
            << r.max_speed_after_1s_over_sqrt_gh << " sqrt(g h)");
    CHECK(r.max_speed_after_1s_over_sqrt_gh < 0.01);
    CHECK(r.bottom_pressure_sd_over_rho_g_h <= 0.10);
    CHECK(std::fabs(r.height_change) <= 0.01);
}

// `partcl run hydrostatic` as it is built in: the column 0.2 m deep at l0 = 1 cm, started
// compressed, with the method above, 0.9 s, its second half averaged. The noise bound on
// the run users see. Measured here: mean -0.5%, s.d. 3.9% of rho g h; the seed's method gives
// 29.7%, and this one started on the lattice (ringing acoustically) 26.8% (docs/mps.md).
TEST_CASE("partcl run hydrostatic: the bottom pressure within 2% of rho g h, its noise within 10%") {
    const Scenario s = builtin_scenario("hydrostatic");
    const MpsOptions method = stabilised(2, 0.01, 0.2, 0.2).method;
    CHECK(s.fluid.weight == method.weight);
    CHECK(s.fluid.gradient == method.gradient);
    CHECK(s.fluid.re_ratio == method.re_ratio);
    CHECK(s.fluid.surface_sweeps == method.surface_sweeps);
    CHECK(s.fluid.artificial_viscosity == method.artificial_viscosity);
    CHECK(s.fluid.viscosity_reconstruction == method.viscosity_reconstruction);
    TempDir dir("mps-hydrostatic-noise");
    MpsRun run(test_context(), s, dir.path());
    const MpsRunSummary r = run.run();
    MESSAGE("partcl run hydrostatic: bottom pressure " << r.bottom_pressure << " Pa against "
            << r.hydrostatic_pressure << " Pa, s.d. " << r.bottom_pressure_sd << " Pa");
    CHECK(std::fabs(r.bottom_pressure / r.hydrostatic_pressure - 1) <= 0.02);
    CHECK(r.bottom_pressure_sd <= 0.10 * r.hydrostatic_pressure);
}

}

TEST_SUITE("mps_sloshing") {

// The first mode of a tank 0.2 m wide and 0.1 m deep (k h = pi / 2) at l0 = 2.5 mm (3 200
// particles) with a small amplitude (5 mm: the second-order period differs from the linear one
// by 0.06%), two periods: the period within 3% of omega^2 = g k tanh(k h). Measured here
// +0.7%, 0.71 of the amplitude left per period (docs/mps.md, "Eleventh pass": -0.2% and 0.67
// over three periods of a 1.5 cm wave). Its damping is reported and only bounded loosely.
TEST_CASE("2-D sloshing: the first mode's period within 3% of linear theory") {
    const MpsSloshing r = mps_sloshing(test_context(), stabilised(2, 0.0025, 0.1, 0.2), 0.005, 1.06);
    MESSAGE("sloshing 2-D, " << r.fluid << " particles, " << r.steps << " steps: period " << r.period
            << " s against " << r.theory_period << " s (" << 100 * r.period_deviation
            << "%; second order " << 100 * r.period_deviation_second_order << "%), amplitude "
            << r.amplitude_ratio_per_period << " per period");
    REQUIRE(r.crossings >= 4);
    CHECK(std::fabs(r.period_deviation) <= 0.03);
    CHECK(r.amplitude_ratio_per_period > 0.5);
}

}
