// Electrostatic PIC: particle-steps per second of ElectrostaticPic (whole steps: cell sort and
// reorder, deposit, FFT Poisson solve, field, gather and push) on each selected device, for both
// deposit strategies, against the OpenMP CPU reference of the same step
// (partcl::reference::PicStep, -O3 -ffast-math) in the same run.
//
//   partcl_bench_pic [--device FILTER] [--dims 1,2,3] [--grid 64] [--n 1000000,4000000]
//                    [--precision float,double] [--deposit gather,atomic] [--steps 10]
//                    [--no-reference]
//
// The plasma: electrons and ions (mass 100) at uniform random positions with thermal
// velocities, grid `--grid` nodes per axis. One JSON line per (device, dims, grid, N,
// precision, deposit) on stdout; progress on stderr. Device and reference take turns in blocks
// of --steps steps, three rounds; "ratio" is the median of the rounds' rate ratios. The device's
// clock stops after Queue::finish (a step returns with its last kernels still queued). A deposit
// the device cannot run (the atomic one in double without 64-bit atomics: require_deposit) is
// skipped with a note on stderr.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"

#include <omp.h>

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::vector<int> dims{3};
    std::vector<std::uint32_t> grids{64};
    std::vector<std::size_t> sizes{1000000};
    std::vector<Precision> precisions{Precision::float32, Precision::float64};
    std::vector<PicDeposit> deposits{PicDeposit::gather, PicDeposit::atomic};
    int steps = 10;
    bool reference = true;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Electrostatic PIC against the OpenMP reference", "partcl_bench_pic"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({1, 2, 3}));
    add_numbers(app, "--grid", o.grids, "Grid nodes per axis");
    add_numbers(app, "--n", o.sizes, "Particle counts");
    add_precisions(app, o.precisions);
    add_list(app, "--deposit", o.deposits,
             [](const std::string& s) {
                 if (s == "gather") return PicDeposit::gather;
                 if (s == "atomic") return PicDeposit::atomic;
                 throw UsageError("--deposit takes gather and atomic, not '" + s + "'");
             },
             "gather, atomic");
    app.add_option("--steps", o.steps, "Steps per timed block");
    app.add_flag("!--no-reference", o.reference, "Skip the OpenMP reference");
    parse_or_exit(app, argc, argv);
    o.steps = std::max(1, o.steps);
    return o;
}

const std::vector<PicSpecies> plasma{{-1.0, 1.0, 1.0}, {1.0, 100.0, 1.0}};

PicParticles particles(const PicGrid& grid, std::size_t n) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> thermal(0.0, 0.1);
    PicParticles p;
    p.dimensions = grid.dimensions;
    for (int k = 0; k < grid.dimensions; ++k)
        for (std::size_t i = 0; i < n; ++i) p.position.push_back(u(rng) * grid.length(k));
    for (std::size_t i = 0; i < grid.dimensions * n; ++i) p.velocity.push_back(thermal(rng));
    for (std::size_t i = 0; i < n; ++i) p.species.push_back(std::uint32_t(i % 2));
    return p;
}

template <class T>
double reference_seconds(const PicGrid& grid, const ElectrostaticPic& pic, double dt, int steps) {
    const PicParticles now = pic.particles();
    std::vector<T> x(now.position.begin(), now.position.end());
    std::vector<T> v(now.velocity.begin(), now.velocity.end());
    std::vector<std::uint32_t> species = now.species;
    reference::PicStep<T> step(grid, plasma);
    step.step(x, v, species, dt, dt);  // warm-up
    return block_seconds(steps, [&] { step.step(x, v, species, dt, dt); });
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device).select();
        for (const auto& device : devices) {
            Context context(std::vector<Device>{device});
            for (int dims : o.dims)
                for (std::uint32_t side : o.grids)
                    for (Precision precision : o.precisions) {
                        if (precision == Precision::float64 && !device.info().fp64) continue;
                        for (std::size_t n : o.sizes) {
                            PicGrid grid;
                            grid.dimensions = dims;
                            for (int k = 0; k < 3; ++k) grid.nodes[k] = k < dims ? side : 1;
                            grid.spacing = 1;
                            const PicParticles start = particles(grid, n);
                            for (PicDeposit deposit : o.deposits) {
                                const char* name = deposit == PicDeposit::gather ? "gather" : "atomic";
                                std::cerr << device.info().name << " " << dims << "-D grid " << side
                                          << " " << to_string(precision) << " N=" << n << " "
                                          << name << "...\n";
                                try {
                                    require_deposit(device.info(), precision, deposit);
                                } catch (const Unsupported& e) {
                                    std::cerr << "  skipped: " << e.what() << "\n";
                                    continue;
                                }
                                ElectrostaticPic pic(context, precision, grid, plasma, start, deposit);
                                Queue& queue = context.queue(0);
                                const double dt = 0.1;
                                pic.step(dt);  // warm-up (builds, plans)
                                queue.finish();
                                const Turns turns = take_turns(
                                    [&] {
                                        // A step returns with its deposit, FFTs and field still
                                        // queued: the clock stops when they are done.
                                        return block_seconds(1, [&] {
                                            for (int k = 0; k < o.steps; ++k) pic.step(dt);
                                            queue.finish();
                                        });
                                    },
                                    !o.reference ? std::function<double()>()
                                    : precision == Precision::float64
                                        ? std::function<double()>([&] { return reference_seconds<double>(grid, pic, dt, o.steps); })
                                        : std::function<double()>([&] { return reference_seconds<float>(grid, pic, dt, o.steps); }));
                                const double seconds = turns.device / o.steps;
                                auto line = json_head("pic", device);
                                line["dims"] = dims;
                                line["grid"] = side;
                                line["n"] = n;
                                line["precision"] = to_string(precision);
                                line["deposit"] = name;
                                line["steps"] = o.steps;
                                line["seconds_per_step"] = significant(seconds, 6);
                                line["particle_steps_per_s"] = significant(double(n) / seconds, 4);
                                if (o.reference)
                                    add_step_reference(line, turns, o.steps, n, omp_get_max_threads());
                                print_json_line(line);
                            }
                        }
                    }
        }
    } catch (const UsageError& e) {
        std::cerr << "partcl_bench_pic: " << e.what() << "\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "partcl_bench_pic: " << e.what() << "\n";
        return 1;
    }
}
