// The kd-tree TreeGravity builds on the device, checked node by node on the host, and its walk
// against a host walk of the same tree (test_tree.cpp has the forces against the direct sum).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <memory>

#include <partcl/io/initial_conditions.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>

#include "io_check.hpp"
#include "support.hpp"
#include "tree_check.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

struct Built {
    TreeSnapshot tree;
    Forces forces;
};

Built build_tree(Precision precision, const Bodies& b, GravityParameters p, TreeOptions o) {
    Built built;
    built.forces = tree_forces(precision, b, p, o, &built.tree);
    return built;
}

// What the build must produce, checked node by node from the bodies (as the device holds
// them): perm a permutation; leaves of at most leaf_size bodies; each node's tight box the
// exact min and max of its bodies (min and max do not round); its mass and centre of mass the
// sums over its bodies to rounding (one rounding per addition, n of them at the root); its
// second moments about that centre; its radius r at least its farthest body's distance and at
// most its box's farthest corner's; crit2 = (r / theta)^2 (1 + 8 eps); and the kd-tree
// property, the split: along some axis every body of the left child lies at or below every
// body of the right one (unless split_checked is false: a refitted tree's bodies have moved).
void check_tree(const TreeSnapshot& t, const Bodies& b, TreeOptions o, Precision precision,
                bool split_checked = true) {
    const std::size_t n = b.size(), nodes = t.nodes();
    const double eps = epsilon(precision);
    REQUIRE(t.n == n);
    CHECK(t.levels == TreeGravity::levels_for(n, o.leaf_size));
    std::vector<std::uint32_t> sorted_perm = t.perm;
    std::sort(sorted_perm.begin(), sorted_perm.end());
    for (std::size_t i = 0; i < n; ++i) REQUIRE(sorted_perm[i] == i);
    const std::vector<double>* axes[3] = {&b.x, &b.y, &b.z};
    auto lo = [&](std::size_t k, int a) { return t.box[a * nodes + k]; };
    auto hi = [&](std::size_t k, int a) { return t.box[(3 + a) * nodes + k]; };
    for (std::size_t k = 1; k < nodes; ++k) {
        CAPTURE(k);
        const std::size_t begin = t.begin(k), end = t.end(k);
        if (k >= nodes / 2) CHECK(end - begin <= o.leaf_size);
        double m = 0, w[3] = {0, 0, 0}, mabs = 0, l[3], h[3];
        for (int a = 0; a < 3; ++a) l[a] = DBL_MAX, h[a] = -DBL_MAX;
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t body = t.perm[i];
            m += b.m[body];
            mabs += b.m[body];
            for (int a = 0; a < 3; ++a) {
                const double v = (*axes[a])[body];
                w[a] += b.m[body] * v;
                l[a] = std::min(l[a], v);
                h[a] = std::max(h[a], v);
            }
        }
        const double mk = t.node[3 * nodes + k];
        if (m == 0) {
            CHECK(mk == 0);
            continue;
        }
        CHECK(std::abs(mk - m) <= 2 * double(end - begin) * eps * mabs);
        // Second moments about the device's centre of mass: each level adds its children's
        // and their masses at their centres, a few roundings of terms no larger than m D^2
        // (D the box's diagonal) per level; and the children's centres are off by their
        // rounding delta (bounded as checked below), which moves the moments by m delta^2.
        double diagonal2 = 0, delta2 = 0, moments[6] = {0, 0, 0, 0, 0, 0};
        for (int a = 0; a < 3; ++a) {
            diagonal2 += (h[a] - l[a]) * (h[a] - l[a]);
            const double delta = 4 * double(end - begin) * eps * (h[a] - l[a] + std::abs(h[a]) + std::abs(l[a]));
            delta2 += delta * delta;
        }
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t body = t.perm[i];
            double u[3];
            for (int a = 0; a < 3; ++a) u[a] = (*axes[a])[body] - t.node[a * nodes + k];
            const double mu[6] = {u[0] * u[0], u[1] * u[1], u[2] * u[2], u[0] * u[1], u[0] * u[2], u[1] * u[2]};
            for (int c = 0; c < 6; ++c) moments[c] += b.m[body] * mu[c];
        }
        for (int c = 0; c < 6; ++c) {
            CAPTURE(c);
            CHECK(std::abs(t.node[(5 + c) * nodes + k] - moments[c]) <=
                  16 * double(t.levels + 2) * eps * mabs * diagonal2 + 4 * mabs * delta2);
        }
        double corner2 = 0;
        for (int a = 0; a < 3; ++a) {
            CHECK(lo(k, a) == l[a]);
            CHECK(hi(k, a) == h[a]);
            const double c = t.node[a * nodes + k], extent = h[a] - l[a] + std::abs(h[a]) + std::abs(l[a]);
            CHECK(std::abs(c - w[a] / m) <= 4 * double(end - begin) * eps * extent);
            const double r = std::max(hi(k, a) - c, c - lo(k, a));
            corner2 += r * r;
        }
        // The radius holds every body (about the device's centre) and is no larger than the
        // box's farthest corner: within rounding of both.
        double far2 = 0;
        for (std::size_t i = begin; i < end; ++i) {
            double d2 = 0;
            for (int a = 0; a < 3; ++a) {
                const double u = (*axes[a])[t.perm[i]] - t.node[a * nodes + k];
                d2 += u * u;
            }
            far2 = std::max(far2, d2);
        }
        const double radius = t.box[6 * nodes + k];
        CHECK(radius * radius >= far2 * (1 - 2 * eps));
        CHECK(radius * radius <= corner2 * (1 + 16 * eps));
        const double crit2 = t.node[4 * nodes + k];
        if (o.theta == 0)
            CHECK(crit2 == (precision == Precision::float64 ? DBL_MAX : double(FLT_MAX)));
        else
            CHECK(std::abs(crit2 - radius * radius / (o.theta * o.theta) * (1 + 8 * eps)) <= 8 * eps * crit2);
        if (split_checked && k < nodes / 2 && t.node[3 * nodes + 2 * k] > 0 &&
            t.node[3 * nodes + 2 * k + 1] > 0) {
            bool split = false;
            for (int a = 0; a < 3; ++a) split = split || hi(2 * k, a) <= lo(2 * k + 1, a);
            CHECK(split);
        }
    }
}

