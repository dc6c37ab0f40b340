#pragma once
// What every partcl benchmark program needs: its command line (CLI11, with comma-separated
// lists) and median timings.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/filter.hpp>
#include <partcl/runtime/profile.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/backend/precision.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl_bench {

// A comma-separated list option ("--n 1024,4096"): each item through `convert` (which may throw
// partcl::UsageError); the list replaces `out`'s defaults when the option is given.
template <class T, class Convert>
CLI::Option* add_list(CLI::App& app, const std::string& name, std::vector<T>& out,
                      Convert convert, const std::string& help) {
    return app
        .add_option_function<std::vector<std::string>>(
            name,
            [&out, convert](const std::vector<std::string>& items) {
                out.clear();
                for (const auto& item : items) out.push_back(convert(item));
            },
            help)
        ->delimiter(',')
        ->type_name("A,B,...");
}

// A comma-separated list of numbers.
template <class T>
CLI::Option* add_numbers(CLI::App& app, const std::string& name, std::vector<T>& out,
                         const std::string& help) {
    return app.add_option(name, out, help)->delimiter(',')->type_name("N,N,...");
}

// --precision float,double
inline CLI::Option* add_precisions(CLI::App& app, std::vector<partcl::Precision>& out) {
    return add_list(app, "--precision", out, partcl::parse_precision, "Precisions to measure");
}

// Parses the command line: --help prints the options and exits 0; a bad command line (CLI11's
// errors, or a UsageError from a value) prints why and exits 2.
inline void parse_or_exit(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        std::exit(app.exit(e) == 0 ? 0 : 2);
    } catch (const partcl::UsageError& e) {
        std::cerr << app.get_name() << ": " << e.what() << "\n" << app.help();
        std::exit(2);
    }
}

// A context of the first device that --device (a filter, as partcl --device; PARTCL_DEVICE when
// empty) and --backend select, for the benchmarks that measure one device.
inline partcl::Context first_device_context(const std::string& filter, const std::string& backend) {
    const auto devices = partcl::DeviceFilter::from_environment(filter, backend).select();
    return partcl::Context(std::vector<partcl::Device>{devices.at(0)});
}

// A benchmark's JSON line, {"bench":NAME,"device":...,"platform":...}, for the caller to add
// its own fields to (they keep the order they are added in).
inline nlohmann::ordered_json json_head(const char* bench, const partcl::Device& device) {
    return {{"bench", bench}, {"device", device.info().name}, {"platform", device.info().platform}};
}

// Prints `line` as one line of JSON on stdout. Invalid UTF-8 in a driver's string becomes U+FFFD
// rather than stopping the benchmark.
inline void print_json_line(const nlohmann::ordered_json& line) {
    std::cout << line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << std::endl;
}

// `value` rounded to `digits` significant digits (printf's %g): a timing means no more, and the
// line stays readable.
inline double significant(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    return std::strtod(text, nullptr);
}

// `steps` more calls of `step` (which finishes its queues) under a partcl::Profile, as
// line["profile"]: each command name's count and device milliseconds per step on each device,
// the longest first, and "device_ms_per_step", their sum over every device.
template <class Step>
void add_profile(nlohmann::ordered_json& line, int steps, Step&& step) {
    partcl::Profile profile;
    for (int k = 0; k < steps; ++k) step();
    auto& list = line["profile"] = nlohmann::ordered_json::array();
    double total = 0;
    for (const partcl::Profile::Entry& e : profile.entries()) {
        list.push_back({{"name", e.name}, {"device", e.device},
                        {"per_step", significant(double(e.count) / steps, 4)},
                        {"ms_per_step", significant(1e3 * e.seconds / steps, 4)}});
        total += e.seconds;
    }
    line["device_ms_per_step"] = significant(1e3 * total / steps, 4);
}

