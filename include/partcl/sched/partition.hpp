#pragma once
// Partition: how one launch's index range [0, n) is cut between the devices of a Context, as
// VexCL's partitioned vectors keep it: an explicit array of offsets, one contiguous range per
// device in device order. Device d owns [offsets[d], offsets[d + 1]); ranges may be empty (N = 0,
// fewer items than devices, or a device whose weight rounds to no work-group).
#include <cstddef>
#include <vector>

namespace partcl {

struct Range {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t size() const noexcept { return end - begin; }
    bool empty() const noexcept { return end <= begin; }
    bool operator==(const Range& o) const noexcept { return begin == o.begin && end == o.end; }
};

class Partition {
public:
    // One part, empty.
    Partition() : offsets_{0, 0} {}
    // `offsets`: parts + 1 values, the first 0, never decreasing (UsageError otherwise).
    explicit Partition(std::vector<std::size_t> offsets);
    // [0, n) cut at the cumulative fractions of `weights` (positive, one per part), each cut
    // rounded to a multiple of `granule` (except the end, n): a launch in work-groups of
    // `granule` items then never runs one group on two devices.
    static Partition by_weight(std::size_t n, const std::vector<double>& weights,
                               std::size_t granule = 1);
    // [0, n), n = cuts.back(), cut at the cumulative fractions of `weights` (positive, one per
    // part), each cut moved to the nearest of `cuts` (the lower of two equally near): parts of
    // whole blocks between allowed cuts, as slabs of cells are. `cuts` ascend from 0
    // (UsageError otherwise).
    static Partition by_weight_at(const std::vector<std::size_t>& cuts,
                                  const std::vector<double>& weights);
    // [0, n), n = item_weights.size(), cut into `parts` contiguous ranges so that the heaviest
    // weighs as little as any contiguous cut allows (the linear partition problem), each cut as
    // near the equal-share cut as that allows: items of uneven cost, such as slabs of cells, cut
    // between ranks. Weights zero or positive and finite, parts >= 1 (UsageError otherwise).
    static Partition balanced(const std::vector<double>& item_weights, std::size_t parts);
    // All of [0, n) on device `device` of `parts`, the others empty.
    static Partition on_one_device(std::size_t n, std::size_t parts, std::size_t device = 0);

    std::size_t parts() const noexcept { return offsets_.size() - 1; }
    // n: the items of all parts together.
    std::size_t total() const noexcept { return offsets_.back(); }
    // Device d's range (std::out_of_range past the last part).
    Range operator[](std::size_t d) const { return {offsets_.at(d), offsets_.at(d + 1)}; }
    const std::vector<std::size_t>& offsets() const noexcept { return offsets_; }

    bool operator==(const Partition& o) const noexcept { return offsets_ == o.offsets_; }
    bool operator!=(const Partition& o) const noexcept { return !(*this == o); }

private:
    std::vector<std::size_t> offsets_;
};

} // namespace partcl
