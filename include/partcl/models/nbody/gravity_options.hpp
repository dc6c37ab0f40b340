#pragma once
// The options of N-body gravity, without the device code: which model ([gravity] model) and
// the tree's (models/nbody/tree_gravity.hpp). Each option's default is its initialiser here and
// its range is checked by the predicate here, for TreeGravity and for scenarios alike.
#include <cstddef>
#include <optional>
#include <string>

#include <partcl/models/option_names.hpp>

namespace partcl {

enum class GravityModelKind {
    dense,  // all pairs (models/nbody/dense_gravity.hpp)
    tree,   // Barnes-Hut (models/nbody/tree_gravity.hpp)
};
inline constexpr OptionName<GravityModelKind> gravity_model_kinds[] = {
    {GravityModelKind::dense, "dense"}, {GravityModelKind::tree, "tree"}};
inline const char* to_string(GravityModelKind kind) noexcept {
    return name_of(gravity_model_kinds, kind);
}

// How tree gravity spreads over MPI ranks: every body gathered to every rank, each building the
// whole tree (DistributedTreeGravity), or locally essential trees, each rank its piece of space
// and what its groups meet of the others' (EssentialTreeGravity). One rank's forces either way.
enum class TreeRanks {
    gather,
    essential,
};
inline constexpr OptionName<TreeRanks> tree_ranks_kinds[] = {{TreeRanks::gather, "gather"},
                                                             {TreeRanks::essential, "essential"}};
inline const char* to_string(TreeRanks kind) noexcept { return name_of(tree_ranks_kinds, kind); }

enum class TreeTraversal {
    nested,     // an explicit stack of node indices in private memory
    stackless,  // next/skip arithmetic on heap indices (no stack)
};
inline constexpr OptionName<TreeTraversal> tree_traversals[] = {
    {TreeTraversal::stackless, "stackless"}, {TreeTraversal::nested, "nested"}};
inline const char* to_string(TreeTraversal traversal) noexcept {
    return name_of(tree_traversals, traversal);
}
// "nested" or "stackless"; UsageError otherwise.
TreeTraversal parse_tree_traversal(const std::string& name);

// TreePM's split of gravity in a periodic cube (models/nbody/tree_pm_gravity.hpp): a tree
// given one sums only the short-range part, erfc(r / 2 r_s) / r, over nearest images.
struct ShortRangeSplit {
    double box = 1;    // edge of the periodic cube
    double split = 0;  // r_s: the long range is gravity smoothed by exp(-k^2 r_s^2)
    double cut = 0;    // pairs farther apart than this act not at all; less than box / 2
};

struct TreeOptions {
    // Opening angle, in [0, 1]: 0 opens every node (direct summation), larger is faster and
    // less accurate. 1 is the largest for which no body treats a node holding itself as far.
    double theta = 0.5;
    // Most bodies in a leaf (>= 1); an opened leaf's bodies act one by one.
    std::size_t leaf_size = 8;
    TreeTraversal traversal = TreeTraversal::stackless;
    // Most bodies that walk the tree together (one work-item each), a power of two in
    // [1, 1024]: a larger group costs fewer walks and divergent paths, and more interactions
    // per body (its openings are decided for its whole box). 1 is the classic per-body walk.
    std::size_t group_size = 32;
    // The listed walk's list: nodes taken whole, listed in local memory, at most list_size (0
    // or in [group_size, 2048]) before the group applies them. With list_size > 0 a group
    // (at most 512 bodies) is a work-group and walks together, each work-item testing a node
    // per round off a stack the group shares (the traversal option does not apply); 0: every
    // work-item walks the group's path alone (nested or stackless) and applies each source as
    // it meets it. Groups of 1 are never listed. Unset: max(128, group_size) for groups of at
    // most 512, else 0: the group tests its path's nodes in parallel, one per work-item, where a
    // work-item walking alone tests them all itself (faster on every device measured;
    // docs/performance.md). Where no device is a GPU one work-item lists for the whole group
    // instead, and the bodies sum the list in vectors (docs/nbody.md).
    std::optional<std::size_t> list_size = std::nullopt;
    // Evaluations per build, >= 1: TreeGravity::accelerations() builds the tree every
    // rebuild_every-th evaluation and in between refits it (keeps which bodies each node holds
    // and recomputes the nodes from where they are now), for a fraction of a build. A refitted
    // node is exact for its bodies, so every opening keeps its bound; nodes only grow as their
    // bodies drift apart, and the walk opens more of them.
    std::size_t rebuild_every = 1;
    // With rebuild_every > 1, >= 0: a refit whose leaves' radii add up to more than
    // (1 + rebuild_growth) times the built tree's is replaced by a build. Clustered bodies
    // loosen their nodes fastest, and a loose tree's walk soon costs more than a build; 0:
    // refit regardless.
    double rebuild_growth = 0;
    // A relative opening criterion (Gadget-2's, for a quadrupole), >= 0 (0: theta alone). Where
    // an earlier evaluation left each body's |a| (TreeGravity::remember; accelerations() does
    // it), a node of mass m within radius r of its centre also acts whole at distances d > r
    // where the first term its expansion leaves out, G m r^3 / d^5, is at most
    // relative_accuracy times the smallest |a| of the group walking. Bodies pulled hard (in
    // halos) then take whole nodes theta would open; where pulls nearly cancel theta still
    // decides, so it only takes work away (docs/nbody.md has what it saves and costs).
    double relative_accuracy = 0;
    // Set by TreePM: the periodic short-range sum instead of Newton's in open space.
    std::optional<ShortRangeSplit> short_range = std::nullopt;

    // The ranges of theta, leaf_size and group_size (the largest group: CUDA's largest block).
    static constexpr std::size_t max_leaf_size = std::size_t(1) << 20;
    static constexpr std::size_t max_group_size = 1024;
    static constexpr bool valid_theta(double t) noexcept { return t >= 0 && t <= 1; }
    static constexpr bool valid_leaf_size(std::size_t l) noexcept {
        return l >= 1 && l <= max_leaf_size;
    }
    static constexpr bool valid_group_size(std::size_t g) noexcept {
        return g >= 1 && g <= max_group_size && (g & (g - 1)) == 0;
    }
    static constexpr std::size_t max_rebuild_every = 1000;
    static constexpr bool valid_rebuild_every(std::size_t k) noexcept {
        return k >= 1 && k <= max_rebuild_every;
    }
    static constexpr bool valid_rebuild_growth(double g) noexcept { return g >= 0 && g <= 1e6; }
    static constexpr bool valid_relative_accuracy(double a) noexcept { return a >= 0 && a <= 1; }
};

} // namespace partcl