// The relative criterion as the walk applies it: each body's reference |a| and the accuracy
// (TreeOptions::relative_accuracy; 0: theta alone).
struct Relative {
    std::vector<double> reference;
    double accuracy = 0;
};

// What a host walk took: per body, the sum of the remainder bounds 4 G m r^3 / (d - r)^5 of the
// nodes it took whole (d its own distance from their centres, r their radii), and the
// interactions of all bodies (nodes and bodies acting on each).
struct Taken {
    std::vector<double> bound;
    std::size_t interactions = 0;
};

// The group walk of tree_force.cl on the host, in double, over the device's own tree: what the
// device must compute from that tree, to rounding. Groups of at most group_size bodies are the
// tree positions [p n / 2^L, (p + 1) n / 2^L) with L = levels_for(n, group_size); each walks
// once, deciding with the distance from a node's centre of mass to the group's box.
Forces host_traversal(const TreeSnapshot& t, const Bodies& b, GravityParameters p, std::size_t group_size,
                      const Relative& relative = {}, Taken* taken = nullptr) {
    const std::size_t n = b.size(), nodes = t.nodes(), leaves = nodes / 2;
    const std::size_t groups = std::size_t(1) << TreeGravity::levels_for(n, group_size);
    const double eps2 = p.softening * p.softening;
    const std::vector<double>* axes[3] = {&b.x, &b.y, &b.z};
    Forces f{std::vector<double>(3 * n, 0.0), std::vector<double>(n, 0.0)};
    if (taken) *taken = {std::vector<double>(n, 0.0), 0};
    for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t first = g * n / groups, last = (g + 1) * n / groups;
        if (first == last) continue;
        double lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = DBL_MAX, hi[a] = -DBL_MAX;
            for (std::size_t j = first; j < last; ++j) {
                lo[a] = std::min(lo[a], (*axes[a])[t.perm[j]]);
                hi[a] = std::max(hi[a], (*axes[a])[t.perm[j]]);
            }
        }
        double weakest = DBL_MAX;
        if (relative.accuracy > 0)
            for (std::size_t j = first; j < last; ++j) weakest = std::min(weakest, relative.reference[t.perm[j]]);
        // What acts on the group: nodes taken whole (mass, centre of mass, second moments,
        // radius) and bodies met one by one (no moments, radius -1).
        std::vector<std::array<double, 11>> sources;
        std::vector<std::size_t> stack{1};
        while (!stack.empty()) {
            const std::size_t k = stack.back();
            stack.pop_back();
            if (t.node[3 * nodes + k] == 0) continue;
            double d2 = 0;
            for (int a = 0; a < 3; ++a) {
                const double c = t.node[a * nodes + k];
                const double gap = std::max({lo[a] - c, c - hi[a], 0.0});
                d2 += gap * gap;
            }
            const double radius = t.box[6 * nodes + k], d = std::sqrt(d2);
            // The kernel's estimate: the first term left out, m r^3 / d^5, over (1 - r / d)^2.
            const bool within_estimate = relative.accuracy > 0 && d > radius &&
                                         t.node[3 * nodes + k] * std::pow(radius, 3) <=
                                             relative.accuracy / p.G * weakest * std::pow(d, 3) *
                                                 (d - radius) * (d - radius);
            if (d2 > t.node[4 * nodes + k] || within_estimate) {
                std::array<double, 11> source;
                for (int c = 0; c < 4; ++c) source[c] = t.node[c * nodes + k];
                for (int c = 0; c < 6; ++c) source[4 + c] = t.node[(5 + c) * nodes + k];
                source[10] = radius;
                sources.push_back(source);
            } else if (k >= leaves) {
                for (std::size_t j = t.begin(k); j < t.end(k); ++j) {
                    const std::size_t body = t.perm[j];
                    sources.push_back({b.x[body], b.y[body], b.z[body], b.m[body], 0, 0, 0, 0, 0, 0, -1});
                }
            } else {
                stack.push_back(2 * k + 1);
                stack.push_back(2 * k);
            }
        }
        if (taken) taken->interactions += (last - first) * sources.size();
        for (std::size_t j = first; j < last; ++j) {
            const std::size_t i = t.perm[j];
            double s[3] = {0, 0, 0}, sp = 0;
            for (const auto& [x, y, z, m, sxx, syy, szz, sxy, sxz, syz, radius] : sources) {
                const double d[3] = {x - b.x[i], y - b.y[i], z - b.z[i]};
                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if (r2 == 0) continue;  // only a body meets itself: nodes are farther
                if (taken && radius >= 0)
                    taken->bound[i] += 4 * p.G * m * std::pow(radius, 3) / std::pow(std::sqrt(r2) - radius, 5);
                const double R2 = r2 + eps2, R = std::sqrt(R2);
                const double sd[3] = {sxx * d[0] + sxy * d[1] + sxz * d[2],
                                      sxy * d[0] + syy * d[1] + syz * d[2],
                                      sxz * d[0] + syz * d[1] + szz * d[2]};
                const double dsd = d[0] * sd[0] + d[1] * sd[1] + d[2] * sd[2], trace = sxx + syy + szz;
                // The softened sum's second-order expansion about the centre of mass.
                for (int a = 0; a < 3; ++a)
                    s[a] += m * d[a] / (R2 * R) - 3 * sd[a] / (R2 * R2 * R) +
                            7.5 * dsd * d[a] / (R2 * R2 * R2 * R) - 1.5 * trace * d[a] / (R2 * R2 * R);
                sp += m / R + 1.5 * dsd / (R2 * R2 * R) - 0.5 * trace / (R2 * R);
            }
            for (int a = 0; a < 3; ++a) f.acc[a * n + i] = p.G * s[a];
            f.pot[i] = -p.G * sp;
        }
    }
    return f;
}

