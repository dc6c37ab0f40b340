#pragma once
// TreeTop's split, one algorithm over two stores of a rank's bodies (private to the library):
// the host's (tree_top.cpp, the reference) and the device's (device_tree_top.cpp). The split
// level by level: the store orders its bodies by node and, within a node, as the build orders
// them there; every open node's median is found by the distributed selection (each round
// every rank proposes the median of what is left of a node on it, the weighted median of the
// proposals is counted on every rank, and the side without the sought body is dropped); the
// store then puts each body in its child. The store is asked only for a few keys and counts a
// round, so where the bodies live only the store knows.
//
// A Store of reals T provides
//   std::array<T, 6> bounds()              this rank's lo x, y, z | hi x, y, z (lo +inf, hi -inf
//                                          with no bodies); lo -inf or hi +inf where a body is
//                                          NaN or infinite
//   void sort_level(level, axis)           bodies by node of `level`, each node's along its
//                                          axis (axis[k] of heap node k), ties as before
//   std::vector<TopKey<T>> keys_at(places) the keys of the bodies at these places of that order
//   std::vector<TopCount> count_before(asks, axis)
//                                          for each ask, how many of the places [lo, hi) hold
//                                          bodies before the pivot in node k's order, and
//                                          whether the next holds the pivot
//   void children(cuts)                    each body of node p of the level to child 2p + 1 if
//                                          its place is at cuts[p] or past it, else 2p
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <partcl/backend/error.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

