// dist::SlabFft on 1, 2 and 3 ranks (suite `mpi`): every rank transforms its slab of a grid
// the ranks share (the same random values on every rank) and checks its columns of the
// spectrum against a float64 DFT of the whole grid, and the inverse against the input times the
// number of points; slabs cut unevenly, some ranks without columns (a 1-D grid has one) or
// without planes.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <complex>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/slab_fft.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::test_context;

namespace {

using Complex = std::complex<double>;

void check_slab_transform(Precision precision, std::array<std::size_t, 3> shape,
                          std::vector<double> weights) {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    if (precision == Precision::float64 && !context.device(0).info().fp64) return;
    const std::uint32_t seed = partcl_test::shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size() << ", "
                 << std::string(to_string(precision)) << ", " << shape[0] << " x " << shape[1]
                 << " x " << shape[2]);
    const std::size_t points = shape[0] * shape[1] * shape[2];
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> grid(2 * points);
    for (double& v : grid) v = precision == Precision::float32 ? double(float(uniform(rng))) : uniform(rng);
    std::vector<Complex> input(points);
    for (std::size_t i = 0; i < points; ++i) input[i] = {grid[2 * i], grid[2 * i + 1]};
    const std::vector<Complex> expected = partcl_test::dft(input, shape, -1);

    weights.resize(std::size_t(world.size()), 1.0);
    int axis = 0;
    for (int a = 0; a < 3; ++a)
        if (shape[std::size_t(a)] > 1) axis = a;
    const std::size_t planes = shape[std::size_t(axis)];
    dist::SlabFft fft(world, context, precision, shape, Partition::by_weight(planes, weights));
    REQUIRE(fft.slab_axis() == axis);
    const std::size_t rank = std::size_t(world.rank()), plane = fft.plane_points();
    const Range mine = fft.planes()[rank], columns = fft.columns()[rank];
    Queue& queue = context.queue(0);
    RealBuffer slab(context, precision, std::max<std::size_t>(fft.slab_reals(), 1));
    RealBuffer spectrum(context, precision, std::max<std::size_t>(fft.spectrum_reals(), 1));
    if (!mine.empty())
        slab.write(queue, std::vector<double>(grid.begin() + std::ptrdiff_t(2 * mine.begin * plane),
                                              grid.begin() + std::ptrdiff_t(2 * mine.end * plane)));
    fft.forward(slab, spectrum);

    // As Fft's test: log2(points) roundings of the largest magnitude, 8 ulp a level.
    const double eps = precision == Precision::float64 ? DBL_EPSILON : FLT_EPSILON;
    const double bound = 8 * eps * (std::log2(double(points)) + 1) * std::sqrt(2.0) * double(points);
    double worst = 0;
    if (!columns.empty()) {
        const std::vector<double> got = spectrum.read(queue);
        for (std::size_t s = 0; s < planes; ++s)
            for (std::size_t q = columns.begin; q < columns.end; ++q) {
                const std::size_t at = s * columns.size() + (q - columns.begin);
                worst = std::max(worst, std::abs(Complex(got[2 * at], got[2 * at + 1]) -
                                                 expected[s * plane + q]));
            }
    }
    CAPTURE(worst);
    CAPTURE(bound);
    CHECK(worst <= bound);

    fft.inverse(spectrum, slab);
    double worst_back = 0;
    if (!mine.empty()) {
        const std::vector<double> back = slab.read(queue);
        for (std::size_t i = 0; i < fft.slab_reals(); ++i)
            worst_back = std::max(worst_back, std::abs(back[i] / double(points) -
                                                       grid[2 * mine.begin * plane + i]));
    }
    CAPTURE(worst_back);
    CHECK(worst_back <= 2 * bound / double(points));
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("SlabFft: each rank's columns of the spectrum are the whole grid's DFT, and back") {
    for (Precision p : {Precision::float32, Precision::float64}) {
        check_slab_transform(p, {6, 4, 10}, {1, 3, 2});
        check_slab_transform(p, {8, 12, 1}, {2, 1, 1});
        check_slab_transform(p, {5, 3, 7}, {1, 1, 1});
        check_slab_transform(p, {24, 1, 1}, {1, 2, 3});  // one column: rank 0 transforms it
        check_slab_transform(p, {4, 4, 2}, {1, 1, 1});   // 3 ranks, 2 planes: one has none
    }
}

TEST_CASE("SlabFft refuses planes not cut one part a rank, and buffers too small") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    const std::size_t ranks = std::size_t(world.size());
    CHECK_THROWS_AS(dist::SlabFft(world, context, Precision::float32, {4, 4, 8},
                                  Partition::by_weight(8, std::vector<double>(ranks + 1, 1.0))),
                    UsageError);
    CHECK_THROWS_AS(dist::SlabFft(world, context, Precision::float32, {4, 4, 8},
                                  Partition::by_weight(7, std::vector<double>(ranks, 1.0))),
                    UsageError);
    dist::SlabFft fft(world, context, Precision::float32, {4, 4, 8},
                      Partition::by_weight(8, std::vector<double>(ranks, 1.0)));
    RealBuffer small(context, Precision::float32, 2), big(context, Precision::float32, 1024);
    CHECK_THROWS_AS(fft.forward(small, big), UsageError);
    CHECK_THROWS_AS(fft.forward(big, big), UsageError);
}
}
