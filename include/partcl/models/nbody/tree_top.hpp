#pragma once
// TreeTop: the top levels of TreeGravity's kd-tree over the bodies of every rank, found without
// gathering them. TreeGravity cuts each node's cell box along its widest side at the median of
// its bodies, their order along that axis with ties in the order before (so, within a node of
// level l, by the coordinates along the axes of the node and its ancestors, then by the order
// the bodies were given in: their global index, cl/nbody/tree_build.cl). TreeTop finds the same
// medians by a distributed selection (each round every rank proposes a few bodies evenly spaced
// through what is left of a node on it, every rank counts what it holds before each, and what
// lies outside the two that bracket the sought body is dropped), so each body learns its node
// at level `levels` and
// each rank the cell boxes above: the one-rank tree's top, bit for bit, whatever bodies each
// rank holds. This is the first step of locally essential trees (docs/design.md, "Ranks"):
// the bodies of a node at that level can then be built into its subtree on one rank, and
// owners() and destinations() say which rank that is, in contiguous runs of nodes, so that a
// rank holds a run of the one-rank tree's positions once a Distributor has moved the bodies
// and order_of() has put them in that tree's order.
//
//   const TreeTop top = TreeTop::split(ranks, precision, x, y, z, index, n, total, 3);
//   top.node()[i];  // body i's node of level 3 (0 .. 7, left to right)
//   const Partition owners = top.owners(ranks.size());  // rank r: nodes owners[r]
//   dist::Distributor move(ranks, top.destinations(owners));
#include <cstddef>
#include <cstdint>
#include <vector>

#include <partcl/backend/precision.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

class TreeTop {
public:
    // This rank's `n` bodies at x, y, z (values of `precision`) with global indices `index`
    // (each of 0 .. total - 1 on one rank): their nodes at level `levels` of the tree of all
    // `total`. Every rank calls it with the same precision, total and levels. UsageError for
    // NaN or infinite coordinates, an index past `total`, counts that do not add up to it, or
    // levels past 31.
    static TreeTop split(const dist::Communicator& ranks, Precision precision, const double* x,
                         const double* y, const double* z, const std::uint64_t* index,
                         std::size_t n, std::size_t total, std::size_t levels);

    // What a split found: each body's node, the bodies' order, the cell boxes and split axes
    // above the level, and the selection's rounds (DeviceTreeTop makes these on the device).
    struct Parts {
        std::vector<std::uint32_t> node;
        std::vector<std::size_t> order;
        std::vector<double> box;
        std::vector<std::uint8_t> axis;
        std::size_t rounds = 0;
    };
    TreeTop(Precision precision, std::size_t total, std::size_t levels, Parts parts);

    std::size_t levels() const noexcept { return levels_; }
    // Body i's node at level levels() (0 .. 2^levels - 1, in the tree's order).
    const std::vector<std::uint32_t>& node() const noexcept { return node_; }
    // This rank's bodies in the tree's order at level levels(): by node, and within a node as
    // the one-rank build orders it there.
    const std::vector<std::size_t>& order() const noexcept { return order_; }
    // Cell boxes lox | loy | loz | hix | hiy | hiz of the heap's nodes 1 .. 2^(levels + 1) - 1
    // (2^(levels + 1) each, element 0 unused), the same on every rank: the root's is the
    // bodies' bounding box, each child's its parent's cut at the median.
    const std::vector<double>& cell_boxes() const noexcept { return boxes_; }
    // The selection's rounds, each two collectives, over all levels. This split runs on the
    // host; DeviceTreeTop runs the same with the bodies on a device, and this one is its
    // reference.
    std::size_t rounds() const noexcept { return rounds_; }

    // The nodes of level levels() cut into `ranks` contiguous runs (rank r owns nodes
    // [owners[r].begin, owners[r].end), the one-rank tree's positions from tree_start of the
    // first to tree_start of the end) whose heaviest weighs least (Partition::balanced). Node p
    // weighs the bodies it holds times node_cost[p] (2^levels() costs, the same on every rank,
    // such as the seconds its walks took), or its bodies alone when node_cost is empty.
    // UsageError for ranks 0 or costs of another count, negative, NaN or infinite.
    Partition owners(std::size_t ranks, const std::vector<double>& node_cost = {}) const;
    // The rank each of this rank's bodies goes to: its node's owner under `owners` (one made
    // by owners(), UsageError for a partition of another count of nodes).
    std::vector<int> destinations(const Partition& owners) const;
    // The order in which bodies at x, y, z with global indices `index`, of nodes `node` at
    // level levels(), stand in the one-rank tree's order at that level: by node, and within
    // a node as the build orders it there (along the ancestors' axes, then by index), which is
    // what the build of the levels below needs to continue it. For this rank's bodies,
    // order_of(node(), ...) is order(); for the bodies that arrive after a move, a run of the
    // one-rank tree's positions.
    std::vector<std::size_t> order_of(const std::uint32_t* node, const double* x, const double* y,
                                      const double* z, const std::uint64_t* index, std::size_t n) const;

private:
    Precision precision_ = Precision::float32;
    std::size_t levels_ = 0, rounds_ = 0, total_ = 0;
    std::vector<std::uint32_t> node_;
    std::vector<std::size_t> order_;
    std::vector<double> boxes_;
    std::vector<std::uint8_t> axis_;  // each node's split axis above level levels()
};

} // namespace partcl
