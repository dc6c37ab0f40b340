// Every kernel of partcl's cl/ tree at small N, in float and double: run under Oclgrind by
// CTest (tests/oclgrind.sh, label `oclgrind`; the simulator is then the only device, so CTest
// sets PARTCL_DEVICE=all and keeps the disk cache out of it) and, as suite tree_kernels, on the
// default device. A kernel that joins cl/ must join the table below, or the coverage check
// fails.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "mps_check.hpp"
#include "pic_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

void run_real_check_kernel(Precision precision) {
    Context& context = test_context();
    BuildOptions options;
    options.precision = precision;
    const Program program = build_program(context, real_check_source(), options, memory_cache());
    for (std::size_t n : {std::size_t(37), std::size_t(1)}) {
        for (std::size_t local : {std::size_t(0), std::size_t(8)}) {
            const std::uint32_t seed = fresh_seed();
            CAPTURE(n);
            CAPTURE(local);
            check_real_check(run_real_check(context, 0, program, real_check_input(n, seed), local),
                             precision, seed);
        }
    }
}

// nbody/dense.cl: all-pairs gravity against a float64 host sum, untiled and tiled, with and
// without the potential, into a derivative-shaped buffer and into a slice buffer.
template <class T>
void run_dense_typed(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> position(-1.0, 1.0), mass(0.5, 1.5);
    const std::size_t n = 37;
    std::vector<T> pos(3 * n), m(n);  // x[0, n), then y, then z
    for (auto& p : pos) p = T(position(rng));
    for (auto& v : m) v = T(mass(rng));
    for (std::size_t d = 0; d < 3; ++d) pos[d * n + 3] = pos[d * n + 2];  // coincident bodies
    m[5] = T(0);                                                          // a massless one
    const double eps2 = 0.01, G = 0.75;
    Buffer<T> bpos(context, pos), bm(context, m);

    struct Case {
        int tile, potential;
        std::size_t begin, end, acc_offset, stride, acc_size;
        int vector = 0;   // DENSE_LANES = 8: eight partial sums (the CPU form)
        int targets = 1;  // DENSE_TARGETS (the tiled form)
        int fast = 0;     // PARTCL_FAST_MATH (-cl-fast-relaxed-math)
        int parts = 1;    // source parts (tiled form), summed by dense_sum_parts
    };
    const Case cases[] = {
        {0, 0, 0, n, 3 * n, n, 6 * n},   // straight into a derivative vector [x v | a]
        {0, 1, 0, n, 0, n, 3 * n},
        {8, 1, 0, n, 3 * n, n, 6 * n},
        {8, 0, 5, 30, 0, 25, 75},        // a slice, into a buffer of the slice's length
        {0, 1, 36, 37, 2, 1, 5},
        {0, 1, 0, n, 3 * n, n, 6 * n, 1},
        {0, 0, 5, 30, 0, 25, 75, 1},
        {8, 1, 0, n, 3 * n, n, 6 * n, 0, 3},
        {8, 0, 5, 30, 0, 25, 75, 0, 2},
        {8, 0, 0, n, 3 * n, n, 6 * n, 0, 3, 1},
        {8, 1, 0, n, 3 * n, n, 6 * n, 0, 2, 0, 3},  // parts of 16, 16 and 5 sources
        {8, 0, 5, 30, 0, 25, 75, 0, 1, 1, 5},      // five parts of one tile
    };
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    for (int softened : {0, 1})
    for (const Case& c : cases) {
        CAPTURE(softened);
        CAPTURE(c.tile);
        CAPTURE(c.potential);
        CAPTURE(c.begin);
        CAPTURE(c.end);
        CAPTURE(c.vector);
        CAPTURE(c.targets);
        CAPTURE(c.fast);
        CAPTURE(c.parts);
        BuildOptions options;
        options.precision = precision;
        if (c.fast) {
            options.define("PARTCL_FAST_MATH");
            options.flags.push_back("-cl-fast-relaxed-math");
        }
        options.define("DENSE_TILE", c.tile).define("DENSE_POTENTIAL", c.potential);
        options.define("DENSE_LANES", c.vector ? 8 : 0);
        options.define("DENSE_UNROLL", c.tile ? 4 : 1);  // full tiles unrolled, the last not
        options.define("DENSE_TARGETS", c.targets).define("DENSE_SOFTENED", softened);
        const Program program =
            build_program(context, Source::builtin("nbody/dense.cl"), options, memory_cache());
        const std::size_t count = c.end - c.begin;
        Buffer<T> acc(context, c.acc_size), pot(context, c.potential ? count : 0);
        acc.fill(queue, T(-999)).wait();
        Kernel kernel(program, "dense_gravity");
        const std::size_t items = (count + c.targets - 1) / c.targets;
        if (c.parts == 1) {
            kernel.args(std::uint32_t(c.begin), std::uint32_t(c.end), std::uint32_t(n), Real{eps2}, Real{G}, bpos,
                        bm, acc, std::uint32_t(c.acc_offset), std::uint32_t(c.stride), pot,
                        std::uint32_t(c.tile ? (items + c.tile - 1) / c.tile : 1), std::uint32_t(n));
            kernel.launch(queue, items, c.tile ? std::size_t(c.tile) : 0).wait();
        } else {
            // As DenseGravity cuts them: parts of whole tiles, then their sum in part order.
            const std::size_t blocks = (items + c.tile - 1) / c.tile;
            const std::size_t tiles = (n + c.tile - 1) / c.tile;
            const std::size_t chunk = (tiles + c.parts - 1) / c.parts * c.tile;
            const std::size_t parts = (n + chunk - 1) / chunk;
            REQUIRE(parts == std::size_t(c.parts));
            // Written from the host first: Oclgrind 21.10 reports dense_sum_parts' stores as
            // uninitialized when the parts buffers were only written by dense_gravity (or
            // filled by clEnqueueFillBuffer), though every element read was written.
            Buffer<T> partial(context, std::vector<T>(3 * count * parts, T(0))),
                pot_partial(context, std::vector<T>(count * parts, T(0)));
            kernel.args(std::uint32_t(c.begin), std::uint32_t(c.end), std::uint32_t(n), Real{eps2}, Real{G}, bpos,
                        bm, partial, std::uint32_t(0), std::uint32_t(count), pot_partial, std::uint32_t(blocks),
                        std::uint32_t(chunk));
            kernel.launch(queue, blocks * c.tile * parts, c.tile);
            Kernel sum(program, "dense_sum_parts");
            sum.args(std::uint32_t(count), std::uint32_t(parts), partial, acc, std::uint32_t(c.acc_offset),
                     std::uint32_t(c.stride), pot_partial, pot);
            sum.launch(queue, count).wait();
        }
        const auto a = acc.read(queue);
        const auto p = pot.read(queue);
        std::vector<bool> written(c.acc_size, false);
        const double g = double(T(G));
        for (std::size_t i = c.begin; i < c.end; ++i) {
            double s[3] = {0, 0, 0}, sp = 0, scale = 0;
            for (std::size_t j = 0; j < n; ++j) {
                double d[3];
                for (int k = 0; k < 3; ++k) d[k] = double(pos[k * n + j]) - double(pos[k * n + i]);
                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if (r2 == 0) continue;
                const double inv_r = 1 / std::sqrt(r2 + double(T(eps2)));
                for (int k = 0; k < 3; ++k) s[k] += m[j] * inv_r * inv_r * inv_r * d[k];
                sp += m[j] * inv_r;
                scale += m[j] * inv_r * inv_r;
            }
            const double tolerance = (32.0 + 4.0 * double(n)) * eps * g;
            CAPTURE(i);
            for (int k = 0; k < 3; ++k) {
                const std::size_t at = c.acc_offset + (i - c.begin) + k * c.stride;
                REQUIRE(at < c.acc_size);
                written[at] = true;
                CHECK(std::fabs(a[at] - g * s[k]) <= tolerance * scale);
            }
            if (c.potential) CHECK(std::fabs(p[i - c.begin] + g * sp) <= tolerance * sp);
        }
        for (std::size_t at = 0; at < c.acc_size; ++at)
            if (!written[at]) CHECK(a[at] == T(-999));  // nothing outside its place
    }
}

