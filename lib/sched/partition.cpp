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

namespace {

// Parts weigh below[end] - below[begin] everywhere (below[s]: the weight of the items < s), so
// that every comparison of a part with a bound rounds alike.

// The farthest end of a part from `begin` that weighs at most `largest`.
std::size_t farthest_end(const std::vector<double>& below, std::size_t begin, double largest) {
    const double start = below[begin];
    return std::size_t(std::partition_point(below.begin() + std::ptrdiff_t(begin), below.end(),
                                            [&](double v) { return v - start <= largest; }) -
                       below.begin()) - 1;
}

// The nearest begin of a part to `end` that weighs at most `largest`.
std::size_t nearest_begin(const std::vector<double>& below, std::size_t end, double largest) {
    const double stop = below[end];
    return std::size_t(std::partition_point(below.begin(), below.begin() + std::ptrdiff_t(end),
                                            [&](double v) { return stop - v > largest; }) -
                       below.begin());
}

// Where the greedy fill ends: each of `parts` parts takes items while it weighs at most
// `largest`; past the last item iff some cut's parts all weigh at most that.
std::size_t greedy_end(const std::vector<double>& below, std::size_t parts, double largest) {
    std::size_t at = 0;
    for (std::size_t r = 0; r < parts && at + 1 < below.size(); ++r) at = farthest_end(below, at, largest);
    return at;
}

} // namespace

Partition Partition::balanced(const std::vector<double>& item_weights, std::size_t parts) {
    if (parts == 0) throw UsageError("Partition::balanced: no parts");
    const std::size_t items = item_weights.size();
    std::vector<double> below(items + 1, 0.0);
    for (std::size_t s = 0; s < items; ++s) {
        const double w = item_weights[s];
        if (!(w >= 0) || !std::isfinite(w))
            throw UsageError("Partition::balanced: item " + std::to_string(s) +
                             " weighs " + std::to_string(w) + ", not zero or positive and finite");
        below[s + 1] = below[s] + w;
    }
    // The equal-share cut: where the weight below reaches r / K of it.
    const double total = below[items];
    std::vector<std::size_t> share(parts + 1, items);
    share[0] = 0;
    for (std::size_t r = 1; r < parts; ++r) {
        const double target = total * double(r) / double(parts);
        share[r] = std::max(share[r - 1], std::size_t(std::lower_bound(below.begin(), below.end(), target) -
                                                      below.begin()));
    }
    // The least largest part, by bisection between a bound no cut beats and the equal-share
    // cut's, the greedy fill telling which side; it ends at two neighbouring doubles.
    double low = total / double(parts), high = 0;
    for (double w : item_weights) low = std::max(low, w);
    for (std::size_t r = 0; r < parts; ++r) high = std::max(high, below[share[r + 1]] - below[share[r]]);
    if (greedy_end(below, parts, low) == items) high = low;
    for (int i = 0; i < 200 && std::nextafter(low, high) < high; ++i) {
        const double middle = low + (high - low) / 2;
        (greedy_end(below, parts, middle) == items ? high : low) = middle;
    }
    // earliest[r]: the first cut from which parts r.. still hold the rest at `high`, found from
    // the end; each cut then goes as near its equal share as lies between that and the
    // farthest its part may reach, so every part weighs at most `high`.
    std::vector<std::size_t> earliest(parts + 1, items);
    for (std::size_t r = parts - 1; r >= 1; --r) earliest[r] = nearest_begin(below, earliest[r + 1], high);
    std::vector<std::size_t> offsets(parts + 1, items);
    offsets[0] = 0;
    for (std::size_t r = 1; r < parts; ++r) {
        const std::size_t reach = farthest_end(below, offsets[r - 1], high);
        offsets[r] = std::max(offsets[r - 1], std::min(std::max(share[r], earliest[r]), reach));
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
