// partcl devices [--json]: every OpenCL device of the machine, and which ones the current
// filter (--device, PARTCL_DEVICE or the default) would use.
#include "commands.hpp"
#include "devices_json.hpp"
#include "text.hpp"

#include <cstdlib>
#include <iostream>

#include <partcl/partcl.hpp>

namespace partcl::cli {

CLI::App* add_devices(CLI::App& app, DevicesOptions& options) {
    auto* command = app.add_subcommand(
        "devices", "List every OpenCL device; '*' marks those the device filter selects");
    command->add_flag("--json", options.json, "Print a JSON array instead of a table");
    return command;
}

namespace {

bool contains(const std::vector<DeviceInfo>& chosen, const DeviceInfo& info) {
    for (const auto& c : chosen)
        if (c.index == info.index) return true;
    return false;
}

void print_table(const std::vector<DeviceInfo>& devices, const std::vector<DeviceInfo>& chosen) {
    std::vector<std::vector<std::string>> rows{{"", "#", "type", "name", "platform", "driver",
                                                "CUs", "clock", "global", "local", "max wg",
                                                "fp64"}};
    for (const auto& d : devices)
        rows.push_back({contains(chosen, d) ? "*" : "", std::to_string(d.index),
                        to_string(d.type), d.name, d.platform, d.driver_version,
                        std::to_string(d.compute_units), std::to_string(d.clock_mhz) + " MHz",
                        format_bytes(d.global_memory), format_bytes(d.local_memory),
                        std::to_string(d.max_work_group_size), d.fp64 ? "yes" : "no"});
    cli::print_table(std::cout, rows, {1, 6, 7, 8, 9, 10});
}

} // namespace

int run_devices(const DevicesOptions& options, const GlobalOptions& global) {
    // Parse the filter before touching OpenCL, so a malformed one is a usage error either way.
    const DeviceFilter filter = global.filter();
    std::vector<DeviceInfo> devices;
    for (const auto& d : enumerate_devices(filter.backend())) devices.push_back(d.info());

    if (devices.empty()) {
        if (options.json) std::cout << "[]\n";
        if (filter.backend() == Backend::cuda)
            std::cerr << "partcl: no CUDA device found (no NVIDIA driver, or it sees no GPU)\n";
        else
            std::cerr << "partcl: no OpenCL device found (no OpenCL platform is installed, or its "
                         "driver sees no device). For a CPU device on any machine install PoCL: "
                         "apt-get install pocl-opencl-icd\n";
        return 1;
    }
    const std::vector<DeviceInfo> chosen = filter.match(devices);
    if (options.json) {
        std::cout << devices_json(devices, chosen);
        return 0;
    }
    print_table(devices, chosen);
    std::cout << "\n";
    if (chosen.empty())
        std::cout << "No device matches the filter '" << filter.text() << "'";
    else
        std::cout << "* selected by the filter '" << filter.text() << "'";
    const char* environment = std::getenv(DeviceFilter::environment_variable);
    std::cout << (!global.device.empty()             ? " (from --device"
                  : environment && *environment ? " (from PARTCL_DEVICE"
                                                : " (the default")
              << "; choose with --device FILTER or PARTCL_DEVICE, see partcl --help)\n";
    return 0;
}

} // namespace partcl::cli