// In double, the device's walk against the host's over the same tree, relative to the
// magnitude sums (which bound the node terms too, within (1 + theta)^2).
void check_as_host_walk(const Forces& got, const Forces& want, const Reference& r, double theta) {
    const std::size_t n = got.pot.size();
    const double bound = 4 * (1 + theta) * (1 + theta) * DBL_EPSILON * (std::sqrt(double(n)) + 8);
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        double d2 = 0;
        for (int a = 0; a < 3; ++a) {
            const double d = got.acc[a * n + i] - want.acc[a * n + i];
            d2 += d * d;
        }
        CHECK(std::sqrt(d2) <= bound * r.magnitude.acc[i]);
        CHECK(std::abs(got.pot[i] - want.pot[i]) <= bound * r.magnitude.pot[i]);
    }
}

} // namespace

TEST_SUITE("tree") {

TEST_CASE("the device builds a kd-tree of the bodies, for any N") {
    const std::uint32_t seed = fresh_seed();
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t leaf_size : {1, 3, 8})
            for (std::size_t n : {1, 2, 3, 5, 31, 1000, 1023}) {
                INFO("seed " << seed << ", N " << n << ", " << std::string(to_string(precision))
                             << ", leaf " << leaf_size);
                const TreeOptions o{0.6, leaf_size};
                for (const Bodies& b : {random_bodies(n, seed), plummer(n, seed)}) {
                    const Bodies r = rounded(b, precision);
                    check_tree(build_tree(precision, r, {1.0, 0.01}, o).tree, r, o, precision);
                }
            }
}

