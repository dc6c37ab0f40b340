// TreeGravity over several devices of one context: the tree built on device 0, its walk split by
// ranges of groups. Every body's acceleration and potential must be the one-device result bit for
// bit, for every walk (nested, stackless, listed), precision and split, including forced 1:3
// weights, devices left without groups (N below the device count) and the re-weighted splits of
// later walks. Registered by partcl_add_split_tests(tree): two and three PoCL devices, and
// Oclgrind's one device named several times (small sizes there).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <partcl/models/nbody/tree_gravity.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

struct Walk {
    const char* name;
    TreeOptions options;
};

// theta 0.6 (nodes taken whole and leaves opened), leaves of 4 so that small N has levels.
std::vector<Walk> walks() {
    const double theta = 0.6;
    return {{"per body, nested", {theta, 4, TreeTraversal::nested, 1, std::nullopt}},
            {"groups of 8, stackless", {theta, 4, TreeTraversal::stackless, 8, std::size_t(0)}},
            {"groups of 16, nested", {theta, 4, TreeTraversal::nested, 16, std::size_t(0)}},
            {"groups of 16, listed", {theta, 4, TreeTraversal::stackless, 16, std::size_t(16)}},
            {"groups of 32, listed (default list)", {theta, 4, TreeTraversal::stackless, 32, std::nullopt}}};
}

std::vector<std::size_t> sizes() {
    if (under_oclgrind()) return {1, 2, 70};
    return {1, 2, 45, 1000, 4099};
}

// 1 : 3 : 1 ...: device d weighs 3 when d is odd.
Scheduler forced_weights(std::size_t devices) {
    std::vector<double> w(devices);
    for (std::size_t d = 0; d < devices; ++d) w[d] = d % 2 ? 3.0 : 1.0;
    return Scheduler(w);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    // (memcmp may not take the null data() of empty vectors.)
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Positions (x | y | z) and masses on a context, each buffer written whole: Oclgrind 21.10
// reports kernels' reads of a buffer written in pieces at offsets (DeviceBodies::upload) as
// reads of uninitialized memory.
struct Inputs {
    Inputs(Context& context, Precision precision, const Bodies& b)
        : n(b.size()), positions(context, precision, 3 * n), mass(context, precision, n) {
        std::vector<double> xyz(b.x);
        xyz.insert(xyz.end(), b.y.begin(), b.y.end());
        xyz.insert(xyz.end(), b.z.begin(), b.z.end());
        positions.write(context.queue(0), xyz);
        mass.write(context.queue(0), b.m);
    }
    std::size_t n;
    RealBuffer positions, mass;
};

struct Result {
    std::vector<double> acc, pot;  // acc: the whole output buffer, x | y | z after 3n
};

// One evaluation of `gravity` into a buffer of 6n with the accelerations at 3n (as an
// integrator's derivative), the buffers written with -7 beforehand to show what is left unwritten.
Result evaluate(Context& context, TreeGravity& gravity, Inputs& in, bool potential) {
    const std::size_t n = in.n;
    RealBuffer acc(context, gravity.precision(), 6 * n), pot(context, gravity.precision(), n);
    acc.write(context.queue(0), std::vector<double>(6 * n, -7.0));
    pot.write(context.queue(0), std::vector<double>(n, -7.0));
    gravity.accelerations(in.positions, in.mass, n, acc, 3 * n, potential ? &pot : nullptr);
    Result r{acc.read(context.queue(0)), {}};
    if (potential) r.pot = pot.read(context.queue(0));
    return r;
}

} // namespace

