#include <partcl/models/nbody/tree_top.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl {

namespace {

// A body as the build compares it: coordinates in the model's precision, then its index.
template <class T>
struct Key {
    T c[3];
    std::uint64_t index;
};

// A rank's proposal for a node: the median of what is left of the node on it, and how much is.
template <class T>
struct Proposal {
    Key<T> key;
    std::uint64_t weight;
};

// The order of bodies within heap node k: along k's axis, ties along its parent's, and so on
// to the root's, then by index (each level's stable sort keeps the order before).
template <class T>
struct KeyOrder {
    const std::vector<std::uint8_t>* axis;
    std::size_t k;
    bool operator()(const Key<T>& a, const Key<T>& b) const {
        for (std::size_t at = k; at >= 1; at >>= 1) {
            const std::uint8_t x = (*axis)[at];
            if (a.c[x] != b.c[x]) return a.c[x] < b.c[x];
        }
        return a.index < b.index;
    }
};

// A body being placed: its key, its node at the level being split, and its place in the input.
// The sorts move these whole, not indices into the keys: a sort of a million bodies through
// indices spent most of its time waiting on memory.
template <class T>
struct Item {
    Key<T> key;
    std::uint32_t node;
    std::uint32_t origin;
};

// Items by node, each node's in the build's order there (KeyOrder from `up(node)`: the node
// itself while splitting, its parent when ordering a level's bodies). A total order (ties end
// at the index), so an unstable sort gives the stable sorts' result.
template <class T, class Up>
void sort_items(std::vector<Item<T>>& items, const std::vector<std::uint8_t>& axis, Up up) {
    std::sort(items.begin(), items.end(), [&](const Item<T>& a, const Item<T>& b) {
        if (a.node != b.node) return a.node < b.node;
        return KeyOrder<T>{&axis, up(a.node)}(a.key, b.key);
    });
}

// tree_build.cl's tree_widest_axis: ties go to the lower axis.
template <class T>
std::uint8_t widest_axis(const std::vector<double>& box, std::size_t nodes, std::size_t k) {
    T e[3];
    for (std::size_t a = 0; a < 3; ++a) e[a] = T(box[(3 + a) * nodes + k]) - T(box[a * nodes + k]);
    return e[0] >= e[1] ? (e[0] >= e[2] ? 0 : 2) : (e[1] >= e[2] ? 1 : 2);
}

// Every rank's `mine` (the same size on each), concatenated in rank order.
template <class V>
std::vector<V> gather_equal(const dist::Communicator& ranks, const std::vector<V>& mine) {
    std::vector<V> all(mine.size() * std::size_t(ranks.size()));
    ranks.allgatherv(mine.data(), std::vector<std::size_t>(std::size_t(ranks.size()), mine.size() * sizeof(V)),
                     all.data());
    return all;
}

template <class T>
void check_input(const dist::Communicator& ranks, const double* const* c, const std::uint64_t* index,
                 std::size_t n, std::size_t total, std::size_t levels) {
    if (levels > 31) throw UsageError("TreeTop: " + std::to_string(levels) + " levels (at most 31)");
    if (total >= (std::size_t(1) << 32)) throw UsageError("TreeTop: " + std::to_string(total) + " bodies (fewer than 2^32)");
    // Every rank learns of every rank's bad input, so that all throw alike.
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < n && !bad; ++i) {
        for (std::size_t a = 0; a < 3; ++a)
            if (!std::isfinite(T(c[a][i]))) bad = 1;
        if (index[i] >= total) bad = 2;
    }
    std::uint64_t count = 0;
    for (std::uint64_t b : ranks.allgather(bad)) bad = std::max(bad, b);
    for (std::size_t m : ranks.allgather(n)) count += m;
    if (bad == 1) throw UsageError("TreeTop: a body's coordinate is NaN or infinite");
    if (bad == 2) throw UsageError("TreeTop: a body's index is past the " + std::to_string(total) + " bodies");
    if (count != total)
        throw UsageError("TreeTop: the ranks hold " + std::to_string(count) + " bodies, not " + std::to_string(total));
}

} // namespace

