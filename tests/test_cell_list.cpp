// CellList (include/partcl/algorithm/cell_list.hpp): neighbour lists found through the cell
// list by a user's kernel (including cl/algorithm/cell_list.h) are the brute-force ones, on
// fresh random inputs in 2-D and 3-D, float and double, reach 1 and 2 (cells of the radius or
// half of it, the latter also asked for the pairs within one cell), for N = 0, 1, odd, crowded
// cells and empty cells; the sorted structure is consistent; gather reorders, between layouts
// too; index() finds the cells of particles already sorted; resort() gives particles moved
// since the last sort what a fresh build gives them, bit for bit; bad input is refused. And
// SlabSelection, which picks particles by their slab as the cell list finds it
// (slab_selection_check.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <utility>

#include <partcl/runtime/profile.hpp>

#include "slab_selection_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

constexpr std::size_t max_neighbours = 160;

// A user's kernel: every particle's neighbours closer than `radius`, by particle index.
const char* neighbour_kernel = R"(
#include "algorithm/cell_list.h"
KERNEL void neighbours(const uint n, const uint stride, GLOBAL const real* p, const real radius2,
                       CELL_LIST_GRID_PARAMS, GLOBAL const uint* order,
                       GLOBAL const uint* cell_start, GLOBAL const uint* cell_end,
                       GLOBAL uint* count, GLOBAL uint* list)
{
    const uint s = global_id(0);
    if (s >= n) return;
    const uint i = order[s];
    const real x = p[i], y = p[stride + i];
#if CELL_LIST_DIMENSIONS == 3
    const real z = p[2 * stride + i];
#else
    const real z = REAL_C(0.0);
#endif
    int home[3];
    cell_list_coordinates(cell_list_cell(x, y, z, CELL_LIST_GRID), CELL_LIST_GRID, home);
    uint found = 0;
#if QUERY_REACH == CELL_LIST_REACH
    for (int k = 0; k < CELL_LIST_ROWS; ++k) {
        uint first, last;
        if (!cell_list_row(home, k, CELL_LIST_GRID, &first, &last)) continue;
#else
    for (int k = 0; k < CELL_LIST_ROWS_WITHIN(QUERY_REACH); ++k) {
        uint first, last;
        if (!cell_list_row_within(home, k, QUERY_REACH, CELL_LIST_GRID, &first, &last)) continue;
#endif
        const uint end = cell_end[last];
        for (uint t = cell_start[first]; t < end; ++t) {
            const uint j = order[t];
            if (j == i) continue;
            const real dx = p[j] - x, dy = p[stride + j] - y;
#if CELL_LIST_DIMENSIONS == 3
            const real dz = p[2 * stride + j] - z;
#else
            const real dz = REAL_C(0.0);
#endif
            if (dx * dx + dy * dy + dz * dz < radius2) {
                if (found < MAX_NEIGHBOURS) list[i * MAX_NEIGHBOURS + found] = j;
                ++found;
            }
        }
    }
    count[i] = found;
}
)";

template <class T>
T rounded(double x) { return T(x); }

struct Layout {
    const char* name;
    std::size_t n;
    double fill;  // fraction of the box (per axis) the particles occupy: < 1 leaves empty cells
    double per_cell;
};

