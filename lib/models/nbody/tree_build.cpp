// TreeGravity's build (cl/nbody/tree_build.cl): the whole tree, its refit, and the pieces of
// locally essential trees, a rank's subtrees and the top above them (tree_gravity.hpp;
// docs/design.md, "Ranks").
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include <partcl/algorithm/reduce.hpp>
#include <partcl/backend/error.hpp>

#include "tree_build_kernels.hpp"

namespace partcl {

using namespace detail;

void TreeGravity::build(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) {
    check_inputs(positions, mass, n);
    // Inputs may come from work on any device's queue; the build reads them on device 0's.
    if (context_.size() > 1) walk_.share_inputs();
    set_size(n, n);
    Queue& queue = context_.queue(0);
    const std::uint32_t un = std::uint32_t(n), nodes = std::uint32_t(std::size_t(2) << levels_);

    const std::uint32_t partials = std::uint32_t(std::min(root_partials, (n + root_group - 1) / root_group));
    kernels_[k_root_box].args(un, un, std::uint32_t(0), positions, partials, std::uint32_t(0), root_box_, un, perm_)
        .launch(queue, partials * root_group, root_group);
    kernels_[k_root_box].args(partials, partials, 3 * partials, root_box_, nodes, std::uint32_t(1), box_,
                              std::uint32_t(0), perm_)
        .launch(queue, root_group, root_group);
    // The root box once more, side by side past the partials, for the host to refuse bodies
    // that are not finite before any sort meets them (one read of six values).
    kernels_[k_root_box].args(partials, partials, 3 * partials, root_box_, std::uint32_t(1),
                              std::uint32_t(6 * root_partials), root_box_, std::uint32_t(0), perm_)
        .launch(queue, root_group, root_group);
    double root[6];
    root_box_.read(queue, root, 6, 6 * root_partials);
    const double largest = precision_ == Precision::float32 ? double(std::numeric_limits<float>::max())
                                                            : std::numeric_limits<double>::max();
    for (std::size_t a = 0; a < 3; ++a)
        if (root[a] <= -largest || root[3 + a] >= largest) {
            n_ = 0;  // no tree: a walk is refused as before any build
            window_ = Window{};
            throw UsageError("TreeGravity: a body's " + std::string(1, "xyz"[a]) +
                             " coordinate is NaN or infinite (positions must be finite)");
        }
    split_levels(positions);
    fit(positions, mass);
    age_ = 0;
    rebuild_next_ = false;
    ++builds_;
    if (measures_growth()) leaf_radii_ = leaf_radii();
}

bool TreeGravity::measures_growth() const noexcept {
    return options_.rebuild_every > 1 && options_.rebuild_growth > 0;
}

double TreeGravity::leaf_radii() {
    Queue& queue = context_.queue(0);
    const std::size_t leaves = this->leaves(), nodes = 2 * leaves;
    if (radii_.size() < leaves) radii_ = RealBuffer(context_, precision_, leaves);
    box_.copy_to(queue, radii_, leaves, 6 * nodes + leaves);
    return reduce_sum(queue, radii_, leaves);
}

void TreeGravity::split_levels(const RealBuffer& positions) {
    const Window& w = window_;
    Queue& queue = context_.queue(0);
    const std::uint32_t total = std::uint32_t(w.total), base = std::uint32_t(w.base), n = std::uint32_t(w.n);
    const std::uint32_t nodes = std::uint32_t(std::size_t(2) << levels_);
    // Sorts of the window's bodies down to the first level whose nodes fit a finishing
    // work-group (the tree's nodes, whatever the window, so that every rank switches alike).
    std::size_t first_finished = 0;
    while (((w.total - 1) >> first_finished) + 1 > finish_size_) ++first_finished;
    first_finished = std::max(first_finished, w.from);
    for (std::size_t level = w.from; level < std::min(levels_, first_finished); ++level) {
        const std::uint32_t count = std::uint32_t(1) << level;
        if (n > 0) {
            kernels_[k_keys].args(total, base, n, count, nodes, positions, box_, perm_, keys_buffer_, values_)
                .launch(queue, n);
            sort_(queue, keys_buffer_, values_, n);
            kernels_[k_regroup].args(total, base, n, count, values_, perm_, node_keys_, perm_scratch_).launch(queue, n);
            sort_(queue, node_keys_, perm_scratch_, n, std::uint32_t(level));  // node keys < 2^level
            std::swap(perm_, perm_scratch_);
        }
        const Range run = w.run(level);
        kernels_[k_split]
            .args(total, base, n, std::uint32_t(run.begin), std::uint32_t(run.end), count, nodes, positions, perm_, box_)
            .launch(queue, run.size());
    }
    if (first_finished < levels_) {
        const Range run = w.run(first_finished);
        kernels_[k_finish]
            .args(total, base, n, std::uint32_t(run.begin), std::uint32_t(first_finished), std::uint32_t(levels_), nodes,
                  positions, perm_, box_)
            .launch(queue, run.size() * finish_size_, finish_size_);
    }
}

void TreeGravity::fit(const RealBuffer& positions, const RealBuffer& mass) {
    const Window& w = window_;
    Queue& queue = context_.queue(0);
    const std::uint32_t nodes = std::uint32_t(std::size_t(2) << levels_);
    const Real theta{options_.theta};
    if (w.n > 0) kernels_[k_gather].args(std::uint32_t(w.n), positions, mass, perm_, sorted_).launch(queue, w.n);
    const std::uint32_t leaf_count = std::uint32_t(1) << levels_;
    const Range leaves = w.run(levels_);
    kernels_[k_leaves]
        .args(std::uint32_t(w.total), std::uint32_t(w.base), std::uint32_t(leaves.begin), std::uint32_t(leaves.end),
              leaf_count, nodes, sorted_, node_, box_, theta)
        .launch(queue, leaves.size());
    for (std::size_t level = levels_; level-- > w.from;) {
        const Range run = w.run(level);
        kernels_[k_nodes]
            .args(std::uint32_t(run.begin), std::uint32_t(run.end), std::uint32_t(1) << level, nodes, node_, box_, theta)
            .launch(queue, run.size());
    }
}

void TreeGravity::fit_above(std::size_t level) {
    Queue& queue = context_.queue(0);
    const std::uint32_t nodes = std::uint32_t(std::size_t(2) << levels_);
    for (std::size_t l = level; l-- > 0;) {
        const std::uint32_t count = std::uint32_t(1) << l;
        kernels_[k_nodes].args(std::uint32_t(0), count, count, nodes, node_, box_, Real{options_.theta}).launch(queue, count);
    }
}

void TreeGravity::refit(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) {
    check_inputs(positions, mass, n);
    if (n_ == 0) throw UsageError("TreeGravity: refit() before build()");
    if (n != n_)
        throw UsageError("TreeGravity: refit() of " + std::to_string(n) + " bodies, the tree holds " +
                         std::to_string(n_) + ": build it anew");
    if (context_.size() > 1) walk_.share_inputs();
    fit(positions, mass);
    top_built_ = essential_ = false;  // branches: their roots moved, the top and imports are stale
    ++age_;
}

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

std::vector<double> TreeGravity::node_rows(std::size_t level, Range nodes, std::size_t fields) {
    if (window_.total == 0) throw UsageError("TreeGravity::node_rows: no tree built");
    if (fields == 0 || fields > row_fields)
        throw UsageError("TreeGravity::node_rows: rows of " + std::to_string(fields) + " fields (1 to " +
                         std::to_string(row_fields) + ")");
    if (level > levels_ || nodes.begin > nodes.end || nodes.end > (std::size_t(1) << level))
        throw UsageError("TreeGravity::node_rows: nodes [" + std::to_string(nodes.begin) + ", " +
                         std::to_string(nodes.end) + ") of level " + std::to_string(level) + " of a tree of " +
                         std::to_string(levels_) + " levels");
    Queue& queue = context_.queue(0);
    const std::size_t heap = std::size_t(2) << levels_, span = nodes.size();
    const std::size_t first = (std::size_t(1) << level) + nodes.begin;
    std::vector<double> field(span), rows(fields * span);
    for (std::size_t f = 0; f < fields; ++f) {
        if (span == 0) break;
        if (f < node_fields)
            node_.read(queue, field.data(), span, f * heap + first);
        else
            box_.read(queue, field.data(), span, (f - node_fields) * heap + first);
        for (std::size_t j = 0; j < span; ++j) rows[j * fields + f] = field[j];
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
    top_built_ = level == window_.from;
    essential_ = false;
}

} // namespace partcl
