// The tree kernels of tests/test_oclgrind.cpp's table: nbody/tree_build.cl and
// nbody/tree_force.cl, each against a host computation (nbody/dense.cl: oclgrind_dense.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace partcl_test {

namespace {

// nbody/tree_build.cl driven level by level as TreeGravity drives it, with the two sorts of
// each level done on the host (std::stable_sort: Oclgrind checks partcl's kernels, not
// Boost.Compute's), for N = 37 (a root box group of 16 looping, leaves of 1 to 3 bodies, some
// empty with leaf_size 2) and N = 1 (no split). Checked: perm a permutation, every node's mass
// the sum over its range, the root's box and centre of mass.
template <class T>
struct DeviceTree {
    std::size_t n, levels, nodes;
    std::vector<T> pos, m;
    Buffer<T> bpos, bm, box, keys, sorted, node;
    Buffer<std::uint32_t> perm, values, node_keys, perm2;
    // As the build left them at level `window_level` (build_device_tree's argument): perm
    // before that level's sorts, and every cell box before fit.
    std::vector<std::uint32_t> perm_at_window;
    std::vector<T> cells;
};

// tree_build.cl's window: positions [base, base + m) of the tree of n bodies, nodes
// [first, last) of level `from`.
struct TreeWindow {
    std::uint32_t n, base, m, from, first, last;
};

template <class K>
void host_stable_sort(std::vector<K>& keys, std::vector<std::uint32_t>& values) {
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<K> k2(keys.size());
    std::vector<std::uint32_t> v2(values.size());
    for (std::size_t i = 0; i < order.size(); ++i) k2[i] = keys[order[i]], v2[i] = values[order[i]];
    keys.swap(k2);
    values.swap(v2);
}

// The build's levels from the window's down, then fit, over t's buffers (perm holds the
// window's bodies in the tree's order at its level, box the cell boxes there). at_level:
// where to keep perm_at_window (a level of whole-tree sorts) and cells.
template <class T>
void drive_tree_build(const Program& program, DeviceTree<T>& t, const TreeWindow& w, double theta,
                      std::size_t at_level) {
    auto& queue = test_context().queue(0);
    // Levels whose nodes hold more than 16 bodies by whole-tree sorts (here on the host), the
    // rest by tree_finish, as TreeGravity does with its larger work-groups.
    std::size_t first_finished = 0;
    while (((w.n - 1) >> first_finished) + 1 > 16) ++first_finished;
    first_finished = std::max<std::size_t>(first_finished, w.from);
    const std::uint32_t nodes = std::uint32_t(t.nodes);
    auto first = [&](std::size_t level) { return std::uint32_t(w.first << (level - w.from)); };
    auto last = [&](std::size_t level) { return std::uint32_t(w.last << (level - w.from)); };
    for (std::size_t level = w.from; level < std::min(t.levels, first_finished); ++level) {
        if (level == at_level) t.perm_at_window = t.perm.read(queue);
        const std::uint32_t count = std::uint32_t(1) << level;
        Kernel(program, "tree_keys").args(w.n, w.base, w.m, count, nodes, t.bpos, t.box, t.perm, t.keys, t.values)
            .launch(queue, w.m, 8).wait();
        auto keys = t.keys.read(queue);
        auto values = t.values.read(queue);
        host_stable_sort(keys, values);
        t.values.write(queue, values).wait();
        Kernel(program, "tree_regroup").args(w.n, w.base, w.m, count, t.values, t.perm, t.node_keys, t.perm2)
            .launch(queue, w.m, 8).wait();
        auto node_keys = t.node_keys.read(queue);
        auto perm = t.perm2.read(queue);
        host_stable_sort(node_keys, perm);
        t.perm.write(queue, perm).wait();
        Kernel(program, "tree_split")
            .args(w.n, w.base, w.m, first(level), last(level), count, nodes, t.bpos, t.perm, t.box)
            .launch(queue, last(level) - first(level), 4)
            .wait();
    }
    if (first_finished < t.levels)
        Kernel(program, "tree_finish")
            .args(w.n, w.base, w.m, first(first_finished), std::uint32_t(first_finished), std::uint32_t(t.levels), nodes,
                  t.bpos, t.perm, t.box)
            .launch(queue, (last(first_finished) - first(first_finished)) * std::size_t(16), 16)
            .wait();
    t.cells = t.box.read(queue);
    Kernel(program, "tree_gather").args(w.m, t.bpos, t.bm, t.perm, t.sorted).launch(queue, w.m, 8).wait();
    const std::uint32_t leaves = std::uint32_t(1) << t.levels;
    Kernel(program, "tree_leaves")
        .args(w.n, w.base, first(t.levels), last(t.levels), leaves, nodes, t.sorted, t.node, t.box, Real{theta})
        .launch(queue, last(t.levels) - first(t.levels), 4)
        .wait();
    for (std::size_t level = t.levels; level-- > w.from;)
        Kernel(program, "tree_nodes")
            .args(first(level), last(level), std::uint32_t(1) << level, nodes, t.node, t.box, Real{theta})
            .launch(queue, last(level) - first(level), 4)
            .wait();
}

Program tree_build_program(Precision precision) {
    BuildOptions options;
    options.precision = precision;
    options.define("TREE_GROUP", 16).define("TREE_FINISH", 16);
    return build_program(test_context(), Source::builtin("nbody/tree_build.cl"), options, memory_cache());
}

template <class T>
DeviceTree<T> build_device_tree(Precision precision, std::size_t n, std::size_t leaf_size, double theta,
                                std::uint32_t seed, std::size_t window_level = 0) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> position(-1.0, 1.0), mass(0.5, 1.5);
    DeviceTree<T> t;
    t.n = n;
    t.levels = 0;
    while ((std::size_t(1) << t.levels) * leaf_size < n) ++t.levels;
    t.nodes = std::size_t(2) << t.levels;
    t.pos.resize(3 * n);
    t.m.resize(n);
    for (auto& p : t.pos) p = T(position(rng));
    for (auto& v : t.m) v = T(mass(rng));
    if (n > 3)
        for (std::size_t d = 0; d < 3; ++d) t.pos[d * n + 3] = t.pos[d * n + 2];  // coincident
    t.bpos = Buffer<T>(context, t.pos);
    t.bm = Buffer<T>(context, t.m);
    t.box = Buffer<T>(context, 7 * t.nodes);
    t.node = Buffer<T>(context, 11 * t.nodes);
    t.keys = Buffer<T>(context, n);
    t.sorted = Buffer<T>(context, 4 * n);
    t.perm = Buffer<std::uint32_t>(context, n);
    t.values = Buffer<std::uint32_t>(context, n);
    t.node_keys = Buffer<std::uint32_t>(context, n);
    t.perm2 = Buffer<std::uint32_t>(context, n);
    const Program program = tree_build_program(precision);
    const std::uint32_t un = std::uint32_t(n), nodes = std::uint32_t(t.nodes);
    // The root box in two passes, as TreeGravity runs it: up to 2 groups of 16 into partial
    // boxes (37 bodies: some work-items take two), then one group over those.
    const std::uint32_t partials = std::uint32_t(std::min<std::size_t>(2, (n + 15) / 16));
    // And once more side by side past the partials, for the host's check of finite bodies.
    Buffer<T> partial(context, 6 * 2 + 6);
    Kernel root(program, "tree_root_box");
    root.args(un, un, std::uint32_t(0), t.bpos, partials, std::uint32_t(0), partial, un, t.perm)
        .launch(queue, partials * 16, 16).wait();
    root.args(partials, partials, 3 * partials, partial, nodes, std::uint32_t(1), t.box, std::uint32_t(0), t.perm)
        .launch(queue, 16, 16).wait();
    root.args(partials, partials, 3 * partials, partial, std::uint32_t(1), std::uint32_t(6 * 2), partial,
              std::uint32_t(0), t.perm)
        .launch(queue, 16, 16).wait();
    {
        const auto box = t.box.read(queue), side = partial.read(queue);
        for (std::size_t a = 0; a < 3; ++a) {
            const auto first = t.pos.begin() + std::ptrdiff_t(a * n), last = first + std::ptrdiff_t(n);
            CHECK(box[a * t.nodes + 1] == *std::min_element(first, last));
            CHECK(box[(3 + a) * t.nodes + 1] == *std::max_element(first, last));
            CHECK(side[12 + a] == *std::min_element(first, last));
            CHECK(side[15 + a] == *std::max_element(first, last));
        }
    }
    drive_tree_build(program, t, TreeWindow{un, 0, un, 0, 0, 1}, theta, window_level);
    return t;
}

