#pragma once
// TreeGravity: Barnes-Hut gravity over a kd-tree stored as a binary heap, built on the device every
// evaluation or every few and refitted in between (cl/nbody/tree_build.cl), and walked by groups of
// neighbouring bodies (cl/nbody/tree_force.cl), in O(N log N). The tree splits each node at the
// median along the widest side of its cell until a leaf holds at most `leaf_size` bodies; a node
// acts as its mass at its centre of mass plus its quadrupole when r / d < theta, r being a radius
// about the centre of mass that holds the node's bodies and d the distance to the target
// (drons/nbody's lambda_crit = 1 / theta). A group of at most `group_size` bodies walks one path,
// taking d as the distance to the group's box: a node is taken whole only where every body of the
// group would take it. theta = 0 opens every node: the sum is then the direct one, in another
// order.
// On a context of several devices the tree is built once, on device 0, and read by every device
// (copied to each where memories are separate: Mirror); the walk is one MultiDeviceLaunch
// ("tree walk") cut by ranges of groups. Device 0 writes its
// bodies' results into the output, the others into slices of their own in tree order, which
// device 0 then puts in place: every body's result is the one-device result, bit for bit.
// Positions must be finite: build() refuses others (UsageError; the sorts would place NaN
// anywhere), and a refit takes them as it finds them (Bodies::validate checks a run's inputs).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/models/nbody/gravity.hpp>
#include <partcl/models/nbody/gravity_options.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl {

// A tree read back from the device (tests, diagnostics). Layout as cl/nbody/tree.h says: node
// k of level l (k in [2^l, 2^(l+1))) owns tree positions [floor(p n / 2^l), floor((p + 1) n /
// 2^l)), p = k - 2^l; element 0 of the node arrays is unused.
struct TreeSnapshot {
    std::size_t n = 0, levels = 0;
    std::vector<std::uint32_t> perm;  // tree position -> body
    // cx | cy | cz | m | crit2 | sxx | syy | szz | sxy | sxz | syz, 2^(levels + 1) each: the
    // s are the second moments sum m u u^T of the bodies' offsets u from the centre of mass.
    std::vector<double> node;
    // Tight boxes lox | loy | loz | hix | hiy | hiz, and each node's radius: its bodies lie
    // within it of its centre of mass.
    std::vector<double> box;
    std::size_t nodes() const noexcept { return std::size_t(2) << levels; }
    std::size_t begin(std::size_t k) const noexcept;  // first tree position of node k
    std::size_t end(std::size_t k) const noexcept;
};

class TreeGravity : public GravityModel {
public:
    TreeGravity(Context& context, Precision precision, GravityParameters parameters = {},
                TreeOptions options = {}, ProgramCache& cache = ProgramCache::global());

    // update(), evaluate(), then remember() the result.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;
    // build() or refit(), as TreeOptions::rebuild_every and rebuild_growth say.
    void update(const RealBuffer& positions, const RealBuffer& mass, std::size_t n);
    // Keeps |a| of each of the latest tree's bodies from `acc` (x | y | z, n apart from
    // `offset`) for the relative criterion (TreeOptions::relative_accuracy) of the evaluations
    // that follow; nothing without it. TreePM passes the whole force, mesh included.
    void remember(const RealBuffer& acc, std::size_t offset);

