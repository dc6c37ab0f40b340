// Suite oclgrind_algorithms: the device algorithms called as a user's program calls them, on a
// context of its own that it destroys before exiting (the way a program embedding partcl ends),
// so the Oclgrind label checks their kernels and the release of everything they built:
// SortByKey (both methods, all key kinds), exclusive_scan, reduce (sum, min, max), CellList
// (and its resort), SlabSelection and Fft, each against a host reference on fresh random inputs of small, odd
// sizes. CTest runs each case in its own
// process under tests/oclgrind.sh, which fails on any diagnostic or a non-zero exit (an abort at
// exit included).
//
// One algorithm call per process, every buffer made before it, as a program that calls one
// algorithm does. (This once also kept Oclgrind 21.10 from misreporting a second sort, whose
// buffers took the slots the first released; tests/oclgrind.sh now preloads a library that
// releases no buffer under Oclgrind: docs/kernels.md.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <optional>
#include <random>

#include "slab_selection_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

Context own_context() { return Context::from_filter(DeviceFilter::from_environment()); }

// n values in [-4, 4), representable in `precision`, with repeats (a stable sort must keep
// their order).
std::vector<double> random_reals(std::size_t n, Precision precision, std::mt19937& rng) {
    std::uniform_int_distribution<int> eighths(-32, 31);
    std::uniform_real_distribution<double> uniform(-4, 4);
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double v = i % 3 == 0 ? eighths(rng) / 8.0 : uniform(rng);
        values[i] = precision == Precision::float32 ? double(float(v)) : v;
    }
    return values;
}

// n random reals of `precision` on a context of their own, handed to `use` with the device
// buffer holding them; nothing when the device has no fp64 for double.
template <class Use>
void with_random_reals(Precision precision, std::size_t n, Use&& use) {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    if (precision == Precision::float64 && !context.device(0).info().fp64) return;
    Queue& queue = context.queue(0);
    const auto values = random_reals(n, precision, rng);
    RealBuffer buffer(context, precision, n);
    buffer.write(queue, values);
    use(context, queue, values, buffer);
}

// The radix sort over several tiles (a work-group ranks 1024 or 2048 keys), the last one
// partial; the library's on a few keys.
std::size_t sort_size(SortMethod method) { return method == SortMethod::radix ? 2500 : 41; }

void check_sort_real(Precision precision, SortMethod method) {
    with_random_reals(precision, sort_size(method), [=](Context& context, Queue& queue,
                                                        const std::vector<double>& keys,
                                                        RealBuffer& dkeys) {
        std::vector<std::uint32_t> index(keys.size());
        std::iota(index.begin(), index.end(), 0u);
        Buffer<std::uint32_t> dindex(context, index);
        SortByKey sort(context, ProgramCache::global(), std::nullopt, method);
        sort(queue, dkeys, dindex, keys.size());
        CHECK(dindex.read(queue) == stable_order(keys, keys.size()));
    });
}

// Keys of few values, said to be below 2^11: three passes of the radix sort, an odd number, so
// its result is copied back from its spare buffers.
void check_sort_uint(SortMethod method) {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    Queue& queue = context.queue(0);
    const std::size_t n = sort_size(method);
    std::uniform_int_distribution<std::uint32_t> few(0, 300);
    std::vector<std::uint32_t> keys(n), values(n);
    for (auto& k : keys) k = few(rng) / 30 * 51;
    std::iota(values.begin(), values.end(), 0u);
    Buffer<std::uint32_t> dkeys(context, keys), dvalues(context, values);
    SortByKey sort(context, ProgramCache::global(), std::nullopt, method);
    sort(queue, dkeys, dvalues, n, 11);
    CHECK(dvalues.read(queue) == stable_order(keys, n));
}

