// TreeGravity (Barnes-Hut over the device-built heap kd-tree) against the float64 dense
// reference: exact to rounding when every node is opened, within the error the opening angle
// allows otherwise; both traversals agree; leapfrog conserves energy with it. The tree itself
// and its walk: test_tree_structure.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/dense_reference.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/run/nbody_run.hpp>

#include "support.hpp"
#include "tree_check.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// Per body: |a_tree - a_exact| / (sum of term magnitudes), and the same for the potential.
struct Errors {
    std::vector<double> acc, pot;
    double worst() const {
        double w = 0;
        for (double e : acc) w = std::max(w, e);
        for (double e : pot) w = std::max(w, e);
        return w;
    }
};

Errors errors(const Forces& f, const Reference& r) {
    const std::size_t n = r.exact.pot.size();
    Errors e;
    for (std::size_t i = 0; i < n; ++i) {
        double d2 = 0;
        for (std::size_t a = 0; a < 3; ++a) {
            const double d = f.acc[a * n + i] - r.exact.acc[a * n + i];
            d2 += d * d;
        }
        const double dp = std::abs(f.pot[i] - r.exact.pot[i]);
        if (r.magnitude.acc[i] > 0) {
            e.acc.push_back(std::sqrt(d2) / r.magnitude.acc[i]);
            e.pot.push_back(dp / r.magnitude.pot[i]);
        } else {  // no partner at a non-zero distance: exactly nothing
            CHECK(d2 == 0);
            CHECK(f.pot[i] == 0);
        }
    }
    return e;
}

