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

namespace {
// The sum of `weights`; UsageError naming `who` when there are none or one is not positive
// and finite.
double weight_total(const std::vector<double>& weights, const char* who) {
    if (weights.empty()) throw UsageError(std::string(who) + ": no weights (no devices)");
    double total = 0;
    for (double w : weights) {
        if (!(w > 0) || !std::isfinite(w))
            throw UsageError(std::string(who) + ": weights must be positive and finite");
        total += w;
    }
    return total;
}
} // namespace

Partition Partition::by_weight(std::size_t n, const std::vector<double>& weights,
                               std::size_t granule) {
    const double total = weight_total(weights, "Partition::by_weight");
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

Partition Partition::by_weight_at(const std::vector<std::size_t>& cuts,
                                  const std::vector<double>& weights) {
    const double total = weight_total(weights, "Partition::by_weight_at");
    if (cuts.empty() || cuts.front() != 0 || !std::is_sorted(cuts.begin(), cuts.end()))
        throw UsageError("Partition::by_weight_at: the allowed cuts must ascend from 0");
    const std::size_t n = cuts.back();
    std::vector<std::size_t> offsets(weights.size() + 1, 0);
    double cumulative = 0;
    for (std::size_t d = 0; d + 1 < weights.size(); ++d) {
        cumulative += weights[d] / total;
        const double target = cumulative * double(n);
        // The first allowed cut at or past the target, or the one before it if that is nearer.
        auto above = std::lower_bound(cuts.begin(), cuts.end(), target,
                                      [](std::size_t cut, double t) { return double(cut) < t; });
        if (above == cuts.end()) --above;
        std::size_t cut = *above;
        if (above != cuts.begin() && target - double(*(above - 1)) <= double(cut) - target)
            cut = *(above - 1);
        offsets[d + 1] = std::max(offsets[d], cut);
    }
    offsets.back() = n;
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