// The window of node 1 of level 1 of t (37 bodies, built with window_level 1): its 19 bodies in
// the order t had at level 1 and the cells of level 1 alone, built from there. Every node of
// its subtree, the perm over its positions and the sorted bodies must be t's bit for bit, and
// nothing outside the window written.
template <class T>
void check_tree_window(Precision precision, const DeviceTree<T>& t, double theta) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const TreeWindow w{std::uint32_t(t.n), 18, 19, 1, 1, 2};
    REQUIRE(t.n == 37);
    REQUIRE(t.perm_at_window.size() == t.n);
    DeviceTree<T> b;
    b.n = w.m;
    b.levels = t.levels;
    b.nodes = t.nodes;
    b.pos.resize(3 * w.m);
    b.m.resize(w.m);
    for (std::size_t j = 0; j < w.m; ++j) {
        const std::uint32_t body = t.perm_at_window[w.base + j];
        for (std::size_t a = 0; a < 3; ++a) b.pos[a * w.m + j] = t.pos[a * t.n + body];
        b.m[j] = t.m[body];
    }
    const T unset = T(-999);
    std::vector<T> cells(7 * t.nodes, unset);
    for (std::size_t c = 0; c < 6; ++c)
        for (std::size_t k = 2 + w.first; k < 2 + w.last; ++k) cells[c * t.nodes + k] = t.cells[c * t.nodes + k];
    b.bpos = Buffer<T>(context, b.pos);
    b.bm = Buffer<T>(context, b.m);
    b.box = Buffer<T>(context, cells);
    b.node = Buffer<T>(context, std::vector<T>(11 * t.nodes, unset));
    b.keys = Buffer<T>(context, w.m);
    b.sorted = Buffer<T>(context, 4 * w.m);
    std::vector<std::uint32_t> identity(w.m);
    for (std::uint32_t j = 0; j < w.m; ++j) identity[j] = j;
    b.perm = Buffer<std::uint32_t>(context, identity);
    b.values = Buffer<std::uint32_t>(context, w.m);
    b.node_keys = Buffer<std::uint32_t>(context, w.m);
    b.perm2 = Buffer<std::uint32_t>(context, w.m);
    drive_tree_build(tree_build_program(precision), b, w, theta, 0);
    const auto node = b.node.read(queue), box = b.box.read(queue), want_node = t.node.read(queue);
    const auto want_box = t.box.read(queue);
    for (std::size_t k = 1; k < t.nodes; ++k) {
        std::size_t level = 0;
        while (k >> (level + 1)) ++level;
        const std::size_t p = k - (std::size_t(1) << level);
        const bool inside = level >= w.from && p >= (std::size_t(w.first) << (level - w.from)) &&
                            p < (std::size_t(w.last) << (level - w.from));
        CAPTURE(k);
        for (std::size_t f = 0; f < 11; ++f) {
            const T got = node[f * t.nodes + k];
            CHECK(std::memcmp(&got, inside ? &want_node[f * t.nodes + k] : &unset, sizeof(T)) == 0);
        }
        for (std::size_t f = 0; f < 7; ++f) {
            const T got = box[f * t.nodes + k];
            // Outside the window only the level's cells given and the unset stay.
            const T* want = inside ? &want_box[f * t.nodes + k] : &cells[f * t.nodes + k];
            CHECK(std::memcmp(&got, want, sizeof(T)) == 0);
        }
    }
    const auto perm = b.perm.read(queue), want_perm = t.perm.read(queue);
    const auto sorted = b.sorted.read(queue), want_sorted = t.sorted.read(queue);
    for (std::size_t i = 0; i < w.m; ++i) {
        CHECK(t.perm_at_window[w.base + perm[i]] == want_perm[w.base + i]);
        CHECK(std::memcmp(&sorted[4 * i], &want_sorted[4 * (w.base + i)], 4 * sizeof(T)) == 0);
    }
    // The rest of a locally essential tree imported: the other half's nodes (below node 2, the
    // 11 fields and the radius) and its bodies, which must then be t's bit for bit.
    std::vector<std::uint32_t> ids, at;
    std::vector<T> rows, bodies;
    for (std::size_t k = 4; k < t.nodes; ++k) {
        std::size_t level = 0;
        while (k >> (level + 1)) ++level;
        if ((k >> (level - 1)) != 2) continue;
        ids.push_back(std::uint32_t(k));
        for (std::size_t f = 0; f < 11; ++f) rows.push_back(want_node[f * t.nodes + k]);
        rows.push_back(want_box[6 * t.nodes + k]);
    }
    for (std::uint32_t i = 0; i < w.base; ++i) {
        at.push_back(i);
        for (std::size_t c = 0; c < 4; ++c) bodies.push_back(want_sorted[4 * i + c]);
    }
    std::vector<T> whole_sorted(4 * t.n, unset);
    std::copy(sorted.begin(), sorted.end(), whole_sorted.begin() + std::ptrdiff_t(4 * w.base));
    const Buffer<std::uint32_t> bids(context, ids);
    const Buffer<std::uint32_t> bat(context, at);
    const Buffer<T> brows(context, rows);
    const Buffer<T> bbodies(context, bodies);
    Buffer<T> bsorted(context, whole_sorted);
    const Program program = tree_build_program(precision);
    Kernel(program, "tree_import_nodes")
        .args(std::uint32_t(ids.size()), std::uint32_t(t.nodes), bids, brows, b.node, b.box)
        .launch(queue, ids.size(), 4)
        .wait();
    Kernel(program, "tree_import_bodies").args(std::uint32_t(at.size()), bat, bbodies, bsorted).launch(queue, at.size(), 4).wait();
    const auto imported = b.node.read(queue), imported_box = b.box.read(queue), all_sorted = bsorted.read(queue);
    for (const std::uint32_t k : ids) {
        CAPTURE(k);
        for (std::size_t f = 0; f < 11; ++f)
            CHECK(std::memcmp(&imported[f * t.nodes + k], &want_node[f * t.nodes + k], sizeof(T)) == 0);
        CHECK(std::memcmp(&imported_box[6 * t.nodes + k], &want_box[6 * t.nodes + k], sizeof(T)) == 0);
    }
    CHECK(std::memcmp(all_sorted.data(), want_sorted.data(), 4 * t.n * sizeof(T)) == 0);
    // And exported from t's arrays: the same rows and bodies.
    Buffer<T> exported_rows(context, std::max<std::size_t>(rows.size(), 1));
    Buffer<T> exported_bodies(context, std::max<std::size_t>(bodies.size(), 1));
    Kernel(program, "tree_export_nodes")
        .args(std::uint32_t(ids.size()), std::uint32_t(t.nodes), bids, t.node, t.box, exported_rows)
        .launch(queue, ids.size(), 4)
        .wait();
    Kernel(program, "tree_export_bodies").args(std::uint32_t(at.size()), bat, t.sorted, exported_bodies).launch(queue, at.size(), 4).wait();
    const auto out_rows = exported_rows.read(queue), out_bodies = exported_bodies.read(queue);
    CHECK(std::memcmp(out_rows.data(), rows.data(), rows.size() * sizeof(T)) == 0);
    CHECK(std::memcmp(out_bodies.data(), bodies.data(), bodies.size() * sizeof(T)) == 0);
}