// The worst error the quadrupole approximation allows at opening angle theta, relative to the
// sum of the term magnitudes. A node accepted by a target at distance d from its centre of
// mass c holds its bodies within r <= theta d of c. The node's term is the second-order
// Taylor expansion about c of its bodies' softened terms, so the error of one body of mass m
// at c + u is the third-order remainder m |u|^3 / 6 max |D^3 f| with f = grad (1 / R),
// R = sqrt(|x|^2 + eps^2): |D^3 f| <= 24 / R^5 <= 24 / |x|^5 (the Legendre bound on the
// derivatives of 1 / R) with |x| >= d - r: at most 4 m r^3 / (d - r)^5, i.e.
// 4 theta^3 / (1 - theta)^5 of the node's m / d^2. Each body's own term is at least
// m / (d + r)^2, so relative to the bodies' magnitudes: times (1 + theta)^2. The potential's
// remainder, m r^3 / (d - r)^4, is smaller relative to its own terms.
double quadrupole_bound(double theta) {
    return 4 * theta * theta * theta * (1 + theta) * (1 + theta) / std::pow(1 - theta, 5);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

TEST_SUITE("tree") {

TEST_CASE("with every node opened (theta 0) the tree sums exactly what dense sums") {
    // theta = 0 makes every body meet every other body directly, leaf by leaf: the sum of
    // dense gravity in another order. Bound as tests/test_dense.cpp's: 4 ulp per sqrt(N) + 8
    // of the sum of the term magnitudes. A node or body dropped or counted twice exceeds it.
    // Leaves, walk groups and lists: per body; groups of 2 in leaves of 3 (slices of leaves,
    // some of one body) listed 5 at a time; groups of 32 over leaves of 8 (nodes), alone and
    // listed.
    const std::uint32_t seed = fresh_seed();
    struct Shape {
        std::size_t leaf_size, group_size, list_size;
    };
    const Shape shapes[] = {{1, 1, 0}, {3, 2, 5}, {8, 32, 0}, {8, 32, 256}};
    for (Precision precision : {Precision::float32, Precision::float64})
        for (TreeTraversal traversal : {TreeTraversal::stackless, TreeTraversal::nested})
            for (const Shape& shape : shapes)
                for (double softening : {0.05, 0.0})
                    for (std::size_t n : {1, 2, 3, 5, 31, 1000, 1023}) {
                        const std::size_t leaf_size = shape.leaf_size, group_size = shape.group_size,
                                          list_size = shape.list_size;
                        INFO("seed " << seed << ", N " << n << ", " << std::string(to_string(precision)) << ", "
                                     << std::string(to_string(traversal)) << ", leaf " << leaf_size
                                     << ", group " << group_size << ", list " << list_size
                                     << ", softening " << softening);
                        const GravityParameters p{0.75, softening};
                        const Bodies b = rounded(random_bodies(n, seed + std::uint32_t(n)), precision);
                        const Forces f =
                            tree_forces(precision, b, p, {0.0, leaf_size, traversal, group_size, list_size});
                        const Errors e = errors(f, reference_forces(b, p));
                        const double bound = 4 * epsilon(precision) * (std::sqrt(double(n)) + 8);
                        INFO("worst error " << e.worst() << ", bound " << bound);
                        CHECK(e.worst() <= bound);
                    }
}

TEST_CASE("coincident bodies: no partner at a non-zero distance means exactly nothing") {
    for (Precision precision : {Precision::float32, Precision::float64}) {
        Bodies b = random_bodies(5, 1);
        for (std::size_t i = 1; i < 5; ++i) b.x[i] = b.x[0], b.y[i] = b.y[0], b.z[i] = b.z[0];
        for (std::size_t group_size : {1, 2, 32})
            for (double theta : {0.0, 0.5, 1.0}) {
                const Forces f =
                    tree_forces(precision, b, {1.0, 0.0}, {theta, 2, TreeTraversal::stackless, group_size});
                for (double a : f.acc) CHECK(a == 0);
                for (double p : f.pot) CHECK(p == 0);
            }
    }
}

TEST_CASE("the error stays within what the opening angle allows, random and Plummer") {
    // The worst case of the quadrupole approximation (quadrupole_bound) holds for any input
    // and any group (a group takes a node whole only where each of its bodies would); the
    // tests above pin the tree and the walk down exactly, this one the approximation. The
    // walks of one work-item (list 0), stackless and nested, visit the same nodes in the
    // same order, so they agree to rounding; the listed walk (list 64) sums the same terms in
    // another order. A group takes nodes whole more rarely than its bodies would alone (it
    // opens them for its whole box), so at the same angle its typical error is no larger than
    // the per-body walk's.
    const std::uint32_t seed = fresh_seed();
    const std::size_t n = 2001;
    for (Precision precision : {Precision::float32, Precision::float64})
        for (const std::string kind : {"random", "plummer"}) {
            const GravityParameters p{1.0, 0.01};
            const Bodies b = rounded(kind == "random" ? random_bodies(n, seed) : plummer(n, seed),
                                     precision);
            const Reference r = reference_forces(b, p);
            const double rounding = 4 * epsilon(precision) * (std::sqrt(double(n)) + 8);
            double previous[2] = {0, 0};
            for (double theta : {0.1, 0.3, 0.6}) {
                double per_body_median = 0;
                for (std::size_t g : {0, 1}) {
                    const std::size_t group_size = g ? 32 : 1;
                    INFO("seed " << seed << ", " << kind << ", " << std::string(to_string(precision))
                                 << ", theta " << theta << ", group " << group_size);
                    const Forces stackless =
                        tree_forces(precision, b, p, {theta, 8, TreeTraversal::stackless, group_size, 0});
                    const Forces nested =
                        tree_forces(precision, b, p, {theta, 8, TreeTraversal::nested, group_size, 0});
                    const Errors e = errors(stackless, r);
                    const double bound = quadrupole_bound(theta) + rounding;
                    INFO("worst " << e.worst() << ", median " << median(e.acc) << ", bound " << bound);
                    CHECK(e.worst() <= bound);
                    // A larger angle accepts more nodes: the typical error grows.
                    CHECK(median(e.acc) >= previous[g]);
                    previous[g] = median(e.acc);
                    if (group_size == 1)
                        per_body_median = median(e.acc);
                    else
                        CHECK(median(e.acc) <= per_body_median);
                    for (std::size_t i = 0; i < 3 * n; ++i)
                        CHECK(std::abs(stackless.acc[i] - nested.acc[i]) <=
                              2 * epsilon(precision) * r.magnitude.acc[i % n]);
                    for (std::size_t i = 0; i < n; ++i)
                        CHECK(std::abs(stackless.pot[i] - nested.pot[i]) <=
                              2 * epsilon(precision) * r.magnitude.pot[i]);
                    if (group_size == 1) continue;  // groups of 1 are never listed
                    const Forces listed =
                        tree_forces(precision, b, p, {theta, 8, TreeTraversal::stackless, group_size, 64});
                    CHECK(errors(listed, r).worst() <= bound);
                    for (std::size_t i = 0; i < 3 * n; ++i)
                        CHECK(std::abs(listed.acc[i] - stackless.acc[i]) <= rounding * r.magnitude.acc[i % n]);
                    for (std::size_t i = 0; i < n; ++i)
                        CHECK(std::abs(listed.pot[i] - stackless.pot[i]) <= rounding * r.magnitude.pot[i]);
                }
            }
        }
}

TEST_CASE("one model serves systems of changing size") {
    Context& context = test_context();
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    const GravityParameters p{1.0, 0.05};
    TreeGravity gravity(context, Precision::float64, p, {0.0, 4}, memory_cache());
    for (std::size_t n : {1000, 3, 257}) {
        CAPTURE(n);
        const Bodies b = random_bodies(n, seed);
        DeviceBodies bodies(context, Precision::float64, b);
        RealBuffer acc(context, Precision::float64, 3 * n + 7), pot(context, Precision::float64, n);
        gravity.accelerations(bodies.state, bodies.mass, n, acc, 7, &pot);
        const auto a = acc.read(context.queue(0));
        const Errors e = errors({std::vector<double>(a.begin() + 7, a.end()), pot.read(context.queue(0))},
                                reference_forces(b, p));
        CHECK(e.worst() <= 4 * DBL_EPSILON * (std::sqrt(double(n)) + 8));
        CHECK(gravity.leaves() == std::size_t(1) << TreeGravity::levels_for(n, 4));
    }
}

TEST_CASE("bad use is refused with a clear error") {
    Context& context = test_context();
    for (double theta : {-0.1, 1.5, double(NAN)})
        CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, {theta}), doctest::Contains("theta"),
                             UsageError);
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, {0.5, 0}),
                         doctest::Contains("leaf_size"), UsageError);
    for (std::size_t group_size : {0, 48, 2048})
        CHECK_THROWS_WITH_AS(
            TreeGravity(context, Precision::float32, {}, {0.5, 8, TreeTraversal::stackless, group_size}),
            doctest::Contains("group_size must be a power of two in [1, 1024]"), UsageError);
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, {0.5, 8, TreeTraversal::stackless, 32, 4096}),
                         doctest::Contains("list_size must be in [0, 2048]"), UsageError);
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, {0.5, 8, TreeTraversal::stackless, 32, 16}),
                         doctest::Contains("list_size (16) must be 0 or at least group_size (32)"), UsageError);
    CHECK_THROWS_WITH_AS(TreeGravity(context, Precision::float32, {}, {0.5, 8, TreeTraversal::stackless, 1024, 1024}),
                         doctest::Contains("at most 512 bodies (got 1024)"), UsageError);
    // Groups of 1024 alone are fine (not listed).
    CHECK_NOTHROW(TreeGravity(context, Precision::float32, {}, {0.5, 8, TreeTraversal::stackless, 1024, 0}, memory_cache()));
    CHECK_THROWS_AS(TreeGravity(context, Precision::float32, {0.0, 0.1}), UsageError);
    CHECK_THROWS_AS(TreeGravity(context, Precision::float32, {1.0, -1.0}), UsageError);
    CHECK_THROWS_WITH_AS(parse_tree_traversal("recursive"), doctest::Contains("stackless"), UsageError);
    TreeGravity gravity(context, Precision::float32, {}, {}, memory_cache());
    // Unset, groups list 128 nodes at a time, larger groups one per body, and groups above 512
    // walk alone.
    CHECK(gravity.options().list_size == std::optional<std::size_t>(128));
    const TreeOptions large{0.5, 8, TreeTraversal::stackless, 256};
    CHECK(TreeGravity(context, Precision::float32, {}, large, memory_cache()).options().list_size ==
          std::optional<std::size_t>(256));
    const TreeOptions huge{0.5, 8, TreeTraversal::stackless, 1024};
    CHECK(TreeGravity(context, Precision::float32, {}, huge, memory_cache()).options().list_size ==
          std::optional<std::size_t>(0));
    RealBuffer short_buffer(context, Precision::float32, 5), doubles(context, Precision::float64, 30);
    CHECK_THROWS_AS(gravity.accelerations(short_buffer, short_buffer, 10, short_buffer, 0), UsageError);
    CHECK_THROWS_AS(gravity.accelerations(doubles, doubles, 10, doubles, 0), UsageError);
    CHECK_THROWS_WITH_AS(gravity.evaluate(short_buffer, 0), doctest::Contains("before build"), UsageError);
    CHECK_THROWS_WITH_AS(gravity.build(short_buffer, short_buffer, 0), doctest::Contains("N = 0"), UsageError);
    // A NaN or an infinity among the positions, in any place of a large system (the root box's
    // partial boxes and their reduction both meet it), is named before any sort meets it.
    const std::size_t n = 5000;
    std::vector<double> xyz(3 * n);
    for (std::size_t i = 0; i < xyz.size(); ++i) xyz[i] = std::sin(0.37 * double(i));
    RealBuffer mass(context, Precision::float32, n), out(context, Precision::float32, 3 * n);
    mass.write(context.queue(0), std::vector<double>(n, 1.0 / double(n)));
    for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -1e300})
        for (const std::size_t at : {std::size_t(0), n + 4321, 3 * n - 1}) {
            CAPTURE(bad);
            CAPTURE(at);
            std::vector<double> with = xyz;
            with[at] = bad;
            RealBuffer pos(context, Precision::float32, 3 * n);
            pos.write(context.queue(0), with);
            const std::string message = std::string(1, "xyz"[at / n]) + " coordinate is NaN or infinite";
            CHECK_THROWS_WITH_AS(gravity.build(pos, mass, n), doctest::Contains(message.c_str()), UsageError);
            CHECK_THROWS_WITH_AS(gravity.evaluate(out, 0), doctest::Contains("before build"), UsageError);
        }
    RealBuffer pos(context, Precision::float32, 3 * n);
    pos.write(context.queue(0), xyz);
    gravity.accelerations(pos, mass, n, out, 0);  // the model works on after a refusal
}