// `value` rounded to `digits` decimals (printf's %f).
inline double decimals(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return std::strtod(text, nullptr);
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The value below which a fraction p of v lies (p in [0, 1]; v not empty).
inline double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

// Each of the first m bodies' |a - exact| / |exact|: `a` holds n bodies' vectors (x | y | z, n
// apart), `exact` m bodies' (m apart).
inline std::vector<double> relative_errors(const std::vector<double>& a, std::size_t n,
                                           const std::vector<double>& exact, std::size_t m) {
    std::vector<double> errors(m);
    for (std::size_t i = 0; i < m; ++i) {
        double d2 = 0, e2 = 0;
        for (std::size_t k = 0; k < 3; ++k) {
            const double d = a[k * n + i] - exact[k * m + i];
            d2 += d * d;
            e2 += exact[k * m + i] * exact[k * m + i];
        }
        errors[i] = std::sqrt(d2 / e2);
    }
    return errors;
}

// Each step's seconds, to 4 digits, as a JSON array ("each_step_seconds").
inline nlohmann::ordered_json seconds_array(const std::vector<double>& seconds) {
    nlohmann::ordered_json each = nlohmann::ordered_json::array();
    for (double t : seconds) each.push_back(significant(t, 4));
    return each;
}

// Wall time of `count` runs of `run` in a row, after a pause (in which another side's idle
// threads stop spinning).
template <class F>
double block_seconds(int count, F&& run) {
    using Clock = std::chrono::steady_clock;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i) run();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Median wall time of `repeat` runs, after a pause (in which another side's idle threads stop
// spinning) and one untimed run.
template <class F>
double median_seconds(int repeat, F&& run) {
    using Clock = std::chrono::steady_clock;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    run();
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
        const auto start = Clock::now();
        run();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return median(times);
}

// A device and a reference taking turns, three rounds: each round times one block of the
// device (`device()`, seconds) and then, when `reference` is set, one of the reference.
// Medians of each side's blocks, and of the rounds' ratios (reference time over device time).
struct Turns {
    double device = 0, reference = 0, ratio = 0;
};

template <class Device>
Turns take_turns(Device&& device, const std::function<double()>& reference) {
    std::vector<double> times, reference_times, ratios;
    for (int round = 0; round < 3; ++round) {
        times.push_back(device());
        if (!reference) continue;
        reference_times.push_back(reference());
        ratios.push_back(reference_times.back() / times.back());
    }
    Turns turns;
    turns.device = median(times);
    if (reference) {
        turns.reference = median(reference_times);
        turns.ratio = median(ratios);
    }
    return turns;
}

// The OpenMP reference's fields of a line of per-step figures over n particles (MPS, PIC):
// what it is, its threads, its time per step and rate, and the median ratio of the rounds.
inline void add_step_reference(nlohmann::ordered_json& line, const Turns& turns, int steps,
                               std::size_t n, int threads) {
    const double seconds = turns.reference / steps;
    line["reference"] = "openmp";
    line["reference_threads"] = threads;
    line["reference_seconds_per_step"] = significant(seconds, 6);
    line["reference_particle_steps_per_s"] = significant(double(n) / seconds, 4);
    line["ratio"] = decimals(turns.ratio, 3);
}

// "launches": per multi-device launch of a model, each device's share of the items and its mean
// kernel seconds a launch, since the model was made. Against the step's wall time it tells
// what the split launches cost and what the rest (device 0's own work, waits, transfers) does.
inline void add_launch_report(nlohmann::ordered_json& line, const partcl::LaunchList& launches) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const partcl::MultiDeviceLaunch* launch : launches) {
        const auto& work = launch->work();
        double items = 0;
        for (const auto& w : work) items += w.items;
        std::vector<double> share, seconds;
        for (const auto& w : work) {
            share.push_back(decimals(items > 0 ? w.items / items : 0, 3));
            seconds.push_back(significant(w.launches ? w.seconds / double(w.launches) : 0, 4));
        }
        list.push_back({{"name", launch->name()}, {"share", share}, {"kernel_seconds", seconds}});
    }
    line["launches"] = list;
}

} // namespace partcl_bench
