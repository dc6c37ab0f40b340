// Fft against a float64 DFT computed on the host, on fresh random grids of 1, 2 and 3
// dimensions, sizes with factors 2, 3, 5 and 7, in float and double, along every axis or some;
// inverse after forward gives the input times the transform's length.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <complex>

#include <partcl/algorithm/fft.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

using Complex = std::complex<double>;

void check_transform(Precision precision, std::array<std::size_t, 3> shape, FftAxes axes = {}) {
    Context& context = test_context();
    if (precision == Precision::float64 && !context.device(0).info().fp64) return;
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed << ", " << std::string(to_string(precision)) << ", " << shape[0] << " x " << shape[1]
                  << " x " << shape[2] << " along " << axes.along[0] << axes.along[1] << axes.along[2]);
    const std::size_t points = shape[0] * shape[1] * shape[2];
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> host(2 * points);
    for (double& v : host) v = uniform(rng);
    if (precision == Precision::float32)
        for (double& v : host) v = double(float(v));
    std::vector<Complex> input(points);
    for (std::size_t i = 0; i < points; ++i) input[i] = {host[2 * i], host[2 * i + 1]};

    Fft fft(context, precision, shape, 0, axes);
    RealBuffer data(context, precision, 2 * points);
    data.write(context.queue(0), host);
    fft.forward(data);
    const auto transformed = data.read(context.queue(0));
    const auto expected = dft(input, shape, -1, axes.along);

    // An FFT's error grows like log2(length) roundings of the largest magnitude; |X| is at most
    // sqrt(2) length for inputs in [-1, 1]^2, the length being the product of the transformed
    // axes' sizes. The bound allows 8 ulp per level.
    std::size_t length = 1;
    for (std::size_t a = 0; a < 3; ++a)
        if (axes.along[a]) length *= shape[a];
    const double eps = precision == Precision::float64 ? DBL_EPSILON : FLT_EPSILON;
    const double bound = 8 * eps * (std::log2(double(length)) + 1) * std::sqrt(2.0) * double(length);
    double worst = 0;
    for (std::size_t i = 0; i < points; ++i)
        worst = std::max(worst, std::abs(Complex(transformed[2 * i], transformed[2 * i + 1]) -
                                         expected[i]));
    CAPTURE(worst);
    CAPTURE(bound);
    CHECK(worst <= bound);

    fft.inverse(data);
    const auto back = data.read(context.queue(0));
    double worst_back = 0;
    for (std::size_t i = 0; i < 2 * points; ++i)
        worst_back = std::max(worst_back, std::abs(back[i] / double(length) - host[i]));
    CAPTURE(worst_back);
    CHECK(worst_back <= 2 * bound / double(length));
}

} // namespace

TEST_SUITE("fft") {

TEST_CASE("1-D transforms match the DFT") {
    for (Precision p : {Precision::float32, Precision::float64})
        for (std::size_t n : {1, 2, 8, 12, 60, 128}) check_transform(p, {n, 1, 1});
}

TEST_CASE("2-D and 3-D transforms match the DFT") {
    for (Precision p : {Precision::float32, Precision::float64}) {
        check_transform(p, {8, 6, 1});
        check_transform(p, {16, 16, 1});
        check_transform(p, {8, 4, 14});
        check_transform(p, {16, 16, 16});
    }
}

// The pieces dist::SlabFft is made of: planes of a stack, columns of a grid, and every other
// choice of axes, each batched over the axes it leaves.
TEST_CASE("transforms along some axes match the DFT along those axes") {
    const FftAxes planes{{true, true, false}}, xz{{true, false, true}}, yz{{false, true, true}};
    for (Precision p : {Precision::float32, Precision::float64}) {
        check_transform(p, {8, 6, 5}, planes);
        check_transform(p, {12, 5, 1}, FftAxes::only(0));
        check_transform(p, {6, 10, 1}, FftAxes::only(1));
        check_transform(p, {1, 16, 1}, FftAxes::only(1));
        check_transform(p, {4, 6, 5}, FftAxes::only(1));
        check_transform(p, {5, 4, 6}, FftAxes::only(2));
        check_transform(p, {4, 6, 5}, xz);
        check_transform(p, {4, 6, 5}, yz);
        check_transform(p, {7, 1, 3}, FftAxes::only(1));  // length 1: the identity
    }
}

TEST_CASE("bad plans and buffers are refused by name") {
    Context& context = test_context();
    CHECK_THROWS_AS(Fft(context, Precision::float32, {0, 1, 1}), UsageError);
    CHECK_THROWS_AS(Fft(context, Precision::float32, {8, 8, 8}, context.size()), UsageError);
    CHECK_THROWS_AS(Fft(context, Precision::float32, {8, 8, 8}, 0, FftAxes{{false, false, false}}),
                    UsageError);
    Fft fft(context, Precision::float32, {8, 8, 1});
    RealBuffer small(context, Precision::float32, 100), wrong(context, Precision::float64, 128);
    CHECK_THROWS_AS(fft.forward(small), UsageError);
    if (context.device(0).info().fp64) CHECK_THROWS_AS(fft.inverse(wrong), UsageError);
}

}