TEST_CASE("leapfrog with tree gravity conserves energy over 1000 steps") {
    // A Plummer sphere (G = M = a = 1, crossing time ~ 1) of 200 bodies, eps = 0.05,
    // dt = 0.005: 1000 steps are 5 time units. Leapfrog with exact forces keeps the energy
    // error bounded (measured alongside with dense gravity); the tree's forces are not
    // exactly the gradient of its potential, they jump where a node's opening changes, and
    // the measured energy itself uses the tree potential. Walk: theta 0.5 in groups of 8
    // (groups of 32 open nearly every node of 200 bodies: the direct sum, nothing tested;
    // checked below: the tree's forces differ from it). Bound 1.5e-3 plus 10x leapfrog's own;
    // measured over four seeds: 2.8e-4 to 6.9e-4 for the tree (median force error 2.7e-4 to
    // 4.3e-4 of the term magnitudes), 8e-7 to 5e-6 for dense.
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    Context& context = test_context();
    const Bodies initial = plummer(200, seed);
    const GravityParameters p{1.0, 0.05};
    auto drift = [&](GravityModel& gravity) {
        DeviceBodies bodies(context, Precision::float64, initial);
        NBodySystem system(context, gravity, bodies);
        VectorOps ops(context, Precision::float64, memory_cache());
        auto integrator = make_integrator("leapfrog", ops, 6 * initial.size(), {});
        const Derivative f = system.derivative();
        auto energy = [&] {
            return measure(bodies.download(context.queue(0)), system.potentials()).total();
        };
        const double e0 = energy();
        double t = 0, worst = 0;
        for (int step = 1; step <= 1000; ++step) {
            t += integrator->step(f, t, bodies.state, 0.005);
            if (step % 100 == 0) worst = std::max(worst, std::abs(energy() - e0) / std::abs(e0));
        }
        return worst;
    };
    DenseGravity dense(context, Precision::float64, p, {}, memory_cache());
    const TreeOptions options{0.5, 8, TreeTraversal::stackless, 8};
    TreeGravity tree(context, Precision::float64, p, options, memory_cache());
    const double approximation = errors(tree_forces(Precision::float64, initial, p, options),
                                        reference_forces(initial, p)).worst();
    CHECK(approximation > 1e-8);  // rounding alone: ~1e-14
    const double dense_drift = drift(dense), tree_drift = drift(tree);
    INFO("energy drift: dense " << dense_drift << ", tree " << tree_drift);
    CHECK(tree_drift <= 1.5e-3 + 10 * dense_drift);
    MESSAGE("energy drift over 1000 steps: dense " << dense_drift << ", tree (theta 0.5, groups of 8) "
                                                   << tree_drift);
}

