#include <partcl/dist/device_share.hpp>

#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::dist {

std::vector<Device> device_share(const std::vector<Device>& devices, int node_rank, int node_size) {
    if (devices.empty()) throw UsageError("dist::device_share: no devices to share");
    if (node_size < 1 || node_rank < 0 || node_rank >= node_size)
        throw UsageError("dist::device_share: node rank " + std::to_string(node_rank) + " of " +
                         std::to_string(node_size));
    const std::size_t n = devices.size(), ranks = std::size_t(node_size), r = std::size_t(node_rank);
    if (ranks >= n) return {devices[r % n]};
    return std::vector<Device>(devices.begin() + std::ptrdiff_t(r * n / ranks),
                               devices.begin() + std::ptrdiff_t((r + 1) * n / ranks));
}

} // namespace partcl::dist