template <class T>
void run_tree_build_typed(Precision precision) {
    auto& queue = test_context().queue(0);
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    for (std::size_t n : {37, 1})
        for (std::size_t leaf_size : {2, 3}) {
            const std::uint32_t seed = fresh_seed();
            INFO("seed " << seed << ", N " << n << ", leaf " << leaf_size);
            const DeviceTree<T> t = build_device_tree<T>(precision, n, leaf_size, 0.6, seed, 1);
            if (n == 37) check_tree_window(precision, t, 0.6);
            auto perm = t.perm.read(queue);
            std::sort(perm.begin(), perm.end());
            for (std::size_t i = 0; i < n; ++i) REQUIRE(perm[i] == i);
            const auto node = t.node.read(queue), box = t.box.read(queue);
            const auto order = t.perm.read(queue);
            for (std::size_t k = 1; k < t.nodes; ++k) {
                std::size_t level = 0;
                while (k >> (level + 1)) ++level;
                const std::size_t count = std::size_t(1) << level, p = k - count;
                double mass = 0;
                for (std::size_t i = p * n / count; i < (p + 1) * n / count; ++i) mass += t.m[order[i]];
                CAPTURE(k);
                CHECK(std::fabs(node[3 * t.nodes + k] - mass) <= 4 * double(n) * eps * mass);
            }
            double total = 0, w[3] = {0, 0, 0};
            for (std::size_t i = 0; i < n; ++i) {
                total += t.m[i];
                for (int a = 0; a < 3; ++a) w[a] += double(t.m[i]) * t.pos[a * n + i];
            }
            for (int a = 0; a < 3; ++a) {
                const auto lo = *std::min_element(t.pos.begin() + a * n, t.pos.begin() + (a + 1) * n);
                const auto hi = *std::max_element(t.pos.begin() + a * n, t.pos.begin() + (a + 1) * n);
                CHECK(box[a * t.nodes + 1] == lo);
                CHECK(box[(3 + a) * t.nodes + 1] == hi);
                CHECK(std::fabs(node[a * t.nodes + 1] - w[a] / total) <= 8 * double(n) * eps);
            }
        }
}

} // namespace