TEST_CASE("the device walks its tree as the host reference walk does") {
    // In double, the device's sums over its own tree against the host's (same nodes accepted:
    // a decision could only differ for a group within rounding of a node's crit2). Groups of
    // 1 (per body), of 2 (smaller than the leaves of 4: slices of leaves) listed 5 at a time,
    // of 32 (nodes) alone, listed 32 at a time (the list applied every round that lists a
    // node) and 256 at a time.
    const std::uint32_t seed = fresh_seed();
    const Precision precision = Precision::float64;
    const std::pair<std::size_t, std::size_t> walks[] = {{1, 0}, {2, 5}, {32, 0}, {32, 32}, {32, 256}};
    for (std::size_t n : {2, 33, 1000}) {
        const GravityParameters p{0.75, 0.01};
        const Bodies b = plummer(n, seed);
        const Reference r = reference_forces(b, p);
        for (TreeTraversal traversal : {TreeTraversal::stackless, TreeTraversal::nested})
            for (const auto& walk : walks)
                for (double theta : {0.3, 0.7, 1.0}) {
                    const std::size_t group_size = walk.first, list_size = walk.second;
                    INFO("seed " << seed << ", N " << n << ", " << std::string(to_string(traversal))
                                 << ", theta " << theta << ", group " << group_size << ", list " << list_size);
                    const Built built =
                        build_tree(precision, b, p, {theta, 4, traversal, group_size, list_size});
                    const Forces want = host_traversal(built.tree, b, p, group_size);
                    check_as_host_walk(built.forces, want, r, theta);
                }
    }
}