template <class T>
// The grid of `reach` for a radius; the kernel asks for the pairs within query_reach of its
// cells, closer than radius * query_reach / reach.
void check_neighbours(Precision precision, int dims, int reach, int query_reach) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    std::mt19937 rng(seed);
    const Layout layouts[] = {
        {"empty", 0, 1, 1},        {"one", 1, 1, 1},          {"two", 2, 1, 1},
        {"odd", 37, 1, 2},         {"crowded", 1001, 1, 12},  {"clustered", 777, 0.3, 0.5},
    };
    BuildOptions options;
    options.precision = precision;
    options.define("CELL_LIST_DIMENSIONS", dims).define("MAX_NEIGHBOURS", (long long)max_neighbours);
    options.define("CELL_LIST_REACH", reach).define("QUERY_REACH", query_reach);
    const Program program = build_program(
        context, Source::from_string("neighbours.cl", neighbour_kernel), options, memory_cache());
    for (const Layout& layout : layouts) {
        CAPTURE(seed);
        CAPTURE(dims);
        CAPTURE(reach);
        CAPTURE(query_reach);
        CAPTURE(std::string(to_string(precision)));
        CAPTURE(layout.name);
        const std::size_t n = layout.n, stride = n + 3;  // a stride that is not n
        const double side = 2.5;
        // Radius from the density wanted: about per_cell particles per cell of edge `radius`.
        const double cells_wanted = std::max(1.0, double(n) / layout.per_cell);
        const double radius = side / std::pow(cells_wanted, 1.0 / dims);
        const std::array<double, 3> lower{-1.0, 0.5, -0.25};
        std::array<double, 3> upper{};
        for (int k = 0; k < 3; ++k) upper[k] = lower[k] + side;
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<double> p(dims * stride, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < dims; ++k)
                p[k * stride + i] = double(T(lower[k] + side * layout.fill * u(rng)));
        if (n > 2)  // a particle on the box's upper corner, which belongs to it
            for (int k = 0; k < dims; ++k) p[k * stride + 1] = double(T(upper[k]));
        if (n > 5)  // coincident particles
            for (int k = 0; k < dims; ++k) p[k * stride + 4] = p[k * stride + 3];

        CellList cells(context, precision,
                       CellGrid::covering(dims, lower, upper, radius, reach), memory_cache());
        RealBuffer positions(context, precision, dims * stride);
        positions.write(queue, p);
        cells.build(queue, positions, stride, n);
        REQUIRE(cells.size() == n);

        // The structure: order a permutation, keys ascending, each cell's range its keys.
        const auto order = cells.order().read(queue), keys = cells.keys().read(queue);
        const auto start = cells.cell_start().read(queue), end = cells.cell_end().read(queue);
        std::vector<std::uint32_t> sorted(order.begin(), order.begin() + n);
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t s = 0; s < n; ++s) REQUIRE(sorted[s] == s);
        for (std::size_t s = 1; s < n; ++s) REQUIRE(keys[s - 1] <= keys[s]);
        std::size_t covered = 0, empty = 0;
        for (std::size_t c = 0; c < cells.grid().count(); ++c) {
            REQUIRE(start[c] <= end[c]);
            // Consecutive cells' ranges meet, empty ones included: a row is one range.
            if (c > 0) REQUIRE(start[c] == end[c - 1]);
            covered += end[c] - start[c];
            empty += start[c] == end[c];
            for (std::uint32_t s = start[c]; s < end[c]; ++s) REQUIRE(keys[s] == c);
        }
        CHECK(covered == n);
        if (std::string(layout.name) == "clustered") CHECK(empty > 0);

        // Through the user's kernel.
        const double query = radius * query_reach / reach;
        const double radius2 = query * query;
        Buffer<std::uint32_t> count(context, std::max<std::size_t>(n, 1)),
            list(context, std::max<std::size_t>(n, 1) * max_neighbours);
        Kernel kernel(program, "neighbours");
        kernel.args(std::uint32_t(n), std::uint32_t(stride), positions, Real{radius2});
        cells.grid_args(kernel, 4);
        kernel.arg(11, cells.order()).arg(12, cells.cell_start()).arg(13, cells.cell_end());
        kernel.arg(14, count).arg(15, list);
        kernel.launch(queue, n, 16).wait();
        const auto got_count = count.read(queue), got_list = list.read(queue);

        // Brute force in double on the coordinates as the device holds them. Pairs within a
        // relative 1e-5 of the radius (in float, the device's squared distance carries a few
        // ulp of 2^-24 ~ 6e-8 each) may go either way; every other pair must match exactly.
        const double slack = precision == Precision::float64 ? 1e-12 : 1e-5;
        std::size_t wrong = 0, pairs = 0, max_found = 0;
        for (std::size_t i = 0; i < n; ++i) {
            max_found = std::max<std::size_t>(max_found, got_count[i]);
            REQUIRE(got_count[i] <= max_neighbours);
            std::vector<std::uint32_t> got(got_list.begin() + i * max_neighbours,
                                           got_list.begin() + i * max_neighbours + got_count[i]);
            std::sort(got.begin(), got.end());
            wrong += std::adjacent_find(got.begin(), got.end()) != got.end();  // none twice
            for (std::size_t j = 0; j < n; ++j) {
                if (j == i) continue;
                double d2 = 0;
                for (int k = 0; k < dims; ++k) {
                    const double d = p[k * stride + j] - p[k * stride + i];
                    d2 += d * d;
                }
                const bool listed = std::binary_search(got.begin(), got.end(), std::uint32_t(j));
                if (d2 < radius2 * (1 - slack)) {
                    wrong += !listed;
                    ++pairs;
                } else if (d2 > radius2 * (1 + slack)) {
                    wrong += listed;
                }
            }
        }
        CAPTURE(pairs);
        CAPTURE(max_found);
        CHECK(wrong == 0);
    }
}

