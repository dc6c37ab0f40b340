#pragma once
// EssentialExchange: the step that completes locally essential trees (docs/design.md, "Ranks").
// Every rank holds the one-rank tree's top and its own run's subtrees (TreeTop, then
// TreeGravity::build_branches and build_top); each then sends every other rank the nodes of its
// subtrees that the other's walk groups may visit and the bodies of the leaves they may open,
// and imports what the others send (TreeGravity::import_essential). A rank's walk of its own
// groups then meets only nodes and bodies it holds, all the one-rank tree's, so its results are
// the one-rank walk's bit for bit, at any opening angle.
//
// Which nodes: a group visits a node when it opens every ancestor, and opens one when the
// distance from the node's centre of mass to the group's box is within the node's opening
// distance (crit2). Each group of another rank lies within one of that rank's nodes at the
// branches' level, whose tight box holds the group's box, so that node's distance is at most
// the group's: where the node's box does not open a node (by a margin of 64 rounding units of
// the tree's precision over both walks' rounding of the distance), no group within it opens it.
// So a rank walks its subtrees for each node of that level another rank owns (every such box at
// once, on the device: TreeGravity::essential_sends) and sends the nodes met below its own
// roots (the roots every rank has) and the bodies of the leaves opened: a superset of what the
// other's walk meets. The relative criterion only takes more
// nodes whole, so the set holds with it too.
//
//   EssentialExchange exchange(world);
//   exchange.run(tree, owners, roots);       // after build_branches and build_top(level, roots)
//   tree.evaluate_in_tree_order(tree.branch_groups(), out);
#include <cstddef>
#include <cstdint>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

class EssentialExchange {
public:
    explicit EssentialExchange(const dist::Communicator& communicator) : communicator_(&communicator) {}

    // Collective. `tree` holds this rank's branches and the top (build_branches with run
    // owners[rank] of level tree.branch_level(), then build_top with `roots`, every rank's
    // roots as node_rows gives them, in node order); `owners` cuts that level's nodes between
    // the ranks (TreeTop::owners). UsageError for owners of another count of nodes or ranks,
    // or roots of another size.
    void run(TreeGravity& tree, const Partition& owners, const std::vector<double>& roots);

    // What run() walks rank `rank`'s subtrees with (TreeGravity::essential_sends): the boxes of
    // every node of the branches' level (`roots` and `owners` as run() takes them), each
    // named by the rank that owns it where that is another rank and the node holds bodies (a
    // node without bodies has no groups), -1 otherwise; and the margin that covers both walks'
    // rounding in `precision`.
    struct Boxes {
        std::vector<double> boxes;  // lo x, y, z, hi x, y, z a node
        std::vector<int> rank;
        double margin = 1;
    };
    static Boxes boxes_for(std::size_t rank, const Partition& owners, const std::vector<double>& roots,
                           Precision precision);

    // Of the latest run: the nodes and bodies this rank sent (counted once for each rank they
    // went to) and received, and the bytes it received.
    std::size_t nodes_sent() const noexcept { return nodes_sent_; }
    std::size_t bodies_sent() const noexcept { return bodies_sent_; }
    std::size_t nodes_received() const noexcept { return nodes_received_; }
    std::size_t bodies_received() const noexcept { return bodies_received_; }
    double bytes_received() const noexcept { return bytes_received_; }

private:
    const dist::Communicator* communicator_;
    // The items as they travel, packed: a 32-bit index (a node of the heap, a body's tree
    // position), then the row (the 11 node fields and the radius) or x, y, z, m, in the tree's
    // precision, which holds them exactly.
    std::vector<unsigned char> nodes_, nodes_arrived_, bodies_, bodies_arrived_;
    std::size_t nodes_sent_ = 0, bodies_sent_ = 0, nodes_received_ = 0, bodies_received_ = 0;
    double bytes_received_ = 0;
};

} // namespace partcl