// The order of bodies within their nodes of a level: by node, then as the build orders the
// node's bodies, which its parent's sort left along the parent's axis (KeyOrder from the
// parent up; the root's bodies by index alone).
template <class T>
std::vector<std::size_t> order_in_nodes(const std::vector<std::uint8_t>& axis, std::size_t level,
                                        const std::uint32_t* node, const double* const* c,
                                        const std::uint64_t* index, std::size_t n) {
    std::vector<Item<T>> items(n);
    for (std::size_t i = 0; i < n; ++i)
        items[i] = {{{T(c[0][i]), T(c[1][i]), T(c[2][i])}, index[i]}, node[i], std::uint32_t(i)};
    const std::size_t count = std::size_t(1) << level;
    sort_items(items, axis, [count](std::uint32_t p) { return (count + p) / 2; });
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = items[i].origin;
    return order;
}

template <class T>
static void split_as(std::size_t& rounds, std::vector<std::uint32_t>& node_of,
                     std::vector<std::size_t>& order, std::vector<double>& box,
                     std::vector<std::uint8_t>& axis, const dist::Communicator& ranks, const double* const* c, const std::uint64_t* index,
                     std::size_t n, std::size_t total, std::size_t levels) {
    const std::size_t nodes = std::size_t(2) << levels;
    std::vector<Item<T>> items(n);
    for (std::size_t i = 0; i < n; ++i)
        items[i] = {{{T(c[0][i]), T(c[1][i]), T(c[2][i])}, index[i]}, 0, std::uint32_t(i)};
    // The root's cell: the bodies' bounding box, as tree_root_box finds it.
    box.assign(6 * nodes, 0.0);
    std::vector<T> bounds(6);
    for (std::size_t a = 0; a < 3; ++a) {
        bounds[a] = std::numeric_limits<T>::infinity();
        bounds[3 + a] = -std::numeric_limits<T>::infinity();
        for (const Item<T>& item : items) {
            bounds[a] = std::min(bounds[a], item.key.c[a]);
            bounds[3 + a] = std::max(bounds[3 + a], item.key.c[a]);
        }
    }
    const std::vector<T> every = gather_equal(ranks, bounds);
    for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r)
        for (std::size_t a = 0; a < 3; ++a) {
            bounds[a] = std::min(bounds[a], every[6 * r + a]);
            bounds[3 + a] = std::max(bounds[3 + a], every[6 * r + 3 + a]);
        }
    for (std::size_t e = 0; e < 6; ++e) box[e * nodes + 1] = total > 0 ? double(bounds[e]) : 0.0;

    axis.assign(nodes / 2, 0);
    // The root's bodies by index (the order of a tree of no split levels).
    std::sort(items.begin(), items.end(), [](const Item<T>& a, const Item<T>& b) { return a.key.index < b.key.index; });
    for (std::size_t level = 0; level < levels; ++level) {
        const std::size_t count = std::size_t(1) << level;
        for (std::size_t p = 0; p < count; ++p) axis[count + p] = widest_axis<T>(box, nodes, count + p);
        // This rank's bodies by node, each node's in its order: where[p] .. where[p + 1].
        sort_items(items, axis, [count](std::uint32_t p) { return count + p; });
        std::vector<std::size_t> where(count + 1, 0);
        for (const Item<T>& item : items) ++where[item.node + 1];
        std::partial_sum(where.begin(), where.end(), where.begin());
        // Node p's median: the body that begins its right child, the want[p]-th in its order.
        std::vector<std::size_t> want(count), lo(count), hi(count), base(count, 0), open;
        std::vector<Key<T>> median(count);
        std::vector<char> split(count, 0);
        for (std::size_t p = 0; p < count; ++p) {
            const std::size_t begin = tree_start(p, count, total), end = tree_start(p + 1, count, total);
            const std::size_t mid = tree_start(2 * p + 1, 2 * count, total);
            want[p] = mid - begin;
            lo[p] = where[p];
            hi[p] = where[p + 1];
            split[p] = begin < mid && mid < end;
            if (split[p]) open.push_back(p);
        }
        auto at = [&](std::size_t s) -> const Key<T>& { return items[s].key; };
        while (!open.empty()) {
            ++rounds;
            std::vector<Proposal<T>> mine(open.size());
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o], size = hi[p] - lo[p];
                mine[o] = {size > 0 ? at(lo[p] + size / 2) : Key<T>{}, size};
            }
            const std::vector<Proposal<T>> all = gather_equal(ranks, mine);
            std::vector<Key<T>> pivot(open.size());
            std::vector<std::uint64_t> less(open.size());
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                const KeyOrder<T> before{&axis, count + p};
                // The weighted median of the proposals: as much left below it as above.
                std::vector<Proposal<T>> offered;
                std::uint64_t weight = 0;
                for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r)
                    if (all[r * open.size() + o].weight > 0) {
                        offered.push_back(all[r * open.size() + o]);
                        weight += offered.back().weight;
                    }
                std::sort(offered.begin(), offered.end(),
                          [&](const Proposal<T>& a, const Proposal<T>& b) { return before(a.key, b.key); });
                std::uint64_t below = 0;
                for (const Proposal<T>& offer : offered) {
                    below += offer.weight;
                    if (2 * below >= weight) {
                        pivot[o] = offer.key;
                        break;
                    }
                }
                const auto first = items.begin() + std::ptrdiff_t(lo[p]), last = items.begin() + std::ptrdiff_t(hi[p]);
                less[o] = std::uint64_t(std::partition_point(first, last, [&](const Item<T>& item) {
                                            return before(item.key, pivot[o]);
                                        }) - first);
            }
            const std::vector<std::uint64_t> counted = gather_equal(ranks, less);
            std::vector<std::size_t> still;
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                std::uint64_t below = 0;
                for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r) below += counted[r * open.size() + o];
                const std::size_t rank = base[p] + below;
                if (rank == want[p]) {
                    median[p] = pivot[o];
                    continue;
                }
                still.push_back(p);
                // Drop the side without the sought body: the pivot (on one rank) and all below
                // it, or the pivot and all above.
                if (rank < want[p]) {
                    base[p] = rank + 1;
                    lo[p] += less[o];
                    if (lo[p] < hi[p] && !KeyOrder<T>{&axis, count + p}(pivot[o], at(lo[p]))) ++lo[p];
                } else {
                    hi[p] = lo[p] + less[o];
                }
            }
            open.swap(still);
        }
        // Each body to its child; each child's cell its parent's, cut at the median.
        for (std::size_t p = 0; p < count; ++p) {
            const std::size_t k = count + p;
            const KeyOrder<T> before{&axis, k};
            for (std::size_t s = where[p]; s < where[p + 1]; ++s) {
                const bool right = split[p] ? !before(at(s), median[p]) : want[p] == 0;
                items[s].node = std::uint32_t(2 * p + (right ? 1 : 0));
            }
            for (std::size_t e = 0; e < 6; ++e) {
                box[e * nodes + 2 * k] = box[e * nodes + k];
                box[e * nodes + 2 * k + 1] = box[e * nodes + k];
            }
            if (split[p]) {
                box[(3 + axis[k]) * nodes + 2 * k] = double(median[p].c[axis[k]]);
                box[axis[k] * nodes + 2 * k + 1] = double(median[p].c[axis[k]]);
            }
        }
    }
    // Each child's bodies are a run of its parent's, in the parent's order: the tree's order.
    node_of.resize(n);
    order.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        node_of[items[s].origin] = items[s].node;
        order[s] = items[s].origin;
    }
}

TreeTop TreeTop::split(const dist::Communicator& ranks, Precision precision, const double* x,
                       const double* y, const double* z, const std::uint64_t* index, std::size_t n,
                       std::size_t total, std::size_t levels) {
    const double* c[3] = {x, y, z};
    TreeTop top;
    top.precision_ = precision;
    top.levels_ = levels;
    top.total_ = total;
    if (precision == Precision::float32) {
        check_input<float>(ranks, c, index, n, total, levels);
        split_as<float>(top.rounds_, top.node_, top.order_, top.boxes_, top.axis_, ranks, c, index, n, total, levels);
    } else {
        check_input<double>(ranks, c, index, n, total, levels);
        split_as<double>(top.rounds_, top.node_, top.order_, top.boxes_, top.axis_, ranks, c, index, n, total, levels);
    }
    return top;
}

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
