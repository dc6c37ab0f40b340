#include <partcl/sched/halo.hpp>

namespace partcl::detail {

void check_pieces(const std::vector<SlotCopy>& pieces, std::size_t devices) {
    for (const SlotCopy& p : pieces)
        if (p.from >= devices || p.to >= devices)
            throw UsageError("Halo: a piece from device " + std::to_string(p.from) + " to device " +
                             std::to_string(p.to) + " in a context of " + std::to_string(devices) +
                             " devices");
}

} // namespace partcl::detail
