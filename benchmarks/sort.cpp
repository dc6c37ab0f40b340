// SortByKey's two methods on the same device in the same run: the backend's library (CUB on
// CUDA, Boost.Compute on OpenCL) against partcl's radix sort, on the keys partcl sorts.
//
//   partcl_bench_sort [--device FILTER] [--backend auto|opencl|cuda] [--n 1048576,16777216]
//                     [--keys cells,u32,float,double] [--repeat 5]
//
// Keys: "cells", cell indices of a 128^3 grid (21 bits, as PIC's and MPS's cell sorts);
// "u32", all 32 bits; "float" and "double", normal reals (the tree build's coordinate sorts).
// Each timed sort starts from the same unsorted keys (copied in, untimed); the median of
// --repeat sorts of each method, the methods in turns. One JSON line per (keys, n) on stdout:
// the seconds and keys per second of each, "library_over_radix" (the library's time over the
// radix sort's: above 1, the radix sort is faster), "automatic" (the method SortByKey picks
// on this device) and "same" (both gave the same keys and values, as two stable sorts must).
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<std::size_t> sizes{1 << 20};
    std::vector<std::string> keys{"cells", "u32", "float", "double"};
    int repeat = 5;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"SortByKey: the library's sort against partcl's radix sort", "partcl_bench_sort"};
    app.add_option("--device", o.device, "Device filter (as partcl --device); the first is used");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Keys per sort");
    add_list(app, "--keys", o.keys,
             [](const std::string& k) {
                 if (k != "cells" && k != "u32" && k != "float" && k != "double")
                     throw UsageError("--keys: cells, u32, float or double, not " + k);
                 return k;
             },
             "Key kinds");
    app.add_option("--repeat", o.repeat, "Timed sorts per method (the median is taken)");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    return o;
}

const char* name(SortMethod method) {
    return method == SortMethod::radix ? "radix" : method == SortMethod::library ? "library"
                                                                                 : "automatic";
}

// One method's sorter and buffers; keys are a Buffer<uint32_t> or a RealBuffer.
template <class Keys>
struct Side {
    SortByKey sort;
    Keys keys;
    Buffer<std::uint32_t> values;
};

template <class Keys>
void measure(Context& context, const Options& o, const std::string& kind, std::size_t n,
             const Keys& pristine, unsigned bits) {
    Queue& queue = context.queue(0);
    const Buffer<std::uint32_t> index = [&] {
        std::vector<std::uint32_t> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = std::uint32_t(i);
        return Buffer<std::uint32_t>(context, v);
    }();
    auto make = [&](SortMethod method) {
        Keys keys = [&] {
            if constexpr (std::is_same_v<Keys, RealBuffer>)
                return RealBuffer(context, pristine.precision(), n);
            else
                return Keys(context, n);
        }();
        return Side<Keys>{SortByKey(context, ProgramCache::global(), std::nullopt, method),
                          std::move(keys), Buffer<std::uint32_t>(context, n)};
    };
    Side<Keys> library = make(SortMethod::library), radix = make(SortMethod::radix);
    auto run = [&](Side<Keys>& side) {
        pristine.copy_to(queue, side.keys, n);
        index.copy_to(queue, side.values, n);
        queue.finish();
        return block_seconds(1, [&] {
            if constexpr (std::is_same_v<Keys, RealBuffer>)
                side.sort(queue, side.keys, side.values, n);
            else
                side.sort(queue, side.keys, side.values, n, bits);
            queue.finish();
        });
    };
    std::vector<double> library_times, radix_times;
    run(library), run(radix);  // programs built, scratch allocated
    for (int r = 0; r < o.repeat; ++r) {
        library_times.push_back(run(library));
        radix_times.push_back(run(radix));
    }
    const bool same = library.keys.read(queue) == radix.keys.read(queue) &&
                      library.values.read(queue) == radix.values.read(queue);
    const Device& device = context.device(0);
    const double l = median(library_times), x = median(radix_times);
    nlohmann::ordered_json line = json_head("sort", device);
    line["backend"] = to_string(device.backend());
    line["keys"] = kind;
    line["n"] = n;
    line["key_bits"] = bits;
    line["library_seconds"] = significant(l, 4);
    line["radix_seconds"] = significant(x, 4);
    line["library_keys_per_s"] = significant(double(n) / l, 4);
    line["radix_keys_per_s"] = significant(double(n) / x, 4);
    line["library_over_radix"] = decimals(l / x, 3);
    line["automatic"] = name(sort_method_for(device.info(), n, bits));
    line["same"] = same;
    print_json_line(line);
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        Context context = first_device_context(o.device, o.backend);
        std::mt19937_64 rng(2026);
        for (std::size_t n : o.sizes)
            for (const std::string& kind : o.keys) {
                std::cerr << "sort: " << kind << " keys, n = " << n << "\n";
                if (kind == "cells" || kind == "u32") {
                    const unsigned bits = kind == "cells" ? 21 : 32;
                    std::uniform_int_distribution<std::uint32_t> key(
                        0, bits == 32 ? 0xffffffffu : (1u << bits) - 1);
                    std::vector<std::uint32_t> keys(n);
                    for (auto& k : keys) k = key(rng);
                    measure(context, o, kind, n, Buffer<std::uint32_t>(context, keys), bits);
                } else {
                    const Precision p = kind == "float" ? Precision::float32 : Precision::float64;
                    if (p == Precision::float64 && !context.device(0).info().fp64) continue;
                    std::normal_distribution<double> normal(0.0, 1.0);
                    std::vector<double> keys(n);
                    for (auto& k : keys) k = normal(rng);
                    RealBuffer pristine(context, p, n);
                    pristine.write(context.queue(0), keys);
                    measure(context, o, kind, n, pristine, unsigned(8 * size_of(p)));
                }
            }
    } catch (const std::exception& e) {
        std::cerr << "partcl_bench_sort: " << e.what() << "\n";
        return 1;
    }
}
