// Locally essential trees' subtrees on 1, 2 and 3 ranks (suite `mpi`): each rank holds a
// random share of the bodies, TreeTop finds the top levels and the nodes each rank owns, a
// Distributor moves the bodies there, and each rank builds its nodes' subtrees on its device
// (TreeGravity::build_branches), then the top of the tree from every rank's subtree roots
// (node_rows, build_top). Every node of the top and of the rank's subtrees, and the bodies'
// order in them, must be the one-device tree's of all the bodies bit for bit.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include "support.hpp"
#include "tree_check.hpp"
#include "tree_ranks.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// Whether the bits of `count` values agree.
bool same_bits(const double* a, const double* b, std::size_t count) {
    return std::memcmp(a, b, count * sizeof(double)) == 0;
}

void check_branches(const dist::Communicator& world, Precision precision, const Bodies& b, TreeOptions o,
                    std::size_t top_levels, std::uint32_t seed) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(top_levels);
    CAPTURE(o.leaf_size);
    Context& context = test_context();
    // The one-device tree of all the bodies, in global order.
    TreeGravity whole(context, precision, {1.0, 0.01}, o, memory_cache());
    const DeviceBodies all(context, precision, b);
    whole.build(all.state, all.mass, n);
    const TreeSnapshot want = whole.snapshot();
    // This rank's random share moved to its nodes' owners and built into branches, then the
    // top from every rank's subtree roots, in node order.
    RankBranches rank = build_rank_branches(world, precision, b, o, top_levels, seed);
    TreeGravity& branches = *rank.tree;
    const Range mine = rank.owners[std::size_t(world.rank())];
    branches.build_top(top_levels, world.allgatherv(branches.node_rows(top_levels, mine)));
    const TreeSnapshot got = branches.snapshot();
    REQUIRE(got.levels == want.levels);
    const std::size_t held = rank.index.size();
    REQUIRE(got.perm.size() == held);
    // Every node of the top and of this rank's subtrees, all 11 fields and 7 of the box.
    const std::size_t nodes = want.nodes();
    std::size_t wrong = 0, compared = 0;
    for (std::size_t level = 0; level <= want.levels; ++level) {
        const std::size_t count = std::size_t(1) << level;
        const std::size_t shift = level > top_levels ? level - top_levels : 0;
        const Range run = level < top_levels ? Range{0, count} : Range{mine.begin << shift, mine.end << shift};
        for (std::size_t p = run.begin; p < run.end; ++p) {
            const std::size_t k = count + p;
            for (std::size_t f = 0; f < 11; ++f) wrong += !same_bits(&got.node[f * nodes + k], &want.node[f * nodes + k], 1);
            for (std::size_t f = 0; f < 7; ++f) wrong += !same_bits(&got.box[f * nodes + k], &want.box[f * nodes + k], 1);
            ++compared;
        }
    }
    CHECK(wrong == 0);
    CHECK(compared == (std::size_t(1) << top_levels) - 1 +
                          mine.size() * ((std::size_t(2) << (want.levels - top_levels)) - 1));
    // The bodies' order over the run's positions.
    const std::size_t base = tree_start(mine.begin, std::size_t(1) << top_levels, n);
    std::size_t misplaced = 0;
    for (std::size_t i = 0; i < held; ++i) misplaced += rank.index[got.perm[i]] != want.perm[base + i];
    CHECK(misplaced == 0);
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("TreeGravity::build_branches and build_top build a rank's part of the one-device tree bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !test_context().device(0).info().fp64) continue;
        CAPTURE(to_string(precision));
        for (const std::size_t n : {1, 5, 100, 3001}) {
            for (const std::size_t leaf_size : {1, 8}) {
                TreeOptions o;
                o.leaf_size = leaf_size;
                o.theta = 0.6;
                const std::size_t deepest = TreeGravity::levels_for(n, leaf_size);
                const Bodies b = rounded(plummer(n, seed + std::uint32_t(n)), precision);
                for (const std::size_t levels : {std::size_t(0), std::size_t(1), std::size_t(3), deepest})
                    if (levels <= deepest) check_branches(world, precision, b, o, levels, seed + std::uint32_t(levels));
            }
        }
    }
}

TEST_CASE("TreeGravity::build_branches refuses runs and bodies that do not fit the tree") {
    Context& context = test_context();
    TreeGravity tree(context, Precision::float32, {1.0, 0.01}, TreeOptions{}, memory_cache());
    RealBuffer pos(context, Precision::float32, 30), mass(context, Precision::float32, 10);
    // Bodies the valid call below builds from (unwritten memory could hold NaN, which no build
    // orders).
    std::vector<double> xyz(30);
    for (std::size_t i = 0; i < xyz.size(); ++i) xyz[i] = 0.1 * double(i);
    pos.write(context.queue(0), xyz);
    mass.write(context.queue(0), std::vector<double>(10, 1.0));
    const std::vector<double> cells(6 * 4, 0.0);  // level 1: nodes 1 .. 3
    const std::size_t total = 100;  // leaves of 8 (TreeOptions' default): 4 levels
    CHECK_THROWS_WITH_AS(tree.build_branches(pos, mass, 10, 0, 1, {0, 1}, cells), doctest::Contains("N = 0"), UsageError);
    CHECK_THROWS_WITH_AS(tree.build_branches(pos, mass, 10, total, 9, {0, 1}, cells), doctest::Contains("level 9"),
                         UsageError);
    CHECK_THROWS_WITH_AS(tree.build_branches(pos, mass, 10, total, 1, {1, 3}, cells), doctest::Contains("nodes [1, 3)"),
                         UsageError);
    CHECK_THROWS_WITH_AS(tree.build_branches(pos, mass, 10, total, 1, {0, 1}, cells),
                         doctest::Contains("10 bodies for nodes holding 50"), UsageError);
    CHECK_THROWS_WITH_AS(tree.build_branches(pos, mass, 10, 20, 1, {0, 1}, std::vector<double>(6)),
                         doctest::Contains("cell box values"), UsageError);
    CHECK_THROWS_WITH_AS(tree.node_rows(2, {0, 1}), doctest::Contains("no tree built"), UsageError);
    // Branches alone are not walked.
    tree.build_branches(pos, mass, 10, 20, 1, {0, 1}, cells);
    RealBuffer acc(context, Precision::float32, 30);
    CHECK_THROWS_WITH_AS(tree.evaluate(acc, 0), doctest::Contains("branches alone"), UsageError);
    CHECK_THROWS_WITH_AS(tree.node_rows(2, {0, 5}), doctest::Contains("nodes [0, 5) of level 2"), UsageError);
    CHECK_THROWS_WITH_AS(tree.build_top(1, std::vector<double>(18)), doctest::Contains("18 values for the 2 nodes"),
                         UsageError);
    CHECK_THROWS_WITH_AS(tree.build_top(7, std::vector<double>(18 << 7)), doctest::Contains("level 7"), UsageError);
}
}