void run_dense_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_dense_typed<double>(precision);
    else
        run_dense_typed<float>(precision);
}

// integrate/combine.cl: out = base + sum_k c_k t_k with offsets, 1 and 3 terms, in place
// (out aliasing base) and into another buffer; scaled_error, including a NaN.
template <class T>
void run_combine_typed(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    const std::size_t n = 37, size = 2 * n + 5;
    auto random_vector = [&] {
        std::vector<T> v(size);
        for (auto& e : v) e = T(value(rng));
        return v;
    };
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    for (int terms : {1, 3}) {
        for (bool in_place : {false, true}) {
            CAPTURE(terms);
            CAPTURE(in_place);
            BuildOptions options;
            options.precision = precision;
            options.define("COMBINE_TERMS", terms);
            const Program program = build_program(context, Source::builtin("integrate/combine.cl"),
                                                  options, memory_cache());
            const auto base = random_vector(), t0 = random_vector(), t1 = random_vector(),
                       t2 = random_vector();
            Buffer<T> bbase(context, base), b0(context, t0), b1(context, t1), b2(context, t2);
            Buffer<T> bout(context, size);
            bout.fill(queue, T(-999)).wait();
            const double c[3] = {0.5, -1.25, 3.0};
            const std::size_t out_at = in_place ? 5 : 2, base_at = 5, at[3] = {0, n, 3};
            Buffer<T>& out = in_place ? bbase : bout;
            Kernel kernel(program, "combine");
            kernel.args(std::uint32_t(n), out, std::uint32_t(out_at), bbase, std::uint32_t(base_at), Real{c[0]}, b0,
                        std::uint32_t(at[0]));
            if (terms == 3) {
                kernel.arg(8, Real{c[1]}).arg(9, b1).arg(10, std::uint32_t(at[1]));
                kernel.arg(11, Real{c[2]}).arg(12, b2).arg(13, std::uint32_t(at[2]));
            }
            kernel.launch(queue, n, 8).wait();
            const auto result = out.read(queue);
            const std::vector<T>* t[3] = {&t0, &t1, &t2};
            for (std::size_t i = 0; i < size; ++i) {
                CAPTURE(i);
                if (i < out_at || i >= out_at + n) {
                    CHECK(result[i] == (in_place ? base[i] : T(-999)));  // untouched
                    continue;
                }
                const std::size_t e = i - out_at;
                double want = base[base_at + e], scale = std::fabs(want);
                for (int k = 0; k < terms; ++k) {
                    const double term = double(T(c[k])) * double((*t[k])[at[k] + e]);
                    want += term;
                    scale += std::fabs(term);
                }
                CHECK(std::fabs(result[i] - want) <= 8 * eps * scale);
            }
        }
    }

    const Program program = [&] {
        BuildOptions options;
        options.precision = precision;
        return build_program(context, Source::builtin("integrate/combine.cl"), options,
                             memory_cache());
    }();
    auto err = random_vector(), y = random_vector(), y_new = random_vector();
    err[4] = T(NAN);
    Buffer<T> berr(context, err), by(context, y), bnew(context, y_new), bout(context, n);
    Kernel kernel(program, "scaled_error");
    const double atol = 1e-3, rtol = 1e-2;
    kernel.args(std::uint32_t(n), berr, by, bnew, Real{atol}, Real{rtol}, bout);
    kernel.launch(queue, n, 8).wait();
    const auto out = bout.read(queue);
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        if (i == 4) {
            CHECK(double(out[i]) == double(std::numeric_limits<T>::max()));
            continue;
        }
        const double scale = double(T(atol)) +
                             double(T(rtol)) * std::max(std::fabs(double(y[i])), std::fabs(double(y_new[i])));
        const double want = std::fabs(double(err[i])) / scale;
        CHECK(std::fabs(out[i] - want) <= 8 * eps * want);
    }
}

