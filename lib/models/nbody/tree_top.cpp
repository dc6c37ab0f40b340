#include <partcl/models/nbody/tree_top.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include "tree_top_split.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl {

namespace {

using detail::TopKey;

// A body being placed: its key, its node at the level being split, and its place in the input.
// The sorts move these whole, not indices into the keys: a sort of a million bodies through
// indices spent most of its time waiting on memory.
template <class T>
struct Item {
    TopKey<T> key;
    std::uint32_t node;
    std::uint32_t origin;
};

// Items by node, each node's in the build's order there (top_before from `up(node)`: the node
// itself while splitting, its parent when ordering a level's bodies). A total order (ties end
// at the index), so an unstable sort gives the stable sorts' result.
template <class T, class Up>
void sort_items(std::vector<Item<T>>& items, const std::vector<std::uint8_t>& axis, Up up) {
    std::sort(items.begin(), items.end(), [&](const Item<T>& a, const Item<T>& b) {
        if (a.node != b.node) return a.node < b.node;
        return detail::top_before(axis, up(a.node), a.key, b.key);
    });
}

template <class T>
std::vector<Item<T>> items_of(const double* const* c, const std::uint64_t* index, const std::uint32_t* node,
                              std::size_t n) {
    std::vector<Item<T>> items(n);
    for (std::size_t i = 0; i < n; ++i)
        items[i] = {{{T(c[0][i]), T(c[1][i]), T(c[2][i])}, index[i]}, node ? node[i] : 0, std::uint32_t(i)};
    return items;
}

// The split's store on the host (tree_top_split.hpp): the bodies as items in their order.
template <class T>
struct HostStore {
    std::vector<Item<T>> items;

    std::array<T, 6> bounds() const {
        std::array<T, 6> b;
        for (std::size_t a = 0; a < 3; ++a) {
            b[a] = std::numeric_limits<T>::infinity();
            b[3 + a] = -std::numeric_limits<T>::infinity();
            for (const Item<T>& item : items) {
                const T v = item.key.c[a];
                const bool finite = std::isfinite(v);
                b[a] = std::min(b[a], finite ? v : -std::numeric_limits<T>::infinity());
                b[3 + a] = std::max(b[3 + a], finite ? v : std::numeric_limits<T>::infinity());
            }
        }
        return b;
    }
    void sort_level(std::size_t level, const std::vector<std::uint8_t>& axis) {
        const std::size_t count = std::size_t(1) << level;
        sort_items(items, axis, [count](std::uint32_t p) { return count + p; });
    }
    std::vector<TopKey<T>> keys_at(const std::vector<std::size_t>& places) const {
        std::vector<TopKey<T>> keys;
        for (std::size_t s : places) keys.push_back(items[s].key);
        return keys;
    }
    std::vector<detail::TopCount> count_before(const std::vector<detail::TopAsk<T>>& asks,
                                               const std::vector<std::uint8_t>& axis) const {
        std::vector<detail::TopCount> found;
        for (const detail::TopAsk<T>& ask : asks) {
            const auto first = items.begin() + std::ptrdiff_t(ask.lo), last = items.begin() + std::ptrdiff_t(ask.hi);
            const auto at = std::partition_point(first, last, [&](const Item<T>& item) {
                return detail::top_before(axis, ask.k, item.key, ask.pivot);
            });
            found.push_back({std::uint64_t(at - first), at != last && at->key.index == ask.pivot.index ? 1u : 0u});
        }
        return found;
    }
    void children(const std::vector<std::size_t>& cut) {
        for (std::size_t s = 0; s < items.size(); ++s) {
            const std::uint32_t p = items[s].node;
            items[s].node = 2 * p + (s >= cut[p] ? 1 : 0);
        }
    }
};

} // namespace

// The order of bodies within their nodes of a level: by node, then as the build orders the
// node's bodies, which its parent's sort left along the parent's axis (top_before from the
// parent up; the root's bodies by index alone).
template <class T>
std::vector<std::size_t> order_in_nodes(const std::vector<std::uint8_t>& axis, std::size_t level,
                                        const std::uint32_t* node, const double* const* c,
                                        const std::uint64_t* index, std::size_t n) {
    std::vector<Item<T>> items = items_of<T>(c, index, node, n);
    const std::size_t count = std::size_t(1) << level;
    sort_items(items, axis, [count](std::uint32_t p) { return (count + p) / 2; });
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = items[i].origin;
    return order;
}