// One reduction per process, as the header says: `op` of 43 random reals (the sum against a
// float64 reference within reduce.hpp's bound, min and max exactly).
void check_reduce(Precision precision, ReduceOp op) {
    with_random_reals(precision, 43, [=](Context&, Queue& queue, const std::vector<double>& values,
                                          RealBuffer& dvalues) {
        const double got = reduce(queue, dvalues, values.size(), op);
        if (op == ReduceOp::sum) {
            double sum = 0, magnitude = 0;
            for (double v : values) sum += v, magnitude += std::abs(v);
            const double epsilon = precision == Precision::float64 ? 0x1p-52 : 0x1p-23;
            CHECK(std::abs(got - sum) <= double(values.size()) * epsilon * magnitude);
        } else {
            CHECK(got == (op == ReduceOp::min ? *std::min_element(values.begin(), values.end())
                                              : *std::max_element(values.begin(), values.end())));
        }
    });
}

} // namespace

TEST_SUITE("oclgrind_algorithms") {

TEST_CASE("SortByKey library on 32-bit keys") { check_sort_uint(SortMethod::library); }
TEST_CASE("SortByKey library on float keys") { check_sort_real(Precision::float32, SortMethod::library); }
TEST_CASE("SortByKey library on double keys") { check_sort_real(Precision::float64, SortMethod::library); }
TEST_CASE("SortByKey radix on 32-bit keys") { check_sort_uint(SortMethod::radix); }
TEST_CASE("SortByKey radix on float keys") { check_sort_real(Precision::float32, SortMethod::radix); }
TEST_CASE("SortByKey radix on double keys") { check_sort_real(Precision::float64, SortMethod::radix); }
TEST_CASE("reduce_max of floats") { check_reduce(Precision::float32, ReduceOp::max); }
TEST_CASE("reduce_max of doubles") { check_reduce(Precision::float64, ReduceOp::max); }
TEST_CASE("reduce_min of floats") { check_reduce(Precision::float32, ReduceOp::min); }
TEST_CASE("reduce_min of doubles") { check_reduce(Precision::float64, ReduceOp::min); }
TEST_CASE("reduce_sum of floats") { check_reduce(Precision::float32, ReduceOp::sum); }
TEST_CASE("reduce_sum of doubles") { check_reduce(Precision::float64, ReduceOp::sum); }

TEST_CASE("exclusive_scan") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    Queue& queue = context.queue(0);
    const std::size_t n = 39;
    std::uniform_int_distribution<std::uint32_t> counts(0, 1000);
    std::vector<std::uint32_t> in(n), sums(n);
    for (auto& c : in) c = counts(rng);
    std::exclusive_scan(in.begin(), in.end(), sums.begin(), 0u);
    Buffer<std::uint32_t> din(context, in), dout(context, n);
    exclusive_scan(queue, din, dout, n);
    CHECK(dout.read(queue) == sums);
}

TEST_CASE("CellList") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    Queue& queue = context.queue(0);
    const std::size_t n = 29;
    const double radius = 0.3;
    const CellGrid grid = CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, radius);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> positions(2 * n);
    for (auto& p : positions) p = double(float(unit(rng)));
    RealBuffer dpositions(context, Precision::float32, 2 * n);
    dpositions.write(queue, positions);

    RealBuffer gathered(context, Precision::float32, 2 * n);
    CellList cells(context, Precision::float32, grid);
    cells.build(queue, dpositions, n, n);
    cells.gather(queue, dpositions, gathered, 2, n);
    const auto order = cells.order().read(queue), sorted = cells.keys().read(queue);
    const auto start = cells.cell_start().read(queue), end = cells.cell_end().read(queue);
    // The host's cell of particle i, or none where rounding could put it on either side of a
    // cell boundary.
    auto cell_of = [&](std::size_t i) -> std::optional<std::uint32_t> {
        std::uint32_t c[2];
        for (int k = 0; k < 2; ++k) {
            const double u = (positions[k * n + i] - grid.origin[k]) / grid.cell_size;
            if (std::abs(u - std::round(u)) < 1e-5) return std::nullopt;
            c[k] = std::uint32_t(u);
        }
        return c[0] + grid.cells[0] * c[1];
    };
    std::vector<bool> seen(n, false);
    for (std::size_t s = 0; s < n; ++s) {
        CAPTURE(s);
        REQUIRE(order[s] < n);
        CHECK(!seen[order[s]]);
        seen[order[s]] = true;
        if (const auto cell = cell_of(order[s])) CHECK(sorted[s] == *cell);
        if (s > 0) {
            CHECK(sorted[s - 1] <= sorted[s]);
            if (sorted[s - 1] == sorted[s]) CHECK(order[s - 1] < order[s]);  // stable
        }
        CHECK(start[sorted[s]] <= s);
        CHECK(s < end[sorted[s]]);
    }

    const auto g = gathered.read(queue);
    for (std::size_t s = 0; s < n; ++s)
        for (int k = 0; k < 2; ++k) CHECK(g[k * n + s] == positions[k * n + order[s]]);
}

