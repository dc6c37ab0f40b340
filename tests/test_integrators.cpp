// Integrators on the Kepler problem (e = 0.5, G = M = a = 1, period 2 pi), in double: each
// converges at its order, the symplectic ones' energy errors stay bounded, the adaptive ones
// control their error, the implicit ones iterate to their tolerance.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

constexpr double pi = 3.14159265358979323846;

Bodies kepler(double e) {
    const double ra = 1 + e, v = std::sqrt((1 - e) / (1 + e));  // apocentre, relative speed
    Bodies b;
    b.resize(2);
    b.x = {-ra / 2, ra / 2};
    b.vy = {-v / 2, v / 2};
    b.m = {0.5, 0.5};
    return b;
}

struct Run {
    Context& context = test_context();
    DeviceBodies bodies;
    DenseGravity gravity;
    NBodySystem system;
    VectorOps ops;
    std::unique_ptr<Integrator> integrator;
    Derivative f;

    Run(const std::string& name, AdaptiveTolerances tolerances = {1.0, 1.0})
        : bodies(context, Precision::float64, kepler(0.5)),
          gravity(context, Precision::float64, {1.0, 0.0}, {}, memory_cache()),
          system(context, gravity, bodies), ops(context, Precision::float64, memory_cache()),
          integrator(make_integrator(name, ops, 12, tolerances)), f(system.derivative()) {}

    double energy() {
        return measure(bodies.download(context.queue(0)), system.potentials()).total();
    }
};

// The largest error of the state (positions and velocities) after one period of `steps` fixed
// steps: the orbit closes, so the exact state is the initial one. Adaptive methods take dt every
// step (tolerances of 1 accept every step).
double period_error(const std::string& name, int steps,
                    AdaptiveTolerances tolerances = {1.0, 1.0}) {
    Run run(name, tolerances);
    const std::vector<double> y0 = run.bodies.state.read(run.context.queue(0));
    const double dt = 2 * pi / steps;
    double t = 0;
    for (int s = 0; s < steps; ++s) t += run.integrator->step(run.f, t, run.bodies.state, dt);
    const std::vector<double> y = run.bodies.state.read(run.context.queue(0));
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(y[i] - y0[i]));
    return worst;
}

} // namespace

