#pragma once
// IndexDirectory: where each item of a field spread over the ranks lives, once the ranks hold
// their items in no set order (bodies that migrate to the rank that computes them). Made from
// every rank's global indices (a collective), it names each index's rank and slot there, and
// puts a field an Allgather brought in rank order back in the global order, which outputs and
// sums in one rank's order read.
//
//     dist::IndexDirectory where(world, my_indices);    // a permutation of [0, N) over the ranks
//     dist::Allgather all(world, my_indices.size());
//     std::vector<double> x = where.to_global(all.gather(mine, n, 3), 3);  // global order
//     int owner = where.rank_of(17);                     // who holds item 17, at slot_of(17)
#include <cstddef>
#include <cstdint>
#include <vector>

#include <partcl/dist/communicator.hpp>

namespace partcl::dist {

class IndexDirectory {
public:
    // Collective: every rank gives the global indices of the items it holds, in its order.
    // UsageError, on every rank, unless they are together each of [0, N) once (N < 2^32).
    IndexDirectory(const Communicator& communicator, std::vector<std::uint32_t> mine);

    std::size_t total() const noexcept { return gathered_.size(); }
    const std::vector<std::uint32_t>& mine() const noexcept { return mine_; }
    // Every rank's indices in rank order: item i of a field an Allgather brings is item
    // gathered()[i] of the global order.
    const std::vector<std::uint32_t>& gathered() const noexcept { return gathered_; }
    // Whether the ranks hold consecutive blocks in rank order (rank order is the global one).
    bool in_order() const noexcept { return in_order_; }
    int rank_of(std::uint32_t index) const { return rank_.at(index); }
    std::uint32_t slot_of(std::uint32_t index) const { return slot_.at(index); }
    // A field in rank order (`components` of each item, component c of item i at c * total() +
    // i) in the global order.
    std::vector<double> to_global(const std::vector<double>& rank_ordered, std::size_t components) const;

private:
    std::vector<std::uint32_t> mine_, gathered_;
    std::vector<std::int32_t> rank_;   // [global index]
    std::vector<std::uint32_t> slot_;  // [global index]
    bool in_order_ = true;
};

} // namespace partcl::dist