TEST_SUITE("split_tree") {

TEST_CASE("the walk over two and three devices gives the one-device forces bit for bit") {
    Context one(std::vector<Device>{test_context().device(0)});
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    // Under Oclgrind each walk runs in one precision per split (the other in the other split),
    // with one re-weighted walk after the forced one.
    const bool small = under_oclgrind();
    for (std::size_t parts : {2, 3}) {
        Context split = split_context(parts);
        REQUIRE(split.size() == parts);
        const std::vector<Walk> all = walks();
        for (std::size_t w = 0; w < all.size(); ++w)
            for (Precision precision : {Precision::float32, Precision::float64}) {
                if (precision == Precision::float64 && !one.device(0).info().fp64) continue;
                if (small && (w + parts + (precision == Precision::float64)) % 2) continue;
                const Walk& walk = all[w];
                TreeGravity single(one, precision, {1.0, 0.05}, walk.options, memory_cache());
                TreeGravity spread(split, precision, {1.0, 0.05}, walk.options, memory_cache());
                for (std::size_t n : sizes()) {
                    CAPTURE(parts);
                    CAPTURE(to_string(precision));
                    CAPTURE(walk.name);
                    CAPTURE(n);
                    const Bodies b = random_bodies(n, seed + std::uint32_t(n));
                    Inputs on_one(one, precision, b), on_split(split, precision, b);
                    for (bool potential : {false, true}) {
                        CAPTURE(potential);
                        const Result expected = evaluate(one, single, on_one, potential);
                        const auto half = expected.acc.begin() + std::ptrdiff_t(3 * n);
                        REQUIRE(std::all_of(expected.acc.begin(), half, [](double v) { return v == -7.0; }));
                        REQUIRE(std::none_of(half, expected.acc.end(), [](double v) { return v == -7.0; }));
                        // Forced 1:3 first, then the scheduler's re-weighted splits.
                        spread.scheduler() = forced_weights(parts);
                        for (int launch = 0; launch < (small ? 2 : 3); ++launch) {
                            CAPTURE(launch);
                            const Result got = evaluate(split, spread, on_split, potential);
                            CHECK(same_bits(got.acc, expected.acc));
                            CHECK(same_bits(got.pot, expected.pot));
                        }
                    }
                }
            }
    }
}

TEST_CASE("a range of groups walked in tree order gives those bodies' one-device results bit for bit") {
    // What a rank of DistributedTreeGravity walks: any range, cut between the devices.
    Context one(std::vector<Device>{test_context().device(0)});
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    const std::vector<Walk> all = walks();
    for (std::size_t parts : {2, 3}) {
        Context split = split_context(parts);
        for (std::size_t w : {std::size_t(1), std::size_t(4)}) {
            const Precision precision = w == 1 && one.device(0).info().fp64 ? Precision::float64 : Precision::float32;
            TreeGravity single(one, precision, {1.0, 0.05}, all[w].options, memory_cache());
            TreeGravity spread(split, precision, {1.0, 0.05}, all[w].options, memory_cache());
            spread.scheduler() = forced_weights(parts);
            const std::size_t n = under_oclgrind() ? 70 : 1000;
            CAPTURE(parts);
            const std::string walk_name = all[w].name;
            CAPTURE(walk_name);
            const Bodies b = random_bodies(n, seed + std::uint32_t(parts));
            Inputs on_one(one, precision, b), on_split(split, precision, b);
            const Result expected = evaluate(one, single, on_one, true);
            spread.build(on_split.positions, on_split.mass, n);
            const std::size_t groups = spread.groups(n);
            const std::vector<std::uint32_t> perm = spread.permutation().read(split.queue(0));
            for (const Range range : {Range{0, groups}, Range{groups / 3, groups / 3 + 1},
                                      Range{1, groups - 1}, Range{groups / 2, groups}, Range{groups / 2, groups / 2}}) {
                CAPTURE(range.begin);
                CAPTURE(range.end);
                const std::size_t first = spread.tree_begin(range.begin),
                                  count = spread.tree_begin(range.end) - first;
                const std::size_t k = std::max<std::size_t>(count, 1);
                RealBuffer acc(split, precision, 3 * k), pot(split, precision, k);
                acc.write(split.queue(0), std::vector<double>(3 * k, -7.0));
                pot.write(split.queue(0), std::vector<double>(k, -7.0));
                spread.evaluate_in_tree_order(range, acc, &pot);
                const std::vector<double> got = acc.read(split.queue(0)), got_pot = pot.read(split.queue(0));
                std::vector<double> want(3 * count), want_pot(count), have(3 * count), have_pot(count);
                for (std::size_t j = 0; j < count; ++j) {
                    const std::size_t body = perm[first + j];
                    for (std::size_t c = 0; c < 3; ++c) {
                        want[c * count + j] = expected.acc[3 * n + c * n + body];
                        have[c * count + j] = got[c * count + j];
                    }
                    want_pot[j] = expected.pot[body];
                    have_pot[j] = got_pot[j];
                }
                CHECK(same_bits(have, want));
                CHECK(same_bits(have_pot, want_pot));
            }
            RealBuffer whole(split, precision, 3 * n);
            CHECK_THROWS_AS(spread.evaluate_in_tree_order({0, groups + 1}, whole), UsageError);
        }
    }
}

TEST_CASE("1:3 weights give one device a quarter of the groups, and the walk re-weights") {
    Context split = split_context(2);
    const std::size_t n = under_oclgrind() ? 300 : 3001;
    const Bodies b = random_bodies(n, fresh_seed());
    const Precision precision = Precision::float32;
    // Listed groups of 16: any range of groups is a whole number of work-groups.
    TreeGravity gravity(split, precision, {1.0, 0.05},
                        {0.6, 4, TreeTraversal::stackless, 16, std::size_t(16)}, memory_cache());
    REQUIRE(gravity.granule() == 1);
    Inputs bodies(split, precision, b);
    const std::size_t groups = gravity.groups(n);
    gravity.scheduler() = forced_weights(2);
    const Partition forced = gravity.scheduler().split(groups, gravity.granule());
    CHECK(forced[0].size() == groups / 4);
    evaluate(split, gravity, bodies, false);
    const std::vector<DeviceWork>& work = gravity.launches().at(0)->work();
    CHECK(work[0].items == double(groups / 4));
    CHECK(work[1].items == double(groups - groups / 4));
    // Timed slices of two equal devices: the weights move off 1:3 (toward even).
    const std::vector<double> weights = gravity.scheduler().weights();
    CHECK(weights[0] != doctest::Approx(0.25).epsilon(1e-9));
    CHECK(weights[0] + weights[1] == doctest::Approx(1.0));
}

TEST_CASE("the walk is the model's one launch; its work adds up to the groups walked") {
    for (std::size_t parts : {2, 3}) {
        CAPTURE(parts);
        Context split = split_context(parts);
        TreeGravity gravity(split, Precision::float32, {1.0, 0.05},
                            {0.6, 4, TreeTraversal::stackless, 16, std::size_t(16)}, memory_cache());
        const LaunchList launches = gravity.launches();
        REQUIRE(launches.size() == 1);
        CHECK(launches[0]->name() == "tree walk");
        double groups = 0;
        std::size_t evaluations = 0;
        for (std::size_t n : under_oclgrind() ? std::vector<std::size_t>{1, 150, 45}
                                               : std::vector<std::size_t>{1, 5000, 777}) {
            Inputs bodies(split, Precision::float32, random_bodies(n, fresh_seed()));
            for (int launch = 0; launch < 2; ++launch) {
                evaluate(split, gravity, bodies, launch == 1);
                groups += double(gravity.groups(n));
                ++evaluations;
            }
        }
        const std::vector<DeviceWork>& work = launches[0]->work();
        REQUIRE(work.size() == parts);
        double items = 0;
        std::size_t most_launches = 0;
        for (const DeviceWork& w : work) {
            items += w.items;
            most_launches = std::max(most_launches, w.launches);
            if (w.launches) CHECK(w.seconds > 0);
        }
        CHECK(items == groups);
        CHECK(most_launches <= evaluations);
        CHECK(work[0].launches + work[1].launches > evaluations);  // the larger N were split
    }
}

TEST_CASE("on a one-device context the walk is one launch of all the groups") {
    Context one(std::vector<Device>{test_context().device(0)});
    TreeGravity gravity(one, Precision::float32, {1.0, 0.05}, TreeOptions{}, memory_cache());
    const std::size_t n = under_oclgrind() ? 100 : 2000;
    Inputs bodies(one, Precision::float32, random_bodies(n, fresh_seed()));
    evaluate(one, gravity, bodies, true);
    const DeviceWork& work = gravity.launches().at(0)->work().at(0);
    CHECK(work.launches == 1);
    CHECK(work.items == double(gravity.groups(n)));
}

} // TEST_SUITE split_tree
