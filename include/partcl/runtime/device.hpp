#pragma once
// Devices as users choose them: everything `partcl devices` shows is in DeviceInfo, which is a
// plain value (it can describe a device that does not exist, for tests and for filters).
#include <cstdint>
#include <string>
#include <vector>

#include <partcl/runtime/backend.hpp>
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
    Backend backend = Backend::opencl;
    unsigned compute_capability = 0;  // CUDA: 10 * major + minor (90 on an H100); else 0

    bool has_extension(const std::string& name) const;
};

// A device together with the handles its backend needs to use it.
class Device {
public:
    // An OpenCL device.
    Device(cl::Platform platform, cl::Device device, std::size_t index, std::size_t platform_index);
    // A device of a backend without OpenCL handles (CUDA), known by the backend's own number.
    Device(DeviceInfo info, int ordinal);

    const DeviceInfo& info() const noexcept { return info_; }
    Backend backend() const noexcept { return info_.backend; }
    // OpenCL handles; null handles for devices of other backends.
    const cl::Device& cl_device() const noexcept { return device_; }
    const cl::Platform& cl_platform() const noexcept { return platform_; }
    // The backend's device number (CUDA's device ordinal); -1 for OpenCL devices.
    int ordinal() const noexcept { return ordinal_; }
    // The same device at another position of a device list (enumerate_devices numbers them).
    Device renumbered(std::size_t index, std::size_t platform_index) const {
        Device d = *this;
        d.info_.index = index;
        d.info_.platform_index = platform_index;
        return d;
    }

private:
    cl::Platform platform_;
    cl::Device device_;
    int ordinal_ = -1;
    DeviceInfo info_;
};

// The devices a backend offers, numbered in this order. OpenCL: every device of every platform
// the ICD loader knows, in platform order. CUDA: every CUDA device, as one more "platform" after
// OpenCL's (the CUDA list is empty in builds without CUDA, or without a driver). automatic:
// OpenCL's devices, except that NVIDIA's OpenCL platform gives way to CUDA when CUDA has
// devices. An empty result is not an error here (nothing installed); DeviceFilter::select
// reports it.
std::vector<Device> enumerate_devices(Backend backend = Backend::automatic);

// One line per device, the format `partcl devices` and error messages use.
std::string describe(const DeviceInfo& info);
std::string describe(const std::vector<Device>& devices);

} // namespace partcl
