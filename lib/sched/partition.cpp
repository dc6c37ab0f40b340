#include <partcl/backend/error.hpp>
#include <partcl/sched/partition.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace partcl {

Partition::Partition(std::vector<std::size_t> offsets) : offsets_(std::move(offsets)) {
    if (offsets_.size() < 2)
        throw UsageError("a Partition needs at least one part (two offsets)");
    if (offsets_.front() != 0)
        throw UsageError("a Partition starts at 0, not " + std::to_string(offsets_.front()));
    for (std::size_t d = 1; d < offsets_.size(); ++d)
        if (offsets_[d] < offsets_[d - 1])
            throw UsageError("Partition offsets must not decrease: part " + std::to_string(d - 1) +
                             " would be [" + std::to_string(offsets_[d - 1]) + ", " +
                             std::to_string(offsets_[d]) + ")");
}

Partition Partition::by_weight(std::size_t n, const std::vector<double>& weights,
                               std::size_t granule) {
    if (weights.empty()) throw UsageError("Partition::by_weight: no weights (no devices)");
    double total = 0;
    for (double w : weights) {
        if (!(w > 0) || !std::isfinite(w))
            throw UsageError("Partition::by_weight: weights must be positive and finite");
        total += w;
    }
    granule = std::max<std::size_t>(granule, 1);
    const std::size_t blocks = (n + granule - 1) / granule;
    std::vector<std::size_t> offsets(weights.size() + 1, 0);
    double cumulative = 0;
    for (std::size_t d = 0; d < weights.size(); ++d) {
        cumulative += weights[d] / total;
        const std::size_t end_block =
            d + 1 == weights.size() ? blocks
                                    : static_cast<std::size_t>(std::llround(cumulative * double(blocks)));
        offsets[d + 1] = std::min(n, std::max(offsets[d], end_block * granule));
    }
    return Partition(std::move(offsets));
}

Partition Partition::on_one_device(std::size_t n, std::size_t parts, std::size_t device) {
    if (device >= parts)
        throw UsageError("Partition::on_one_device: device " + std::to_string(device) +
                         " of " + std::to_string(parts));
    std::vector<std::size_t> offsets(parts + 1, 0);
    for (std::size_t d = device + 1; d <= parts; ++d) offsets[d] = n;
    return Partition(std::move(offsets));
}

} // namespace partcl
