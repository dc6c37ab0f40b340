// reference::BarnesHut, the OpenMP baseline of benchmarks/tree.cpp: the same tree and walk as
// TreeGravity, so the same forces to rounding, on any n, leaf and group; every pair directly
// at theta 0; bad input refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <partcl/models/nbody/tree_reference.hpp>

#include "support.hpp"
#include "tree_check.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// The reference's forces on `b` in T, as x | y | z and the potentials, in double.
template <class T>
Forces reference_tree(const Bodies& b, GravityParameters p, const TreeOptions& o,
                      reference::BarnesHut<T>* keep = nullptr) {
    const std::size_t n = b.size();
    std::vector<T> in[4];
    const std::vector<double>* from[4] = {&b.x, &b.y, &b.z, &b.m};
    for (int r = 0; r < 4; ++r) in[r].assign(from[r]->begin(), from[r]->end());
    std::vector<T> out(4 * n);
    reference::BarnesHut<T> local(p, o);
    reference::BarnesHut<T>& tree = keep ? *keep : local;
    tree.build(n, in[0].data(), in[1].data(), in[2].data(), in[3].data());
    tree.evaluate(out.data(), out.data() + n, out.data() + 2 * n, out.data() + 3 * n);
    Forces f;
    f.acc.assign(out.begin(), out.begin() + std::ptrdiff_t(3 * n));
    f.pot.assign(out.begin() + std::ptrdiff_t(3 * n), out.end());
    return f;
}

// The largest difference of two sets of forces on a body, over the sum of the magnitudes of
// its direct terms (rounding is bounded relative to those).
double worst_difference(const Forces& a, const Forces& b, const Reference& r) {
    const std::size_t n = r.exact.pot.size();
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!(r.magnitude.acc[i] > 0)) continue;
        double d2 = 0;
        for (std::size_t c = 0; c < 3; ++c) {
            const double d = a.acc[c * n + i] - b.acc[c * n + i];
            d2 += d * d;
        }
        worst = std::max(worst, std::sqrt(d2) / r.magnitude.acc[i]);
        worst = std::max(worst, std::abs(a.pot[i] - b.pot[i]) / r.magnitude.pot[i]);
    }
    return worst;
}

// How far two evaluations of the same tree may differ on each body, acceleration then
// potential. Their sums round differently: 4 ulp of the term magnitudes per sqrt(N) + 8, as
// for the dense sum. And a node's centre is a mass-weighted mean of coordinates, rounded at
// each of the tree's levels (three roundings, or two where one is fused), so it may lie
// c = 3 ulp a level of its bodies' largest coordinate X_j apart in the two; a node of radius
// <= theta d seen from d moves its pull by at most 2 G M c / d^3 and its potential by
// G M c / d^2, and d >= r_ij / (1 + theta) for each of its bodies j. Far out in a Plummer
// tail, X / d reaches hundreds: two bodies at 5 seen from 0.05 apart differ by 100s of ulp.
Forces rounding_bounds(const Bodies& b, GravityParameters p, double theta) {
    const std::size_t n = b.size();
    const double eps = epsilon(Precision::float64), eps2 = p.softening * p.softening;
    const double levels = std::ceil(std::log2(double(std::max<std::size_t>(n, 2)))) + 1;
    const double ulps = std::sqrt(3.0) * 3 * eps * levels, near = 1 + theta;
    Forces bound;
    absolute_sums(b, eps2, p.G, bound.acc, bound.pot);
    const double sums = 4 * eps * (std::sqrt(double(n)) + 8);
    for (std::size_t i = 0; i < n; ++i) {
        double pull = 0, potential = 0;  // sums of G m_j c_j / s^3 and of G m_j c_j / s^2
        for (std::size_t j = 0; j < n; ++j) {
            const double dx = b.x[j] - b.x[i], dy = b.y[j] - b.y[i], dz = b.z[j] - b.z[i];
            const double s2 = dx * dx + dy * dy + dz * dz + eps2;
            if (j == i || s2 == 0) continue;
            const double c = ulps * std::max({std::abs(b.x[j]), std::abs(b.y[j]), std::abs(b.z[j])});
            pull += p.G * b.m[j] * c / (s2 * std::sqrt(s2));
            potential += p.G * b.m[j] * c / s2;
        }
        bound.acc[i] = sums * bound.acc[i] + 2 * near * near * near * pull;
        bound.pot[i] = sums * bound.pot[i] + near * near * potential;
    }
    return bound;
}

// The largest difference of two sets of forces on a body over its bound.
double worst_over_bound(const Forces& a, const Forces& b, const Forces& bound) {
    const std::size_t n = bound.pot.size();
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double d2 = 0;
        for (std::size_t c = 0; c < 3; ++c) {
            const double d = a.acc[c * n + i] - b.acc[c * n + i];
            d2 += d * d;
        }
        if (d2 > 0) worst = std::max(worst, std::sqrt(d2) / bound.acc[i]);
        const double dp = std::abs(a.pot[i] - b.pot[i]);
        if (dp > 0) worst = std::max(worst, dp / bound.pot[i]);
    }
    return worst;
}

} // namespace