    // The two halves of accelerations(), for benchmarks that time them apart. build() enqueues
    // the tree of n bodies on device 0's queue (after every queue's work, which may have written
    // the inputs); evaluate() walks the latest tree on every device and waits for the forces.
    void build(const RealBuffer& positions, const RealBuffer& mass, std::size_t n);
    void evaluate(RealBuffer& out, std::size_t out_offset, RealBuffer* potential = nullptr);
    // Recomputes the latest tree's nodes (masses, moments, boxes, radii) for its bodies at new
    // positions, each node keeping the bodies it holds, on device 0's queue: a fraction of a
    // build. UsageError before a build or for another number of bodies.
    void refit(const RealBuffer& positions, const RealBuffer& mass, std::size_t n);
    // A piece of locally essential trees (docs/design.md, "Ranks"), on device 0's queue: the
    // subtrees of the nodes `nodes` of level `top` of the tree of `total` bodies, a run this
    // rank owns (TreeTop::owners), from their n bodies, the tree's positions from
    // tree_start(nodes.begin) to tree_start(nodes.end), given in the tree's order at that
    // level (TreeTop::order_of), and the top's cell boxes (TreeTop::cell_boxes). Those
    // subtrees' nodes and boxes, and perm over the run's positions, are then the one-rank
    // tree's bit for bit (snapshot()); the nodes above level `top` are not built, and the walk
    // refuses such a tree until build_top() and import_essential() have made it whole. UsageError for
    // n other than the run's bodies, a run past the level, top past levels_for(total), or
    // cell boxes of another size.
    void build_branches(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                        std::size_t total, std::size_t top, Range nodes,
                        const std::vector<double>& cell_boxes);
    // The rows of nodes `nodes` of level `level` of the latest tree, node after node, each the
    // 11 node fields then the 7 of the box (tree.h), as doubles (exact in either precision):
    // what a rank sends of its subtrees' roots, or of any nodes, to the others (blocks). With
    // `fields` < row_fields, each row is its first `fields` values.
    std::vector<double> node_rows(std::size_t level, Range nodes, std::size_t fields = row_fields);
    // A node's fields (cl/nbody/tree.h: centre of mass, mass, crit2, six second moments), and
    // its row for node_rows() and build_top(), which adds the box's 7 (lo, hi, radius).
    static constexpr std::size_t node_fields = 11, row_fields = 18;
    // Writes every node of level `level` from `rows` (all 2^level of them as node_rows() gives
    // them, every rank's roots gathered in node order) and computes the levels above as build()
    // does: after build_branches(), the top of the one-rank tree, bit for bit. UsageError for
    // rows of another size or a level below the tree's.
    void build_top(std::size_t level, const std::vector<double>& rows);
    // The rest of a locally essential tree, after build_branches() and build_top() (what
    // EssentialExchange sends and receives): other ranks' nodes that this rank's groups may
    // visit (heap indices `nodes`, each row the 11 node fields then the radius:
    // essential_row_fields values), and the bodies of their leaves that the groups may open
    // (tree positions `positions`, x, y, z, m each). The walk then takes this rank's groups
    // (branch_groups(), evaluate_in_tree_order), and where the nodes and bodies it meets are all
    // there, each result is the one-rank tree's bit for bit. UsageError before build_top(), for
    // rows or bodies of another count, nodes or positions outside the tree, or walk groups that
    // would span several of the top's nodes (a level past levels_for(total, group_size)).
    void import_essential(const std::vector<std::uint32_t>& nodes, const std::vector<double>& rows,
                          const std::vector<std::uint32_t>& positions, const std::vector<double>& bodies);
    static constexpr std::size_t essential_row_fields = node_fields + 1;
    // What a rank sends of its subtrees (EssentialExchange): the nodes below the branches' level
    // that walk groups inside boxes of other ranks may visit, and the bodies of the leaves they
    // may open, each once for each rank it goes to, as import_essential() takes them.
    struct EssentialSends {
        std::vector<std::uint32_t> nodes;      // heap indices
        std::vector<int> node_to;              // the rank each goes to
        std::vector<double> rows;              // essential_row_fields a node
        std::vector<std::uint32_t> positions;  // tree positions
        std::vector<int> body_to;
        std::vector<double> bodies;            // x, y, z, m a body
    };
    // After build_branches() and build_top(), on device 0's queue (blocks). A box walks the
    // tree as a group inside it would, opening every node the group could: a node opens where
    // it has mass and the squared distance from its centre of mass to the box is within its
    // crit2 times `margin`; below the branches' level it walks this rank's run only. `boxes`
    // holds lo x, y, z, hi x, y, z of each box, box_rank[j] the rank box j's groups are on
    // (negative: a box not walked), each rank's boxes consecutive. Nodes come by heap index, each
    // once for each rank in box order; bodies leaf by leaf, a leaf's once for each rank. UsageError
    // before build_top(), for boxes of another count, or a rank's boxes apart.
    EssentialSends essential_sends(const std::vector<double>& boxes, const std::vector<int>& box_rank,
                                   double margin);
    // The walk's groups of the latest tree (of groups(total)) whose bodies this rank holds: all
    // of them for a whole tree, the run's for branches.
    Range branch_groups() const;
    // The latest build's window: the level its run of nodes is at and the run (the root for a
    // whole tree), and the tree's bodies.
    std::size_t branch_level() const noexcept { return window_.from; }
    Range branch_nodes() const noexcept { return {window_.first, window_.last}; }
    std::size_t total() const noexcept { return window_.total; }

