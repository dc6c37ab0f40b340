// Cold build versus warm program-cache load, per device, per built-in kernel, per precision.
//
//   partcl_bench_build_cache [--device FILTER] [--repeat N] [--kernel SUBSTRING]
//                            [--driver-cache fresh|off|keep] [--keep]
//
// One JSON line per (device, kernel, precision) on stdout; progress on stderr. For each one:
//
//   cold_ms               build_program with a new ProgramCache over a new, empty directory:
//                         the OpenCL compiler runs (origin "compiled"). The driver's compiler has
//                         been started once in this process before (see "compiler_warmup"), so
//                         this is the cost of compiling this program, not of loading LLVM.
//   warm_disk_ms_*        build_program with a NEW ProgramCache on that same directory, so the
//                         memory tier is empty and the binary comes from disk (origin
//                         "disk_cache"); `--repeat` times, median and minimum.
//   memory_hit_us         build_program again on the same ProgramCache (origin "memory_cache").
//   rebuild_nocache_ms    reference from the same run: build_program with partcl's disk cache
//                         off (what a program pays without it; the driver's own cache, if any,
//                         as configured by --driver-cache).
//   warm_*_us breakdown   the pieces of one warm load, timed separately through the public API:
//                         expand (Source::expand), key (ProgramCache::key), disk_read
//                         (ProgramCache::load: read + checksum), binary_build
//                         (clCreateProgramWithBinary + clBuildProgram, raw OpenCL).
//
// Drivers keep caches of their own: PoCL in ~/.cache/pocl (a program it has compiled once is
// "rebuilt" from source in ~25 ms), NVIDIA in ~/.nv/ComputeCache (source builds and the
// PTX-to-machine-code step of a binary load). A cold build measured against a warm driver cache
// is not cold. --driver-cache chooses, before the first OpenCL call:
//   fresh (default)  POCL_CACHE_DIR and CUDA_CACHE_PATH = new empty temporary directories: the
//                    first build of each program really compiles, and the driver caches then
//                    behave as on a user's machine with default settings (they are on).
//   off              POCL_KERNEL_CACHE=0 and CUDA_CACHE_DISABLE=1: the drivers cache nothing;
//                    partcl's cache is all there is.
//   keep             leave the environment alone (whatever the users' driver caches hold counts).
// Drivers other than PoCL and NVIDIA's ignore these variables.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <partcl/backend/opencl/error.hpp>
#include <partcl/backend/opencl/interop.hpp>
#include <partcl/partcl.hpp>

#include "common.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double goal_warm_ms = 5.0;

struct Options {
    std::string device;
    std::string kernel;
    std::string driver_cache = "fresh";
    int repeat = 20;
    bool keep = false;
};

Options parse(int argc, char** argv) {
    Options options;
    CLI::App app{"Prints one JSON line per (device, kernel, precision): cold build, warm "
                 "disk-cache load, memory-cache hit.",
                 "partcl_bench_build_cache"};
    app.add_option("--device", options.device, "Device filter (as partcl --device)");
    app.add_option("--kernel", options.kernel, "Only kernel files whose path holds this");
    app.add_option("--repeat", options.repeat, "Timed builds (median)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--driver-cache", options.driver_cache, "The OpenCL driver's own cache")
        ->check(CLI::IsMember({"fresh", "off", "keep"}));
    app.add_flag("--keep", options.keep, "Keep the temporary cache directories");
    partcl_bench::parse_or_exit(app, argc, argv);
    return options;
}

void set_env(const char* name, const std::string& value) {
#ifdef _WIN32
    _putenv_s(name, value.c_str());
#else
    setenv(name, value.c_str(), 1);
#endif
}

fs::path make_temp_dir(const std::string& stem) {
    std::random_device rd;
    std::mt19937_64 rng(rd());
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path dir = fs::temp_directory_path() / (stem + "-" + std::to_string(rng() % 1000000000ULL));
        if (fs::create_directory(dir)) return dir;
    }
    throw std::runtime_error("cannot create a temporary directory under " +
                             fs::temp_directory_path().string());
}


