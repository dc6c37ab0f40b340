// Electrostatic PIC: particle-steps per second of ElectrostaticPic (whole steps: cell sort and
// reorder, deposit, FFT Poisson solve, field, gather and push) on each selected device, for both
// deposit strategies, against the OpenMP CPU reference of the same step
// (partcl::reference::PicStep, -O3 -ffast-math) in the same run.
//
//   partcl_bench_pic [--device FILTER] [--dims 1,2,3] [--grid 64] [--n 1000000,4000000]
//                    [--precision float,double] [--deposit gather,atomic] [--steps 10]
//                    [--no-reference] [--split] [--profile]
//
// The plasma: electrons and ions (mass 100) at uniform random positions with thermal
// velocities, grid `--grid` nodes per axis. One JSON line per (device, dims, grid, N,
// precision, deposit) on stdout; progress on stderr. Device and reference take turns in blocks
// of --steps steps, three rounds; "ratio" is the median of the rounds' rate ratios. The device's
// clock stops after Queue::finish (a step returns with its last kernels still queued). A deposit
// the device cannot run (the atomic one in double without 64-bit atomics: require_deposit) is
// skipped with a note on stderr.
//
// --split runs one context of all the selected devices, the model's launches spread over them
// (POCL_DEVICES="pthread pthread" --split: two PoCL devices on the same cores, the overhead of
// the split). "split_kernel_share" is the split launches' kernel time (deposit, push; summed
// over devices) per step over the step's time: on one device, the rest is the cell sort and
// reorder, the FFT Poisson solve and field (device 0) and the host's overhead. "sort_share" and
// "fft_share" time those two alone on device 0 (a CellList build and the three gathers of all
// the model's particles, already in cell order as in a step; a forward and an inverse transform
// of the grid) over the step's time.
//
// --profile adds "profile": every command's device time per step (kernels, copies and the
// libraries' sorts and transforms, partcl::Profile), from --steps more steps.
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
#include "thermal_plasma.hpp"

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
    bool split = false;
    bool profile = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Electrostatic PIC against the OpenMP reference", "partcl_bench_pic"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({1, 2, 3}));
    add_numbers(app, "--grid", o.grids, "Grid nodes per axis");
    add_numbers(app, "--n", o.sizes, "Particle counts");
    add_precisions(app, o.precisions);
    add_deposits(app, o.deposits);
    app.add_option("--steps", o.steps, "Steps per timed block");
    app.add_flag("!--no-reference", o.reference, "Skip the OpenMP reference");
    app.add_flag("--split", o.split, "One context of all the selected devices");
    app.add_flag("--profile", o.profile, "Each command's device time per step (partcl::Profile)");
    parse_or_exit(app, argc, argv);
    o.steps = std::max(1, o.steps);
    return o;
}


// The split launches' kernel seconds so far, over every device.
double split_kernel_seconds(const ElectrostaticPic& pic) {
    double seconds = 0;
    for (const MultiDeviceLaunch* launch : pic.launches())
        for (const DeviceWork& work : launch->work()) seconds += work.seconds;
    return seconds;
}

// Seconds of one cell sort with its gathers and of one forward and inverse FFT, as a step makes
// them on device 0, from the model's particles now.
struct Device0Phases {
    double sort = 0, fft = 0;
};
Device0Phases device0_phases(Context& context, const ElectrostaticPic& pic, int steps) {
    const PicGrid& grid = pic.grid();
    const Precision precision = pic.precision();
    const std::size_t n = pic.size(), components = std::size_t(std::max(grid.dimensions, 2));
    const PicParticles now = pic.particles();
    Queue& queue = context.queue(0);
    std::vector<double> x(components * n, 0.0);
    std::copy(now.position.begin(), now.position.end(), x.begin());
    RealBuffer r(context, precision, x.size()), r_b(context, precision, x.size());
    RealBuffer v(context, precision, now.velocity.size()), v_b(context, precision, now.velocity.size());
    r.write(queue, x);
    v.write(queue, now.velocity);
    Buffer<std::uint32_t> species(context, now.species), species_b(context, n);
    CellGrid cells;
    cells.dimensions = int(components);
    cells.cell_size = grid.spacing;
    cells.cells = grid.nodes;
    CellList list(context, precision, cells);
    Fft fft(context, precision, {grid.nodes[0], grid.nodes[1], grid.nodes[2]});
    RealBuffer data(context, precision, 2 * grid.points());
    data.fill(queue, 0.0);
    auto sort = [&] {
        list.build(queue, r, n, n);
        list.gather(queue, r, r_b, grid.dimensions, n);
        list.gather(queue, v, v_b, grid.dimensions, n);
        list.gather(queue, species, species_b);
        queue.finish();
    };
    auto transform = [&] {
        fft.forward(data);
        fft.inverse(data);
        queue.finish();
    };
    sort();  // warm-up (builds, plans)
    transform();
    return {block_seconds(steps, sort) / steps, block_seconds(steps, transform) / steps};
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
        const auto selected = DeviceFilter::from_environment(o.device).select();
        std::vector<std::vector<Device>> contexts;
        if (o.split)
            contexts.push_back(selected);
        else
            for (const auto& device : selected) contexts.push_back({device});
        for (const auto& devices : contexts) {
            Context context(devices);
            const Device& device = devices.front();
            for (int dims : o.dims)
                for (std::uint32_t side : o.grids)
                    for (Precision precision : o.precisions) {
                        if (precision == Precision::float64 &&
                            !std::all_of(devices.begin(), devices.end(),
                                         [](const Device& each) { return each.info().fp64; }))
                            continue;
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
                                    for (const Device& each : devices)
                                        require_deposit(each.info(), precision, deposit);
                                } catch (const Unsupported& e) {
                                    std::cerr << "  skipped: " << e.what() << "\n";
                                    continue;
                                }
                                ElectrostaticPic pic(context, precision, grid, plasma, start, deposit);
                                Queue& queue = context.queue(0);
                                const double dt = 0.1;
                                pic.step(dt);  // warm-up (builds, plans)
                                queue.finish();
                                const double split_before = split_kernel_seconds(pic);
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
                                // Three rounds of o.steps steps, whatever the reference did.
                                const double split_per_step =
                                    (split_kernel_seconds(pic) - split_before) / (3.0 * o.steps);
                                auto line = json_head("pic", device);
                                line["devices"] = devices.size();
                                line["dims"] = dims;
                                line["grid"] = side;
                                line["n"] = n;
                                line["precision"] = to_string(precision);
                                line["deposit"] = name;
                                line["steps"] = o.steps;
                                line["seconds_per_step"] = significant(seconds, 6);
                                line["particle_steps_per_s"] = significant(double(n) / seconds, 4);
                                line["split_kernel_share"] = significant(split_per_step / seconds, 3);
                                const Device0Phases phases = device0_phases(context, pic, o.steps);
                                line["sort_share"] = significant(phases.sort / seconds, 3);
                                line["fft_share"] = significant(phases.fft / seconds, 3);
                                if (devices.size() > 1) add_launch_report(line, pic.launches());
                                if (o.profile)
                                    add_profile(line, o.steps, [&] {
                                        pic.step(dt);
                                        context.finish();
                                    });
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
