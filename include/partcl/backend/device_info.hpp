#pragma once
// Devices as users choose them: everything `partcl devices` shows is in DeviceInfo, which is a
// plain value (it can describe a device that does not exist, for tests and for filters). Each
// backend fills it in; the runtime's Device carries it with the backend's handles.
#include <cstddef>
#include <cstdint>
#include <string>

#include <partcl/backend/backend.hpp>

namespace partcl {

enum class DeviceType { cpu, gpu, accelerator, other };

const char* to_string(DeviceType type) noexcept;

struct DeviceInfo {
    std::size_t index = 0;          // position in enumerate_devices(), stable for one machine
    std::size_t platform_index = 0;
    std::string name;
    std::string vendor;
    std::string platform;           // platform name, e.g. "Portable Computing Language"
    std::string platform_version;
    std::string device_version;     // "OpenCL 3.0 PoCL ..."
    std::string driver_version;
    std::string opencl_c_version;
    DeviceType type = DeviceType::other;
    unsigned compute_units = 0;
    unsigned clock_mhz = 0;
    std::uint64_t global_memory = 0;  // bytes
    std::uint64_t local_memory = 0;   // bytes
    std::uint64_t max_allocation = 0; // bytes, largest single buffer
    std::size_t max_work_group_size = 0;
    bool fp64 = false;
    std::string extensions;
    Backend backend = Backend::opencl;
    unsigned compute_capability = 0;  // CUDA: 10 * major + minor (90 on an H100); else 0

    bool has_extension(const std::string& name) const;
};

namespace detail {

// A device as its backend finds and addresses it: the description, and the backend's own
// handles, kept opaque here so no OpenCL or CUDA type reaches the backend-neutral headers
// (OpenCL: its cl_device_id and cl_platform_id; CUDA: its device ordinal).
struct BackendDevice {
    DeviceInfo info;
    void* device = nullptr;
    void* platform = nullptr;
    int ordinal = -1;
};

} // namespace detail

} // namespace partcl
