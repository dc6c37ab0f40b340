#pragma once
// Devices as users choose them: everything `partcl devices` shows is in DeviceInfo, which is a
// plain value (it can describe a device that does not exist, for tests and for filters).
#include <cstdint>
#include <string>
#include <vector>

#include <partcl/runtime/cl.hpp>

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

    bool has_extension(const std::string& name) const;
};

// A device together with the OpenCL handles needed to use it.
class Device {
public:
    Device(cl::Platform platform, cl::Device device, std::size_t index, std::size_t platform_index);

    const DeviceInfo& info() const noexcept { return info_; }
    const cl::Device& cl_device() const noexcept { return device_; }
    const cl::Platform& cl_platform() const noexcept { return platform_; }

private:
    cl::Platform platform_;
    cl::Device device_;
    DeviceInfo info_;
};

// Every device of every platform the ICD loader knows, in platform order. An empty result is
// not an error here (no platform installed); DeviceFilter::select reports it.
std::vector<Device> enumerate_devices();

// One line per device, the format `partcl devices` and error messages use.
std::string describe(const DeviceInfo& info);
std::string describe(const std::vector<Device>& devices);

} // namespace partcl
