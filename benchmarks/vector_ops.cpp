// VectorOps, the integrators' whole-vector operations, spread over all the selected devices
// against the first device alone: what the split costs or gains.
//
//   partcl_bench_vector_ops [--device FILTER] [--backend auto|opencl|cuda] [--n 262144]
//                           [--precision float,double] [--repeat 5] [--calls 20]
//
// One JSON line per (operation, N, precision) on stdout; progress on stderr. Operations:
// "combine" (y = y + 4 terms, rk4's last stage), "copy", "error_norm" (max_scaled_error).
// The two contexts take turns in blocks of --calls calls, --repeat blocks each (the median),
// three rounds; "spread_over_one" is the spread time over the one-device time, the median over
// rounds. With POCL_DEVICES="pthread pthread" --device all both contexts run on the same cores.
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <partcl/integrate/vector_ops.hpp>
#include <partcl/partcl.hpp>

#include "common.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<std::size_t> sizes{262144};
    std::vector<Precision> precisions{Precision::float32, Precision::float64};
    int repeat = 5;
    int calls = 20;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"VectorOps spread over the selected devices against the first alone",
                 "partcl_bench_vector_ops"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Vector lengths");
    add_precisions(app, o.precisions);
    app.add_option("--repeat", o.repeat, "Timed blocks per turn (the median is taken)");
    app.add_option("--calls", o.calls, "Calls per timed block");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    o.calls = std::max(1, o.calls);
    return o;
}

// One context's vectors and operations.
struct Side {
    VectorOps ops;
    std::vector<RealBuffer> v;  // y, k1..k4, err

    Side(Context& context, Precision precision, std::size_t n) : ops(context, precision) {
        std::mt19937_64 rng(12345);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<double> values(n);
        for (int i = 0; i < 6; ++i) {
            for (double& x : values) x = u(rng) * (i == 5 ? 1e-6 : 1.0);
            v.emplace_back(context, precision, n);
            v.back().write(context.queue(0), values);
        }
    }
    void run(const std::string& operation, std::size_t n) {
        if (operation == "combine")
            ops.combine(n, v[0], 0, v[0], 0,
                        {{1e-3, &v[1]}, {2e-3, &v[2]}, {2e-3, &v[3]}, {1e-3, &v[4]}});
        else if (operation == "copy")
            ops.copy(n, v[1], 0, v[2], 0);
        else
            ops.max_scaled_error(n, v[5], v[0], v[1], 1e-8, 1e-8);
    }
};

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device, o.backend).select();
        Context all(devices), one(std::vector<Device>{devices[0]});
        for (Precision precision : o.precisions) {
            if (precision == Precision::float64 && !devices[0].info().fp64) continue;
            for (std::size_t n : o.sizes) {
                Side spread(all, precision, n), alone(one, precision, n);
                for (const std::string operation : {"combine", "copy", "error_norm"}) {
                    std::cerr << devices.size() << " devices " << operation << " "
                              << to_string(precision) << " N=" << n << "...\n";
                    auto block = [&](Side& side) {
                        return median_seconds(o.repeat, [&] {
                                   for (int c = 0; c < o.calls; ++c) side.run(operation, n);
                                   side.ops.context().finish();  // one device's launches do not wait
                               }) / o.calls;
                    };
                    const Turns turns =
                        take_turns([&] { return block(spread); }, [&] { return block(alone); });
                    auto line = json_head("vector_ops", devices[0]);
                    line["backend"] = to_string(devices[0].backend());
                    line["devices"] = devices.size();
                    line["operation"] = operation;
                    line["n"] = n;
                    line["precision"] = to_string(precision);
                    line["seconds"] = significant(turns.device, 6);
                    line["one_device_seconds"] = significant(turns.reference, 6);
                    line["spread_over_one"] = decimals(1 / turns.ratio, 3);
                    print_json_line(line);
                }
            }
        }
    } catch (const UsageError& e) {
        std::cerr << "partcl_bench_vector_ops: " << e.what() << "\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "partcl_bench_vector_ops: " << e.what() << "\n";
        return 1;
    }
}