TEST_CASE("a scenario asks for the tree; a run uses it, resumable as any run") {
    const Scenario parsed = parse_scenario("[gravity]\nmodel = \"tree\"\ntheta = 0.7\nleaf_size = 4\n"
                                           "traversal = \"nested\"\ngroup_size = 64\n",
                                           "tree.toml");
    CHECK(parsed.gravity_model == GravityModelKind::tree);
    CHECK(parsed.tree.theta == 0.7);
    CHECK(parsed.tree.leaf_size == 4);
    CHECK(parsed.tree.traversal == TreeTraversal::nested);
    CHECK(parsed.tree.group_size == 64);
    CHECK(parse_scenario(to_toml(parsed), "again.toml").tree.traversal == TreeTraversal::nested);
    CHECK(parse_scenario(to_toml(parsed), "again.toml").tree.group_size == 64);
    CHECK(builtin_scenario("plummer").tree.group_size == 32);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\ntheta = 1.5\n", "t.toml"),
                         doctest::Contains("t.toml:2: [gravity] theta must be in [0, 1] (got 1.5)"),
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\nleaf_size = 0\n", "t.toml"),
                         doctest::Contains("leaf_size must be in [1"), UsageError);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\ntraversal = \"recursive\"\n", "t.toml"),
                         doctest::Contains("not a tree traversal"), UsageError);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\ngroup_size = 48\n", "t.toml"),
                         doctest::Contains("group_size must be a power of two in [1, 1024] (got 48)"),
                         UsageError);
    // The way over ranks: the gather unless asked, essential trees only where they rebuild and
    // open by theta alone.
    CHECK(parsed.tree_ranks == TreeRanks::gather);
    const Scenario essential = parse_scenario("[gravity]\nmodel = \"tree\"\nranks = \"essential\"\n", "e.toml");
    CHECK(essential.tree_ranks == TreeRanks::essential);
    CHECK(parse_scenario(to_toml(essential), "again.toml").tree_ranks == TreeRanks::essential);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\nranks = \"scatter\"\n", "t.toml"),
                         doctest::Contains("not a way over ranks"), UsageError);
    CHECK_THROWS_WITH_AS(parse_scenario("[gravity]\nranks = \"essential\"\nrebuild_every = 4\n", "t.toml"),
                         doctest::Contains("ranks must be \"gather\" with rebuild_every > 1"), UsageError);

    // A short run and the same run interrupted and resumed: the tree is rebuilt from the state
    // each evaluation, so the resumed run is bitwise the uninterrupted one. (Energy is the
    // business of the leapfrog test above.)
    Scenario s = builtin_scenario("plummer");
    s.n = 301;
    s.seed = fresh_seed();
    INFO("seed " << s.seed);
    s.gravity_model = GravityModelKind::tree;
    s.tree = {0.5, 8, TreeTraversal::stackless, 32};
    s.steps = 40;
    s.frame_every = 0;
    s.snapshot_every = 0;
    TempDir whole("whole"), split("split");
    const NBodyRunSummary summary = NBodyRun(test_context(), s, whole.path()).run();
    CHECK(summary.last_step == 40);
    CHECK(contains(read_checkpoint(whole / "checkpoint.bin").scenario_toml, "model = \"tree\""));
    Scenario first = s;
    first.steps = 20;
    NBodyRun(test_context(), first, split.path()).run();
    NBodyRun::resume(test_context(), split / "checkpoint.bin", split.path(), RunLength{40}).run();
    CHECK(read_checkpoint(whole / "checkpoint.bin").state ==
          read_checkpoint(split / "checkpoint.bin").state);
}

} // TEST_SUITE tree
