#include <partcl/models/nbody/essential_exchange.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

namespace partcl {

namespace {

// A row of TreeGravity::node_rows: the node fields (cx, cy, cz, m, crit2, moments), the tight box
// (lo x y z, hi x y z) and the radius.
constexpr std::size_t row_fields = TreeGravity::row_fields, node_fields = TreeGravity::node_fields;
constexpr std::size_t box_lo = node_fields, walk_fields = 5;

std::size_t level_of(std::size_t k) noexcept {
    std::size_t l = 0;
    while (k >>= 1) ++l;
    return l;
}

// The rows a rank holds of the one-rank heap, read back once a run: every node down to the
// branches' level (the top and every rank's roots), and below it its own run's subtrees, of
// these only what the box walk reads (centre of mass, mass, crit2: walk_fields); the rows sent
// are read from the device when they are known (TreeGravity::essential_rows).
class HeldRows {
public:
    HeldRows(TreeGravity& tree, const std::vector<double>& roots)
        : top_(tree.branch_level()), levels_(tree.levels()), run_(tree.branch_nodes()) {
        upper_.resize(row_fields << (top_ + 1));
        for (std::size_t l = 0; l < top_; ++l) {
            const std::vector<double> rows = tree.node_rows(l, {0, std::size_t(1) << l});
            std::copy(rows.begin(), rows.end(), upper_.begin() + std::ptrdiff_t(row_fields << l));
        }
        std::copy(roots.begin(), roots.end(), upper_.begin() + std::ptrdiff_t(row_fields << top_));
        offsets_.assign(levels_ + 2, 0);
        for (std::size_t l = top_ + 1; l <= levels_; ++l) {
            const std::vector<double> rows = tree.node_rows(l, run(l), walk_fields);
            offsets_[l + 1] = offsets_[l] + run(l).size();
            below_.insert(below_.end(), rows.begin(), rows.end());
        }
    }

    std::size_t top() const noexcept { return top_; }
    std::size_t levels() const noexcept { return levels_; }
    // The run's nodes of level l >= top().
    Range run(std::size_t l) const noexcept {
        return {run_.begin << (l - top_), run_.end << (l - top_)};
    }
    // Whether this rank walks on from node k of level l: above top() every rank does; at and
    // below it, only in its own run's subtrees (another rank's sends what lies below its roots).
    bool walks(std::size_t k, std::size_t l) const noexcept {
        if (l < top_) return true;
        const std::size_t p = (k >> (l - top_)) - (std::size_t(1) << top_);
        return run_.begin <= p && p < run_.end;
    }
    // Node k of level l's row, its first walk_fields values at least (held: at or above top(),
    // or walks() below it), and its index among the held nodes below top().
    const double* row(std::size_t k, std::size_t l) const noexcept {
        if (l <= top_) return upper_.data() + row_fields * k;
        return below_.data() + walk_fields * index(k, l);
    }
    std::size_t index(std::size_t k, std::size_t l) const noexcept {
        return offsets_[l] + (k - (std::size_t(1) << l)) - run(l).begin;
    }
    std::size_t below_count() const noexcept { return below_.size() / walk_fields; }

private:
    std::size_t top_, levels_;
    Range run_;
    std::vector<double> upper_, below_;
    std::vector<std::size_t> offsets_;  // [l]: index of level l's first held node below top
};

// Items of a 32-bit index and `values` reals of the tree's precision, packed side by side.
class Packing {
public:
    Packing(Precision precision, std::size_t values)
        : real_(precision == Precision::float32 ? sizeof(float) : sizeof(double)), values_(values) {}
    std::size_t size() const noexcept { return sizeof(std::uint32_t) + real_ * values_; }
    void append(std::vector<unsigned char>& into, std::size_t index, const double* value) const {
        const std::size_t at = into.size();
        into.resize(at + size());
        const std::uint32_t i = std::uint32_t(index);
        std::memcpy(&into[at], &i, sizeof i);
        for (std::size_t v = 0; v < values_; ++v) {
            unsigned char* to = &into[at + sizeof i + v * real_];
            if (real_ == sizeof(float)) {
                const float f = float(value[v]);
                std::memcpy(to, &f, sizeof f);
            } else {
                std::memcpy(to, &value[v], sizeof(double));
            }
        }
    }
    // Item j of `items`: its index, and its values into `value`.
    std::uint32_t unpack(const std::vector<unsigned char>& items, std::size_t j, double* value) const {
        const unsigned char* from = &items[j * size()];
        std::uint32_t i;
        std::memcpy(&i, from, sizeof i);
        for (std::size_t v = 0; v < values_; ++v) {
            if (real_ == sizeof(float)) {
                float f;
                std::memcpy(&f, from + sizeof i + v * real_, sizeof f);
                value[v] = f;
            } else {
                std::memcpy(&value[v], from + sizeof i + v * real_, sizeof(double));
            }
        }
        return i;
    }

private:
    std::size_t real_, values_;
};

// The walk of a box over the held rows, as a walk group within it would go but opening every
// node the group could open: calls node(k, l) for each node below top met (its parent opened)
// and leaf(p) for each leaf of this rank opened.
template <class Node, class Leaf>
void walk_box(const HeldRows& held, const double* box, double margin, std::vector<std::size_t>& stack,
              Node node, Leaf leaf) {
    stack.assign(1, 1);
    while (!stack.empty()) {
        const std::size_t k = stack.back();
        stack.pop_back();
        const std::size_t l = level_of(k);
        if (!held.walks(k, l)) continue;
        const double* r = held.row(k, l);
        if (!(r[3] > 0)) continue;  // massless: skipped
        double g2 = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            const double c = r[a], gap = std::max(std::max(box[a] - c, c - box[3 + a]), 0.0);
            g2 += gap * gap;
        }
        if (g2 > r[4] * margin) continue;  // taken whole by every group within the box
        if (l == held.levels()) {  // a leaf, at or below top(): this rank's
            leaf(k - (std::size_t(1) << l));
            continue;
        }
        if (l + 1 > held.top()) {
            node(2 * k, l + 1);
            node(2 * k + 1, l + 1);
        }
        stack.push_back(2 * k + 1);
        stack.push_back(2 * k);
    }
}

} // namespace