namespace partcl::detail {

// A body as the build compares it: coordinates in the model's precision, then its index.
template <class T>
struct TopKey {
    T c[3];
    std::uint64_t index;
};

// The order of bodies within heap node k: along k's axis, ties along its parent's, and so on
// to the root's, then by index (each level's stable sort keeps the order before).
template <class T>
bool top_before(const std::vector<std::uint8_t>& axis, std::size_t k, const TopKey<T>& a, const TopKey<T>& b) {
    for (std::size_t at = k; at >= 1; at >>= 1) {
        const std::uint8_t x = axis[at];
        if (a.c[x] != b.c[x]) return a.c[x] < b.c[x];
    }
    return a.index < b.index;
}

// The answer: `less` places hold bodies before the pivot, and `holds` (0 or 1) says whether the
// next place holds the pivot itself.
struct TopCount {
    std::uint64_t less, holds;
};

// One open node's question of a round: of places [lo, hi) of heap node k, how many come
// before the pivot.
template <class T>
struct TopAsk {
    std::size_t lo, hi, k;
    TopKey<T> pivot;
};

// What a split leaves: the cell boxes of the heap's nodes 1 .. 2^(levels + 1) - 1 (lox | loy |
// loz | hix | hiy | hiz, 2^(levels + 1) each), each node's split axis above `levels`, and the
// selection's rounds.
struct TopCells {
    std::vector<double> box;
    std::vector<std::uint8_t> axis;
    std::size_t rounds = 0;
};

// tree_build.cl's tree_widest_axis: ties go to the lower axis.
template <class T>
std::uint8_t top_widest_axis(const std::vector<double>& box, std::size_t nodes, std::size_t k) {
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

// Collective: UsageError on every rank alike for levels past 31, too many bodies, counts that
// do not add up to `total`, an index past it (index_ok false on some rank) or a body that is
// not finite (bounds as Store::bounds gives them).
template <class T>
void check_top_input(const dist::Communicator& ranks, const std::array<T, 6>& bounds, bool index_ok,
                     std::size_t n, std::size_t total, std::size_t levels) {
    if (levels > 31) throw UsageError("TreeTop: " + std::to_string(levels) + " levels (at most 31)");
    if (total >= (std::size_t(1) << 32)) throw UsageError("TreeTop: " + std::to_string(total) + " bodies (fewer than 2^32)");
    const T largest = std::numeric_limits<T>::max();
    std::uint64_t bad = index_ok ? 0 : 2;
    for (std::size_t a = 0; a < 3 && n > 0; ++a)
        if (!(bounds[a] > -largest && bounds[3 + a] < largest)) bad = std::max<std::uint64_t>(bad, 1);
    std::uint64_t count = 0;
    for (std::uint64_t b : ranks.allgather(bad)) bad = std::max(bad, b);
    for (std::size_t m : ranks.allgather(n)) count += m;
    if (bad == 1) throw UsageError("TreeTop: a body's coordinate is NaN or infinite");
    if (bad == 2) throw UsageError("TreeTop: a body's index is past the " + std::to_string(total) + " bodies");
    if (count != total)
        throw UsageError("TreeTop: the ranks hold " + std::to_string(count) + " bodies, not " + std::to_string(total));
}

// The split of every rank's bodies into the nodes of level `levels` (every rank calls it with
// the same total and levels, its `n` bodies in `store`, their indices checked: index_ok).
template <class T, class Store>
TopCells split_top(const dist::Communicator& ranks, Store& store, bool index_ok, std::size_t n, std::size_t total,
                   std::size_t levels) {
    // A rank's proposal for a node: the median of what is left of the node on it, and how much is.
    struct Proposal {
        TopKey<T> key;
        std::uint64_t weight;
    };
    std::array<T, 6> bounds = store.bounds();
    check_top_input<T>(ranks, bounds, index_ok, n, total, levels);
    TopCells cells;
    std::vector<double>& box = cells.box;
    std::vector<std::uint8_t>& axis = cells.axis;
    const std::size_t nodes = std::size_t(2) << levels;
    // The root's cell: the bodies' bounding box, as tree_root_box finds it.
    box.assign(6 * nodes, 0.0);
    const std::vector<T> every = gather_equal(ranks, std::vector<T>(bounds.begin(), bounds.end()));
    for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r)
        for (std::size_t a = 0; a < 3; ++a) {
            bounds[a] = std::min(bounds[a], every[6 * r + a]);
            bounds[3 + a] = std::max(bounds[3 + a], every[6 * r + 3 + a]);
        }
    for (std::size_t e = 0; e < 6; ++e) box[e * nodes + 1] = total > 0 ? double(bounds[e]) : 0.0;

    axis.assign(nodes / 2, 0);
    // This rank's bodies by node, each node's in its order: where[p] .. where[p + 1].
    std::vector<std::size_t> where = {0, n};
    for (std::size_t level = 0; level < levels; ++level) {
        const std::size_t count = std::size_t(1) << level;
        for (std::size_t p = 0; p < count; ++p) axis[count + p] = top_widest_axis<T>(box, nodes, count + p);
        store.sort_level(level, axis);
        // Node p's median: the body that begins its right child, the want[p]-th in its order.
        std::vector<std::size_t> want(count), lo(count), hi(count), base(count, 0), cut(count), open;
        std::vector<TopKey<T>> median(count);
        std::vector<char> split(count, 0);
        for (std::size_t p = 0; p < count; ++p) {
            const std::size_t begin = tree_start(p, count, total), end = tree_start(p + 1, count, total);
            const std::size_t mid = tree_start(2 * p + 1, 2 * count, total);
            want[p] = mid - begin;
            lo[p] = where[p];
            hi[p] = where[p + 1];
            split[p] = begin < mid && mid < end;
            // Unsplit, a node's bodies all go to its one child that holds bodies.
            cut[p] = want[p] == 0 ? where[p] : where[p + 1];
            if (split[p]) open.push_back(p);
        }
        while (!open.empty()) {
            ++cells.rounds;
            std::vector<std::size_t> places;
            for (std::size_t p : open)
                if (hi[p] > lo[p]) places.push_back(lo[p] + (hi[p] - lo[p]) / 2);
            const std::vector<TopKey<T>> keys = store.keys_at(places);
            std::vector<Proposal> mine(open.size());
            for (std::size_t o = 0, at = 0; o < open.size(); ++o) {
                const std::size_t p = open[o], size = hi[p] - lo[p];
                mine[o] = {size > 0 ? keys[at++] : TopKey<T>{}, size};
            }
            const std::vector<Proposal> all = gather_equal(ranks, mine);
            std::vector<TopAsk<T>> asks(open.size());
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                // The weighted median of the proposals: as much left below it as above.
                std::vector<Proposal> offered;
                std::uint64_t weight = 0;
                for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r)
                    if (all[r * open.size() + o].weight > 0) {
                        offered.push_back(all[r * open.size() + o]);
                        weight += offered.back().weight;
                    }
                std::sort(offered.begin(), offered.end(), [&](const Proposal& a, const Proposal& b) {
                    return top_before(axis, count + p, a.key, b.key);
                });
                std::uint64_t below = 0;
                for (const Proposal& offer : offered) {
                    below += offer.weight;
                    if (2 * below >= weight) {
                        asks[o] = {lo[p], hi[p], count + p, offer.key};
                        break;
                    }
                }
            }
            const std::vector<TopCount> found = store.count_before(asks, axis);
            std::vector<std::uint64_t> less(open.size());
            for (std::size_t o = 0; o < open.size(); ++o) less[o] = found[o].less;
            const std::vector<std::uint64_t> counted = gather_equal(ranks, less);
            std::vector<std::size_t> still;
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                std::uint64_t below = 0;
                for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r) below += counted[r * open.size() + o];
                const std::size_t rank = base[p] + below;
                if (rank == want[p]) {
                    median[p] = asks[o].pivot;
                    cut[p] = lo[p] + less[o];
                    continue;
                }
                still.push_back(p);
                // Drop the side without the sought body: the pivot (on the one rank that holds
                // it) and all below it, or the pivot and all above.
                if (rank < want[p]) {
                    base[p] = rank + 1;
                    lo[p] += less[o] + found[o].holds;
                } else {
                    hi[p] = lo[p] + less[o];
                }
            }
            open.swap(still);
        }
        // Each body to its child; each child's cell its parent's, cut at the median.
        store.children(cut);
        std::vector<std::size_t> next(2 * count + 1, 0);
        for (std::size_t p = 0; p < count; ++p) {
            const std::size_t k = count + p;
            next[2 * p + 1] = cut[p];
            next[2 * p + 2] = where[p + 1];
            for (std::size_t e = 0; e < 6; ++e) {
                box[e * nodes + 2 * k] = box[e * nodes + k];
                box[e * nodes + 2 * k + 1] = box[e * nodes + k];
            }
            if (split[p]) {
                box[(3 + axis[k]) * nodes + 2 * k] = double(median[p].c[axis[k]]);
                box[axis[k] * nodes + 2 * k + 1] = double(median[p].c[axis[k]]);
            }
        }
        where.swap(next);
    }
    return cells;
}

} // namespace partcl::detail
