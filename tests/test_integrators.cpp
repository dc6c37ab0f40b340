// Integrators on the Kepler problem (e = 0.5, G = M = a = 1, period 2 pi), in double: each
// converges at its order, leapfrog's energy error stays bounded, dopri5 controls its error.
#include <doctest/doctest.h>

#include <cmath>

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

// Relative energy error after integrating to t_end with `steps_per_period` fixed steps.
double energy_error(const std::string& name, int steps_per_period, double t_end) {
    Run run(name);
    const double e0 = run.energy();
    const double dt = 2 * pi / steps_per_period;
    const int steps = static_cast<int>(std::lround(t_end / dt));
    double t = 0;
    for (int s = 0; s < steps; ++s) t += run.integrator->step(run.f, t, run.bodies.state, dt);
    return std::abs(run.energy() - e0) / std::abs(e0);
}

} // namespace

TEST_SUITE("integrators") {

TEST_CASE("each integrator converges at its order") {
    // Errors at 3/4 of a period (past pericentre, where a full period's symmetry would hide
    // them); dopri5 runs with tolerances so loose that every fixed step is accepted.
    struct Expect {
        const char* name;
        int order;
        int steps;
    };
    for (const Expect& x : {Expect{"euler", 1, 4000}, Expect{"leapfrog", 2, 800},
                            Expect{"rk4", 4, 800}, Expect{"dopri5", 5, 800},
                            Expect{"ab5", 5, 800}}) {
        const double coarse = energy_error(x.name, x.steps, 1.5 * pi);
        const double fine = energy_error(x.name, 2 * x.steps, 1.5 * pi);
        const double observed = std::log2(coarse / fine);
        INFO(x.name << ": energy error " << coarse << " -> " << fine << ", observed order "
                    << observed);
        // Energy errors of one-step methods may converge one order faster than the solution.
        CHECK(observed >= x.order - 0.3);
        CHECK(observed <= x.order + 1.3);
        CHECK(coarse < 0.1);
    }
}

TEST_CASE("leapfrog's energy error stays bounded over 100 periods") {
    Run run("leapfrog");
    const double e0 = run.energy();
    const int per_period = 200;
    const double dt = 2 * pi / per_period;
    double t = 0, early = 0, late = 0;
    // Sampled all along the orbit (at whole periods alone, time symmetry hides the error).
    for (int period = 0; period < 100; ++period) {
        for (int s = 0; s < per_period; ++s) {
            t += run.integrator->step(run.f, t, run.bodies.state, dt);
            if (s % 5 != 0) continue;
            const double error = std::abs(run.energy() - e0) / std::abs(e0);
            double& worst = period < 10 ? early : late;
            worst = std::max(worst, error);
        }
    }
    INFO("max |dE/E|: first 10 periods " << early << ", last 90 " << late);
    // Symplectic: the error oscillates without secular growth.
    CHECK(early > 0);
    CHECK(late < 1.5 * early);
    CHECK(late < 5e-3);  // 200 steps a period at e = 0.5: about 2.6e-3
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