template <class T>
void check_gather(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const std::size_t n = 53, stride = 60;
    std::vector<double> p(2 * stride, 0.0), data(3 * stride, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 2; ++k) p[k * stride + i] = double(T(u(rng)));
        for (int k = 0; k < 3; ++k) data[k * stride + i] = double(T(u(rng)));
    }
    std::vector<std::uint32_t> ids(n);
    for (auto& id : ids) id = rng();
    CellList cells(context, precision, CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.15),
                   memory_cache());
    RealBuffer positions(context, precision, 2 * stride), in(context, precision, 3 * stride),
        out(context, precision, 3 * stride);
    positions.write(queue, p);
    in.write(queue, data);
    out.fill(queue, -7).wait();
    cells.build(queue, positions, stride, n);
    cells.gather(queue, in, out, 3, stride);
    Buffer<std::uint32_t> id_in(context, ids), id_out(context, n);
    cells.gather(queue, id_in, id_out);
    const auto order = cells.order().read(queue);
    const auto got = out.read(queue);
    const auto got_ids = id_out.read(queue);
    for (std::size_t s = 0; s < n; ++s) {
        CAPTURE(s);
        for (int k = 0; k < 3; ++k) CHECK(got[k * stride + s] == data[k * stride + order[s]]);
        CHECK(got_ids[s] == ids[order[s]]);
    }
    for (std::size_t s = n; s < stride; ++s) CHECK(got[s] == -7);  // nothing past n

    // Between layouts of their own: out at offset 5, stride n + 9, from in as before; ids at 3.
    const std::size_t to = 5, to_stride = n + 9;
    RealBuffer moved(context, precision, to + 3 * to_stride);
    moved.fill(queue, -7).wait();
    cells.gather(queue, in, {0, stride}, moved, {to, to_stride}, 3);
    Buffer<std::uint32_t> ids_moved(context, std::vector<std::uint32_t>(n + 3, 7u));
    cells.gather(queue, id_in, 0, ids_moved, 3);
    const auto got_moved = moved.read(queue);
    const auto got_ids_moved = ids_moved.read(queue);
    std::size_t wrong = 0;
    for (std::size_t s = 0; s < n; ++s) {
        for (int k = 0; k < 3; ++k)
            wrong += got_moved[to + k * to_stride + s] != data[k * stride + order[s]];
        wrong += got_ids_moved[3 + s] != ids[order[s]];
    }
    CHECK(wrong == 0);
    CHECK(got_moved[to - 1] == -7);
    CHECK(got_moved[to + n] == -7);  // between the components
    CHECK(got_ids_moved[2] == 7u);
    CHECK_THROWS_AS(cells.gather(queue, in, {0, stride}, moved, {to + 10, to_stride}, 3), UsageError);
    CHECK_THROWS_AS(cells.gather(queue, id_in, 0, ids_moved, 4), UsageError);
}

// index(): particles already in cell order get the cells and ranges build() would give them;
// out of order, a usage error.
template <class T>
void check_index(Precision precision) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const std::size_t n = 301;
    std::vector<double> p(2 * n);
    for (double& x : p) x = double(T(u(rng)));
    const CellGrid grid = CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.15);
    CellList built(context, precision, grid, memory_cache()),
        indexed(context, precision, grid, memory_cache(), OnDevice{0});
    RealBuffer positions(context, precision, 2 * n), sorted(context, precision, 2 * n);
    positions.write(queue, p);
    built.build(queue, positions, n, n);
    built.gather(queue, positions, sorted, 2, n);
    indexed.index(queue, sorted, n, n);
    CHECK(indexed.keys().read(queue) == built.keys().read(queue));
    CHECK(indexed.cell_start().read(queue) == built.cell_start().read(queue));
    CHECK(indexed.cell_end().read(queue) == built.cell_end().read(queue));
    std::vector<std::uint32_t> identity(n);
    for (std::size_t i = 0; i < n; ++i) identity[i] = std::uint32_t(i);
    CHECK(indexed.order().read(queue) == identity);
    // Unsorted: the first two particles of the sorted ones swapped, where their cells differ.
    std::vector<double> s = sorted.read(queue);
    const auto keys = built.keys().read(queue);
    std::size_t at = 0;
    while (at + 1 < n && keys[at] == keys[at + 1]) ++at;
    REQUIRE(at + 1 < n);
    for (int k = 0; k < 2; ++k) std::swap(s[k * n + at], s[k * n + at + 1]);
    sorted.write(queue, s);
    indexed.index(queue, sorted, n, n);
    CHECK_THROWS_WITH_AS(indexed.check(queue), doctest::Contains("not"), UsageError);
    CHECK_NOTHROW(indexed.index(queue, sorted, n, 0));
    CHECK_NOTHROW(indexed.check(queue));
    CHECK(indexed.size() == 0);
}

