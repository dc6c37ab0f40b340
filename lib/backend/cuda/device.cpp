// The CUDA backend's devices, from the CUDA runtime. A machine without driver or GPU has none.
#include <cstdio>

#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

std::vector<BackendDevice> enumerate_devices(std::size_t first_index, std::size_t platform_index) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // no driver, no device: an empty list
        return {};
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };

    std::vector<BackendDevice> devices;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        cudaDeviceProp prop{};
        check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
        auto attribute = [&](cudaDeviceAttr a) {
            int value = 0;
            check(cudaDeviceGetAttribute(&value, a, ordinal), "cudaDeviceGetAttribute");
            return value;
        };
        DeviceInfo info;
        info.index = first_index + devices.size();
        info.platform_index = platform_index;
        info.name = prop.name;
        info.vendor = "NVIDIA Corporation";
        info.platform = "CUDA";
        info.platform_version = "CUDA " + version(runtime);
        info.device_version = "CUDA compute capability " + std::to_string(prop.major) + "." +
                              std::to_string(prop.minor);
        info.driver_version = version(driver);
        info.opencl_c_version = "";
        info.type = DeviceType::gpu;
        info.compute_units = unsigned(prop.multiProcessorCount);
        info.clock_mhz = unsigned(attribute(cudaDevAttrClockRate) / 1000);
        info.global_memory = prop.totalGlobalMem;
        info.local_memory = prop.sharedMemPerBlock;
        info.max_allocation = prop.totalGlobalMem;
        info.max_work_group_size = std::size_t(prop.maxThreadsPerBlock);
        info.fp64 = true;
        info.backend = Backend::cuda;
        info.compute_capability = unsigned(prop.major * 10 + prop.minor);
        devices.push_back(BackendDevice{std::move(info), nullptr, nullptr, ordinal});
    }
    return devices;
}

} // namespace partcl::detail::cuda