// A figure for the JSON line: `digits` decimals, or null when it was not measured.
nlohmann::ordered_json rounded(const std::optional<double>& value, int digits = 3) {
    if (!value) return nullptr;
    return partcl_bench::decimals(*value, digits);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// One build_program call, timed from the caller's side; checks where the binary came from.
double timed_build(const partcl::Context& context, const partcl::Source& source,
                   const partcl::BuildOptions& build_options, partcl::ProgramCache& cache,
                   partcl::DeviceBuild::Origin expected, const char* what) {
    const auto start = Clock::now();
    const partcl::Program program = partcl::build_program(context, source, build_options, cache);
    const double seconds = seconds_since(start);
    for (const auto& build : program.builds())
        if (build.origin != expected)
            throw partcl::Error(std::string(what) + ": expected origin " +
                                partcl::to_string(expected) + ", got " +
                                partcl::to_string(build.origin) + " on " + build.device);
    return seconds;
}

struct Breakdown {
    std::optional<double> expand_us, key_us, disk_read_us, binary_build_us;
    std::optional<double> binary_bytes;
};

// Times the steps of a warm load one by one. The key is rebuilt from the public pieces; when
// that does not find the entry build_program wrote (the library keys on more than
// compiler_options()), the disk steps stay null and a note goes to stderr.
Breakdown breakdown(const partcl::Context& context, const partcl::Source& source,
                    const partcl::BuildOptions& build_options, const partcl::ProgramCache& cache,
                    int repeat) {
    Breakdown result;
    const partcl::Device& device = context.device(0);
    std::vector<double> expand, key, read, build;
    std::string expanded, entry_key;
    std::optional<std::vector<unsigned char>> binary;
    for (int r = 0; r < repeat; ++r) {
        auto start = Clock::now();
        expanded = source.expand(build_options.include_dirs);
        expand.push_back(seconds_since(start));

        const std::string compiler_options = build_options.compiler_options();
        start = Clock::now();
        entry_key = partcl::ProgramCache::key(expanded, compiler_options, device.info());
        key.push_back(seconds_since(start));

        start = Clock::now();
        binary = cache.load(entry_key);
        read.push_back(seconds_since(start));
        if (!binary) break;

        start = Clock::now();
        const cl::Device cl_device = partcl::opencl::native(device);
        cl::Program program(partcl::opencl::native(context), {cl_device},
                            cl::Program::Binaries{*binary});
        partcl::opencl::check(program.build({cl_device}, compiler_options.c_str()),
                              "clBuildProgram");
        build.push_back(seconds_since(start));
    }
    result.expand_us = median(expand) * 1e6;
    result.key_us = median(key) * 1e6;
    if (binary) {
        result.disk_read_us = median(read) * 1e6;
        result.binary_build_us = median(build) * 1e6;
        result.binary_bytes = static_cast<double>(binary->size());
    } else {
        std::cerr << "  note: ProgramCache::key(expand(), compiler_options(), device) does not "
                     "name the entry build_program stored; disk_read/binary_build not timed\n";
    }
    return result;
}

} // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);

    // Before the first OpenCL call: the drivers read these when the platform is first queried.
    std::optional<fs::path> driver_dir;
    if (options.driver_cache == "fresh") {
        driver_dir = make_temp_dir("partcl-bench-driver");
        fs::create_directories(*driver_dir / "pocl");
        fs::create_directories(*driver_dir / "cuda");
        set_env("POCL_CACHE_DIR", (*driver_dir / "pocl").string());
        set_env("CUDA_CACHE_PATH", (*driver_dir / "cuda").string());
    } else if (options.driver_cache == "off") {
        set_env("POCL_KERNEL_CACHE", "0");
        set_env("CUDA_CACHE_DISABLE", "1");
    }

    int status = 0;
    const fs::path work = make_temp_dir("partcl-bench-cache");
    try {
        const auto devices = partcl::DeviceFilter::from_environment(options.device).select();
        std::vector<std::string> kernels;
        for (const auto& k : partcl::builtin_kernels())
            if (options.kernel.empty() || k.find(options.kernel) != std::string::npos)
                kernels.push_back(k);
        if (kernels.empty()) throw partcl::UsageError("no built-in kernel matches '" + options.kernel + "'");
        std::cerr << "build_cache: " << devices.size() << " device(s), " << kernels.size()
                  << " kernel(s), repeat " << options.repeat << ", driver cache " << options.driver_cache
                  << ", kernel tree " << partcl::kernel_tree_location() << ", work dir " << work.string()
                  << "\n";

        int entry = 0;
        for (const auto& device : devices) {
            const auto& info = device.info();
            // One context per device, so every figure belongs to exactly one device.
            partcl::Context context(std::vector<partcl::Device>{device});

            // Start the driver's compiler once (LLVM, the kernel library) with a program of no
            // interest, so cold_ms below is the cost of one program, not of the first build in
            // a process. The warm-up itself is reported as its own line.
            {
                partcl::ProgramCache no_disk(partcl::ProgramCache::Settings{false, {}});
                const auto source = partcl::Source::from_string(
                    "warmup.cl", "__kernel void partcl_bench_warmup(__global int* p) { p[0] = " +
                                     std::to_string(entry++) + "; }\n");
                const double s = timed_build(context, source, {}, no_disk,
                                             partcl::DeviceBuild::Origin::compiled, "warm-up");
                nlohmann::ordered_json line{{"bench", "build_cache"},
                                            {"case", "compiler_warmup"},
                                            {"device", info.name},
                                            {"platform", info.platform},
                                            {"first_build_ms", rounded(s * 1e3)}};
                partcl_bench::print_json_line(line);
            }

            for (const auto& kernel : kernels) {
                for (const auto precision : {partcl::Precision::float32, partcl::Precision::float64}) {
                    if (precision == partcl::Precision::float64 && !info.fp64) {
                        std::cerr << "  " << info.name << ": no fp64, double skipped\n";
                        continue;
                    }
                    std::cerr << "  " << info.name << " " << kernel << " "
                              << partcl::to_string(precision) << " ..." << std::flush;
                    const auto source = partcl::Source::builtin(kernel);
                    partcl::BuildOptions build_options;
                    build_options.precision = precision;

                    const fs::path dir = work / ("entry" + std::to_string(entry++));
                    fs::create_directories(dir);
                    const partcl::ProgramCache::Settings settings{true, dir};

                    // Cold: empty directory, new cache.
                    partcl::ProgramCache cold_cache(settings);
                    const double cold = timed_build(context, source, build_options, cold_cache,
                                                    partcl::DeviceBuild::Origin::compiled, "cold");

                    // Memory tier of that same cache.
                    std::vector<double> memory;
                    for (int r = 0; r < options.repeat; ++r)
                        memory.push_back(timed_build(context, source, build_options, cold_cache,
                                                     partcl::DeviceBuild::Origin::memory_cache,
                                                     "memory hit"));

                    // Warm: a new cache object on the same directory each time (memory tier
                    // empty, so the binary is read from disk and handed to the driver).
                    std::vector<double> warm;
                    for (int r = 0; r < options.repeat; ++r) {
                        partcl::ProgramCache warm_cache(settings);
                        warm.push_back(timed_build(context, source, build_options, warm_cache,
                                                   partcl::DeviceBuild::Origin::disk_cache,
                                                   "warm disk load"));
                    }

                    // Reference: no partcl disk cache at all.
                    partcl::ProgramCache no_disk(partcl::ProgramCache::Settings{false, {}});
                    const double rebuild = timed_build(context, source, build_options, no_disk,
                                                       partcl::DeviceBuild::Origin::compiled,
                                                       "rebuild without cache");

                    const Breakdown parts =
                        breakdown(context, source, build_options, cold_cache, options.repeat);

                    const double warm_median = median(warm);
                    const double warm_min = *std::min_element(warm.begin(), warm.end());
                    const bool meets = warm_median * 1e3 <= goal_warm_ms;
                    std::cerr << std::fixed << std::setprecision(1) << " cold " << cold * 1e3
                              << " ms, warm " << std::setprecision(2) << warm_median * 1e3
                              << " ms\n" << std::defaultfloat;

                    nlohmann::ordered_json line{{"bench", "build_cache"},
                                                {"case", "program"},
                                                {"device", info.name},
                                                {"platform", info.platform},
                                                {"driver", info.driver_version},
                                                {"kernel", kernel},
                                                {"precision", partcl::to_string(precision)},
                                                {"driver_cache", options.driver_cache},
                                                {"repeat", options.repeat},
                                                {"cold_ms", rounded(cold * 1e3)},
                                                {"warm_disk_ms_median", rounded(warm_median * 1e3)},
                                                {"warm_disk_ms_min", rounded(warm_min * 1e3)},
                                                {"memory_hit_us", rounded(median(memory) * 1e6)},
                                                {"rebuild_nocache_ms", rounded(rebuild * 1e3)},
                                                {"warm_expand_us", rounded(parts.expand_us)},
                                                {"warm_key_us", rounded(parts.key_us)},
                                                {"warm_disk_read_us", rounded(parts.disk_read_us)},
                                                {"warm_binary_build_us", rounded(parts.binary_build_us)},
                                                {"binary_bytes", rounded(parts.binary_bytes, 0)},
                                                {"speedup", rounded(cold / warm_median, 1)},
                                                {"goal_warm_ms", rounded(goal_warm_ms, 0)},
                                                {"meets_goal", meets}};
                    partcl_bench::print_json_line(line);
                }
            }
        }
    } catch (const partcl::UsageError& e) {
        std::cerr << "partcl_bench_build_cache: " << e.what() << "\n";
        status = 2;
    } catch (const std::exception& e) {
        std::cerr << "\npartcl_bench_build_cache: " << e.what() << "\n";
        status = 1;
    }

    std::error_code ignored;
    if (options.keep) {
        std::cerr << "kept " << work.string() << (driver_dir ? " and " + driver_dir->string() : "") << "\n";
    } else {
        fs::remove_all(work, ignored);
        if (driver_dir) fs::remove_all(*driver_dir, ignored);
    }
    return status;
}