// resort(): particles gathered into the last sort's order, then moved, get the keys, order and
// ranges that a fresh build gives them, bit for bit: with no mover, a few (sorted and merged in),
// most (sorted whole), step after step, across tiles (1024 slots; past 256 of them the tiles'
// counts are scanned in runs) and for a changed count; and a particle outside the grid is
// refused as build() refuses it.
template <class T>
void check_resort(Precision precision, int dims) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(dims);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const CellGrid grid =
        CellGrid::covering(dims, {0, 0, 0}, {1, 1, dims == 3 ? 1.0 : 0.0}, 0.07);
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1023), std::size_t(1025),
                          std::size_t(5000), std::size_t(300001)}) {
        CAPTURE(n);
        CellList cells(context, precision, grid, memory_cache()),
            fresh(context, precision, grid, memory_cache());
        std::vector<double> p(dims * n);
        for (double& x : p) x = double(T(u(rng)));
        RealBuffer positions(context, precision, dims * n), sorted(context, precision, dims * n);
        positions.write(queue, p);
        cells.build(queue, positions, n, n);
        for (double moving : {0.0, 0.02, 0.1, 0.02, 0.7}) {
            CAPTURE(moving);
            cells.gather(queue, positions, sorted, dims, n);
            std::vector<double> q = sorted.read(queue);
            for (std::size_t i = 0; i < n; ++i)
                if (u(rng) < moving)
                    for (int k = 0; k < dims; ++k) {
                        double& x = q[k * n + i];
                        x = double(T(std::clamp(x + (u(rng) - 0.5) * 2 * grid.cell_size, 0.0, 1.0)));
                    }
            positions.write(queue, q);
            std::size_t merges = 0;
            {
                Profile profile;
                cells.resort(queue, positions, n, n);
                for (const auto& entry : profile.entries())
                    if (entry.name == "cell_list_merge") merges += entry.count;
            }
            // Merged where at most a quarter changed cell (the few moved here), sorted whole
            // where most did.
            if (moving == 0 || (moving <= 0.02 && n > 100)) CHECK(merges == 1);
            if (moving > 0.5 && n > 100) CHECK(merges == 0);
            fresh.build(queue, positions, n, n);
            CHECK(cells.keys().read(queue) == fresh.keys().read(queue));
            CHECK(cells.order().read(queue) == fresh.order().read(queue));
            CHECK(cells.cell_start().read(queue) == fresh.cell_start().read(queue));
            CHECK(cells.cell_end().read(queue) == fresh.cell_end().read(queue));
        }
        // One particle fewer: no last sort of that count, so a whole sort.
        cells.resort(queue, positions, n, n - 1);
        fresh.build(queue, positions, n, n - 1);
        CHECK(cells.order().read(queue) == fresh.order().read(queue));
        CHECK(cells.cell_end().read(queue) == fresh.cell_end().read(queue));
        if (n < 2) continue;
        cells.resort(queue, positions, n, n);
        std::vector<double> q = positions.read(queue);
        q[n / 2] = 1.5;
        positions.write(queue, q);
        const std::string expected = "1 of " + std::to_string(n) + " particles";
        CHECK_THROWS_WITH_AS(cells.resort(queue, positions, n, n),
                             doctest::Contains(expected.c_str()), UsageError);
    }
}

} // namespace

TEST_SUITE("cell_list") {

TEST_CASE("neighbour lists through the cell list are the brute-force ones") {
    for (int dims : {2, 3})
        for (auto [reach, query_reach] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{2, 1}}) {
            check_neighbours<float>(Precision::float32, dims, reach, query_reach);
            if (test_context().device(0).info().fp64)
                check_neighbours<double>(Precision::float64, dims, reach, query_reach);
        }
}

TEST_CASE("gather reorders particle data into the sorted order") {
    check_gather<float>(Precision::float32);
    if (test_context().device(0).info().fp64) check_gather<double>(Precision::float64);
}