TEST_SUITE("tree_reference") {

TEST_CASE("the OpenMP reference computes TreeGravity's forces, to rounding") {
    // Same tree, same nodes, same openings: the two differ only in rounding (rounding_bounds),
    // within 1e-11 of the term magnitudes on every body here. A node taken whole by one and
    // opened by the other would differ by its quadrupole error, 1e-6 to 1e-3 of them. Double only: Plummer bodies in float share coordinates now and then, and
    // equal coordinates at a median may go to either child (tree_reference.hpp).
    const std::uint32_t seed = fresh_seed();
    struct Shape {
        std::size_t leaf_size, group_size;
    };
    const Shape shapes[] = {{1, 1}, {3, 2}, {8, 32}, {4, 128}};
    for (const Shape& shape : shapes)
        for (double theta : {0.3, 0.6, 0.9})
            for (double softening : {0.01, 0.0})
                for (std::size_t n : {1, 2, 5, 33, 1000, 3001}) {
                    INFO("seed " << seed << ", N " << n << ", theta " << theta << ", leaf "
                                 << shape.leaf_size << ", group " << shape.group_size << ", softening "
                                 << softening);
                    const GravityParameters p{0.75, softening};
                    const Bodies b = plummer(n, seed + std::uint32_t(n));
                    const TreeOptions o{theta, shape.leaf_size, TreeTraversal::stackless, shape.group_size};
                    const Forces device = tree_forces(Precision::float64, b, p, o);
                    const Forces cpu = reference_tree<double>(b, p, o);
                    const double worst = worst_over_bound(device, cpu, rounding_bounds(b, p, theta));
                    INFO("largest difference over its bound " << worst);
                    CHECK(worst <= 1);
                }
}

TEST_CASE("at theta 0 every body meets every other one by one, in float and double") {
    const std::uint32_t seed = fresh_seed();
    for (std::size_t n : {1, 7, 640, 2049}) {
        INFO("seed " << seed << ", N " << n);
        const GravityParameters p{1.0, 0.05};
        const Bodies b = random_bodies(n, seed + std::uint32_t(n));
        const Reference exact = reference_forces(b, p);
        const TreeOptions o{0.0, 4, TreeTraversal::stackless, 16};
        reference::BarnesHut<double> tree(p, o);
        const double worst = worst_difference(reference_tree<double>(b, p, o, &tree), exact.exact, exact);
        CHECK(worst <= 4 * epsilon(Precision::float64) * (std::sqrt(double(n)) + 8));
        CHECK(tree.node_interactions() == 0);
        CHECK(tree.body_interactions() == n * n);
        const Bodies f = rounded(b, Precision::float32);
        const Reference exact_f = reference_forces(f, p);
        CHECK(worst_difference(reference_tree<float>(f, p, o), exact_f.exact, exact_f) <=
              4 * epsilon(Precision::float32) * (std::sqrt(double(n)) + 8));
    }
}

TEST_CASE("the reference's own error, in float, is the device's") {
    // Not the same tree bit for bit in float (ties), but the same approximation: the median
    // error against the float64 direct sum within 10% of TreeGravity's on PoCL.
    const std::uint32_t seed = fresh_seed();
    const std::size_t n = 20000;
    const GravityParameters p{1.0, 0.01};
    const Bodies b = rounded(plummer(n, seed), Precision::float32);
    const Reference exact = reference_forces(b, p);
    for (double theta : {0.5, 0.8}) {
        INFO("seed " << seed << ", theta " << theta);
        const TreeOptions o{theta, 8, TreeTraversal::stackless, 32};
        auto median_error = [&](const Forces& f) {
            std::vector<double> e;
            for (std::size_t i = 0; i < n; ++i) {
                double d2 = 0, a2 = 0;
                for (std::size_t c = 0; c < 3; ++c) {
                    const double d = f.acc[c * n + i] - exact.exact.acc[c * n + i];
                    d2 += d * d;
                    a2 += exact.exact.acc[c * n + i] * exact.exact.acc[c * n + i];
                }
                e.push_back(std::sqrt(d2 / a2));
            }
            std::nth_element(e.begin(), e.begin() + std::ptrdiff_t(n / 2), e.end());
            return e[n / 2];
        };
        const double device = median_error(tree_forces(Precision::float32, b, p, o));
        const double cpu = median_error(reference_tree<float>(b, p, o));
        INFO("median errors: device " << device << ", reference " << cpu);
        CHECK(cpu > 1e-6);
        CHECK(std::abs(cpu - device) <= 0.1 * device);
    }
}

TEST_CASE("bad input is refused with a clear error; no bodies is an empty tree") {
    const GravityParameters p{1.0, 0.01};
    CHECK_THROWS_AS(reference::BarnesHut<float>(p, TreeOptions{1.5}), UsageError);
    CHECK_THROWS_AS(reference::BarnesHut<float>(p, TreeOptions{0.5, 0}), UsageError);
    CHECK_THROWS_AS(reference::BarnesHut<float>(p, TreeOptions{0.5, 8, TreeTraversal::stackless, 3}), UsageError);
    CHECK_THROWS_AS(reference::BarnesHut<float>({1.0, -1.0}, TreeOptions{}), UsageError);
    TreeOptions relative;
    relative.relative_accuracy = 0.001;
    CHECK_THROWS_AS(reference::BarnesHut<float>(p, relative), UsageError);
    reference::BarnesHut<double> tree(p, TreeOptions{});
    const double x[2] = {0, std::numeric_limits<double>::quiet_NaN()}, m[2] = {1, 1};
    CHECK_THROWS_WITH_AS(tree.build(2, x, m, m, m), doctest::Contains("body 1's position is not finite"),
                         UsageError);
    tree.build(0, x, x, x, m);
    CHECK(tree.size() == 0);
    tree.evaluate(nullptr, nullptr, nullptr);
    CHECK(tree.body_interactions() == 0);
}

} // TEST_SUITE