    // What accelerations() depends on besides the bodies, for checkpoints: the latest tree's
    // order (tree position -> body; empty before a build) and its age, the evaluations since
    // it was built (0: built by the latest).
    struct Order {
        std::vector<std::uint32_t> perm;
        std::size_t age = 0;
        double leaf_radii = 0;  // the built tree's sum of leaf radii (TreeOptions::rebuild_growth)
        // Each body's |a| that the latest evaluation's relative criterion read (empty: none).
        std::vector<double> reference;
    };
    Order order();  // blocks
    std::size_t builds() const noexcept { return builds_; }  // since construction
    // Makes the next accelerations() repeat the evaluation `order` was taken after, as a
    // leapfrog resumed from a checkpoint evaluates the positions its last step ended at again:
    // a build where that evaluation built, else a refit of `order.perm`, reading the same
    // reference |a|. UsageError for a perm that is not a permutation, an age of rebuild_every or
    // more, or a reference of another size or not finite and >= 0.
    void restore(const Order& order);
    // The order that makes the next accelerations() after restore() the one this model would
    // do next (a build or a refit one evaluation older, reading the |a| the latest evaluation
    // remembered), rather than a repeat of the latest: for runs whose integrators keep their
    // last derivative in a checkpoint, and around an evaluation that must leave the model as
    // it was (a run's diagnostics). Blocks.
    Order continuation();

    const GravityParameters& parameters() const noexcept override { return parameters_; }
    // Direct-summation equivalent: n^2 per evaluation, so interactions per second compare with
    // dense gravity's (the tree computes far fewer).
    double interactions() const noexcept override { return interactions_; }
    // The walk; its work items are groups (the build runs on device 0 and is not listed).
    LaunchList launches() const override { return {&walk_}; }
    // The weights that cut the walk's groups between devices (re-weighted after each walk).
    Scheduler& scheduler() noexcept { return walk_.scheduler(); }
    // Devices' ranges of groups start at multiples of this (a work-group's groups).
    std::size_t granule() const noexcept;

    // Walks only groups [range.begin, range.end) of the latest tree, over every device, and
    // writes their bodies' results in tree order: body perm[first + j] (first = tree_begin(
    // range.begin), j < count = tree_begin(range.end) - first) at out[j] (x), out[count + j]
    // (y), out[2 count + j] (z) and potential[j]. The same values evaluate() gives those
    // bodies, bit for bit; for a caller that sends each to its owner (DistributedTreeGravity).
    void evaluate_in_tree_order(Range range, RealBuffer& out, RealBuffer* potential = nullptr);
    // Puts `count` results that arrived in any order where evaluate() puts its own, on device
    // 0's queue: result j (values[j], values[count + j], values[2 count + j], potentials[j]) of
    // body bodies[j] into out[out_offset + bodies[j]] (x), + stride (y), + 2 stride (z) and
    // potential[bodies[j]]. Copies only, so the results keep their bits; the writes land at
    // random places, which a device does far faster than a host.
    void put_in_place(const Buffer<std::uint32_t>& bodies, const RealBuffer& values,
                      const RealBuffer* potentials, std::size_t count, RealBuffer& out,
                      std::size_t out_offset, std::size_t stride, RealBuffer* potential);
    // Of the latest tree: the first tree position of `group` (of groups(n)), and which body
    // each tree position holds (device 0's copy).
    std::size_t tree_begin(std::size_t group) const noexcept;
    const Buffer<std::uint32_t>& permutation() const noexcept { return perm_; }
    std::size_t size() const noexcept { return n_; }  // bodies of the latest tree

