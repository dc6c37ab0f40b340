// partcl: the command-line tool. It parses the command line and turns outcomes into exit
// statuses; the subcommands (run.cpp, devices.cpp, build.cpp, cache.cpp) call the library for
// the rest.
//
// Exit status: 0 success (also --help, --version), 1 a run failed (OpenCL error, build
// failure, no device matching the filter), 2 a usage error, reported on one line.
#include "commands.hpp"
#include "text.hpp"

#include <iostream>

#include <partcl/partcl.hpp>

namespace {

constexpr int usage_status = 2;

// `message` on standard error after "partcl: ", and the exit status. Over several MPI ranks it
// ends every rank with this one's message: a rank failing alone would leave the others waiting
// in a collective.
int fail(int status, const std::string& message) {
    std::cout.flush();
    if (partcl::dist::Communicator::world().size() > 1)
        partcl::dist::Environment::fail(message, status);
    std::cerr << "partcl: " << message << '\n';
    return status;
}

int usage_error(const std::string& message) {
    return fail(usage_status, "error: " + partcl::cli::one_line(message) + " (see partcl --help)");
}

const char* const footer =
    "Device filter (--device or PARTCL_DEVICE; default gpu|cpu):\n"
    "  terms all, cpu, gpu, accelerator, fp64, an index from `partcl devices`, or a\n"
    "  name/vendor/platform substring; joined by & (and), , (or), | (first that matches).\n"
    "  Examples: all, 1, 0,2, nvidia&gpu, gpu&fp64|cpu, pthread\n"
    "Backend (--backend or PARTCL_BACKEND): auto, opencl or cuda.\n"
    "Environment: PARTCL_DEVICE, PARTCL_BACKEND, PARTCL_KERNEL_PATH (read cl/ from disk), PARTCL_CACHE_DIR,\n"
    "  PARTCL_CACHE=off, XDG_CACHE_HOME.\n"
    "Exit status: 0 ok, 1 failure, 2 usage error.";

} // namespace

int main(int argc, char** argv) {
    namespace cli = partcl::cli;
    // Under mpirun, MPI for the whole process (partcl run spreads over the ranks).
    partcl::dist::Environment mpi(argc, argv);

    CLI::App app{"partcl " + std::string(partcl::version) +
                     ": particle-simulation kernels on any OpenCL or CUDA device",
                 "partcl"};
    app.set_version_flag("--version", "partcl " + std::string(partcl::version),
                         "Print the version and exit");
    // The subcommand is checked after parsing (below), so `partcl --bogus` reports the unknown
    // option rather than the missing command.
    app.require_subcommand(0, 1);
    // Subcommands hand options they do not know to this app, so the global --device works
    // after the subcommand too (`partcl build x.cl --device cpu`). Set before adding them.
    app.fallthrough();
    app.footer(footer);

    cli::GlobalOptions global;
    app.add_option("--device", global.device,
                   "Device filter (default: PARTCL_DEVICE, else gpu|cpu)")
        ->type_name("FILTER");
    app.add_option("--backend", global.backend,
                   "auto (CUDA for NVIDIA GPUs when built with it, else OpenCL), opencl or cuda "
                   "(default: PARTCL_BACKEND, else auto)")
        ->type_name("BACKEND")
        ->check(CLI::IsMember({"auto", "opencl", "cuda"}));

    cli::DevicesOptions devices_options;
    cli::BuildRequest build_request;
    cli::CacheCommands cache_commands;
    cli::RunRequest run_request;
    CLI::App* devices = cli::add_devices(app, devices_options);
    CLI::App* build = cli::add_build(app, build_request);
    CLI::App* cache = cli::add_cache(app, cache_commands);
    CLI::App* run = cli::add_run(app, run_request);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive as "errors" with status 0; CLI11 prints them.
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
        return usage_error(e.what());
    }

    try {
        if (*run) return cli::run_run(run_request, global);
        if (*devices) return cli::run_devices(devices_options, global);
        if (*build) return cli::run_build(build_request, global);
        if (*cache && (*cache_commands.path || *cache_commands.list || *cache_commands.clear))
            return cli::run_cache(cache_commands);
        return usage_error(*cache ? "cache: which one? path, list or clear"
                                  : "no command given (run, devices, build or cache)");
    } catch (const partcl::UsageError& e) {
        return usage_error(e.what());
    } catch (const partcl::Error& e) {
        // Unsupported (no device matches) lists the devices over several lines; keep them.
        return fail(1, e.what());
    } catch (const std::exception& e) {
        return fail(1, std::string("internal error: ") + e.what());
    }
}
