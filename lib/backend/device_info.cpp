#include <partcl/backend/device_info.hpp>

#include <sstream>

namespace partcl {

const char* to_string(DeviceType type) noexcept {
    switch (type) {
    case DeviceType::cpu: return "cpu";
    case DeviceType::gpu: return "gpu";
    case DeviceType::accelerator: return "accelerator";
    default: return "other";
    }
}

bool DeviceInfo::has_extension(const std::string& name) const {
    std::istringstream words(extensions);
    std::string word;
    while (words >> word)
        if (word == name) return true;
    return false;
}

} // namespace partcl
