// The OpenCL backend's devices: every device of every platform the ICD loader knows.
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/error.hpp>

#include "backend/interface.hpp"

namespace partcl {

namespace {

template <cl_device_info Name>
auto device_info(const cl::Device& device) {
    cl_int status = CL_SUCCESS;
    auto value = device.getInfo<Name>(&status);
    check(status, "clGetDeviceInfo");
    return value;
}

template <cl_platform_info Name>
std::string platform_info(const cl::Platform& platform) {
    std::string value;
    check(platform.getInfo(Name, &value), "clGetPlatformInfo");
    return value;
}

// Drivers pad some strings with NULs or spaces.
std::string trim(std::string text) {
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    return text;
}

DeviceType device_type(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return DeviceType::gpu;
    if (type & CL_DEVICE_TYPE_CPU) return DeviceType::cpu;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return DeviceType::accelerator;
    return DeviceType::other;
}

} // namespace

Device::Device(cl::Platform platform, cl::Device device, std::size_t index,
               std::size_t platform_index)
    : platform_(std::move(platform)), device_(std::move(device)) {
    info_.index = index;
    info_.platform_index = platform_index;
    info_.name = trim(device_info<CL_DEVICE_NAME>(device_));
    info_.vendor = trim(device_info<CL_DEVICE_VENDOR>(device_));
    info_.platform = trim(platform_info<CL_PLATFORM_NAME>(platform_));
    info_.platform_version = trim(platform_info<CL_PLATFORM_VERSION>(platform_));
    info_.device_version = trim(device_info<CL_DEVICE_VERSION>(device_));
    info_.driver_version = trim(device_info<CL_DRIVER_VERSION>(device_));
    info_.opencl_c_version = trim(device_info<CL_DEVICE_OPENCL_C_VERSION>(device_));
    info_.type = device_type(device_info<CL_DEVICE_TYPE>(device_));
    info_.compute_units = device_info<CL_DEVICE_MAX_COMPUTE_UNITS>(device_);
    info_.clock_mhz = device_info<CL_DEVICE_MAX_CLOCK_FREQUENCY>(device_);
    info_.global_memory = device_info<CL_DEVICE_GLOBAL_MEM_SIZE>(device_);
    info_.local_memory = device_info<CL_DEVICE_LOCAL_MEM_SIZE>(device_);
    info_.max_allocation = device_info<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device_);
    info_.max_work_group_size = device_info<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device_);
    info_.extensions = trim(device_info<CL_DEVICE_EXTENSIONS>(device_));
    // An fp64 config of zero means no double, whatever the extension string claims.
    info_.fp64 = device_info<CL_DEVICE_DOUBLE_FP_CONFIG>(device_) != 0;
}

namespace detail::opencl {
std::vector<Device> enumerate_devices() {
    std::vector<cl::Platform> platforms;
    const cl_int status = cl::Platform::get(&platforms);
    // The ICD loader reports "no platform" as an error; for us it is an empty machine.
    if (status == CL_PLATFORM_NOT_FOUND_KHR || platforms.empty()) return {};
    check(status, "clGetPlatformIDs");

    std::vector<Device> devices;
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> found;
        const cl_int s = platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &found);
        if (s == CL_DEVICE_NOT_FOUND) continue;
        check(s, "clGetDeviceIDs");
        for (auto& d : found) devices.emplace_back(platforms[p], d, devices.size(), p);
    }
    return devices;
}

} // namespace detail::opencl

} // namespace partcl
