// TreeGravity's side of locally essential trees (docs/design.md, "Ranks"): the nodes and bodies
// this rank sends the others (cl/nbody/tree_build.cl, tree_essential_* and tree_export_*), the
// groups a rank walks, and the import of other ranks' nodes and bodies into the arrays the walk
// reads (tree_import_*).
#include <partcl/models/nbody/tree_gravity.hpp>

#include <algorithm>
#include <string>
#include <unordered_set>

#include <partcl/algorithm/scan.hpp>
#include <partcl/backend/error.hpp>

#include "device_room.hpp"
#include "tree_build_kernels.hpp"

namespace partcl {

using namespace detail;

Range TreeGravity::branch_groups() const {
    const std::size_t total = window_.total;
    if (total == 0) return {0, 0};
    const std::size_t group_levels = levels_for(total, options_.group_size);
    if (window_.whole()) return {0, std::size_t(1) << group_levels};
    if (group_levels < window_.from)
        throw UsageError("TreeGravity: the walk's groups of " + std::to_string(total) + " bodies (level " +
                         std::to_string(group_levels) + ", up to " + std::to_string(options_.group_size) +
                         " bodies) would span several nodes of the branches' level " +
                         std::to_string(window_.from) + ": take a level of at most " +
                         std::to_string(group_levels));
    const std::size_t shift = group_levels - window_.from;
    return {window_.first << shift, window_.last << shift};
}

TreeGravity::EssentialSends TreeGravity::essential_sends(const std::vector<double>& boxes,
                                                         const std::vector<int>& box_rank, double margin) {
    const std::string what = "TreeGravity::essential_sends: ";
    if (!top_built_) throw UsageError(what + "build_branches() and build_top() come first");
    const std::size_t count = box_rank.size();
    if (boxes.size() != 6 * count)
        throw UsageError(what + std::to_string(boxes.size()) + " values for " + std::to_string(count) +
                         " boxes (6 a box)");
    // The kernels name each rank once a mask by comparing a box's rank with the one before.
    std::unordered_set<int> seen;
    for (std::size_t j = 0; j < count; ++j) {
        const int r = box_rank[j];
        if (r < 0 || (j > 0 && box_rank[j - 1] == r)) continue;
        if (!seen.insert(r).second)
            throw UsageError(what + "the boxes of rank " + std::to_string(r) + " are not consecutive (box " +
                             std::to_string(j) + ")");
    }
    EssentialSends sends;
    if (seen.empty() || window_.first == window_.last) return sends;

    // Walked nodes level by level: the run's ancestors above the branches' level, the run at and
    // below it.
    const std::size_t top = window_.from, heap = std::size_t(2) << levels_;
    std::vector<std::size_t> first(levels_ + 1), size(levels_ + 1), base(levels_ + 2, 0);
    for (std::size_t l = 0; l <= levels_; ++l) {
        const Range run = l < top ? Range{window_.first >> (top - l), ((window_.last - 1) >> (top - l)) + 1}
                                  : window_.run(l);
        first[l] = (std::size_t(1) << l) + run.begin;
        size[l] = run.size();
        base[l + 1] = base[l] + size[l];
    }
    const std::size_t leaves = size[levels_], below = base[levels_ + 1] - base[std::min(top + 1, levels_ + 1)];
    std::size_t words = (count + 31) / 32;
    Queue& queue = context_.queue(0);
    detail::reserve(context_, precision_, sends_boxes_, 6 * count);
    detail::reserve(context_, sends_rank_, count);
    detail::reserve(context_, sends_walked_, words);
    detail::reserve(context_, sends_open_, words * (words > 1 ? base[top + 1] : base[levels_ + 1]));
    detail::reserve(context_, sends_nodes_, below + 1);
    detail::reserve(context_, sends_leaves_, leaves + 1);
    std::vector<std::uint32_t> rank(count), walked(words, 0);
    for (std::size_t j = 0; j < count; ++j) {
        rank[j] = std::uint32_t(box_rank[j]);
        if (box_rank[j] >= 0) walked[j / 32] |= std::uint32_t(1) << (j % 32);
    }
    sends_boxes_.write(queue, boxes);
    sends_rank_.write(queue, rank.data(), count);
    sends_walked_.write(queue, walked.data(), words);
    const std::uint32_t zero = 0, none = 0xffffffffu;
    sends_nodes_.write(queue, &zero, 1, below);  // each count's end, for the scans' totals
    sends_leaves_.write(queue, &zero, 1, leaves);
    const auto open_level = [&](std::size_t l) {
        const std::size_t up = l > 0 ? l - 1 : 0;
        kernels_[k_essential_open]
            .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(base[l]), std::uint32_t(first[up]),
                  std::uint32_t(base[up]), std::uint32_t(heap), std::uint32_t(words), Real{margin}, sends_walked_,
                  sends_boxes_, node_, sends_open_)
            .launch(queue, size[l] * words);
        if (l > top || l == levels_)
            kernels_[k_essential_count]
                .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(base[l]), std::uint32_t(first[up]),
                      std::uint32_t(base[up]), std::uint32_t(words),
                      l > top ? std::uint32_t(base[l] - base[top + 1]) : none, std::uint32_t(l == levels_),
                      std::uint32_t(this->leaves()), std::uint32_t(window_.total), sends_rank_, sends_open_,
                      sends_nodes_, sends_leaves_)
                .launch(queue, size[l]);
    };
    for (std::size_t l = 0; l <= top; ++l) open_level(l);
    // Below the branches' level only the boxes that open one of the run's nodes there walk on:
    // the masks of the levels below keep those boxes alone, so that a rank whose roots only its
    // neighbours' boxes reach does not carry a word for every 32 boxes of all ranks (8 to 16 a
    // rank). (A rank whose roots reach far, as at a Plummer sphere's centre, still keeps nearly
    // all of them: docs/scaling.md.) The kept lists live to the function's end, which waits for
    // their writes.
    std::vector<double> kept_boxes;
    std::vector<std::uint32_t> kept_rank, kept_open;
    if (words > 1) {
        std::vector<std::uint32_t> open(words * size[top]), reached(words, 0);
        sends_open_.read(queue, open.data(), open.size(), words * base[top]);
        for (std::size_t i = 0; i < size[top]; ++i)
            for (std::size_t w = 0; w < words; ++w) reached[w] |= open[words * i + w];
        std::vector<std::size_t> kept;  // in box order, so a rank's boxes stay consecutive
        for (std::size_t j = 0; j < count; ++j)
            if ((reached[j / 32] >> (j % 32)) & 1u) kept.push_back(j);
        if (kept.empty()) return sends;
        const std::size_t kept_words = (kept.size() + 31) / 32;
        kept_boxes.resize(6 * kept.size());
        kept_rank.resize(kept.size());
        kept_open.assign(kept_words * size[top], 0);
        for (std::size_t a = 0; a < kept.size(); ++a) {
            const std::size_t j = kept[a];
            std::copy(boxes.begin() + std::ptrdiff_t(6 * j), boxes.begin() + std::ptrdiff_t(6 * j + 6),
                      kept_boxes.begin() + std::ptrdiff_t(6 * a));
            kept_rank[a] = rank[j];
            for (std::size_t i = 0; i < size[top]; ++i)
                if ((open[words * i + j / 32] >> (j % 32)) & 1u)
                    kept_open[kept_words * i + a / 32] |= std::uint32_t(1) << (a % 32);
        }
        // The walk below reads these in place of the whole lists (the queue runs in order): the
        // levels from the branches' on are laid out from the start of sends_open_.
        words = kept_words;
        const std::size_t shift = base[top];
        for (std::size_t l = top; l <= levels_ + 1; ++l) base[l] -= shift;
        sends_boxes_.write(queue, kept_boxes);
        sends_rank_.write(queue, kept_rank.data(), kept.size());
        detail::reserve(context_, sends_open_, words * base[levels_ + 1]);
        sends_open_.write(queue, kept_open.data(), kept_open.size(), 0);
    }
    for (std::size_t l = top + 1; l <= levels_; ++l) open_level(l);
    exclusive_scan(queue, sends_nodes_, sends_nodes_, below + 1);
    exclusive_scan(queue, sends_leaves_, sends_leaves_, leaves + 1);
    std::uint32_t node_items = 0, body_items = 0;
    sends_nodes_.read(queue, &node_items, 1, below);
    sends_leaves_.read(queue, &body_items, 1, leaves);

    detail::reserve(context_, sends_ids_, node_items);
    detail::reserve(context_, sends_ids_to_, node_items);
    detail::reserve(context_, sends_places_, body_items);
    detail::reserve(context_, sends_places_to_, body_items);
    detail::reserve(context_, precision_, sends_rows_, essential_row_fields * node_items);
    detail::reserve(context_, precision_, sends_bodies_, 4 * body_items);
    for (std::size_t l = top + 1; l <= levels_ && node_items > 0; ++l)
        kernels_[k_essential_nodes]
            .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(first[l - 1]), std::uint32_t(base[l - 1]),
                  std::uint32_t(words), std::uint32_t(base[l] - base[top + 1]), sends_rank_, sends_open_, sends_nodes_,
                  sends_ids_, sends_ids_to_)
            .launch(queue, size[l]);
    if (body_items > 0)
        kernels_[k_essential_bodies]
            .args(std::uint32_t(leaves), std::uint32_t(first[levels_]), std::uint32_t(base[levels_]), std::uint32_t(words),
                  std::uint32_t(this->leaves()), std::uint32_t(window_.total), std::uint32_t(window_.base), sends_rank_,
                  sends_open_, sends_leaves_, sends_places_, sends_places_to_)
            .launch(queue, leaves);
    kernels_[k_export_nodes]
        .args(node_items, std::uint32_t(heap), sends_ids_, node_, box_, sends_rows_)
        .launch(queue, node_items);
    kernels_[k_export_bodies].args(body_items, sends_places_, sorted_, sends_bodies_).launch(queue, body_items);

    sends.nodes.resize(node_items);
    sends.rows.resize(essential_row_fields * node_items);
    sends.positions.resize(body_items);
    sends.bodies.resize(4 * body_items);
    std::vector<std::uint32_t> node_to(node_items), body_to(body_items);
    if (node_items > 0) {
        sends_ids_.read(queue, sends.nodes.data(), node_items);
        sends_ids_to_.read(queue, node_to.data(), node_items);
        sends_rows_.read(queue, sends.rows.data(), sends.rows.size());
    }
    if (body_items > 0) {
        sends_places_.read(queue, sends.positions.data(), body_items);
        sends_places_to_.read(queue, body_to.data(), body_items);
        sends_bodies_.read(queue, sends.bodies.data(), sends.bodies.size());
    }
    for (std::uint32_t& p : sends.positions) p += std::uint32_t(window_.base);
    sends.node_to.assign(node_to.begin(), node_to.end());
    sends.body_to.assign(body_to.begin(), body_to.end());
    return sends;
}