    const TreeOptions& options() const noexcept { return options_; }  // list_size resolved
    // Nodes listed per batch by the walk: options().list_size, 0 for groups of 1.
    std::size_t list_size() const noexcept;
    Precision precision() const noexcept { return precision_; }
    Context& context() const noexcept { return context_; }
    ProgramCache& cache() const noexcept { return cache_; }
    // Of the latest tree: levels of splits and leaves (2^levels).
    std::size_t levels() const noexcept { return levels_; }
    std::size_t leaves() const noexcept { return std::size_t(1) << levels_; }
    // The walk's groups for n bodies: 2^levels_for(n, group_size), each at most group_size.
    std::size_t groups(std::size_t n) const noexcept {
        return std::size_t(1) << levels_for(n, options_.group_size);
    }

    // The latest tree, read back (blocks).
    TreeSnapshot snapshot();

    // The number of split levels for n bodies at most leaf_size to a leaf (also: the level of
    // the walk's groups, with group_size for leaf_size).
    static std::size_t levels_for(std::size_t n, std::size_t leaf_size) noexcept;
    // UsageError naming the first of `parameters` and `options` out of its range (the walk's
    // list_size and short range aside, which depend on the devices): what the constructor and
    // reference::BarnesHut refuse alike.
    static void check_options(const GravityParameters& parameters, const TreeOptions& options);

private:
    void reserve(std::size_t n, std::size_t total);  // n bodies of a tree of total
    // UsageError for inputs build() and refit() cannot take.
    void check_inputs(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) const;
    // n_, levels_, the buffers and a whole window for n bodies of a tree of total.
    void set_size(std::size_t n, std::size_t total);
    // What a build holds: positions [base, base + n) of the tree of `total` bodies and its run of
    // nodes [first, last) of level `from`, the build's start (the whole tree: base 0, n =
    // total, the root). cl/nbody/tree_build.cl's window.
    struct Window {
        std::size_t total = 0, base = 0, n = 0, from = 0, first = 0, last = 1;
        bool whole() const noexcept { return from == 0 && first == 0 && last == 1; }  // the root's run
        // The window's run of the nodes of `level` (at or below `from`).
        Range run(std::size_t level) const noexcept {
            return {first << (level - from), last << (level - from)};
        }
    };
    // The build's sorts and cuts of levels from window_.from down (cell boxes there set).
    void split_levels(const RealBuffer& positions);
    // Bodies the walk's tree holds: the window's, or the whole tree's once essential.
    std::size_t walk_n() const noexcept { return essential_ ? window_.total : n_; }
    // The nodes of the current order from the bodies (gather, leaves, then level by level up
    // to window_.from).
    void fit(const RealBuffer& positions, const RealBuffer& mass);
    // Every node above level `level` from the nodes of that level.
    void fit_above(std::size_t level);
    // Whether refits are measured against rebuild_growth, and the measure: the leaves' radii
    // summed on device 0 (blocks).
    bool measures_growth() const noexcept;
    double leaf_radii();
    // (Re)builds the walk kernels for trees of up to `levels` levels (the listed walk's stack).
    void build_walk(std::size_t levels);
    // Whether the walk reads the nodes' radii (short range, relative criterion).
    bool walk_reads_radii() const noexcept;
    // restore()'s reference |a| as the next walk's (none where empty).
    void restore_reference(const std::vector<double>& reference);
    // An order of the latest tree: its perm and leaf radii where `perm`, with `age`, and the
    // |a| of references_[reference] where reference >= 0 (order() and continuation()).
    Order read_order(bool perm, std::size_t age, int reference);
    // Work-items of device d's walk launch per work-group.
    std::size_t walk_local(std::size_t d, const Kernel& walk) const;
    // evaluate()'s checks and the walk's kernels and inputs on every device.
    void prepare_walk(const RealBuffer& out, const RealBuffer* potential);
    // The walk of groups `range`, cut between the devices by `partition`: device 0 writes into
    // `out` (from out_offset, components `stride` apart; at the bodies' indices, or in tree order
    // from the range's first body where tree_order), devices d > 0 into their slices in tree order.
    void run_walk(Range range, const Partition& partition, RealBuffer& out, std::size_t out_offset,
                  std::size_t stride, bool tree_order, RealBuffer* potential);
    // Devices d > 0's slices for their parts of groups `range` cut by `partition`.
    void reserve_slices(Range range, const Partition& partition, bool potential);
    // Device d's results of groups [r.begin, r.end), in tree order, on device 0's queue at their
    // bodies' places.
    void scatter(std::size_t d, Range r, RealBuffer& out, std::size_t out_offset,
                 RealBuffer* potential);