TEST_CASE("a refitted tree keeps its order and is exact for its bodies where they moved") {
    // rebuild_every 3: build, refit, refit, build. Each refit's tree must be the built tree's
    // order with every node recomputed from the moved bodies (check_tree without the split,
    // which moving bodies break), and its walk the host's over it. A model restored from the
    // order after the first refit repeats that refit bit for bit (a resumed run's first
    // evaluation).
    const std::uint32_t seed = fresh_seed();
    Context& context = test_context();
    const GravityParameters p{1.0, 0.01};
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t n : {1, 5, 1000, 1023}) {
            INFO("seed " << seed << ", N " << n << ", " << std::string(to_string(precision)));
            TreeOptions o{0.6, 4};
            o.rebuild_every = 3;
            TreeGravity gravity(context, precision, p, o, memory_cache());
            RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
            Random random(seed + n);
            Bodies b = random_bodies(n, seed);
            std::vector<std::uint32_t> built_perm;
            for (int evaluation = 0; evaluation < 4; ++evaluation) {
                CAPTURE(evaluation);
                if (evaluation > 0)  // up to a tenth of the cube's edge along each axis
                    for (auto* v : {&b.x, &b.y, &b.z})
                        for (double& value : *v) value += random.uniform(-0.2, 0.2);
                const Bodies r = rounded(b, precision);
                DeviceBodies bodies(context, precision, r);
                gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
                const TreeSnapshot t = gravity.snapshot();
                const bool refitted = evaluation % 3 != 0;
                CHECK(gravity.order().age == std::size_t(evaluation % 3));
                check_tree(t, r, o, precision, !refitted);
                if (!refitted) {
                    built_perm = t.perm;
                    continue;
                }
                CHECK(t.perm == built_perm);
                if (precision == Precision::float64)
                    check_as_host_walk({acc.read(context.queue(0)), pot.read(context.queue(0))},
                                       host_traversal(t, r, p, o.group_size), reference_forces(r, p), o.theta);
                if (evaluation == 1) {
                    TreeGravity resumed(context, precision, p, o, memory_cache());
                    resumed.restore(gravity.order());
                    RealBuffer again(context, precision, 3 * n);
                    resumed.accelerations(bodies.state, bodies.mass, n, again, 0);
                    CHECK(resumed.order().age == 1);
                    CHECK(same_bits(again.read(context.queue(0)), acc.read(context.queue(0))));
                }
            }
        }
}

TEST_CASE("a refit whose leaves grew past rebuild_growth is a build") {
    // Bodies moved by a millionth of the cube keep their leaves' radii within a few percent:
    // refitted. Moved by a tenth of it, the leaves swell: built anew (age 0, one more build).
    // A model restored after the kept refit repeats it bit for bit, growth measure included.
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    Context& context = test_context();
    const std::size_t n = 2000;
    TreeOptions o{0.6, 8};
    o.rebuild_every = 8;
    o.rebuild_growth = 0.05;
    TreeGravity gravity(context, Precision::float64, {}, o, memory_cache());
    RealBuffer acc(context, Precision::float64, 3 * n);
    Bodies b = random_bodies(n, seed);
    Random random(seed);
    const auto evaluate = [&](double step) {
        for (auto* v : {&b.x, &b.y, &b.z})
            for (double& value : *v) value += random.uniform(-step, step);
        DeviceBodies bodies(context, Precision::float64, b);
        gravity.accelerations(bodies.state, bodies.mass, n, acc, 0);
        return bodies.state.read(context.queue(0));
    };
    evaluate(0);
    CHECK(gravity.builds() == 1);
    const std::vector<double> kept = evaluate(1e-6);
    CHECK(gravity.builds() == 1);
    const TreeGravity::Order order = gravity.order();
    CHECK(order.age == 1);
    CHECK(order.leaf_radii > 0);
    const std::vector<double> refitted = acc.read(context.queue(0));
    TreeGravity resumed(context, Precision::float64, {}, o, memory_cache());
    resumed.restore(order);
    RealBuffer state(context, Precision::float64, kept.size()), again(context, Precision::float64, 3 * n);
    state.write(context.queue(0), kept);
    resumed.accelerations(state, DeviceBodies(context, Precision::float64, b).mass, n, again, 0);
    CHECK(resumed.builds() == 0);
    CHECK(same_bits(again.read(context.queue(0)), refitted));
    evaluate(0.2);
    CHECK(gravity.builds() == 2);
    CHECK(gravity.order().age == 0);
    CHECK_THROWS_WITH_AS(resumed.restore({order.perm, 1, std::nan(""), {}}), doctest::Contains("radii"), UsageError);
}

