// The kernels every model shares, of tests/test_oclgrind.cpp's table: integrate/combine.cl,
// algorithm/cell_list.cl and sched/ordered_sum.cl, each against a host computation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>

#include <random>

#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/sched/ordered_sum.hpp>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace partcl_test {

namespace {

// integrate/combine.cl: out = base + sum_k c_k t_k with offsets, 1 and 3 terms, in place
// (out aliasing base) and into another buffer; scaled_error from an offset, including a NaN.
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
    // The elements from `at` on (one device's range), into out[0, n - at).
    const std::size_t at = 3;
    kernel.args(std::uint32_t(n - at), std::uint32_t(at), berr, by, bnew, Real{atol}, Real{rtol}, bout);
    kernel.launch(queue, n - at, 8).wait();
    const auto out = bout.read(queue);
    for (std::size_t i = 0; i + at < n; ++i) {
        CAPTURE(i);
        const std::size_t k = at + i;
        if (k == 4) {
            CHECK(double(out[i]) == double(std::numeric_limits<T>::max()));
            continue;
        }
        const double scale = double(T(atol)) +
                             double(T(rtol)) * std::max(std::fabs(double(y[k])), std::fabs(double(y_new[k])));
        const double want = std::fabs(double(err[k])) / scale;
        CHECK(std::fabs(out[i] - want) <= 8 * eps * want);
    }
}

} // namespace

void run_combine_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_combine_typed<double>(precision);
    else
        run_combine_typed<float>(precision);
}

namespace {

// algorithm/cell_list.cl, each kernel on its own (the sort between them done on the host):
// keys against the host's cell of each particle, computed in the kernel's precision, including
// a particle outside the grid and a NaN one (the status bits); bounds against the host's ranges;
// the order check on sorted and unsorted keys; both gathers, between layouts. 2-D and 3-D.
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
            // Blocks of 4 cells: the cells of a block are searched between its first slot and
            // the next block's.
            const std::uint32_t shift = 2;
            Kernel blocks_kernel(program, "cell_list_block_bounds"), b(program, "cell_list_bounds");
            Buffer<std::uint32_t> blocks_start(context, count / 4 + 2);
            const auto bounds = [&](std::uint32_t first, std::uint32_t last, Buffer<std::uint32_t>& to_start,
                                    Buffer<std::uint32_t>& to_end) {
                const std::uint32_t blocks = ((last - first) >> shift) + 1;
                blocks_kernel.args(std::uint32_t(n), first, shift, blocks, sorted, blocks_start);
                blocks_kernel.launch(queue, blocks + 1, 8).wait();
                b.args(first, last, shift, blocks_start, sorted, to_start, to_end);
                b.launch(queue, last - first + 1, 8).wait();
            };
            bounds(0, count, start, end);
            const auto s = start.read(queue), e = end.read(queue);
            for (std::uint32_t c = 0; c < count; ++c) {
                CAPTURE(c);
                const auto lo = std::lower_bound(got.begin(), got.end(), c) - got.begin();
                const auto hi = std::upper_bound(got.begin(), got.end(), c) - got.begin();
                CHECK((s[c] == std::uint32_t(lo) && e[c] == std::uint32_t(hi)));  // empty cells too
            }
            // A range of cells alone (a device's): the cells outside it keep what they held.
            const std::uint32_t first = count / 3, last = 2 * count / 3, untouched = 0xdeadbeefu;
            Buffer<std::uint32_t> part_start(context, std::vector<std::uint32_t>(count, untouched)),
                part_end(context, std::vector<std::uint32_t>(count, untouched));
            bounds(first, last, part_start, part_end);
            const auto ps = part_start.read(queue), pe = part_end.read(queue);
            for (std::uint32_t c = 0; c < count; ++c) {
                CAPTURE(c);
                const bool inside = c >= first && c < last;
                CHECK(ps[c] == (inside ? s[c] : untouched));
                CHECK(pe[c] == (inside ? e[c] : untouched));
            }
            // The sorted keys pass the order check; the unsorted ones raise its bit.
            const std::vector<std::uint32_t> raw = keys.read(queue);
            for (const bool in_order : {true, false}) {
                Buffer<std::uint32_t> checked(context, in_order ? got : raw),
                    flag(context, std::vector<std::uint32_t>{0u});
                Kernel sorted_check(program, "cell_list_sorted");
                sorted_check.args(std::uint32_t(n), checked, flag);
                sorted_check.launch(queue, n - 1, 8).wait();
                const bool unsorted = !in_order && !std::is_sorted(raw.begin(), raw.end());
                CHECK(flag.read(queue)[0] == (unsorted ? 4u : 0u));
            }
            std::vector<std::uint32_t> perm(n);
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(), rng);
            // Into another layout: offset 3, components `to_stride` apart; ids from offset 2.
            const std::size_t to = 3, to_stride = n + 5;
            Buffer<std::uint32_t> bperm(context, perm),
                gathered_ids(context, std::vector<std::uint32_t>(n + 1, 0u));
            Buffer<T> gathered(context, std::vector<T>(to + 3 * to_stride, T(-9)));
            Kernel g(program, "cell_list_gather_real");
            g.args(std::uint32_t(n), std::uint32_t(0), std::uint32_t(stride), std::uint32_t(to),
                   std::uint32_t(to_stride), std::uint32_t(3), bperm, positions, gathered);
            g.launch(queue, n, 8).wait();
            std::vector<std::uint32_t> ids(n + 2);
            std::iota(ids.begin(), ids.end(), 100u);
            Buffer<std::uint32_t> bids(context, ids);
            Kernel gu(program, "cell_list_gather_uint");
            gu.args(std::uint32_t(n), std::uint32_t(2), std::uint32_t(1), bperm, bids, gathered_ids);
            gu.launch(queue, n, 8).wait();
            const auto gr = gathered.read(queue);
            const auto gi = gathered_ids.read(queue);
            for (std::size_t i = 0; i < n; ++i) {
                for (int a = 0; a < 3; ++a)
                    CHECK(gr[to + a * to_stride + i] == q[a * stride + perm[i]]);
                CHECK(gi[1 + i] == ids[2 + perm[i]]);
            }
            CHECK(gi[0] == 0u);
            for (std::size_t i = 0; i < to; ++i) CHECK(gr[i] == T(-9));
            for (std::size_t i = n; i < to_stride; ++i) CHECK(gr[to + i] == T(-9));
        }
    }
}

} // namespace

