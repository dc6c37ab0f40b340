// Every kernel of partcl's cl/ tree at small N, in float and double: run under Oclgrind by
// CTest (tests/oclgrind.sh, label `oclgrind`; the simulator is then the only device, so CTest
// sets PARTCL_DEVICE=all and keeps the disk cache out of it) and, as suite tree_kernels, on the
// default device. A kernel that joins cl/ must join the table below, or the coverage check
// fails.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

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
    const double eps2 = 0.01, G = 0.75;
    Buffer<T> bpos(context, pos), bm(context, m);

    struct Case {
        int tile, potential;
        std::size_t begin, end, acc_offset, stride, acc_size;
        int vector = 0;   // DENSE_LANES = 8: eight partial sums (the CPU form)
        int targets = 1;  // DENSE_TARGETS (the tiled form)
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
        BuildOptions options;
        options.precision = precision;
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
        kernel.args(cl_uint(c.begin), cl_uint(c.end), cl_uint(n), Real{eps2}, Real{G}, bpos, bm,
                    acc, cl_uint(c.acc_offset), cl_uint(c.stride), pot);
        const std::size_t items = (count + c.targets - 1) / c.targets;
        kernel.launch(queue, items, c.tile ? std::size_t(c.tile) : 0).wait();
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
            kernel.args(cl_uint(n), out, cl_uint(out_at), bbase, cl_uint(base_at), Real{c[0]}, b0,
                        cl_uint(at[0]));
            if (terms == 3) {
                kernel.arg(8, Real{c[1]}).arg(9, b1).arg(10, cl_uint(at[1]));
                kernel.arg(11, Real{c[2]}).arg(12, b2).arg(13, cl_uint(at[2]));
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
    kernel.args(cl_uint(n), berr, by, bnew, Real{atol}, Real{rtol}, bout);
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

const std::map<std::string, std::function<void(Precision)>>& tree_kernels() {
    static const std::map<std::string, std::function<void(Precision)>> table{
        {"common/real_check.cl", run_real_check_kernel},
        {"integrate/combine.cl", run_combine_kernel},
        {"nbody/dense.cl", run_dense_kernel},
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
    kernel.args(cl_uint(n), bx, by);
    kernel.launch(context.queue(0), n).wait();
    const auto y = by.read(context.queue(0));
    for (std::size_t i = 0; i + 1 < n; ++i) CHECK(y[i] == float(i + 1));
}

} // TEST_SUITE oclgrind_broken