TEST_CASE("the relative criterion takes nodes whole within its bound of the previous |a|") {
    // In double, unsoftened: the first evaluation has no reference and theta decides; the
    // second reads |a| from the first. The device must walk as the host does over the same
    // tree and reference, cost fewer interactions than theta alone, and every body's error
    // against the direct sum must lie within the remainder bounds of the nodes it took whole.
    // A model restored from the order after the second evaluation repeats it bit for bit.
    const std::uint32_t seed = fresh_seed();
    Context& context = test_context();
    const Precision precision = Precision::float64;
    const GravityParameters p{0.75, 0};
    const std::pair<std::size_t, std::size_t> walks[] = {{1, 0}, {32, 0}, {32, 128}};
    for (std::size_t n : {7, 1000, 3000}) {
        const Bodies b = plummer(n, seed + std::uint32_t(n));
        const Reference r = reference_forces(b, p);
        for (const auto& [group_size, list_size] : walks)
            for (double accuracy : {1e-4, 1e-2}) {
                INFO("seed " << seed << ", N " << n << ", group " << group_size << ", list " << list_size
                             << ", accuracy " << accuracy);
                TreeOptions o{0.3, 4, TreeTraversal::stackless, group_size, list_size};
                o.relative_accuracy = accuracy;
                TreeGravity gravity(context, precision, p, o, memory_cache());
                DeviceBodies bodies(context, precision, b);
                RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
                gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
                CHECK(gravity.order().reference.empty());
                const std::vector<double> first = acc.read(context.queue(0));
                Relative relative{std::vector<double>(n), accuracy};
                for (std::size_t i = 0; i < n; ++i)
                    relative.reference[i] = std::hypot(first[i], first[n + i], first[2 * n + i]);
                gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
                const Forces got{acc.read(context.queue(0)), pot.read(context.queue(0))};
                const TreeSnapshot t = gravity.snapshot();
                Taken by_theta, by_both;
                host_traversal(t, b, p, group_size, {}, &by_theta);
                check_as_host_walk(got, host_traversal(t, b, p, group_size, relative, &by_both), r, 1.0);
                // Fewer interactions: larger nodes taken whole (the smaller accuracy may add none).
                CHECK(by_both.interactions <= by_theta.interactions);
                if (accuracy == 1e-2 && n > 7) CHECK(by_both.interactions < by_theta.interactions);
                const double rounding = 8 * DBL_EPSILON * (std::sqrt(double(n)) + 8);
                for (std::size_t i = 0; i < n; ++i) {
                    CAPTURE(i);
                    double error2 = 0;
                    for (int a = 0; a < 3; ++a) error2 += std::pow(got.acc[a * n + i] - r.exact.acc[a * n + i], 2);
                    CHECK(std::sqrt(error2) <= by_both.bound[i] + rounding * r.magnitude.acc[i]);
                }
                const TreeGravity::Order order = gravity.order();
                REQUIRE(order.reference.size() == n);
                for (std::size_t i = 0; i < n; ++i)
                    CHECK(std::abs(order.reference[i] - relative.reference[i]) <= 4 * DBL_EPSILON * relative.reference[i]);
                TreeGravity resumed(context, precision, p, o, memory_cache());
                resumed.restore(order);
                RealBuffer again(context, precision, 3 * n);
                resumed.accelerations(bodies.state, bodies.mass, n, again, 0);
                CHECK(same_bits(again.read(context.queue(0)), got.acc));
            }
    }
}

