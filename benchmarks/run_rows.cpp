// What a run's diagnostics rows cost: the built-in `kepler` run (two bodies, so the step
// itself is cheap and the rows' share is as large as it gets) for --steps steps with a row
// every --every steps, against the same run with a row every --reference-every steps, taking
// turns three rounds in the same process. energy.csv grows by appends, so the ratio stays the
// same however long the run: a run that rewrote its CSV at every row went quadratic (69 s
// against 8.4 s for 200 000 steps at rows every 10 and every 1000).
//
//   partcl_bench_run_rows [--device FILTER] [--steps 200000] [--every 10]
//                         [--reference-every 1000]
//
// One JSON line on stdout: the two runs' median seconds and the median of the rounds' ratios
// ("ratio": seconds with rows every --every over seconds with rows every --reference-every).
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <partcl/partcl.hpp>
#include <partcl/run/nbody_run.hpp>

#include "common.hpp"

using namespace partcl;
using namespace partcl_bench;

int main(int argc, char** argv) {
    std::string device;
    std::uint64_t steps = 200000, every = 10, reference_every = 1000;
    CLI::App app{"The cost of a run's diagnostics rows", "partcl_bench_run_rows"};
    app.add_option("--device", device, "Device filter (as partcl --device)");
    app.add_option("--steps", steps, "Steps of each run")->check(CLI::PositiveNumber);
    app.add_option("--every", every, "Steps between rows")->check(CLI::PositiveNumber);
    app.add_option("--reference-every", reference_every, "Steps between rows of the reference")
        ->check(CLI::PositiveNumber);
    parse_or_exit(app, argc, argv);

    try {
        Context context = Context::from_filter(device.empty() ? DeviceFilter::from_environment()
                                                              : DeviceFilter(device));
        const std::filesystem::path out =
            std::filesystem::temp_directory_path() / ("partcl-bench-rows-" + std::to_string(::getpid()));
        auto run_with_rows = [&](std::uint64_t period) {
            Scenario s = builtin_scenario("kepler");
            s.steps = steps;
            s.diagnostics_every = period;
            s.snapshot_every = 0;
            s.frame_every = 0;
            s.checkpoint_every = 0;
            return block_seconds(1, [&] { NBodyRun(context, s, out).run(); });
        };
        std::fprintf(stderr, "kepler, %llu steps, rows every %llu and every %llu\n",
                     static_cast<unsigned long long>(steps), static_cast<unsigned long long>(every),
                     static_cast<unsigned long long>(reference_every));
        run_with_rows(reference_every);  // builds the kernels
        const Turns turns = take_turns([&] { return run_with_rows(every); },
                                       [&] { return run_with_rows(reference_every); });
        std::filesystem::remove_all(out);
        auto line = json_head("run_rows", context.device(0));
        line["steps"] = steps;
        line["every"] = every;
        line["reference_every"] = reference_every;
        line["seconds"] = decimals(turns.device, 4);
        line["reference_seconds"] = decimals(turns.reference, 4);
        line["ratio"] = decimals(1.0 / turns.ratio, 4);
        print_json_line(line);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "partcl_bench_run_rows: %s\n", e.what());
        return 1;
    }
}