template <class T>
static void split_as(TreeTop::Parts& parts, const dist::Communicator& ranks, const double* const* c,
                     const std::uint64_t* index, std::size_t n, std::size_t total, std::size_t levels) {
    HostStore<T> store{items_of<T>(c, index, nullptr, n)};
    bool index_ok = true;
    for (std::size_t i = 0; i < n; ++i) index_ok = index_ok && index[i] < total;
    // The root's bodies by index (the order of a tree of no split levels).
    std::sort(store.items.begin(), store.items.end(),
              [](const Item<T>& a, const Item<T>& b) { return a.key.index < b.key.index; });
    detail::TopCells cells = detail::split_top<T>(ranks, store, index_ok, n, total, levels);
    parts.box = std::move(cells.box);
    parts.axis = std::move(cells.axis);
    parts.rounds = cells.rounds;
    // Each child's bodies are a run of its parent's, in the parent's order: the tree's order.
    parts.node.resize(n);
    parts.order.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        parts.node[store.items[s].origin] = store.items[s].node;
        parts.order[s] = store.items[s].origin;
    }
}

TreeTop TreeTop::split(const dist::Communicator& ranks, Precision precision, const double* x,
                       const double* y, const double* z, const std::uint64_t* index, std::size_t n,
                       std::size_t total, std::size_t levels) {
    const double* c[3] = {x, y, z};
    Parts parts;
    if (precision == Precision::float32)
        split_as<float>(parts, ranks, c, index, n, total, levels);
    else
        split_as<double>(parts, ranks, c, index, n, total, levels);
    return TreeTop(precision, total, levels, std::move(parts));
}

TreeTop::TreeTop(Precision precision, std::size_t total, std::size_t levels, Parts parts)
    : precision_(precision), levels_(levels), rounds_(parts.rounds), total_(total), node_(std::move(parts.node)),
      order_(std::move(parts.order)), boxes_(std::move(parts.box)), axis_(std::move(parts.axis)) {}

Partition TreeTop::owners(std::size_t ranks, const std::vector<double>& node_cost) const {
    const std::size_t count = std::size_t(1) << levels_;
    if (ranks == 0) throw UsageError("TreeTop::owners: no ranks");
    if (!node_cost.empty() && node_cost.size() != count)
        throw UsageError("TreeTop::owners: " + std::to_string(node_cost.size()) + " node costs for the " +
                         std::to_string(count) + " nodes of level " + std::to_string(levels_));
    std::vector<double> weight(count);
    for (std::size_t p = 0; p < count; ++p) {
        const double cost = node_cost.empty() ? 1.0 : node_cost[p];
        if (!(std::isfinite(cost) && cost >= 0))
            throw UsageError("TreeTop::owners: node " + std::to_string(p) + "'s cost is " + std::to_string(cost) +
                             " (zero or positive and finite)");
        weight[p] = double(tree_start(p + 1, count, total_) - tree_start(p, count, total_)) * cost;
    }
    return Partition::balanced(weight, ranks);
}

std::vector<int> TreeTop::destinations(const Partition& owners) const {
    const std::size_t count = std::size_t(1) << levels_;
    if (owners.total() != count)
        throw UsageError("TreeTop::destinations: owners of " + std::to_string(owners.total()) + " nodes, not the " +
                         std::to_string(count) + " of level " + std::to_string(levels_));
    const std::vector<std::size_t>& at = owners.offsets();
    std::vector<int> rank(node_.size());
    for (std::size_t i = 0; i < node_.size(); ++i)
        rank[i] = int(std::upper_bound(at.begin(), at.end(), std::size_t(node_[i])) - at.begin()) - 1;
    return rank;
}

std::vector<std::size_t> TreeTop::order_of(const std::uint32_t* node, const double* x, const double* y,
                                           const double* z, const std::uint64_t* index, std::size_t n) const {
    const std::size_t count = std::size_t(1) << levels_;
    for (std::size_t i = 0; i < n; ++i)
        if (node[i] >= count)
            throw UsageError("TreeTop::order_of: body " + std::to_string(i) + "'s node " + std::to_string(node[i]) +
                             " is past the " + std::to_string(count) + " of level " + std::to_string(levels_));
    const double* c[3] = {x, y, z};
    if (precision_ == Precision::float32) return order_in_nodes<float>(axis_, levels_, node, c, index, n);
    return order_in_nodes<double>(axis_, levels_, node, c, index, n);
}

} // namespace partcl