void run_combine_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_combine_typed<double>(precision);
    else
        run_combine_typed<float>(precision);
}

// nbody/tree_build.cl driven level by level as TreeGravity drives it, with the two sorts of
// each level done on the host (std::stable_sort: Oclgrind checks partcl's kernels, not
// Boost.Compute's), for N = 37 (a root box group of 16 looping, leaves of 1 to 3 bodies, some
// empty with leaf_size 2) and N = 1 (no split). Checked: perm a permutation, every node's mass
// the sum over its range, the root's box and centre of mass.
// Oclgrind 21.10 hands a new buffer the slot of a released one and keeps tracking
// initialisation over the old buffer's length: a kernel's writes past that length stay
// "uninitialized" and reads of them are reported (seen here: a 37-element buffer released, a
// 400-element one created, element 300 written by one kernel and read by the next). Each tree
// run alone is clean; after other runs released their buffers, the tree's were reported. So
// the tree runners first take the released slots with one-element buffers, and nothing they
// create is released before the process ends (`kept`). Nor at its end: released from a static
// destructor, after Oclgrind's runtime has begun to tear down, they corrupted its heap (seen as
// "corrupted double-linked list" at exit once one more program had been built), so the deque is
// never destroyed.
template <class T>
std::deque<T>& kept() {
    static std::deque<T>* objects = new std::deque<T>;
    return *objects;
}