void TreeGravity::import_essential(const std::vector<std::uint32_t>& nodes, const std::vector<double>& rows,
                                   const std::vector<std::uint32_t>& positions,
                                   const std::vector<double>& bodies) {
    const std::string what = "TreeGravity::import_essential: ";
    if (!top_built_) throw UsageError(what + "build_branches() and build_top() come first");
    const std::size_t heap = std::size_t(2) << levels_, total = window_.total;
    if (rows.size() != essential_row_fields * nodes.size())
        throw UsageError(what + std::to_string(rows.size()) + " values for " + std::to_string(nodes.size()) +
                         " nodes (" + std::to_string(essential_row_fields) + " a node)");
    if (bodies.size() != 4 * positions.size())
        throw UsageError(what + std::to_string(bodies.size()) + " values for " + std::to_string(positions.size()) +
                         " bodies (x, y, z, m each)");
    for (const std::uint32_t k : nodes)
        if (k == 0 || k >= heap)
            throw UsageError(what + "node " + std::to_string(k) + " outside the heap of " + std::to_string(heap - 1) +
                             " nodes");
    for (const std::uint32_t p : positions)
        if (p >= total)
            throw UsageError(what + "tree position " + std::to_string(p) + " in a tree of " + std::to_string(total) +
                             " bodies");
    (void)branch_groups();  // refuses groups that span several branches
    Queue& queue = context_.queue(0);
    if (essential_sorted_.size() < 4 * total) essential_sorted_ = RealBuffer(context_, precision_, 4 * total);
    if (essential_perm_.size() < total) essential_perm_ = Buffer<std::uint32_t>(context_, total);
    // This rank's bodies and perm at their places in the whole tree.
    if (window_.n > 0) {
        sorted_.copy_to(queue, essential_sorted_, 4 * window_.n, 0, 4 * window_.base);
        perm_.copy_to(queue, essential_perm_, window_.n, 0, window_.base);
    }
    const std::uint32_t uheap = std::uint32_t(heap);
    if (!nodes.empty()) {
        Buffer<std::uint32_t> ids(context_, nodes.size());
        RealBuffer values(context_, precision_, rows.size());
        ids.write(queue, nodes.data(), nodes.size());
        values.write(queue, rows);
        kernels_[k_import_nodes]
            .args(std::uint32_t(nodes.size()), uheap, ids, values, node_, box_)
            .launch(queue, nodes.size());
    }
    if (!positions.empty()) {
        Buffer<std::uint32_t> at(context_, positions.size());
        RealBuffer values(context_, precision_, bodies.size());
        at.write(queue, positions.data(), positions.size());
        values.write(queue, bodies);
        kernels_[k_import_bodies].args(std::uint32_t(positions.size()), at, values, essential_sorted_)
            .launch(queue, positions.size());
    }
    queue.finish();  // the host's arrays and the temporary buffers are read by then
    essential_ = true;
}

} // namespace partcl
