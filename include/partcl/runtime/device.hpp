#pragma once
// Devices as users choose them: a DeviceInfo (partcl/backend/device_info.hpp: everything
// `partcl devices` shows) with the handles its backend needs to use it. The OpenCL objects
// behind one: partcl/backend/opencl/interop.hpp.
#include <string>
#include <utility>
#include <vector>

#include <partcl/backend/device_info.hpp>
#include <partcl/backend/backend.hpp>

namespace partcl {

// A device together with the handles its backend needs to use it.
class Device {
public:
    explicit Device(detail::BackendDevice device) : device_(std::move(device)) {}

    const DeviceInfo& info() const noexcept { return device_.info; }
    Backend backend() const noexcept { return device_.info.backend; }
    // The backend's device number (CUDA's device ordinal); -1 for OpenCL devices.
    int ordinal() const noexcept { return device_.ordinal; }
    // The same device at another position of a device list (enumerate_devices numbers them).
    Device renumbered(std::size_t index, std::size_t platform_index) const {
        Device d = *this;
        d.device_.info.index = index;
        d.device_.info.platform_index = platform_index;
        return d;
    }

    const detail::BackendDevice& backend_device() const noexcept { return device_; }

private:
    detail::BackendDevice device_;
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