void take_recycled_slots(Context& context) {
    for (int i = 0; i < 4096; ++i) kept<Buffer<std::uint32_t>>().emplace_back(context, 1);
}

template <class T>
struct DeviceTree {
    std::size_t n, levels, nodes;
    std::vector<T> pos, m;
    Buffer<T> bpos, bm, box, keys, sorted, node;
    Buffer<std::uint32_t> perm, values, node_keys, perm2;
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

template <class T>
DeviceTree<T> build_device_tree(Precision precision, std::size_t n, std::size_t leaf_size, double theta,
                                std::uint32_t seed) {
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
    BuildOptions options;
    options.precision = precision;
    options.define("TREE_GROUP", 16).define("TREE_FINISH", 16);
    const Program program = build_program(context, Source::builtin("nbody/tree_build.cl"), options, memory_cache());
    // Levels whose nodes hold more than 16 bodies by whole-tree sorts (here on the host), the
    // rest by tree_finish, as TreeGravity does with its larger work-groups.
    std::size_t first_finished = 0;
    while (((n - 1) >> first_finished) + 1 > 16) ++first_finished;
    const std::uint32_t un = std::uint32_t(n), nodes = std::uint32_t(t.nodes);
    // The root box in two passes, as TreeGravity runs it: up to 2 groups of 16 into partial
    // boxes (37 bodies: some work-items take two), then one group over those.
    const std::uint32_t partials = std::uint32_t(std::min<std::size_t>(2, (n + 15) / 16));
    Buffer<T> partial(context, 6 * 2);
    Kernel root(program, "tree_root_box");
    root.args(un, un, std::uint32_t(0), t.bpos, partials, std::uint32_t(0), partial, un, t.perm)
        .launch(queue, partials * 16, 16).wait();
    root.args(partials, partials, 3 * partials, partial, nodes, std::uint32_t(1), t.box, std::uint32_t(0), t.perm)
        .launch(queue, 16, 16).wait();
    {
        const auto box = t.box.read(queue);
        for (std::size_t a = 0; a < 3; ++a) {
            const auto first = t.pos.begin() + std::ptrdiff_t(a * n), last = first + std::ptrdiff_t(n);
            CHECK(box[a * t.nodes + 1] == *std::min_element(first, last));
            CHECK(box[(3 + a) * t.nodes + 1] == *std::max_element(first, last));
        }
    }
    for (std::size_t level = 0; level < std::min(t.levels, first_finished); ++level) {
        const std::uint32_t count = std::uint32_t(1) << level;
        Kernel(program, "tree_keys").args(un, count, nodes, t.bpos, t.box, t.perm, t.keys, t.values)
            .launch(queue, n, 8).wait();
        auto keys = t.keys.read(queue);
        auto values = t.values.read(queue);
        host_stable_sort(keys, values);
        t.values.write(queue, values).wait();
        Kernel(program, "tree_regroup").args(un, count, t.values, t.perm, t.node_keys, t.perm2)
            .launch(queue, n, 8).wait();
        auto node_keys = t.node_keys.read(queue);
        auto perm = t.perm2.read(queue);
        host_stable_sort(node_keys, perm);
        t.perm.write(queue, perm).wait();
        Kernel(program, "tree_split").args(un, count, nodes, t.bpos, t.perm, t.box).launch(queue, count, 4).wait();
    }
    if (first_finished < t.levels)
        Kernel(program, "tree_finish")
            .args(un, std::uint32_t(first_finished), std::uint32_t(t.levels), nodes, t.bpos, t.perm, t.box)
            .launch(queue, (std::size_t(1) << first_finished) * 16, 16)
            .wait();
    Kernel(program, "tree_gather").args(un, t.bpos, t.bm, t.perm, t.sorted).launch(queue, n, 8).wait();
    const std::uint32_t leaves = std::uint32_t(1) << t.levels;
    Kernel(program, "tree_leaves").args(un, leaves, nodes, t.sorted, t.node, t.box, Real{theta})
        .launch(queue, leaves, 4).wait();
    for (std::size_t level = t.levels; level-- > 0;)
        Kernel(program, "tree_nodes").args(std::uint32_t(1) << level, nodes, t.node, t.box, Real{theta})
            .launch(queue, std::size_t(1) << level, 4).wait();
    return t;
}

template <class T>
void run_tree_build_typed(Precision precision) {
    auto& queue = test_context().queue(0);
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    take_recycled_slots(test_context());
    auto& keep = kept<DeviceTree<T>>();
    for (std::size_t n : {37, 1})
        for (std::size_t leaf_size : {2, 3}) {
            const std::uint32_t seed = fresh_seed();
            INFO("seed " << seed << ", N " << n << ", leaf " << leaf_size);
            keep.push_back(build_device_tree<T>(precision, n, leaf_size, 0.6, seed));
            const DeviceTree<T>& t = keep.back();
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

void run_tree_build_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_tree_build_typed<double>(precision);
    else
        run_tree_build_typed<float>(precision);
}

// nbody/tree_force.cl over a tree built as above: both traversals, with and without the
// potential, walk groups of 1 (per body, n not a power of two: empty groups) and of 4 (the
// last work-group partly past the groups) alone and listed (a list of 4: applied every round
// that lists a node; the shared stack at its bound, 2 * 4 * (levels + 1)), into a derivative-shaped buffer (offset 3n). At
// theta = 0 every node opens, so the result is the direct sum (the dense bound); at
// theta = 0.6 every output is written and finite.
template <class T>
void run_tree_force_typed(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    const double eps2 = 0.01, G = 0.75;
    take_recycled_slots(context);
    auto& keep = kept<DeviceTree<T>>();
    auto& outputs = kept<Buffer<T>>();
    const std::pair<std::size_t, std::size_t> walks[] = {{1, 0}, {4, 0}, {4, 4}};
    for (std::size_t n : {37, 1})
        for (double theta : {0.0, 0.6}) {
            const std::uint32_t seed = fresh_seed();
            keep.push_back(build_device_tree<T>(precision, n, 3, theta, seed));
            const DeviceTree<T>& t = keep.back();
            for (int stackless : {0, 1})
                for (int potential : {0, 1})
                    for (const auto& walk : walks) {
                        const std::size_t group_size = walk.first, list_size = walk.second;
                        INFO("seed " << seed << ", N " << n << ", theta " << theta << ", stackless "
                                     << stackless << ", potential " << potential << ", group " << group_size
                                     << ", list " << list_size);
                        std::size_t group_levels = 0;
                        while ((std::size_t(1) << group_levels) * group_size < n) ++group_levels;
                        const std::size_t groups = std::size_t(1) << group_levels;
                        BuildOptions options;
                        options.precision = precision;
                        options.define("TREE_STACKLESS", stackless).define("TREE_POTENTIAL", potential);
                        options.define("TREE_STACK", 34).define("TREE_WALK_GROUP", static_cast<long long>(group_size));
                        options.define("TREE_LIST", static_cast<long long>(list_size));
                        options.define("TREE_LIST_STACK", static_cast<long long>(2 * group_size * (t.levels + 1)));
                        const Program program = build_program(context, Source::builtin("nbody/tree_force.cl"),
                                                              options, memory_cache());
                        outputs.emplace_back(context, 6 * n);
                        outputs.emplace_back(context, potential ? n : 0);
                        Buffer<T>& acc = outputs[outputs.size() - 2];
                        Buffer<T>& pot = outputs.back();
                        acc.write(queue, std::vector<T>(6 * n, T(-999))).wait();  // not fill: in the experiment above, a fill before the kernels brought the reports back
                        Kernel(program, "tree_gravity")
                            .args(std::uint32_t(n), std::uint32_t(t.nodes / 2), std::uint32_t(groups), Real{eps2}, Real{G}, t.node,
                                  t.sorted, t.perm, acc, std::uint32_t(3 * n), std::uint32_t(n), pot)
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
                                for (int k = 0; k < 3; ++k) d[k] = double(t.pos[k * n + j]) - double(t.pos[k * n + i]);
                                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                                if (r2 == 0) continue;
                                const double inv_r = 1 / std::sqrt(r2 + double(T(eps2)));
                                for (int k = 0; k < 3; ++k) s[k] += t.m[j] * inv_r * inv_r * inv_r * d[k];
                                sp += t.m[j] * inv_r;
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

void run_tree_force_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_tree_force_typed<double>(precision);
    else
        run_tree_force_typed<float>(precision);
}

// algorithm/cell_list.cl, each kernel on its own (the sort between them done on the host):
// keys against the host's cell of each particle, computed in the kernel's precision, including
// a particle outside the grid and a NaN one (the status bits); bounds against the host's ranges;
// both gathers. 2-D and 3-D.
template <class T>
void run_cell_list_typed(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int dims : {2, 3}) {
        CAPTURE(dims);
        const std::size_t n = 37, stride = 40;
        const T origin[3] = {T(-0.5), T(0.25), T(1)};
        const T inverse = T(1 / 0.3);
        const std::uint32_t cells[3] = {4, 3, std::uint32_t(dims == 3 ? 5 : 1)};
        const std::uint32_t count = cells[0] * cells[1] * cells[2];
        std::vector<T> p(3 * stride, T(0));
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                p[k * stride + i] = T(double(origin[k]) + 0.3 * cells[k] * u(rng));
        for (int k = 0; k < 3; ++k) p[k * stride + 5] = p[k * stride + 4];  // coincident
        for (const int bad : {0, 1, 2}) {  // none, one outside, one NaN
            CAPTURE(bad);
            std::vector<T> q = p;
            if (bad == 1) q[stride + 7] = T(-3);
            if (bad == 2) q[9] = std::numeric_limits<T>::quiet_NaN();
            BuildOptions options;
            options.precision = precision;
            options.define("CELL_LIST_DIMENSIONS", dims);
            const Program program = build_program(context, Source::builtin("algorithm/cell_list.cl"),
                                                  options, memory_cache());
            Buffer<T> positions(context, q);
            Buffer<std::uint32_t> keys(context, n), order(context, n), status(context, 1);
            status.fill(queue, 0u).wait();
            Kernel k(program, "cell_list_keys");
            k.args(std::uint32_t(n), std::uint32_t(stride), positions, Real{double(origin[0])},
                   Real{double(origin[1])}, Real{double(origin[2])}, Real{double(inverse)},
                   cells[0], cells[1], cells[2], keys, order, status);
            k.launch(queue, n, 8).wait();
            auto got = keys.read(queue);
            const auto got_order = order.read(queue);
            const auto got_status = status.read(queue);
            CHECK(got_status[0] == std::uint32_t(bad == 0 ? 0 : bad == 1 ? 1 : 2));
            for (std::size_t i = 0; i < n; ++i) {
                CAPTURE(i);
                std::uint32_t want = 0, scale = 1;
                bool outside = false;
                for (int a = 0; a < dims; ++a) {
                    const T t = (q[a * stride + i] - origin[a]) * inverse;
                    if (!(t >= 0 && t < T(cells[a]))) outside = true;
                    else want += std::uint32_t(t) * scale;
                    scale *= cells[a];
                }
                CHECK(got[i] == (outside ? count : want));
                CHECK(got_order[i] == i);
            }
            if (bad) continue;
            // Bounds of the host-sorted keys; gathers by a random permutation.
            std::sort(got.begin(), got.end());
            Buffer<std::uint32_t> sorted(context, got), start(context, count), end(context, count);
            Kernel b(program, "cell_list_bounds");
            b.args(std::uint32_t(n), count, sorted, start, end);
            b.launch(queue, count, 8).wait();
            const auto s = start.read(queue), e = end.read(queue);
            for (std::uint32_t c = 0; c < count; ++c) {
                CAPTURE(c);
                const auto lo = std::lower_bound(got.begin(), got.end(), c) - got.begin();
                const auto hi = std::upper_bound(got.begin(), got.end(), c) - got.begin();
                CHECK((s[c] == std::uint32_t(lo) && e[c] == std::uint32_t(hi)));  // empty cells too
            }
            std::vector<std::uint32_t> perm(n);
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(), rng);
            Buffer<std::uint32_t> bperm(context, perm), gathered_ids(context, n);
            Buffer<T> gathered(context, 3 * stride);
            gathered.fill(queue, T(-9)).wait();
            Kernel g(program, "cell_list_gather_real");
            g.args(std::uint32_t(n), std::uint32_t(stride), std::uint32_t(3), bperm, positions, gathered);
            g.launch(queue, n, 8).wait();
            Kernel gu(program, "cell_list_gather_uint");
            gu.args(std::uint32_t(n), bperm, bperm, gathered_ids);
            gu.launch(queue, n, 8).wait();
            const auto gr = gathered.read(queue);
            const auto gi = gathered_ids.read(queue);
            for (std::size_t i = 0; i < n; ++i) {
                for (int a = 0; a < 3; ++a) CHECK(gr[a * stride + i] == q[a * stride + perm[i]]);
                CHECK(gi[i] == perm[perm[i]]);
            }
            for (std::size_t i = n; i < stride; ++i) CHECK(gr[i] == T(-9));
        }
    }
}

void run_cell_list_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_cell_list_typed<double>(precision);
    else
        run_cell_list_typed<float>(precision);
}

// mps/mps.cl: tests/mps_check.cpp at 5 x 5 (2-D) and 3 x 3 x 3 (3-D) particles.
void run_mps_kernel(Precision precision) {
    check_mps_kernels(precision, 2, 5);
    check_mps_kernels(precision, 3, 3);
}

// pic/pic.cl: tests/pic_check.cpp on 5 nodes (1-D), 3 x 4 (2-D) and 3 x 4 x 5 (3-D).
void run_pic_kernel(Precision precision) {
    check_pic_kernels(precision, 1, 5, 13);
    check_pic_kernels(precision, 2, 3, 17);
    check_pic_kernels(precision, 3, 3, 11);
}

const std::map<std::string, std::function<void(Precision)>>& tree_kernels() {
    static const std::map<std::string, std::function<void(Precision)>> table{
        {"algorithm/cell_list.cl", run_cell_list_kernel},
        {"common/real_check.cl", run_real_check_kernel},
        {"integrate/combine.cl", run_combine_kernel},
        {"mps/mps.cl", run_mps_kernel},
        {"nbody/dense.cl", run_dense_kernel},
        {"nbody/tree_build.cl", run_tree_build_kernel},
        {"nbody/tree_force.cl", run_tree_force_kernel},
        {"pic/pic.cl", run_pic_kernel},
    };
    return table;
}

void run_all(Precision precision) {
    Context& context = test_context();
    INFO("device " << context.device(0).info().name);
    REQUIRE((precision == Precision::float32 || context.device(0).info().fp64));
    for (const auto& [path, run] : tree_kernels()) {
        CAPTURE(path);
        run(precision);
    }
}

void check_coverage() {
    std::vector<std::string> missing;
    for (const auto& path : builtin_kernels())
        if (!tree_kernels().count(path)) missing.push_back(path);
    INFO("kernels of cl/ without a run in tests/test_oclgrind.cpp: " << doctest::toString(missing));
    CHECK(missing.empty());
}

} // namespace