TEST_SUITE("integrators") {

TEST_CASE("every integrator's global error falls at its order") {
    // One period of the e = 0.5 orbit at three step counts (x1, x1.22, x1.5), in the range where
    // each method's error is past its pre-asymptotic start (rkf78 and rklc4 approach their order
    // slowly) and above round-off (errors 1e-4 .. 1e-12). Adaptive methods take the fixed steps
    // (tolerances of 1 accept every one); implicit ones iterate to 1e-13.
    struct Expect {
        const char* name;
        int steps;  // the fewest
    };
    const Expect methods[] = {
        {"euler", 2400},   {"rk4", 300},      {"rkck5", 150},   {"rkdp5", 400},
        {"rkdverk6", 200}, {"rkf78", 168},    {"adams1", 2400}, {"adams2", 1200},
        {"adams3", 600},   {"adams4", 600},   {"adams5", 600},  {"leapfrog", 200},
        {"yoshida4", 300}, {"yoshida6", 150}, {"rkgl6", 60},    {"rklc4", 400},
        {"trapezoid", 400},
    };
    std::size_t named = 0;
    for (const auto& info : integrator_catalog()) named += info.alias_of.empty() ? 1 : 0;
    CHECK(std::size(methods) == named);  // every method, none left out
    for (const Expect& x : methods) {
        const bool adaptive = integrator_adapts_step(x.name);
        const AdaptiveTolerances tolerances = adaptive ? AdaptiveTolerances{1.0, 1.0}
                                                       : AdaptiveTolerances{1e-13, 1e-13};
        const int order = Run(x.name).integrator->order();
        // Least-squares slope of log(error) against log(steps).
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        std::string errors;
        for (double factor : {1.0, std::sqrt(1.5), 1.5}) {
            const int steps = static_cast<int>(std::lround(x.steps * factor));
            const double error = period_error(x.name, steps, tolerances);
            const double lx = std::log(double(steps)), ly = std::log(error);
            sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
            char text[64];
            std::snprintf(text, sizeof text, " %d: %.3e", steps, error);
            errors += text;
        }
        const double slope = -(3 * sxy - sx * sy) / (3 * sxx - sx * sx);
        INFO(std::string(x.name) << " (order " << order << "): errors after one period" << errors
                    << "; measured order " << slope);
        CHECK(std::abs(slope - order) <= 0.3);
        if (std::getenv("PARTCL_PRINT_ORDERS"))
            MESSAGE(std::string(x.name) << " (order " << order << "):" << errors << "; measured "
                                        << slope);
    }
}

TEST_CASE("an implicit method iterates to its tolerance and reports its sweeps") {
    for (const char* name : {"rkgl6", "rklc4", "trapezoid"}) {
        CAPTURE(name);
        std::vector<double> y[2];
        std::size_t sweeps[2];
        const double tolerance[2] = {1e-6, 1e-13};
        for (int k = 0; k < 2; ++k) {
            Run run(name, {tolerance[k], tolerance[k]});
            run.integrator->step(run.f, 0.0, run.bodies.state, 0.02);
            y[k] = run.bodies.state.read(run.context.queue(0));
            sweeps[k] = run.integrator->iterations();
        }
        INFO("sweeps " << sweeps[0] << " at 1e-6, " << sweeps[1] << " at 1e-13");
        CHECK(sweeps[0] >= 2);
        CHECK(sweeps[1] > sweeps[0]);
        double worst = 0;
        for (std::size_t i = 0; i < y[0].size(); ++i)
            worst = std::max(worst,
                             std::abs(y[0][i] - y[1][i]) / (1e-6 + 1e-6 * std::abs(y[1][i])));
        CHECK(worst <= 1.0);  // the loose solution is within its tolerance of the tight one
    }
    // A step too large for the iteration to contract is refused, not taken.
    Run run("trapezoid", {1e-12, 1e-12});
    CHECK_THROWS_WITH_AS(run.integrator->step(run.f, 0.0, run.bodies.state, 3.0),
                         doctest::Contains("did not converge"), Error);
}

// The largest relative energy error over the first 10 and the last 90 of 100 periods, sampled
// every `every` steps all along the orbit (at whole periods alone, time symmetry hides it).
struct EnergyDrift {
    double early = 0, late = 0;
};

EnergyDrift energy_over_100_periods(Run& run, int per_period, int every) {
    const double e0 = run.energy();
    const double dt = 2 * pi / per_period;
    double t = 0;
    EnergyDrift drift;
    for (int period = 0; period < 100; ++period) {
        for (int s = 0; s < per_period; ++s) {
            t += run.integrator->step(run.f, t, run.bodies.state, dt);
            if (s % every != 0) continue;
            const double error = std::abs(run.energy() - e0) / std::abs(e0);
            double& worst = period < 10 ? drift.early : drift.late;
            worst = std::max(worst, error);
        }
    }
    return drift;
}

TEST_CASE("Gauss-Legendre's energy error stays bounded over 100 periods") {
    Run run("rkgl6", {1e-12, 1e-12});
    const EnergyDrift drift = energy_over_100_periods(run, 40, 3);
    INFO("max |dE/E|: first 10 periods " << drift.early << ", last 90 " << drift.late);
    // Symplectic: the error oscillates without secular growth.
    CHECK(drift.early > 0);
    CHECK(drift.late < 1.5 * drift.early);
}

TEST_CASE("leapfrog's energy error stays bounded over 100 periods") {
    Run run("leapfrog");
    const EnergyDrift drift = energy_over_100_periods(run, 200, 5);
    INFO("max |dE/E|: first 10 periods " << drift.early << ", last 90 " << drift.late);
    CHECK(drift.early > 0);
    CHECK(drift.late < 1.5 * drift.early);
    CHECK(drift.late < 5e-3);  // 200 steps a period at e = 0.5: about 2.6e-3
}

TEST_CASE("dopri5 adapts its step to meet the tolerance") {
    Run run("dopri5", {1e-10, 1e-10});
    const double e0 = run.energy();
    double t = 0, dt = 0.1, smallest = 1e9, largest = 0;
    int steps = 0;
    while (t < 2 * pi) {
        const double h = run.integrator->step(run.f, t, run.bodies.state, std::min(dt, 2 * pi - t));
        t += h;
        dt = run.integrator->next_dt();
        smallest = std::min(smallest, h);
        largest = std::max(largest, h);
        ++steps;
    }
    const double error = std::abs(run.energy() - e0) / std::abs(e0);
    INFO(steps << " steps, h in [" << smallest << ", " << largest << "], |dE/E| " << error);
    CHECK(error < 1e-8);
    CHECK(largest > 3 * smallest);  // small steps at pericentre, large at apocentre
    CHECK(steps < 2000);
}

TEST_CASE("unknown integrators are named in the error") {
    VectorOps ops(test_context(), Precision::float32, memory_cache());
    CHECK_THROWS_WITH_AS(make_integrator("verlet", ops, 12), doctest::Contains("dopri5"),
                         UsageError);
    CHECK_THROWS_AS(make_integrator("leapfrog", ops, 11), UsageError);
}

}
