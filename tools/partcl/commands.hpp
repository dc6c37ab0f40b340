#pragma once
// The subcommands of `partcl`. Each one adds itself to the CLI11 app (add_*) and runs after
// parsing (run_*), returning the exit status. Library errors propagate to main(), which turns
// them into messages and exit statuses in one place.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <partcl/runtime/filter.hpp>

namespace partcl::cli {

// Options that belong to the whole command line.
struct GlobalOptions {
    std::string device;   // --device FILTER; empty: PARTCL_DEVICE, else the default filter
    std::string backend;  // --backend auto|opencl|cuda; empty: PARTCL_BACKEND, else auto
    DeviceFilter filter() const { return DeviceFilter::from_environment(device, backend); }
};

struct DevicesOptions {
    bool json = false;
};
CLI::App* add_devices(CLI::App& app, DevicesOptions& options);
int run_devices(const DevicesOptions& options, const GlobalOptions& global);

struct BuildRequest {
    std::vector<std::string> files;
    bool all = false;                       // every kernel of partcl's own tree
    std::vector<std::string> defines;       // NAME or NAME=VALUE
    std::vector<std::string> include_dirs;
    std::vector<std::string> flags;
    std::string precision;                  // empty: float (and double too with --all)
};
CLI::App* add_build(CLI::App& app, BuildRequest& request);
int run_build(const BuildRequest& request, const GlobalOptions& global);

struct CacheCommands {
    CLI::App* path = nullptr;
    CLI::App* list = nullptr;
    CLI::App* clear = nullptr;
};
CLI::App* add_cache(CLI::App& app, CacheCommands& commands);
int run_cache(const CacheCommands& commands);

struct RunRequest {
    std::string scenario;                 // built-in name or TOML file; empty: galaxies
    std::optional<std::uint64_t> steps, n, snapshot_every, frame_every;
    std::string out = "out";
    std::string precision, integrator;
    std::string gravity, traversal;       // overrides of [gravity] model and traversal
    std::optional<double> theta;          // [gravity] theta
    std::optional<std::uint64_t> leaf_size, group_size;
    std::optional<double> end_time;       // the simulated time to run to (run/run_length.hpp)
    std::string resume;                   // checkpoint file
    bool quiet = false;
    bool autotune = false;
    bool profile = false;
};
CLI::App* add_run(CLI::App& app, RunRequest& request);
int run_run(const RunRequest& request, const GlobalOptions& global);

} // namespace partcl::cli