void run_cell_list_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_cell_list_typed<double>(precision);
    else
        run_cell_list_typed<float>(precision);
}

namespace {

// The parts of `devices` devices filled with random values (part d with d's values), summed by
// OrderedSum over `partition`, and checks the destination against the same sums on
// the host, in device order, in the precision's own arithmetic.
template <class T>
void check_ordered_sum_typed(Context& context, Precision precision, const Partition& partition,
                             std::size_t size, std::uint32_t seed) {
    CAPTURE(size);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    OrderedSum sum(context, precision, memory_cache());
    sum.resize(size);
    CHECK(sum.size() == size);
    std::vector<std::vector<double>> parts(context.size(), std::vector<double>(size));
    for (std::size_t d = 0; d < context.size(); ++d) {
        // Values as the precision holds them, of mixed magnitude: an addition in another order
        // would round differently.
        for (double& v : parts[d]) v = double(T(value(random) * std::pow(10.0, 3 * value(random))));
        sum.part(d).write(context.queue(d), parts[d]);
    }
    const std::size_t offset = 5;
    RealBuffer out(context, precision, offset + size + 3);
    out.fill(context.queue(0), -7.0);
    sum.sum_into(out, partition, offset);
    const auto got = out.read(context.queue(0));
    std::vector<T> expected(size, T(0));
    bool first = true;
    for (std::size_t d = 0; d < context.size(); ++d) {
        if (partition[d].empty()) continue;
        for (std::size_t i = 0; i < size; ++i)
            expected[i] = first ? T(parts[d][i]) : T(expected[i] + T(parts[d][i]));
        first = false;
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < size; ++i) wrong += got[offset + i] != double(expected[i]);
    CHECK(wrong == 0);
    for (std::size_t i = 0; i < offset; ++i) CHECK(got[i] == -7.0);
    for (std::size_t i = offset + size; i < got.size(); ++i) CHECK(got[i] == -7.0);
}

} // namespace

void check_ordered_sum(Context& context, Precision precision, const Partition& partition,
                       std::size_t size, std::uint32_t seed) {
    if (precision == Precision::float64)
        check_ordered_sum_typed<double>(context, precision, partition, size, seed);
    else
        check_ordered_sum_typed<float>(context, precision, partition, size, seed);
}

// sched/ordered_sum.cl: three queues' parts added in order, the middle one left out once.
void run_ordered_sum_kernel(Precision precision) {
    Context context = split_context(3);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    for (const Partition& p : {Partition(std::vector<std::size_t>{0, 4, 9, 10}),
                               Partition(std::vector<std::size_t>{0, 4, 4, 10})})
        for (std::size_t size : {std::size_t(1), std::size_t(67)})
            check_ordered_sum(context, precision, p, size, seed);
}


// algorithm/radix_sort.cl through SortByKey's radix method: 2500 keys (several tiles, the last
// partial) said to be of 11 bits (three passes, the result copied back from the spare buffers)
// and of the precision's reals (with -0 beside +0 and infinities), against std::stable_sort.
void run_radix_sort_kernel(Precision precision) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 random(seed);
    const std::size_t n = 2500;
    std::vector<std::uint32_t> index(n);
    std::iota(index.begin(), index.end(), 0u);
    SortByKey sort(context, memory_cache(), std::nullopt, SortMethod::radix);

    std::uniform_int_distribution<std::uint32_t> cell(0, 511);
    std::vector<std::uint32_t> cells(n);
    for (auto& c : cells) c = cell(random) / 16 * 16;  // repeats: stability
    Buffer<std::uint32_t> dcells(context, cells), dvalues(context, index);
    sort(queue, dcells, dvalues, n, 11);
    CHECK(dvalues.read(queue) == stable_order(cells, n));

    std::normal_distribution<double> normal(0.0, 3.0);
    std::vector<double> reals(n);
    for (std::size_t i = 0; i < n; ++i)
        reals[i] = i % 4 == 0 ? std::round(normal(random)) : normal(random);
    reals[5] = -0.0, reals[6] = 0.0, reals[7] = std::numeric_limits<double>::infinity();
    reals[8] = -reals[7];
    if (precision == Precision::float32)
        for (double& r : reals) r = double(float(r));
    RealBuffer dreals(context, precision, n);
    dreals.write(queue, reals);
    Buffer<std::uint32_t> dreal_values(context, index);
    sort(queue, dreals, dreal_values, n);
    CHECK(dreal_values.read(queue) == stable_order(reals, n));
}

} // namespace partcl_test
