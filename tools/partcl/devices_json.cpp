#include "devices_json.hpp"

#include <nlohmann/json.hpp>

namespace partcl::cli {

std::string devices_json(const std::vector<DeviceInfo>& devices,
                         const std::vector<DeviceInfo>& chosen) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const DeviceInfo& d : devices) {
        bool selected = false;
        for (const auto& c : chosen) selected = selected || c.index == d.index;
        list.push_back({{"index", d.index},
                        {"selected", selected},
                        {"type", to_string(d.type)},
                        {"name", d.name},
                        {"vendor", d.vendor},
                        {"platform", d.platform},
                        {"platform_index", d.platform_index},
                        {"platform_version", d.platform_version},
                        {"device_version", d.device_version},
                        {"driver_version", d.driver_version},
                        {"opencl_c_version", d.opencl_c_version},
                        {"compute_units", d.compute_units},
                        {"clock_mhz", d.clock_mhz},
                        {"global_memory_bytes", d.global_memory},
                        {"local_memory_bytes", d.local_memory},
                        {"max_allocation_bytes", d.max_allocation},
                        {"max_work_group_size", d.max_work_group_size},
                        {"fp64", d.fp64},
                        {"backend", to_string(d.backend)}});
    }
    return list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace partcl::cli
