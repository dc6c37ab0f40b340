#include <partcl/backend/error.hpp>
#include <partcl/sched/partitioned_output.hpp>

#include <string>

namespace partcl::detail {

void check_soa_layout(std::size_t components, std::size_t n, SoaLayout layout, std::size_t size) {
    if (components > 1 && layout.stride < n)
        throw UsageError("PartitionedOutput: components " + std::to_string(layout.stride) +
                         " elements apart overlap for " + std::to_string(n) + " items");
    // The last element written is offset + (components - 1) * stride + n - 1.
    const std::size_t span = n == 0 ? 0 : (components - 1) * layout.stride + n;
    if (layout.offset > size || span > size - layout.offset)
        throw UsageError("PartitionedOutput: " + std::to_string(components) + " components of " +
                         std::to_string(n) + " items from element " +
                         std::to_string(layout.offset) + ", " + std::to_string(layout.stride) +
                         " apart, do not fit a destination of " + std::to_string(size) +
                         " elements");
}

void check_output_part(std::size_t d, std::size_t parts, bool assigned) {
    if (!assigned)
        throw UsageError("PartitionedOutput: no destination assigned (assign() before each "
                         "launch; gather() ends the assignment)");
    if (d >= parts)
        throw UsageError("PartitionedOutput: device " + std::to_string(d) + " of a context of " +
                         std::to_string(parts) + " devices");
}

} // namespace partcl::detail