TEST_CASE("CellList resort") {
    // A few particles moved after a build and a gather: the moves, partition and merge kernels
    // (and the movers' sort) give what a fresh build gives.
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    Queue& queue = context.queue(0);
    const std::size_t n = 37;
    const CellGrid grid = CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.3);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> positions(2 * n);
    for (auto& p : positions) p = double(float(unit(rng)));
    RealBuffer dpositions(context, Precision::float32, 2 * n), sorted(context, Precision::float32, 2 * n);
    dpositions.write(queue, positions);
    CellList cells(context, Precision::float32, grid), fresh(context, Precision::float32, grid);
    cells.build(queue, dpositions, n, n);
    cells.gather(queue, dpositions, sorted, 2, n);
    std::vector<double> moved = sorted.read(queue);
    for (std::size_t i : {std::size_t(3), std::size_t(17), std::size_t(30)})
        for (int k = 0; k < 2; ++k) moved[k * n + i] = double(float(unit(rng)));
    sorted.write(queue, moved);
    cells.resort(queue, sorted, n, n);
    fresh.build(queue, sorted, n, n);
    CHECK(cells.keys().read(queue) == fresh.keys().read(queue));
    CHECK(cells.order().read(queue) == fresh.order().read(queue));
    CHECK(cells.cell_start().read(queue) == fresh.cell_start().read(queue));
    CHECK(cells.cell_end().read(queue) == fresh.cell_end().read(queue));
}

TEST_CASE("SlabSelection") {
    Context context = own_context();
    check_slab_selection(context, Precision::float32, 3, 37, false, fresh_seed());
}

TEST_CASE("Fft") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Context context = own_context();
    Queue& queue = context.queue(0);
    const std::size_t nx = 6, ny = 5;
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> data(2 * nx * ny);
    for (auto& d : data) d = double(float(uniform(rng)));
    RealBuffer buffer(context, Precision::float32, data.size());
    buffer.write(queue, data);

    Fft fft(context, Precision::float32, {nx, ny, 1});
    fft.forward(buffer);
    const auto spectrum = buffer.read(queue);
    const double pi = std::acos(-1.0);
    double worst = 0;
    for (std::size_t ky = 0; ky < ny; ++ky)
        for (std::size_t kx = 0; kx < nx; ++kx) {
            std::complex<double> sum = 0;
            for (std::size_t y = 0; y < ny; ++y)
                for (std::size_t x = 0; x < nx; ++x) {
                    const std::size_t p = x + nx * y;
                    sum += std::complex<double>(data[2 * p], data[2 * p + 1]) *
                           std::polar(1.0, -2 * pi * (double(kx * x) / nx + double(ky * y) / ny));
                }
            const std::size_t k = kx + nx * ky;
            worst = std::max(worst, std::abs(sum - std::complex<double>(spectrum[2 * k],
                                                                        spectrum[2 * k + 1])));
        }
    // Float sums of 30 terms of magnitude up to sqrt(2): a few ulps of 30 * 1.4.
    CHECK(worst < 1e-5);

    fft.inverse(buffer);
    const auto back = buffer.read(queue);
    double error = 0;
    for (std::size_t i = 0; i < data.size(); ++i)
        error = std::max(error, std::abs(back[i] / double(nx * ny) - data[i]));
    CHECK(error < 1e-6);
}

} // TEST_SUITE