TEST_SUITE("oclgrind" * doctest::skip()) {

TEST_CASE("the device is Oclgrind's simulator") {
    // This suite is meant to run through tests/oclgrind.sh; on another device it would check
    // nothing Oclgrind checks.
    CHECK(contains(test_context().device(0).info().name, "Oclgrind"));
}

TEST_CASE("tree kernels in float") { run_all(Precision::float32); }

TEST_CASE("tree kernels in double") { run_all(Precision::float64); }

TEST_CASE("every kernel of the tree is covered") { check_coverage(); }

} // TEST_SUITE oclgrind

TEST_SUITE("tree_kernels") {

TEST_CASE("tree kernels in float on the default device") { run_all(Precision::float32); }

TEST_CASE("tree kernels in double on the default device") {
    if (!test_context().device(0).info().fp64) return;
    run_all(Precision::float64);
}

TEST_CASE("every kernel of the tree is covered") { check_coverage(); }

} // TEST_SUITE tree_kernels

// A kernel with an off-by-one read: fine-looking results on a real device, an invalid read for
// Oclgrind. CTest runs it through tests/oclgrind.sh expecting failure, which proves that the
// check can fail.
TEST_SUITE("oclgrind_broken" * doctest::skip()) {

TEST_CASE("an out-of-bounds read") {
    Context& context = test_context();
    const Source source = Source::from_string(
        "off_by_one.cl", "#include \"common/real.h\"\n"
                         "KERNEL void shift(const uint n, GLOBAL const real* x, GLOBAL real* y)\n"
                         "{\n"
                         "    const uint i = global_id(0);\n"
                         "    if (i < n) y[i] = x[i + 1];  /* reads x[n] */\n"
                         "}\n");
    const Program program = build_program(context, source, {}, memory_cache());
    const std::size_t n = 64;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = float(i);
    Buffer<float> bx(context, x), by(context, n);
    Kernel kernel(program, "shift");
    kernel.args(std::uint32_t(n), bx, by);
    kernel.launch(context.queue(0), n).wait();
    const auto y = by.read(context.queue(0));
    for (std::size_t i = 0; i + 1 < n; ++i) CHECK(y[i] == float(i + 1));
}

} // TEST_SUITE oclgrind_broken