    Context& context_;
    ProgramCache& cache_;
    Precision precision_;
    GravityParameters parameters_;
    TreeOptions options_;
    SortByKey sort_;               // the build's, on device 0
    std::vector<Kernel> kernels_;  // the build's, on device 0, indexed by the enum in tree_gravity.cpp
    // [potential * devices + d]: the walk on device d; scatters_[potential]: on device 0.
    std::vector<Kernel> walks_, scatters_;
    std::optional<Kernel> reference_kernel_;  // tree_reference, on device 0
    MultiDeviceLaunch walk_;
    // What the walk reads, on every device (copies where memories are separate).
    Mirror<RealBuffer> node_mirror_, sorted_mirror_;
    Mirror<Buffer<std::uint32_t>> perm_mirror_;
    Mirror<RealBuffer> box_mirror_;  // walk_reads_radii() only
    // The relative criterion's |a| of each body, two buffers so that remember() keeps the one
    // the latest evaluation read (order()); indices into them, -1 for none: the next walk's and
    // the latest walk's.
    RealBuffer references_[2];
    int next_reference_ = -1, used_reference_ = -1;
    std::size_t reference_size_ = 0;  // the bodies they hold |a| of
    Mirror<RealBuffer> reference_mirror_;
    // [d], d > 0: device d's results in tree order (x | y | z) and its potentials, in its own
    // memory where memories are separate.
    std::vector<RealBuffer> slices_, potential_slices_;
    // A slice and its potentials copied into device 0's memory for the scatter (separate memories).
    RealBuffer received_, potential_received_;
    std::size_t n_ = 0, capacity_ = 0, node_capacity_ = 0, levels_ = 0, walk_levels_ = 0;
    std::size_t age_ = 0;          // evaluations since the latest build
    std::size_t builds_ = 0;
    double leaf_radii_ = 0;        // of the latest build, where measures_growth()
    RealBuffer radii_;             // the leaves' radii, summed
    bool rebuild_next_ = false;    // restore(): the next accelerations() builds
    std::size_t finish_size_ = 0;  // tree_finish's work-group: finish_group or the device's largest
    Window window_;                // of the latest build
    // Branches: whether the top is built (build_top) and the other ranks' nodes and bodies
    // imported (import_essential), and what the walk then reads: the bodies of every tree
    // position it may meet and this rank's perm, each at its position in the whole tree.
    bool top_built_ = false, essential_ = false;
    RealBuffer essential_sorted_;
    Buffer<std::uint32_t> essential_perm_;
    // essential_sends()'s: the boxes, their ranks and the root's mask of boxes walked; each
    // walked node's mask of boxes that open it; the ranks a node and a leaf's bodies go to,
    // scanned into offsets; the items (heap index or place in the window, and rank); their
    // rows and bodies.
    RealBuffer sends_boxes_;
    Buffer<std::uint32_t> sends_rank_, sends_walked_, sends_open_, sends_nodes_, sends_leaves_;
    Buffer<std::uint32_t> sends_ids_, sends_ids_to_, sends_places_, sends_places_to_;
    RealBuffer sends_rows_, sends_bodies_;
    Buffer<std::uint32_t> perm_, perm_scratch_, values_, node_keys_;
    RealBuffer keys_buffer_, sorted_, node_, box_, root_box_;
    double interactions_ = 0;
};

} // namespace partcl
