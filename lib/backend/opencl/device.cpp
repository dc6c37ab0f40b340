// The OpenCL backend's devices: every device of every platform the ICD loader knows.
#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

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

BackendDevice describe(const cl::Platform& platform, const cl::Device& device, std::size_t index,
                       std::size_t platform_index) {
    DeviceInfo info;
    info.index = index;
    info.platform_index = platform_index;
    info.name = trim(device_info<CL_DEVICE_NAME>(device));
    info.vendor = trim(device_info<CL_DEVICE_VENDOR>(device));
    info.platform = trim(platform_info<CL_PLATFORM_NAME>(platform));
    info.platform_version = trim(platform_info<CL_PLATFORM_VERSION>(platform));
    info.device_version = trim(device_info<CL_DEVICE_VERSION>(device));
    info.driver_version = trim(device_info<CL_DRIVER_VERSION>(device));
    info.opencl_c_version = trim(device_info<CL_DEVICE_OPENCL_C_VERSION>(device));
    info.type = device_type(device_info<CL_DEVICE_TYPE>(device));
    info.compute_units = device_info<CL_DEVICE_MAX_COMPUTE_UNITS>(device);
    info.clock_mhz = device_info<CL_DEVICE_MAX_CLOCK_FREQUENCY>(device);
    info.global_memory = device_info<CL_DEVICE_GLOBAL_MEM_SIZE>(device);
    info.local_memory = device_info<CL_DEVICE_LOCAL_MEM_SIZE>(device);
    info.max_allocation = device_info<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device);
    info.max_work_group_size = device_info<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device);
    info.extensions = trim(device_info<CL_DEVICE_EXTENSIONS>(device));
    // An fp64 config of zero means no double, whatever the extension string claims.
    info.fp64 = device_info<CL_DEVICE_DOUBLE_FP_CONFIG>(device) != 0;
    return BackendDevice{std::move(info), device(), platform(), -1};
}

} // namespace


std::vector<BackendDevice> enumerate_devices() {
    std::vector<cl::Platform> platforms;
    const cl_int status = cl::Platform::get(&platforms);
    // The ICD loader reports "no platform" as an error; for us it is an empty machine.
    if (status == CL_PLATFORM_NOT_FOUND_KHR || platforms.empty()) return {};
    check(status, "clGetPlatformIDs");

    std::vector<BackendDevice> devices;
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> found;
        const cl_int s = platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &found);
        if (s == CL_DEVICE_NOT_FOUND) continue;
        check(s, "clGetDeviceIDs");
        for (auto& d : found) devices.push_back(describe(platforms[p], d, devices.size(), p));
    }
    return devices;
}

// Retained: a root device's retain and release do nothing, a sub-device's must balance.
cl::Device cl_device(const BackendDevice& device) {
    return cl::Device(static_cast<cl_device_id>(device.device), true);
}

} // namespace partcl::detail::opencl
