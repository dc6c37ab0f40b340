// nbody/dense.cl of tests/test_oclgrind.cpp's table, against a host computation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace partcl_test {

namespace {
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
                        std::uint32_t(c.tile ? (items + c.tile - 1) / c.tile : 1), std::uint32_t(n),
                        std::uint32_t(0));
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
            // In two launches, the later parts first, as sources that arrive in pieces take them.
            for (const std::size_t first : {std::size_t(1), std::size_t(0)}) {
                const std::size_t launched = first == 1 ? parts - 1 : 1;
                kernel.args(std::uint32_t(c.begin), std::uint32_t(c.end), std::uint32_t(n), Real{eps2}, Real{G},
                            bpos, bm, partial, std::uint32_t(0), std::uint32_t(count), pot_partial,
                            std::uint32_t(blocks), std::uint32_t(chunk), std::uint32_t(first));
                kernel.launch(queue, blocks * c.tile * launched, c.tile);
            }
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

} // namespace

void run_dense_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_dense_typed<double>(precision);
    else
        run_dense_typed<float>(precision);
}

} // namespace partcl_test
