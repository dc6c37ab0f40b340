#pragma once
// TreeTop's split, one algorithm over two stores of a rank's bodies (private to the library):
// the host's (tree_top.cpp, the reference) and the device's (device_tree_top.cpp). The split
// level by level: the store orders its bodies by node and, within a node, as the build orders
// them there; every open node's median is found by the distributed selection (each round
// every rank proposes a few bodies evenly spaced through what is left of the node on it,
// every rank counts what it holds before each proposal, and what lies outside the two
// proposals that bracket the sought body is dropped); the store then puts each body in its
// child. The store is asked only for a few keys and counts a
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

// The bodies each rank proposes for an open node a round: every round narrows each rank's part
// of the node to about 1 / (probes + 1), so a level takes about log16 of a rank's bodies rounds
// on two ranks, each two collectives and a few small transfers (a single median a round took
// about log4/3). Fewer where more ranks propose, so that a node's proposals stay at most 64 (or
// one a rank): the counts every rank sends grow with them.
inline std::size_t top_probes(std::size_t ranks) noexcept { return std::clamp<std::size_t>(64 / ranks, 1, 15); }

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

// UsageError for a top of more than 31 levels (every rank asks for the same).
inline void check_top_levels(std::size_t levels) {
    if (levels > 31) throw UsageError("TreeTop: " + std::to_string(levels) + " levels (at most 31)");
}

// Collective: UsageError on every rank alike for levels past 31, too many bodies, counts that
// do not add up to `total`, an index past it (index_ok false on some rank) or a body that is
// not finite (bounds as Store::bounds gives them).
template <class T>
void check_top_input(const dist::Communicator& ranks, const std::array<T, 6>& bounds, bool index_ok,
                     std::size_t n, std::size_t total, std::size_t levels) {
    check_top_levels(levels);
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
    // A rank's proposal for a node (valid 0: an empty slot).
    struct Proposal {
        TopKey<T> key;
        std::uint64_t valid;
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
    const std::size_t probes = top_probes(std::size_t(ranks.size()));
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
            // Each rank proposes up to probes bodies evenly spaced through what is left of
            // each open node on it (all of them where fewer are left): slots of a fixed size, so
            // that every rank's proposals line up.
            std::vector<std::size_t> places;
            std::vector<std::size_t> offered(open.size());
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o], size = hi[p] - lo[p];
                offered[o] = std::min(size, probes);
                for (std::size_t j = 0; j < offered[o]; ++j) places.push_back(lo[p] + (j + 1) * size / (offered[o] + 1));
            }
            const std::vector<TopKey<T>> keys = store.keys_at(places);
            std::vector<Proposal> mine(open.size() * probes, Proposal{TopKey<T>{}, 0});
            for (std::size_t o = 0, at = 0; o < open.size(); ++o)
                for (std::size_t j = 0; j < offered[o]; ++j) mine[o * probes + j] = {keys[at++], 1};
            const std::vector<Proposal> all = gather_equal(ranks, mine);
            // Every rank counts what it holds before each proposal, in the node's order.
            std::vector<TopAsk<T>> asks;
            std::vector<std::size_t> first_ask(open.size() + 1, 0);
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                std::vector<TopKey<T>> candidates;
                for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r)
                    for (std::size_t j = 0; j < probes; ++j) {
                        const Proposal& offer = all[(r * open.size() + o) * probes + j];
                        if (offer.valid) candidates.push_back(offer.key);
                    }
                std::sort(candidates.begin(), candidates.end(), [&](const TopKey<T>& a, const TopKey<T>& b) {
                    return top_before(axis, count + p, a, b);
                });
                for (const TopKey<T>& c : candidates) asks.push_back({lo[p], hi[p], count + p, c});
                first_ask[o + 1] = asks.size();
            }
            const std::vector<TopCount> found = store.count_before(asks, axis);
            std::vector<std::uint64_t> less(asks.size());
            for (std::size_t a = 0; a < asks.size(); ++a) less[a] = found[a].less;
            const std::vector<std::uint64_t> counted = gather_equal(ranks, less);
            std::vector<std::size_t> still;
            for (std::size_t o = 0; o < open.size(); ++o) {
                const std::size_t p = open[o];
                // The candidates' ranks in the node rise with them: the sought body is one of
                // them, or lies between the last below it and the first above it.
                std::size_t below = first_ask[o + 1], above = first_ask[o + 1], rank_below = 0;
                bool found_median = false;
                for (std::size_t a = first_ask[o]; a < first_ask[o + 1]; ++a) {
                    std::uint64_t before = 0;
                    for (std::size_t r = 0; r < std::size_t(ranks.size()); ++r) before += counted[r * asks.size() + a];
                    const std::size_t rank = base[p] + before;
                    if (rank == want[p]) {
                        median[p] = asks[a].pivot;
                        cut[p] = lo[p] + less[a];
                        found_median = true;
                        break;
                    }
                    if (rank < want[p]) {
                        below = a;
                        rank_below = rank;
                    } else if (above == first_ask[o + 1]) {
                        above = a;
                    }
                }
                if (found_median) continue;
                still.push_back(p);
                // Keep only what lies between them (the one below is on one rank: past it there).
                const std::size_t old_lo = lo[p];
                if (below < first_ask[o + 1]) {
                    base[p] = rank_below + 1;
                    lo[p] = old_lo + less[below] + found[below].holds;
                }
                if (above < first_ask[o + 1]) hi[p] = old_lo + less[above];
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
