// The drons/nbody solver comparison (its figure 2), redone: the built-in galaxies scenario (two
// colliding Plummer spheres) with N bodies in double, run to --end-time by every integrator at
// several step sizes (fixed-step and implicit methods) or tolerances (adaptive ones), measuring
// the relative energy change |E - E0| / |E0| and momentum change |P - P0| / sum m |v| at the
// end against the number of force evaluations.
//
//   partcl_bench_integrators [--n 512] [--end-time 2.5] [--methods NAME,...] [--device FILTER]
//
// One JSON line per (method, setting) on stdout; progress on stderr.
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/integrate/integrator.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/partcl.hpp>
#include <partcl/run/scenario.hpp>

#include "common.hpp"

using namespace partcl;
using namespace partcl_bench;

namespace {

struct Outcome {
    double energy_change, momentum_change;
    long evaluations, steps;
};

double momentum_scale(const Bodies& b) {
    double sum = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        sum += b.m[i] * std::sqrt(b.vx[i] * b.vx[i] + b.vy[i] * b.vy[i] + b.vz[i] * b.vz[i]);
    return sum;
}

Outcome integrate(Context& context, const Scenario& s, const Bodies& initial,
                  const std::string& method, double dt, AdaptiveTolerances tolerances) {
    DenseGravity gravity(context, Precision::float64, s.gravity);
    DeviceBodies bodies(context, Precision::float64, initial);
    NBodySystem system(context, gravity, bodies);
    VectorOps ops(context, Precision::float64);
    auto integrator = make_integrator(method, ops, 6 * initial.size(), tolerances);
    const NBodyDiagnostics d0 = measure(initial, system.potentials());
    long evaluations = 0, steps = 0;
    const Derivative inner = system.derivative();
    const Derivative f = [&](double t, const RealBuffer& y, RealBuffer& dydt) {
        ++evaluations;
        inner(t, y, dydt);
    };
    double t = 0;
    const double end = s.end_time;
    while (end - t > 1e-12 * end) {
        const double h = integrator->adaptive() ? std::min(dt, end - t) : dt;
        t += integrator->step(f, t, bodies.state, h);
        if (integrator->adaptive()) dt = integrator->next_dt();
        ++steps;
    }
    const Bodies last = bodies.download(context.queue(0));
    const NBodyDiagnostics d = measure(last, system.potentials());
    double dp = 0;
    for (int k = 0; k < 3; ++k) dp += std::pow(d.momentum[k] - d0.momentum[k], 2);
    return {std::abs(d.total() - d0.total()) / std::abs(d0.total()),
            std::sqrt(dp) / momentum_scale(initial), evaluations, steps};
}

} // namespace

int main(int argc, char** argv) {
    std::size_t n = 512;
    double end_time = 2.5;
    std::string device;
    std::vector<std::string> methods;
    CLI::App app{"Energy and momentum change against force evaluations for every integrator",
                 "partcl_bench_integrators"};
    app.add_option("--n", n, "Bodies (the galaxies scenario)");
    app.add_option("--end-time", end_time, "Simulated time");
    app.add_option("--device", device, "Device filter (default: the first device)");
    add_list(app, "--methods", methods, [](const std::string& m) { return m; },
             "Integrators (default: every method, no aliases)");
    parse_or_exit(app, argc, argv);
    if (methods.empty())
        for (const auto& info : integrator_catalog())
            if (info.alias_of.empty()) methods.push_back(info.name);

    const auto devices = DeviceFilter::from_environment(device).select();
    if (devices.empty()) throw Error("no device matches the filter");
    Context context(std::vector<Device>{devices.front()});
    Scenario s = builtin_scenario("galaxies");
    s.n = n;
    s.end_time = end_time;
    s.precision = Precision::float64;
    const Bodies initial = make_bodies(s);
    for (const std::string& method : methods) {
        const bool adaptive = integrator_adapts_step(method);
        const std::vector<double> settings =
            adaptive ? std::vector<double>{1e-5, 1e-7, 1e-9, 1e-11, 1e-13}
                     : std::vector<double>{0.05,     0.025,     0.0125,    0.00625,
                                           0.003125, 0.0015625, 0.00078125};
        for (double setting : settings) {
            std::cerr << method << " " << setting << "\n";
            nlohmann::ordered_json line = json_head("integrators", context.device(0));
            line["method"] = method;
            line["n"] = n;
            line["end_time"] = end_time;
            try {
                const Outcome o =
                    adaptive ? integrate(context, s, initial, method, s.dt, {setting, setting})
                             : integrate(context, s, initial, method, setting, {1e-13, 1e-13});
                line[adaptive ? "tolerance" : "dt"] = setting;
                line["steps"] = o.steps;
                line["evaluations"] = o.evaluations;
                line["energy_change"] = o.energy_change;
                line["momentum_change"] = o.momentum_change;
            } catch (const Error& e) {
                line[adaptive ? "tolerance" : "dt"] = setting;
                line["error"] = e.what();
            }
            print_json_line(line);
        }
    }
}