void run_tree_build_kernel(Precision precision) {
    run_tree_essential_kernels(precision);
    if (precision == Precision::float64)
        run_tree_build_typed<double>(precision);
    else
        run_tree_build_typed<float>(precision);
}

namespace {

// nbody/tree_force.cl over a tree built as above: both traversals, with and without the
// potential, walk groups of 1 (per body, n not a power of two: empty groups) and of 4 (the
// last work-group partly past the groups) alone and listed (a list of 4: applied every round
// that lists a node; the shared stack at its bound for the 37-body tree, 2 * 4 * (levels + 1),
// and the same size for the one-body tree, so that both share a program: a PoCL build is about
// a second, and this matrix is the tree_kernels suite's whole cost on a cold cache), into a
// derivative-shaped buffer (offset 3n). At
// theta = 0 every node opens, so the result is the direct sum (the dense bound); at
// theta = 0.6 every output is written and finite. Both in open space and as TreePM's
// short-range walk (TREE_SHORT_RANGE: nearest images in a box of 2.5 about bodies spanning 2,
// so images of both sides count; r_s 0.2, cut 1), whose direct sum is over those images with
// erfc(r / 2 r_s) / r. At theta 0.6 also with the relative criterion (without the potential),
// reading each body's |a| made by tree_reference from random accelerations, with an accuracy
// large enough to take nodes whole that theta opens.
template <class T>
void run_tree_force_typed(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    const double eps2 = 0.01, G = 0.75;
    // (group, list, lanes): per body, groups walking alone, listed, listed into partial sums
    // (the lanes past a leaf of 3 masked, the list's last nodes past the lanes).
    const std::array<std::size_t, 3> walks[] = {{1, 0, 0}, {4, 0, 0}, {4, 4, 0}, {4, 8, 4}};
    const double box = 2.5, split = 0.2, cut = 1.0;
    const std::size_t stack_levels = 4;  // the 37-body tree's, leaves of 3
    for (std::size_t n : {37, 1})
      for (int short_range : {0, 1})
        for (double theta : {0.0, 0.6}) {
            const std::uint32_t seed = fresh_seed();
            const DeviceTree<T> t = build_device_tree<T>(precision, n, 3, theta, seed);
            REQUIRE(t.levels == (n == 37 ? stack_levels : 0));  // the stack at its bound for 37
            for (int stackless : {0, 1})
                for (int potential : {0, 1})
                  for (int relative : {0, 1})
                    for (const auto& walk : walks) {
                        if (relative && (theta == 0 || potential)) continue;
                        const std::size_t group_size = walk[0], list_size = walk[1], lanes = walk[2];
                        INFO("seed " << seed << ", N " << n << ", short range " << short_range << ", theta " << theta << ", stackless "
                                     << stackless << ", potential " << potential << ", group " << group_size
                                     << ", list " << list_size << ", lanes " << lanes << ", relative " << relative);
                        std::size_t group_levels = 0;
                        while ((std::size_t(1) << group_levels) * group_size < n) ++group_levels;
                        const std::size_t groups = std::size_t(1) << group_levels;
                        BuildOptions options;
                        options.precision = precision;
                        options.define("TREE_STACKLESS", stackless).define("TREE_POTENTIAL", potential);
                        options.define("TREE_STACK", 34).define("TREE_WALK_GROUP", static_cast<long long>(group_size));
                        options.define("TREE_LIST", static_cast<long long>(list_size));
                        options.define("TREE_LANES", static_cast<long long>(lanes));
                        options.define("TREE_LIST_STACK", static_cast<long long>(2 * group_size * (stack_levels + 1)));
                        options.define("TREE_SHORT_RANGE", short_range);
                        const Program program = build_program(context, Source::builtin("nbody/tree_force.cl"),
                                                              options, memory_cache());
                        Buffer<T> acc(context, 6 * n), pot(context, potential ? n : 0);
                        acc.write(queue, std::vector<T>(6 * n, T(-999))).wait();  // not fill: in the experiment above, a fill before the kernels brought the reports back
                        Buffer<T> pulls(context, relative ? 3 * n : 0), reference(context, relative ? n : 0);
                        if (relative) {
                            Random random(seed + 1);
                            std::vector<T> pull(3 * n);
                            for (T& v : pull) v = T(random.uniform(-2, 2));
                            pulls.write(queue, pull).wait();
                            Kernel(program, "tree_reference")
                                .args(std::uint32_t(n), pulls, std::uint32_t(0), std::uint32_t(n), reference)
                                .launch(queue, n, 8)
                                .wait();
                            const auto magnitude = reference.read(queue);
                            for (std::size_t i = 0; i < n; ++i) {
                                const double want = std::hypot(double(pull[i]), double(pull[n + i]), double(pull[2 * n + i]));
                                CHECK(std::fabs(double(magnitude[i]) - want) <= 4 * eps * want);
                            }
                        }
                        Kernel(program, "tree_gravity")
                            .args(std::uint32_t(n), std::uint32_t(t.nodes / 2), std::uint32_t(groups), std::uint32_t(0),
                                  std::uint32_t(groups), Real{eps2}, Real{G}, t.node, t.sorted, t.perm, acc,
                                  std::uint32_t(3 * n), std::uint32_t(n), pot, std::uint32_t(0), t.box,
                                  Real{box}, Real{0.5 / split}, Real{cut}, reference, Real{relative ? 0.5 / G : 0.0})
                            .launch(queue, groups * group_size, list_size ? group_size : 8)
                            .wait();
                        const auto a = acc.read(queue);
                        const auto ph = pot.read(queue);
                        const double g = double(T(G));
                        for (std::size_t i = 0; i < n; ++i) {
                            CAPTURE(i);
                            double s[3] = {0, 0, 0}, sp = 0, scale = 0;
                            for (std::size_t j = 0; j < n; ++j) {
                                double d[3];
                                for (int k = 0; k < 3; ++k) {
                                    d[k] = double(t.pos[k * n + j]) - double(t.pos[k * n + i]);
                                    if (short_range) d[k] -= box * std::nearbyint(d[k] / box);
                                }
                                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                                if (r2 == 0 || (short_range && r2 >= cut * cut)) continue;
                                const double inv_r = 1 / std::sqrt(r2 + double(T(eps2)));
                                // Short range: erfc(u) / R's force and potential, u = R / 2 r_s.
                                const double u = short_range ? 0.5 / (split * inv_r) : 0;
                                const double fa = short_range ? std::erfc(u) + 2 * u * std::exp(-u * u) / std::sqrt(M_PI) : 1;
                                const double fp = short_range ? std::erfc(u) : 1;
                                for (int k = 0; k < 3; ++k) s[k] += t.m[j] * fa * inv_r * inv_r * inv_r * d[k];
                                sp += t.m[j] * fp * inv_r;
                                scale += t.m[j] * inv_r * inv_r;
                            }
                            for (int k = 0; k < 3; ++k) {
                                CHECK(a[k * n + i] == T(-999));  // the state half is left alone
                                const double v = a[3 * n + k * n + i];
                                CHECK(std::isfinite(v));
                                if (theta == 0)
                                    CHECK(std::fabs(v - g * s[k]) <= (32.0 + 4.0 * double(n)) * eps * g * scale);
                            }
                            if (potential) {
                                CHECK(std::isfinite(double(ph[i])));
                                if (theta == 0)
                                    CHECK(std::fabs(ph[i] + g * sp) <= (32.0 + 4.0 * double(n)) * eps * g * sp);
                            }
                        }
                    }
        }
}

} // namespace

void run_tree_force_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_tree_force_typed<double>(precision);
    else
        run_tree_force_typed<float>(precision);
}

} // namespace partcl_test
