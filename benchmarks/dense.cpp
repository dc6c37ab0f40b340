// Dense N-body: interactions per second of DenseGravity on each selected device against the
// OpenMP CPU reference (partcl::reference::dense_gravity, same algorithm, structure of arrays,
// -O3 -ffast-math -march=native, vectorised) measured in the same run.
//
//   partcl_bench_dense [--device FILTER] [--backend auto|opencl|cuda] [--n 1024,4096,16384,65536] [--precision float,double]
//                      [--repeat 5] [--tile T [--targets K]] [--parts P] [--autotune] [--fast-math] [--no-reference]
//                      [--split]
//
// One JSON line per (device, N, precision) on stdout; progress on stderr. Kernel and reference
// are timed in alternating blocks of --repeat evaluations, three rounds (docs/performance.md);
// "ratio" is the device's rate over the reference's, the median over rounds.
//
// --split: one line per (N, precision) for a context of all the selected devices, each
// evaluation spread over them, timed in turns with the first device alone (instead of the
// reference); "spread_over_one" is the spread time over the one-device time, the median over
// rounds (e.g. POCL_DEVICES="pthread pthread" --device all: the cost of the split on one CPU).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/dense_reference.hpp>
#include <partcl/partcl.hpp>

#include "common.hpp"

#include <omp.h>

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<std::size_t> sizes{1024, 4096, 16384, 65536};
    std::vector<Precision> precisions{Precision::float32, Precision::float64};
    int repeat = 5;
    DenseOptions dense;
    bool reference = true;
    bool spread = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Dense N-body against the OpenMP reference", "partcl_bench_dense"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Body counts");
    add_precisions(app, o.precisions);
    app.add_option("--repeat", o.repeat, "Evaluations per timed block");
    auto* tile = app.add_option("--tile", o.dense.tile, "Force this tile (work-group) size");
    app.add_option("--targets", o.dense.targets, "Targets per work-item of the forced tile")
        ->needs(tile);
    app.add_flag("--autotune", o.dense.autotune, "Time the candidate shapes first");
    app.add_flag("--fast-math", o.dense.fast_math, "Build with -cl-fast-relaxed-math");
    app.add_option("--parts", o.dense.source_parts,
                   "Source parts of the tiled form (0: automatic, 1: none)");
    app.add_flag("!--no-reference", o.reference, "Skip the OpenMP reference");
    app.add_flag("--split", o.spread,
                 "Spread each evaluation over all the selected devices, timed against the first "
                 "alone");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    return o;
}

Bodies cube(std::size_t n) {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = u(rng), b.y[i] = u(rng), b.z[i] = u(rng);
        b.m[i] = 1.0 / double(n);
    }
    return b;
}

// The reference on the same bodies, in T.
template <class T>
std::function<void()> reference_of(const Bodies& b) {
    const std::size_t n = b.size();
    auto data = std::make_shared<std::vector<T>>(7 * n);
    T* p = data->data();
    std::copy(b.x.begin(), b.x.end(), p);
    std::copy(b.y.begin(), b.y.end(), p + n);
    std::copy(b.z.begin(), b.z.end(), p + 2 * n);
    std::copy(b.m.begin(), b.m.end(), p + 3 * n);
    return [data, n] {
        T* p = data->data();
        reference::dense_gravity<T>(n, p, p + n, p + 2 * n, p + 3 * n, T(0.0025), T(1), 0, n,
                                    p + 4 * n, p + 5 * n, p + 6 * n, nullptr);
    };
}