TEST_CASE("continuation(): the next evaluation after restore() is the one the model would do next") {
    // A run's evaluations at moving positions, the tree refitted between builds (every 3rd
    // builds) and opened by the relative criterion, so that each depends on the ones before.
    // After the 2nd and 3rd (the next a refit, then a build): a model restored from
    // continuation() and the same model after an evaluation elsewhere that it undid with
    // restore() evaluate the rest as the uninterrupted model does, bit for bit.
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    Context& context = test_context();
    const Precision precision = Precision::float64;
    const GravityParameters p{1.0, 0.01};
    TreeOptions o{0.5, 4, TreeTraversal::stackless, 32, std::nullopt};
    o.rebuild_every = 3;
    o.relative_accuracy = 1e-2;
    const std::size_t n = 2000, evaluations = 6;
    const Bodies b = plummer(n, seed);
    std::vector<std::unique_ptr<DeviceBodies>> at;  // the positions of each evaluation, drifting
    for (std::size_t k = 0; k <= evaluations; ++k) {
        Bodies moved = b;
        for (std::size_t i = 0; i < n; ++i) {
            moved.x[i] += 0.01 * double(k) * b.vx[i];
            moved.y[i] += 0.01 * double(k) * b.vy[i];
            moved.z[i] += 0.01 * double(k) * b.vz[i];
        }
        at.push_back(std::make_unique<DeviceBodies>(context, precision, moved));
    }
    RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
    auto evaluate = [&](TreeGravity& gravity, std::size_t k) {
        gravity.accelerations(at[k]->state, at[k]->mass, n, acc, 0);
        return acc.read(context.queue(0));
    };
    TreeGravity whole(context, precision, p, o, memory_cache());
    std::vector<std::vector<double>> want;
    std::vector<TreeGravity::Order> after;  // continuation() after each evaluation
    for (std::size_t k = 0; k < evaluations; ++k) {
        want.push_back(evaluate(whole, k));
        after.push_back(whole.continuation());
    }
    CHECK(whole.builds() == 2);
    for (std::size_t cut : {1, 2}) {
        INFO("continued after evaluation " << cut);
        CHECK(after[cut].perm.empty() == (cut == 2));  // after the 3rd the next builds
        CHECK(after[cut].reference.size() == n);
        TreeGravity resumed(context, precision, p, o, memory_cache());
        resumed.restore(after[cut]);
        TreeGravity undone(context, precision, p, o, memory_cache());
        for (std::size_t k = 0; k <= cut; ++k) evaluate(undone, k);
        const TreeGravity::Order before = undone.continuation();
        undone.accelerations(at[evaluations]->state, at[evaluations]->mass, n, acc, 0, &pot);
        undone.restore(before);
        for (std::size_t k = cut + 1; k < evaluations; ++k) {
            CHECK(same_bits(evaluate(resumed, k), want[k]));
            CHECK(same_bits(evaluate(undone, k), want[k]));
        }
    }
}

TEST_CASE("refit and restore refuse what they cannot take") {
    Context& context = test_context();
    TreeOptions o;
    o.rebuild_every = 2;
    TreeGravity gravity(context, Precision::float32, {}, o, memory_cache());
    const Bodies b = random_bodies(10, 1);
    DeviceBodies bodies(context, Precision::float32, b);
    CHECK_THROWS_WITH_AS(gravity.refit(bodies.state, bodies.mass, 10), doctest::Contains("before build"), UsageError);
    gravity.build(bodies.state, bodies.mass, 10);
    CHECK_THROWS_WITH_AS(gravity.refit(bodies.state, bodies.mass, 9), doctest::Contains("build it anew"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{0, 1, 1}, 1, 0, {}}), doctest::Contains("body 1 twice"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{0, 3, 1}, 1, 0, {}}), doctest::Contains("body 3 out of range"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{0, 2, 1}, 2, 0, {}}), doctest::Contains("rebuilt every 2"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{0, 2, 1}, 1, 0, {1, 2}}), doctest::Contains("2 reference |a|"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{0, 2, 1}, 1, 0, {1, -2, 3}}), doctest::Contains("reference |a|"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.restore({{}, 0, 0, {1, INFINITY}}), doctest::Contains("reference |a|"), UsageError);
    for (double accuracy : {-0.1, 2.0, double(NAN)}) {
        TreeOptions bad;
        bad.relative_accuracy = accuracy;
        CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, bad, memory_cache()),
                             doctest::Contains("relative_accuracy"), UsageError);
    }
    o.rebuild_every = 0;
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, o, memory_cache()),
                         doctest::Contains("rebuild_every"), UsageError);
    o.rebuild_every = 2;
    o.rebuild_growth = -0.5;
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, o, memory_cache()),
                         doctest::Contains("rebuild_growth"), UsageError);
}

} // TEST_SUITE tree
