// TreeGravity's side of locally essential trees (docs/design.md, "Ranks"): the window's bodies
// for other ranks, the groups a rank walks, and the import of other ranks' nodes and bodies
// into the arrays the walk reads (cl/nbody/tree_build.cl, tree_import_*).
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include <string>

#include <partcl/backend/error.hpp>

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

std::vector<double> TreeGravity::branch_bodies(const std::vector<std::uint32_t>& positions) {
    const Window& w = window_;
    for (const std::uint32_t p : positions)
        if (p < w.base || p >= w.base + w.n)
            throw UsageError("TreeGravity::branch_bodies: tree position " + std::to_string(p) + " outside the window [" +
                             std::to_string(w.base) + ", " + std::to_string(w.base + w.n) + ")");
    std::vector<double> bodies(4 * positions.size());
    if (positions.empty()) return bodies;
    Queue& queue = context_.queue(0);
    std::vector<std::uint32_t> at(positions);
    for (std::uint32_t& p : at) p -= std::uint32_t(w.base);
    Buffer<std::uint32_t> places(context_, at.size());
    RealBuffer values(context_, precision_, bodies.size());
    places.write(queue, at.data(), at.size());
    kernels_[k_export_bodies].args(std::uint32_t(at.size()), places, sorted_, values).launch(queue, at.size());
    values.read(queue, bodies.data(), bodies.size());
    return bodies;
}

std::vector<double> TreeGravity::essential_rows(const std::vector<std::uint32_t>& nodes) {
    const std::size_t heap = std::size_t(2) << levels_;
    if (window_.total == 0) throw UsageError("TreeGravity::essential_rows: no tree built");
    for (const std::uint32_t k : nodes)
        if (k == 0 || k >= heap)
            throw UsageError("TreeGravity::essential_rows: node " + std::to_string(k) + " outside the heap of " +
                             std::to_string(heap - 1) + " nodes");
    std::vector<double> rows(essential_row_fields * nodes.size());
    if (nodes.empty()) return rows;
    Queue& queue = context_.queue(0);
    Buffer<std::uint32_t> ids(context_, nodes.size());
    RealBuffer values(context_, precision_, rows.size());
    ids.write(queue, nodes.data(), nodes.size());
    kernels_[k_export_nodes]
        .args(std::uint32_t(nodes.size()), std::uint32_t(heap), ids, node_, box_, values)
        .launch(queue, nodes.size());
    values.read(queue, rows.data(), rows.size());
    return rows;
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
