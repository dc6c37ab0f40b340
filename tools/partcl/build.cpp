// partcl build: compiles kernel files (or partcl's own kernels) for every selected device and
// reports, per device, OK with the build time and where the binary came from, or the compiler
// log. It is how a kernel author checks a file on every device before using it.
#include "commands.hpp"
#include "text.hpp"

#include <cstdio>
#include <iostream>
#include <optional>

#include <partcl/partcl.hpp>

namespace partcl::cli {

CLI::App* add_build(CLI::App& app, BuildRequest& request) {
    auto* command = app.add_subcommand(
        "build", "Build kernel files for every selected device; exit status 1 if any fails");
    command->add_option("files", request.files, "OpenCL C files (.cl) to build")
        ->type_name("FILE.cl");
    command->add_flag("--all", request.all,
                      "Also build every kernel of partcl's own tree (cl/, embedded or "
                      "PARTCL_KERNEL_PATH)");
    // One value per occurrence, so `-D A file.cl` does not swallow the file.
    command->add_option("-D,--define", request.defines, "Define a macro: -D NAME or -D NAME=VALUE")
        ->type_name("NAME[=VALUE]")
        ->allow_extra_args(false);
    command->add_option("-I,--include-dir", request.include_dirs,
                        "Search DIR for #include \"...\" (after the including file's directory)")
        ->type_name("DIR")
        ->allow_extra_args(false);
    command->add_option("--precision", request.precision,
                        "float or double (default: float; with --all, also double on devices "
                        "with fp64)")
        ->type_name("float|double");
    command->add_option("--flag", request.flags,
                        "Extra OpenCL compiler option, e.g. --flag -cl-fast-relaxed-math")
        ->type_name("OPT")
        ->allow_extra_args(false);
    command->footer(
        "Each build prints one line per device:\n"
        "  OK   [0] device  file.cl  float    12.3 ms (compiled | disk cache)\n"
        "  FAIL [0] device  file.cl  float\n"
        "followed, for a failure, by the compiler log (file.cl:LINE:COL: error: ...).\n"
        "Devices: the global --device FILTER or PARTCL_DEVICE (see partcl --help).\n"
        "Debug a kernel under Oclgrind:\n"
        "  PARTCL_DEVICE=all PARTCL_CACHE=off oclgrind --data-races --uninitialized "
        "--check-api partcl build FILE.cl");
    return command;
}

namespace {

struct Item {
    std::string name;  // as printed
    bool builtin;
};

struct Target {
    std::string label;  // "[0] pthread-..."
    const DeviceInfo* info;
    Context* context;
};

BuildOptions make_options(const BuildRequest& request) {
    BuildOptions options;
    for (const auto& define : request.defines) {
        const auto equals = define.find('=');
        if (equals == std::string::npos) options.define(define);
        else options.define(define.substr(0, equals), define.substr(equals + 1));
    }
    for (const auto& dir : request.include_dirs) options.include_dirs.emplace_back(dir);
    options.flags = request.flags;
    return options;
}

std::string pad(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// Indents a compiler log under its OK line (warnings); a failure's log is printed as is, so
// `file.cl:LINE:COL:` starts the line where editors and terminals look for it.
void print_indented(const std::string& text) {
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        std::cout << "     " << text.substr(start, end - start) << '\n';
        start = end + 1;
    }
}

} // namespace

int run_build(const BuildRequest& request, const GlobalOptions& global) {
    // Everything the user can get wrong on the command line is checked before any device work.
    if (request.files.empty() && !request.all)
        throw UsageError("build: nothing to build (name FILE.cl files or give --all)");
    const BuildOptions base_options = make_options(request);
    std::vector<Precision> precisions;
    const bool precision_asked = !request.precision.empty();
    if (precision_asked) precisions = {parse_precision(request.precision)};
    else if (request.all) precisions = {Precision::float32, Precision::float64};
    else precisions = {Precision::float32};
    const DeviceFilter filter = global.filter();

    std::vector<Item> items;
    for (const auto& file : request.files) items.push_back({file, false});
    if (request.all)
        for (const auto& path : builtin_kernels()) items.push_back({path, true});

    // One single-device context each, so every device gets its own result and build time even
    // when another device of the same platform fails.
    const std::vector<Device> devices = filter.select();
    std::vector<Context> contexts;
    contexts.reserve(devices.size());
    for (const auto& d : devices) contexts.emplace_back(std::vector<Device>{d});
    std::vector<Target> targets;
    std::size_t label_width = 0, name_width = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const DeviceInfo& info = contexts[i].device(0).info();
        targets.push_back({"[" + std::to_string(info.index) + "] " + info.name, &info, &contexts[i]});
        label_width = std::max(label_width, targets.back().label.size());
    }
    for (const auto& item : items) name_width = std::max(name_width, item.name.size());

    std::size_t builds = 0, failures = 0;
    for (const auto& item : items) {
        std::optional<Source> source;
        try {
            source = item.builtin ? Source::builtin(item.name) : Source::from_file(item.name);
        } catch (const SourceError& e) {
            std::cout << "FAIL " << pad("(every device)", label_width) << "  " << item.name << "  " << e.what()
                      << '\n';
            ++builds;
            ++failures;
            continue;
        }
        for (const Precision precision : precisions) {
            BuildOptions options = base_options;
            options.precision = precision;
            for (const auto& target : targets) {
                const std::string head = pad(target.label, label_width) + "  " +
                                         pad(item.name, name_width) + "  " +
                                         to_string(precision);
                if (precision == Precision::float64 && !target.info->fp64 && !precision_asked) {
                    std::cout << "SKIP " << head << "  no fp64 on this device\n";
                    continue;
                }
                ++builds;
                try {
                    const Program program = build_program(*target.context, *source, options);
                    const DeviceBuild& build = program.builds().front();
                    char time[32];
                    std::snprintf(time, sizeof time, "%*s%8.1f ms",
                                  precision == Precision::float32 ? 1 : 0, "",
                                  build.seconds * 1e3);
                    std::cout << "OK   " << head << time << " (" << to_string(build.origin)
                              << ")\n";
                    if (!build.log.empty()) print_indented(build.log);
                } catch (const BuildError& e) {
                    ++failures;
                    std::cout << "FAIL " << head << '\n' << e.log() << '\n';
                } catch (const UsageError&) {
                    throw;  // the command line is wrong, not this build
                } catch (const Error& e) {
                    // Unsupported (double without fp64), a missing include, a driver error.
                    ++failures;
                    std::cout << "FAIL " << head << '\n' << e.what() << '\n';
                }
            }
        }
    }
    std::cout << std::flush;
    if (failures > 0) {
        std::cerr << "partcl: " << failures << " of " << builds << " builds failed\n";
        return 1;
    }
    return 0;
}

} // namespace partcl::cli