// --split: every evaluation over all `devices` against the first device alone, in turns.
void measure_spread(const Options& o, const std::vector<Device>& devices) {
    Context all(devices), one(std::vector<Device>{devices[0]});
    for (Precision precision : o.precisions) {
        if (precision == Precision::float64 && !devices[0].info().fp64) continue;
        DenseGravity spread(all, precision, {1.0, 0.05}, o.dense);
        DenseGravity alone(one, precision, {1.0, 0.05}, o.dense);
        for (std::size_t n : o.sizes) {
            std::cerr << devices.size() << " devices " << to_string(precision) << " N=" << n
                      << "...\n";
            const Bodies b = cube(n);
            DeviceBodies bodies_all(all, precision, b), bodies_one(one, precision, b);
            RealBuffer acc_all(all, precision, 3 * n), acc_one(one, precision, 3 * n);
            const Turns turns = take_turns(
                [&] {
                    return median_seconds(o.repeat, [&] {
                        spread.accelerations(bodies_all.state, bodies_all.mass, n, acc_all, 0);
                        all.finish();
                    });
                },
                [&] {
                    return median_seconds(o.repeat, [&] {
                        alone.accelerations(bodies_one.state, bodies_one.mass, n, acc_one, 0);
                        one.finish();  // one device's launch returns before it is done
                    });
                });
            auto line = json_head("dense", devices[0]);
            line["backend"] = to_string(devices[0].backend());
            line["devices"] = devices.size();
            line["n"] = n;
            line["precision"] = to_string(precision);
            line["seconds"] = significant(turns.device, 6);
            line["one_device_seconds"] = significant(turns.reference, 6);
            line["spread_over_one"] = decimals(1 / turns.ratio, 3);
            std::vector<double> weights = spread.scheduler().weights();
            for (double& w : weights) w = decimals(w, 3);
            line["weights"] = weights;
            add_launch_report(line, spread.launches());
            print_json_line(line);
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device, o.backend).select();
        if (o.spread) {
            measure_spread(o, devices);
            return 0;
        }
        for (const auto& device : devices) {
            Context context(std::vector<Device>{device});
            for (Precision precision : o.precisions) {
                if (precision == Precision::float64 && !device.info().fp64) continue;
                DenseGravity gravity(context, precision, {1.0, 0.05}, o.dense);
                for (std::size_t n : o.sizes) {
                    std::cerr << device.info().name << " " << to_string(precision) << " N=" << n
                              << "...\n";
                    const Bodies b = cube(n);
                    DeviceBodies bodies(context, precision, b);
                    RealBuffer acc(context, precision, 3 * n);
                    auto evaluate = [&] {
                        gravity.accelerations(bodies.state, bodies.mass, n, acc, 0);
                        context.finish();  // one device's launch returns before it is done
                    };
                    // Kernel and reference take turns in blocks of `repeat` runs, three rounds,
                    // so a slow spell of this shared machine weighs on both; each block starts
                    // after a pause in which the other side's idle threads stop spinning. The
                    // ratio is the median over rounds of the ratio of the blocks' medians.
                    const std::function<void()> reference =
                        !o.reference ? std::function<void()>()
                        : precision == Precision::float64 ? reference_of<double>(b)
                                                          : reference_of<float>(b);
                    const Turns turns = take_turns(
                        [&] { return median_seconds(o.repeat, evaluate); },
                        reference ? std::function<double()>([&] { return median_seconds(o.repeat, reference); })
                                  : std::function<double()>());
                    const double seconds = turns.device;
                    const double rate = double(n) * double(n) / seconds;
                    auto line = json_head("dense", device);
                    line["backend"] = to_string(device.backend());
                    line["n"] = n;
                    line["precision"] = to_string(precision);
                    line["tile"] = gravity.shape(0).tile;
                    line["lanes"] = gravity.shape(0).lanes;
                    line["unroll"] = gravity.shape(0).unroll;
                    line["targets"] = gravity.shape(0).targets;
                    line["shape"] = gravity.shape_origin(0);
                    line["parts"] = gravity.source_parts(0, n);
                    line["parts_option"] = o.dense.source_parts;
                    line["fast_math"] = o.dense.fast_math;
                    line["seconds"] = significant(seconds, 6);
                    line["interactions_per_s"] = significant(rate, 4);
                    if (reference) {
                        const double ref = turns.reference;
                        line["reference"] = "openmp";
                        line["reference_threads"] = omp_get_max_threads();
                        line["reference_seconds"] = significant(ref, 6);
                        line["reference_interactions_per_s"] = significant(double(n) * double(n) / ref, 4);
                        line["ratio"] = decimals(turns.ratio, 3);
                    }
                    print_json_line(line);
                }
            }
        }
    } catch (const UsageError& e) {
        std::cerr << "partcl_bench_dense: " << e.what() << "\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "partcl_bench_dense: " << e.what() << "\n";
        return 1;
    }
}