TEST_CASE("index gives particles already in cell order their cells without sorting") {
    check_index<float>(Precision::float32);
    if (test_context().device(0).info().fp64) check_index<double>(Precision::float64);
}

TEST_CASE("resort gives moved particles what a fresh build gives them, bit for bit") {
    for (int dims : {2, 3}) {
        check_resort<float>(Precision::float32, dims);
        if (test_context().device(0).info().fp64) check_resort<double>(Precision::float64, dims);
    }
}

TEST_CASE("particles outside the box or NaN, and malformed grids, are usage errors") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    CellList cells(context, Precision::float32, CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.1),
                   memory_cache());
    RealBuffer positions(context, Precision::float32, 6);
    positions.write(queue, std::vector<double>{0.5, 1.5, 0.2, 0.5, 0.5, 0.2});
    try {
        cells.build(queue, positions, 3, 3);
        FAIL("no error for a particle outside the box");
    } catch (const UsageError& e) {
        CHECK(contains(e.what(), "1 of 3 particles"));
        CHECK(contains(e.what(), "particle 1 at (1.5"));
    }
    positions.write(queue, std::vector<double>{0.5, NAN, 0.2, 0.5, 0.5, 0.2});
    try {
        cells.build(queue, positions, 3, 3);
        FAIL("no error for a NaN position");
    } catch (const UsageError& e) {
        CHECK(contains(e.what(), "NaN"));
    }
    positions.write(queue, std::vector<double>{0.5, 1.0, 0.2, 0.5, 0.5, 0.2});  // edge: inside
    CHECK_NOTHROW(cells.build(queue, positions, 3, 3));
    CHECK_THROWS_AS(cells.build(queue, positions, 3, 4), UsageError);  // stride < n
    CHECK_THROWS_AS(CellGrid::covering(4, {0, 0, 0}, {1, 1, 1}, 0.1), UsageError);
    CHECK_THROWS_AS(CellGrid::covering(3, {0, 0, 0}, {1, 1, 1}, 0), UsageError);
    CHECK_THROWS_AS(CellGrid::covering(3, {0, 0, 0}, {1, NAN, 1}, 0.1), UsageError);
    CHECK_THROWS_AS(CellGrid::covering(3, {0, 0, 0}, {1e6, 1e6, 1e6}, 1e-3), UsageError);
    CHECK_THROWS_AS(CellGrid::covering(3, {0, 0, 0}, {1, 1, 1}, 0.1, 0), UsageError);
}

TEST_CASE("SlabSelection picks the slots of a range of slabs, or the others, in order") {
    Context& context = test_context();
    std::vector<Precision> precisions{Precision::float32};
    if (context.device(0).info().fp64) precisions.push_back(Precision::float64);
    for (Precision precision : precisions)
        for (int dims : {2, 3})
            for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(777)})
                for (bool inside : {true, false})
                    check_slab_selection(context, precision, dims, n, inside, fresh_seed(), memory_cache());
}

TEST_CASE("SlabSelection refuses slots and arrays that do not fit") {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const CellGrid grid = CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.1);
    SlabSelection select(context, Precision::float32, grid, memory_cache());
    RealBuffer r(context, Precision::float32, 20);
    r.write(queue, std::vector<double>(20, 0.5));
    CHECK_THROWS_AS(select.flag(queue, r, 10, {0, 11}, {0, 3}, true), UsageError);  // past the stride
    CHECK_THROWS_AS(select.flag(queue, r, 12, {0, 10}, {0, 3}, true), UsageError);  // past the buffer
    if (context.device(0).info().fp64) {
        RealBuffer wide(context, Precision::float64, 20);
        CHECK_THROWS_AS(select.flag(queue, wide, 10, {0, 10}, {0, 3}, true), UsageError);
    }
    CHECK(select.flag(queue, r, 10, {0, 10}, {0, 100}, true) == 10);  // slabs past the grid: clipped
    RealBuffer small(context, Precision::float32, 10);
    CHECK_THROWS_AS(select.copy(queue, r, 10, 2, true, small, 5, 0), UsageError);
    CHECK_THROWS_AS(select.copy(queue, r, 10, 2, true, small, 10, 1), UsageError);
    CHECK_NOTHROW(select.copy(queue, r, 10, 1, true, small, 10, 0));
    Buffer<std::uint32_t> tags(context, 10), out(context, 9);
    CHECK_THROWS_AS(select.copy(queue, tags, true, out, 0), UsageError);
}

}
