#include <partcl/dist/index_directory.hpp>

#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::dist {

IndexDirectory::IndexDirectory(const Communicator& communicator, std::vector<std::uint32_t> mine)
    : mine_(std::move(mine)), gathered_(communicator.allgatherv(mine_)) {
    const std::vector<std::size_t> counts = communicator.allgather(mine_.size());
    const std::size_t total = gathered_.size();
    rank_.assign(total, -1);
    slot_.assign(total, 0);
    std::size_t at = 0;
    // Every rank checks the same gathered indices, so every rank refuses them alike.
    for (std::size_t r = 0; r < counts.size(); ++r)
        for (std::size_t s = 0; s < counts[r]; ++s, ++at) {
            const std::uint32_t index = gathered_[at];
            if (index >= total || rank_[index] >= 0)
                throw UsageError("dist::IndexDirectory: index " + std::to_string(index) + " of rank " +
                                 std::to_string(r) + " is " +
                                 (index >= total ? "past the " + std::to_string(total) + " items"
                                                 : std::string("held twice")));
            rank_[index] = std::int32_t(r);
            slot_[index] = std::uint32_t(s);
            in_order_ = in_order_ && index == at;
        }
}

std::vector<double> IndexDirectory::to_global(const std::vector<double>& rank_ordered,
                                              std::size_t components) const {
    const std::size_t n = total();
    if (rank_ordered.size() != components * n)
        throw UsageError("dist::IndexDirectory: " + std::to_string(rank_ordered.size()) + " values for " +
                         std::to_string(components) + " components of " + std::to_string(n) + " items");
    if (in_order_) return rank_ordered;
    std::vector<double> global(rank_ordered.size());
    for (std::size_t c = 0; c < components; ++c)
        for (std::size_t i = 0; i < n; ++i) global[c * n + gathered_[i]] = rank_ordered[c * n + i];
    return global;
}

} // namespace partcl::dist