void EssentialExchange::run(TreeGravity& tree, const Partition& owners, const std::vector<double>& roots) {
    const std::string what = "EssentialExchange: ";
    const dist::Communicator& world = *communicator_;
    const std::size_t ranks = std::size_t(world.size()), rank = std::size_t(world.rank());
    const std::size_t top = tree.branch_level(), count = std::size_t(1) << top;
    if (owners.parts() != ranks || owners.total() != count)
        throw UsageError(what + "owners of " + std::to_string(owners.total()) + " nodes for " +
                         std::to_string(owners.parts()) + " ranks; the branches' level " + std::to_string(top) +
                         " has " + std::to_string(count) + " nodes, the communicator " + std::to_string(ranks) +
                         " ranks");
    if (owners[rank].begin != tree.branch_nodes().begin || owners[rank].end != tree.branch_nodes().end)
        throw UsageError(what + "the tree holds branches other than this rank's owners");
    if (roots.size() != row_fields * count)
        throw UsageError(what + std::to_string(roots.size()) + " root values for the " + std::to_string(count) +
                         " nodes of level " + std::to_string(top));
    if (ranks == 1) {  // nothing to send or receive: the tree is whole already
        nodes_sent_ = bodies_sent_ = nodes_received_ = bodies_received_ = 0;
        bytes_received_ = 0;
        tree.import_essential({}, {}, {}, {});
        return;
    }
    const HeldRows held(tree, roots);
    const std::size_t total = tree.total(), leaves = tree.leaves();
    const double epsilon = tree.precision() == Precision::float32 ? double(std::numeric_limits<float>::epsilon())
                                                                  : std::numeric_limits<double>::epsilon();
    const double margin = 1 + 64 * epsilon;
    const Packing node_items(tree.precision(), TreeGravity::essential_row_fields), body_items(tree.precision(), 4);

    // Each other rank's items, marked by a stamp (the rank + 1) so that no node or body goes
    // twice to one rank whichever of its roots' boxes met it.
    nodes_.clear();
    bodies_.clear();
    std::vector<int> node_to, body_to;
    std::vector<std::uint32_t> node_ids, body_positions;
    std::vector<std::size_t> node_stamp(held.below_count(), 0), leaf_stamp(held.run(held.levels()).size(), 0);
    std::vector<std::size_t> stack;
    for (std::size_t b = 0; b < ranks; ++b) {
        if (b == rank) continue;
        const auto node = [&](std::size_t k, std::size_t l) {
            const std::size_t i = held.index(k, l);
            if (node_stamp[i] == b + 1) return;
            node_stamp[i] = b + 1;
            node_ids.push_back(std::uint32_t(k));
            node_to.push_back(int(b));
        };
        const auto leaf = [&](std::size_t p) {
            const std::size_t i = p - held.run(held.levels()).begin;
            if (leaf_stamp[i] == b + 1) return;
            leaf_stamp[i] = b + 1;
            for (std::size_t j = tree_start(p, leaves, total); j < tree_start(p + 1, leaves, total); ++j) {
                body_positions.push_back(std::uint32_t(j));
                body_to.push_back(int(b));
            }
        };
        for (std::size_t q = owners[b].begin; q < owners[b].end; ++q) {
            const double* root = roots.data() + row_fields * q;
            if (!(root[3] > 0)) continue;  // no bodies, no groups
            double box[6];
            std::copy(root + box_lo, root + box_lo + 6, box);
            walk_box(held, box, margin, stack, node, leaf);
        }
    }
    const std::vector<double> sent_rows = tree.essential_rows(node_ids), sent_bodies = tree.branch_bodies(body_positions);
    for (std::size_t i = 0; i < node_ids.size(); ++i)
        node_items.append(nodes_, node_ids[i], sent_rows.data() + TreeGravity::essential_row_fields * i);
    for (std::size_t i = 0; i < body_positions.size(); ++i)
        body_items.append(bodies_, body_positions[i], sent_bodies.data() + 4 * i);
    nodes_sent_ = node_to.size();
    bodies_sent_ = body_to.size();

    const dist::Distributor send_nodes(world, node_to), send_bodies(world, body_to);
    nodes_received_ = send_nodes.received();
    bodies_received_ = send_bodies.received();
    nodes_arrived_.resize(nodes_received_ * node_items.size());
    bodies_arrived_.resize(bodies_received_ * body_items.size());
    send_nodes.distribute(nodes_.data(), node_items.size(), nodes_arrived_.data());
    send_bodies.distribute(bodies_.data(), body_items.size(), bodies_arrived_.data());
    bytes_received_ = double(nodes_arrived_.size() + bodies_arrived_.size());

    std::vector<std::uint32_t> ids(nodes_received_), positions(bodies_received_);
    std::vector<double> rows(TreeGravity::essential_row_fields * nodes_received_), values(4 * bodies_received_);
    for (std::size_t i = 0; i < nodes_received_; ++i)
        ids[i] = node_items.unpack(nodes_arrived_, i, rows.data() + TreeGravity::essential_row_fields * i);
    for (std::size_t i = 0; i < bodies_received_; ++i)
        positions[i] = body_items.unpack(bodies_arrived_, i, values.data() + 4 * i);
    tree.import_essential(ids, rows, positions, values);
}

} // namespace partcl
