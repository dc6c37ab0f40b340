#include <partcl/runtime/device.hpp>
#include <partcl/backend/error.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "backend/interface.hpp"

namespace partcl {

namespace {
// Indices are positions in the list, platforms numbered in order of first appearance.
std::vector<Device> renumber(std::vector<Device> devices) {
    std::vector<std::size_t> old_platforms;
    std::vector<Device> out;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::size_t platform = devices[i].info().platform_index;
        auto p = std::find(old_platforms.begin(), old_platforms.end(), platform);
        if (p == old_platforms.end()) p = old_platforms.insert(old_platforms.end(), platform);
        out.push_back(devices[i].renumbered(i, std::size_t(p - old_platforms.begin())));
    }
    return out;
}
} // namespace

namespace {
std::vector<Device> devices_of(detail::BackendImpl& backend, std::size_t platform_index) {
    std::vector<Device> devices;
    for (auto& d : backend.enumerate_devices(0, platform_index)) devices.emplace_back(std::move(d));
    return devices;
}
} // namespace

std::vector<Device> enumerate_devices(Backend backend) {
    if (backend == Backend::opencl) return devices_of(detail::opencl::backend(), 0);
    std::vector<Device> opencl;
    if (backend == Backend::automatic) opencl = devices_of(detail::opencl::backend(), 0);
    std::string why;
    detail::BackendImpl* cuda_backend = detail::cuda_backend(&why);
    if (!cuda_backend) {
        // Asked for by name it must be there; `automatic` does without it.
        if (backend == Backend::cuda) throw Unsupported(why);
        return opencl;
    }
    std::size_t platforms = 0;
    for (const auto& d : opencl) platforms = std::max(platforms, d.info().platform_index + 1);
    std::vector<Device> cuda = devices_of(*cuda_backend, platforms);
    if (backend == Backend::cuda) return cuda;
    if (!cuda.empty()) {
        // The same GPUs would appear twice; CUDA serves them, NVIDIA's OpenCL steps aside.
        std::vector<Device> devices;
        for (auto& d : opencl)
            if (d.info().platform.find("NVIDIA") == std::string::npos) devices.push_back(d);
        for (auto& d : cuda) devices.push_back(d);
        return renumber(std::move(devices));
    }
    return opencl;
}

namespace {
std::string mebibytes(std::uint64_t bytes) {
    char text[32];
    if (bytes >= (std::uint64_t(1) << 30))
        std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1u << 30));
    else if (bytes >= (std::uint64_t(1) << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1u << 20));
    else
        std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
    return text;
}
} // namespace

std::string describe(const DeviceInfo& info) {
    std::ostringstream out;
    out << "[" << info.index << "] " << to_string(info.type) << "  " << info.name << "  ("
        << info.platform << ", driver " << info.driver_version << ")  " << info.compute_units
        << " CU @ " << info.clock_mhz << " MHz, " << mebibytes(info.global_memory) << " global, "
        << mebibytes(info.local_memory) << " local, work-group <= " << info.max_work_group_size
        << ", fp64 " << (info.fp64 ? "yes" : "no");
    return out.str();
}

std::string describe(const std::vector<Device>& devices) {
    if (devices.empty()) return "  (no device found)\n";
    std::string text;
    for (const auto& d : devices) text += "  " + describe(d.info()) + "\n";
    return text;
}

} // namespace partcl
