// TreeGravity::build_branches: a rank's subtrees of the one-rank tree for locally essential
// trees (tree_gravity.hpp; docs/design.md, "Ranks").
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include <numeric>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl {

void TreeGravity::build_branches(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                                 std::size_t total, std::size_t top, Range nodes,
                                 const std::vector<double>& cell_boxes) {
    const std::string what = "TreeGravity::build_branches: ";
    if (total == 0) throw UsageError(what + "no bodies in the tree (N = 0)");
    const std::size_t levels = levels_for(total, options_.leaf_size);
    if (top > levels)
        throw UsageError(what + "level " + std::to_string(top) + " is below the tree's " + std::to_string(levels) +
                         " levels of " + std::to_string(total) + " bodies");
    const std::size_t count = std::size_t(1) << top;
    if (nodes.begin > nodes.end || nodes.end > count)
        throw UsageError(what + "nodes [" + std::to_string(nodes.begin) + ", " + std::to_string(nodes.end) +
                         ") of the " + std::to_string(count) + " of level " + std::to_string(top));
    const std::size_t base = tree_start(nodes.begin, count, total);
    if (n != tree_start(nodes.end, count, total) - base)
        throw UsageError(what + std::to_string(n) + " bodies for nodes holding " +
                         std::to_string(tree_start(nodes.end, count, total) - base));
    if (cell_boxes.size() != 6 * 2 * count)
        throw UsageError(what + std::to_string(cell_boxes.size()) + " cell box values for the " +
                         std::to_string(2 * count) + " nodes above and at level " + std::to_string(top) +
                         " (TreeTop::cell_boxes)");
    if (n > 0) check_inputs(positions, mass, n);
    if (context_.size() > 1) walk_.share_inputs();
    set_size(n, total);
    window_ = Window{total, base, n, top, nodes.begin, nodes.end};
    Queue& queue = context_.queue(0);
    // The bodies come in the tree's order at level `top`, each run's cells from the top's.
    std::vector<std::uint32_t> identity(n);
    std::iota(identity.begin(), identity.end(), std::uint32_t(0));
    if (n > 0) perm_.write(queue, identity.data(), n);
    const std::size_t heap = std::size_t(2) << levels_;
    const std::size_t first = count + nodes.begin, span = nodes.end - nodes.begin;
    for (std::size_t c = 0; c < 6; ++c)
        if (span > 0) box_.write(queue, cell_boxes.data() + c * 2 * count + first, span, c * heap + first);
    split_levels(positions);
    fit(positions, mass);
    queue.finish();  // the host's identity and boxes are read by then
    age_ = 0;
    rebuild_next_ = false;
    ++builds_;
}

std::vector<double> TreeGravity::node_rows(std::size_t level, Range nodes) {
    if (window_.total == 0) throw UsageError("TreeGravity::node_rows: no tree built");
    if (level > levels_ || nodes.begin > nodes.end || nodes.end > (std::size_t(1) << level))
        throw UsageError("TreeGravity::node_rows: nodes [" + std::to_string(nodes.begin) + ", " +
                         std::to_string(nodes.end) + ") of level " + std::to_string(level) + " of a tree of " +
                         std::to_string(levels_) + " levels");
    Queue& queue = context_.queue(0);
    const std::size_t heap = std::size_t(2) << levels_, span = nodes.size();
    const std::size_t first = (std::size_t(1) << level) + nodes.begin;
    std::vector<double> field(span), rows(row_fields * span);
    for (std::size_t f = 0; f < row_fields; ++f) {
        if (span == 0) break;
        if (f < node_fields)
            node_.read(queue, field.data(), span, f * heap + first);
        else
            box_.read(queue, field.data(), span, (f - node_fields) * heap + first);
        for (std::size_t j = 0; j < span; ++j) rows[j * row_fields + f] = field[j];
    }
    return rows;
}

void TreeGravity::build_top(std::size_t level, const std::vector<double>& rows) {
    if (window_.total == 0) throw UsageError("TreeGravity::build_top: no tree built");
    const std::size_t count = std::size_t(1) << level;
    if (level > levels_)
        throw UsageError("TreeGravity::build_top: level " + std::to_string(level) + " is below the tree's " +
                         std::to_string(levels_) + " levels");
    if (rows.size() != row_fields * count)
        throw UsageError("TreeGravity::build_top: " + std::to_string(rows.size()) + " values for the " +
                         std::to_string(count) + " nodes of level " + std::to_string(level) + " (" +
                         std::to_string(row_fields) + " a node)");
    Queue& queue = context_.queue(0);
    const std::size_t heap = std::size_t(2) << levels_;
    std::vector<double> field(count);
    for (std::size_t f = 0; f < row_fields; ++f) {
        for (std::size_t j = 0; j < count; ++j) field[j] = rows[j * row_fields + f];
        if (f < node_fields)
            node_.write(queue, field.data(), count, f * heap + count);
        else
            box_.write(queue, field.data(), count, (f - node_fields) * heap + count);
    }
    fit_above(level);
    queue.finish();  // `field` is read by then
}

} // namespace partcl
