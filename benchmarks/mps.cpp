// Explicit MPS: particle-steps per second of MpsFluid (whole steps: neighbour search, the four
// kernels, the CFL reduction) on each selected device against the OpenMP CPU reference of the
// same step (partcl::reference::MpsStep, -O3 -ffast-math -march=native) in the same run.
//
//   partcl_bench_mps [--device FILTER] [--dims 2,3] [--n 10000,100000] [--precision float,double]
//                    [--steps 20] [--no-reference] [--split]
//
// The scene is a dam break: a water block of about N fluid particles in a tank with walls, run
// for 50 steps first so the flow moves. One JSON line per (device, dims, N, precision) on
// stdout, "n" counting every particle (walls and dummies included); progress on stderr. Device
// and reference take turns in blocks of --steps steps, three rounds; "ratio" is the median of
// the rounds' rate ratios. --split instead times one context of all the selected devices (each
// step spread over them; "devices" counts them, "device" names the first) in turns with the first
// device alone, the same scene on each: "spread_over_one" is the spread step's time over the
// one-device step's, the median over three rounds, and "migrated" the particles that changed
// device in the last step (with POCL_DEVICES="pthread pthread": the overhead of the split on the
// same cores).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"
#include "dam_break_scene.hpp"

#include <omp.h>

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::vector<int> dims{2, 3};
    std::vector<std::size_t> sizes{10000, 100000};
    std::vector<Precision> precisions{Precision::float32, Precision::float64};
    int steps = 20;
    bool reference = true;
    bool split = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Explicit MPS against the OpenMP reference", "partcl_bench_mps"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({2, 3}));
    add_numbers(app, "--n", o.sizes, "Fluid particle counts");
    add_precisions(app, o.precisions);
    app.add_option("--steps", o.steps, "Steps per timed block");
    app.add_flag("!--no-reference", o.reference, "Skip the OpenMP reference");
    app.add_flag("--split", o.split,
                 "Time one context of all the selected devices against the first alone");
    parse_or_exit(app, argc, argv);
    o.steps = std::max(1, o.steps);
    return o;
}

template <class T>
double reference_seconds(const MpsParameters& p, const MpsFluid& fluid, int steps) {
    const MpsParticles now = fluid.particles();
    const std::size_t n = now.size();
    std::vector<T> r(now.position.begin(), now.position.end()), u(now.velocity.begin(), now.velocity.end()), pressure;
    std::vector<std::uint32_t> type(n);
    for (std::size_t i = 0; i < n; ++i) type[i] = std::uint32_t(now.type[i]);
    reference::MpsStep<T> step(p, fluid.grid(), fluid.n0(), fluid.n0_laplacian(), fluid.lambda0());
    const double dt = fluid.next_dt();
    step.step(r, u, type, pressure, dt);  // warm-up
    return block_seconds(steps, [&] { step.step(r, u, type, pressure, dt); });
}

// One JSON line per (dims, N, precision) on `context`.
void run(Context& context, const Options& o) {
    const Device& device = context.device(0);
    for (int dims : o.dims)
        for (Precision precision : o.precisions) {
            bool fp64 = true;
            for (const Device& d : context.devices()) fp64 = fp64 && d.info().fp64;
            if (precision == Precision::float64 && !fp64) continue;
            for (std::size_t target : o.sizes) {
                MpsParameters p;
                const MpsScene s = dam_break_scene(dims, target, p);
                const std::size_t n = s.particles.size();
                std::cerr << device.info().name << " x" << context.size() << " " << dims << "-D "
                          << to_string(precision) << " N=" << n << "...\n";
                MpsFluid fluid(context, precision, p, s.particles, s.lower, s.upper);
                for (int k = 0; k < 50; ++k) fluid.step();
                const Turns turns = take_turns(
                    [&] { return block_seconds(o.steps, [&] { fluid.step(); }); },  // waits (CFL)
                    !o.reference ? std::function<double()>()
                    : precision == Precision::float64
                        ? std::function<double()>([&] { return reference_seconds<double>(p, fluid, o.steps); })
                        : std::function<double()>([&] { return reference_seconds<float>(p, fluid, o.steps); }));
                const double seconds = turns.device / o.steps;
                auto line = json_head("mps", device);
                line["devices"] = context.size();
                line["dims"] = dims;
                line["n"] = n;
                line["fluid"] = s.particles.count(MpsType::fluid);
                line["precision"] = to_string(precision);
                line["steps"] = o.steps;
                line["seconds_per_step"] = significant(seconds, 6);
                line["particle_steps_per_s"] = significant(double(n) / seconds, 4);
                if (o.reference) add_step_reference(line, turns, o.steps, n, omp_get_max_threads());
                print_json_line(line);
            }
        }
}

} // namespace

// --split: one line per (dims, N, precision), the context of all `devices` against the first.
void run_spread(const std::vector<Device>& devices, const Options& o) {
    Context all(devices), one(std::vector<Device>{devices[0]});
    for (int dims : o.dims)
        for (Precision precision : o.precisions) {
            bool fp64 = true;
            for (const Device& d : devices) fp64 = fp64 && d.info().fp64;
            if (precision == Precision::float64 && !fp64) continue;
            for (std::size_t target : o.sizes) {
                MpsParameters p;
                const MpsScene s = dam_break_scene(dims, target, p);
                const std::size_t n = s.particles.size();
                std::cerr << devices.size() << " devices " << dims << "-D "
                          << to_string(precision) << " N=" << n << "...\n";
                MpsFluid spread(all, precision, p, s.particles, s.lower, s.upper);
                MpsFluid alone(one, precision, p, s.particles, s.lower, s.upper);
                for (int k = 0; k < 50; ++k) spread.step(), alone.step();
                const Turns turns = take_turns(
                    [&] { return block_seconds(o.steps, [&] { spread.step(); }); },  // waits (CFL)
                    [&] { return block_seconds(o.steps, [&] { alone.step(); }); });
                auto line = json_head("mps", devices[0]);
                line["devices"] = devices.size();
                line["dims"] = dims;
                line["n"] = n;
                line["fluid"] = s.particles.count(MpsType::fluid);
                line["precision"] = to_string(precision);
                line["steps"] = o.steps;
                line["seconds_per_step"] = significant(turns.device / o.steps, 6);
                line["one_device_seconds_per_step"] = significant(turns.reference / o.steps, 6);
                line["particle_steps_per_s"] = significant(double(n) * o.steps / turns.device, 4);
                line["spread_over_one"] = decimals(1 / turns.ratio, 3);
                line["migrated"] = spread.migrated();
                add_launch_report(line, spread.launches());
                print_json_line(line);
            }
        }
}

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device).select();
        if (o.split && devices.size() > 1) {
            run_spread(devices, o);
            return 0;
        }
        for (const auto& device : devices) {
            Context context(std::vector<Device>{device});
            run(context, o);
        }
    } catch (const UsageError& e) {
        std::cerr << "partcl_bench_mps: " << e.what() << "\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "partcl_bench_mps: " << e.what() << "\n";
        return 1;
    }
}
