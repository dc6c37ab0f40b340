// Locally essential trees on 1, 2 and 3 ranks (suite `mpi`): each rank builds its branches and
// the top (as test_tree_branches.cpp does), EssentialExchange sends every other rank the nodes
// and bodies its groups may meet, and each rank walks its own groups. Every acceleration and
// potential must be the one-device walk's of all the bodies bit for bit, at every opening
// angle, in each of the walk's traversals, and with the relative criterion. Then the whole
// chain as a gravity model (EssentialTreeGravity) on bodies held anywhere, and moved to the
// ranks that walked them: again the one-device tree's results bit for bit.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/index_directory.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/essential_exchange.hpp>
#include <partcl/models/nbody/essential_tree_gravity.hpp>
#include <partcl/models/nbody/travelling_bodies.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include "support.hpp"
#include "tree_check.hpp"
#include "tree_ranks.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// The walk of `groups` in tree order (x | y | z, then the potentials), read back.
std::vector<double> walk(TreeGravity& tree, Range groups, std::size_t count) {
    Context& context = test_context();
    RealBuffer out(context, tree.precision(), 3 * count + 1), potential(context, tree.precision(), count + 1);
    tree.evaluate_in_tree_order(groups, out, &potential);
    std::vector<double> values(4 * count);
    if (count == 0) return values;
    out.read(context.queue(0), values.data(), 3 * count);
    potential.read(context.queue(0), values.data() + 3 * count, count);
    return values;
}

// The relative criterion's |a| from a first walk: the whole tree's of every body in global order,
// the branches' of this rank's bodies in the order they were given.
void remember_whole(TreeGravity& whole, const DeviceBodies& all, std::size_t n) {
    RealBuffer acc(test_context(), whole.precision(), 3 * n);
    whole.accelerations(all.state, all.mass, n, acc, 0);
}
void remember_branches(TreeGravity& tree, const std::vector<double>& first_walk, std::size_t held) {
    const std::vector<std::uint32_t> perm = tree.snapshot().perm;  // window position -> body given
    std::vector<double> acc(3 * held);
    for (std::size_t j = 0; j < held; ++j)
        for (std::size_t c = 0; c < 3; ++c) acc[c * held + perm[j]] = first_walk[c * held + j];
    RealBuffer buffer(test_context(), tree.precision(), 3 * held + 1);
    buffer.write(test_context().queue(0), acc);
    tree.remember(buffer, 0);
}

void check_essential(const dist::Communicator& world, Precision precision, const Bodies& b, const TreeOptions& o,
                     std::size_t level, std::uint32_t seed) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(level);
    CAPTURE(o.leaf_size);
    CAPTURE(o.group_size);
    CAPTURE(o.theta);
    CAPTURE(o.relative_accuracy);
    Context& context = test_context();
    TreeGravity whole(context, precision, {1.0, 0.01}, o, memory_cache());
    const DeviceBodies all(context, precision, b);
    RankBranches rank = build_rank_branches(world, precision, b, o, level, seed);
    TreeGravity& tree = *rank.tree;
    const std::size_t held = rank.index.size();
    const Range mine = rank.owners[std::size_t(world.rank())];
    const std::vector<double> roots = world.allgatherv(tree.node_rows(level, mine));
    tree.build_top(level, roots);
    EssentialExchange exchange(world);
    exchange.run(tree, rank.owners, roots);
    const Range groups = tree.branch_groups();
    REQUIRE(tree.tree_begin(groups.end) - tree.tree_begin(groups.begin) == held);
    whole.build(all.state, all.mass, n);
    std::vector<double> want = walk(whole, groups, held), got = walk(tree, groups, held);
    if (o.relative_accuracy > 0) {
        // A second walk reading each body's |a| from the first.
        remember_whole(whole, all, n);
        remember_branches(tree, got, held);
        want = walk(whole, groups, held);
        got = walk(tree, groups, held);
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += std::memcmp(&want[i], &got[i], sizeof(double)) != 0;
    CHECK(wrong == 0);
    // Opening every node (theta 0), every other rank's every body arrives, once, at a rank
    // with groups to walk (one that owns no nodes needs nothing).
    if (o.theta == 0 && o.relative_accuracy == 0) CHECK(exchange.bodies_received() == (held > 0 ? n - held : 0));
    // What all ranks sent is what all received.
    std::size_t sent = 0, received = 0;
    for (const std::size_t s : world.allgather(exchange.bodies_sent() + exchange.nodes_sent())) sent += s;
    for (const std::size_t r : world.allgather(exchange.bodies_received() + exchange.nodes_received())) received += r;
    CHECK(sent == received);
}

// EssentialTreeGravity on a random share of the bodies (their global indices through an
// IndexDirectory), then twice more, each time after every body moved to the rank that walked it.
void check_gravity(const dist::Communicator& world, Precision precision, const Bodies& b, const TreeOptions& o,
                   std::uint32_t seed) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(o.theta);
    CAPTURE(o.leaf_size);
    Context& context = test_context();
    Queue& queue = context.queue(0);
    TreeGravity whole(context, precision, {1.0, 0.01}, o, memory_cache());
    const DeviceBodies all(context, precision, b);
    RealBuffer all_acc(context, precision, 3 * n), all_pot(context, precision, n);
    whole.accelerations(all.state, all.mass, n, all_acc, 0, &all_pot);
    std::vector<double> want(3 * n), want_pot(n);
    all_acc.read(queue, want.data(), 3 * n);
    all_pot.read(queue, want_pot.data(), n);

    TravellingBodies mine;
    std::mt19937 random(seed);
    for (std::size_t g = 0; g < n; ++g)
        if (random() % std::uint32_t(world.size()) == std::uint32_t(world.rank())) mine.ids.push_back(std::uint32_t(g));
    const std::size_t first_held = mine.ids.size();
    mine.bodies.resize(first_held);
    for (std::size_t i = 0; i < first_held; ++i) {
        const std::size_t g = mine.ids[i];
        mine.bodies.x[i] = b.x[g];
        mine.bodies.y[i] = b.y[g];
        mine.bodies.z[i] = b.z[g];
        mine.bodies.m[i] = b.m[g];
    }
    TreeGravity local(context, precision, {1.0, 0.01}, o, memory_cache());
    EssentialTreeGravity gravity(world, local);
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        const std::size_t held = mine.ids.size(), room = std::max<std::size_t>(held, 1);
        const dist::IndexDirectory directory(world, mine.ids);
        gravity.set_directory(&directory);
        std::vector<double> xyz(3 * held);
        for (std::size_t i = 0; i < held; ++i) {
            xyz[i] = mine.bodies.x[i];
            xyz[held + i] = mine.bodies.y[i];
            xyz[2 * held + i] = mine.bodies.z[i];
        }
        RealBuffer pos(context, precision, 3 * room), mass(context, precision, room);
        RealBuffer acc(context, precision, 3 * room), pot(context, precision, room);
        pos.write(queue, xyz);
        mass.write(queue, mine.bodies.m);
        gravity.accelerations(pos, mass, held, acc, 0, &pot);
        std::vector<double> got(3 * room), got_pot(room);
        acc.read(queue, got.data(), 3 * room);
        pot.read(queue, got_pot.data(), room);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < held; ++i) {
            const std::size_t g = mine.ids[i];
            for (std::size_t c = 0; c < 3; ++c)
                wrong += std::memcmp(&got[c * held + i], &want[c * n + g], sizeof(double)) != 0;
            wrong += std::memcmp(&got_pot[i], &want_pot[g], sizeof(double)) != 0;
        }
        CHECK(wrong == 0);
        REQUIRE(gravity.walkers().size() == held);
        mine = move_bodies(world, gravity.walkers(), mine);
    }
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("EssentialTreeGravity: accelerations over ranks are one device's bit for bit, wherever the bodies are") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !test_context().device(0).info().fp64) continue;
        CAPTURE(to_string(precision));
        for (const std::size_t n : {1, 2, 100, 3001}) {
            const Bodies b = rounded(plummer(n, seed + std::uint32_t(n)), precision);
            for (const double theta : {0.0, 0.6}) {
                TreeOptions o;
                o.theta = theta;
                check_gravity(world, precision, b, o, seed + 7);
            }
        }
    }
    Context& context = test_context();
    TreeOptions refit;
    refit.rebuild_every = 4;
    TreeGravity refitted(context, Precision::float32, {1.0, 0.01}, refit, memory_cache());
    CHECK_THROWS_WITH_AS(EssentialTreeGravity(world, refitted), doctest::Contains("rebuild_every 4"), UsageError);
    TreeOptions relative;
    relative.relative_accuracy = 0.01;
    TreeGravity criterion(context, Precision::float32, {1.0, 0.01}, relative, memory_cache());
    CHECK_THROWS_WITH_AS(EssentialTreeGravity(world, criterion), doctest::Contains("relative criterion"), UsageError);
}

TEST_CASE("EssentialExchange: each rank's walk over its locally essential tree is the one-device walk bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !test_context().device(0).info().fp64) continue;
        CAPTURE(to_string(precision));
        for (const std::size_t n : {1, 100, 3001}) {
            const Bodies b = rounded(plummer(n, seed + std::uint32_t(n)), precision);
            for (const double theta : {0.0, 0.5, 1.0})
                for (const std::size_t leaf_size : {1, 8}) {
                    TreeOptions o;
                    o.theta = theta;
                    o.leaf_size = leaf_size;
                    const std::size_t deepest = std::min(TreeGravity::levels_for(n, leaf_size),
                                                         TreeGravity::levels_for(n, o.group_size));
                    for (const std::size_t level : {std::size_t(0), std::size_t(2), deepest})
                        if (level <= deepest) check_essential(world, precision, b, o, level, seed + std::uint32_t(level));
                }
            // The walk's other traversals: one body a group, nested, and the relative criterion.
            TreeOptions single;
            single.group_size = 1;
            single.theta = 0.7;
            check_essential(world, precision, b, single, std::min<std::size_t>(3, TreeGravity::levels_for(n, 8)), seed);
            TreeOptions nested;
            nested.traversal = TreeTraversal::nested;
            nested.list_size = 0;
            check_essential(world, precision, b, nested, std::min<std::size_t>(2, TreeGravity::levels_for(n, 32)), seed);
            TreeOptions relative;
            relative.theta = 0.8;
            relative.relative_accuracy = 0.01;
            check_essential(world, precision, b, relative, std::min<std::size_t>(2, TreeGravity::levels_for(n, 32)), seed);
        }
    }
}

TEST_CASE("EssentialExchange and import_essential refuse what does not fit the tree") {
    const dist::Communicator& world = dist::Communicator::self();
    const Bodies b = rounded(plummer(200, 7), Precision::float32);
    TreeOptions o;
    RankBranches rank = build_rank_branches(world, Precision::float32, b, o, 2, 7);
    TreeGravity& tree = *rank.tree;
    CHECK_THROWS_WITH_AS(tree.import_essential({}, {}, {}, {}), doctest::Contains("build_top() come first"),
                         UsageError);
    const std::vector<double> roots = tree.node_rows(2, {0, 4});
    tree.build_top(2, roots);
    CHECK_THROWS_WITH_AS(tree.import_essential({3}, std::vector<double>(11), {}, {}),
                         doctest::Contains("11 values for 1 nodes"), UsageError);
    CHECK_THROWS_WITH_AS(tree.import_essential({0}, std::vector<double>(12), {}, {}),
                         doctest::Contains("node 0 outside"), UsageError);
    CHECK_THROWS_WITH_AS(tree.import_essential({}, {}, {200}, std::vector<double>(4)),
                         doctest::Contains("tree position 200 in a tree of 200"), UsageError);
    EssentialExchange exchange(world);
    CHECK_THROWS_WITH_AS(exchange.run(tree, Partition::on_one_device(8, 1), roots), doctest::Contains("owners of 8 nodes"),
                         UsageError);
    CHECK_THROWS_WITH_AS(exchange.run(tree, rank.owners, std::vector<double>(18)),
                         doctest::Contains("18 root values"), UsageError);
    exchange.run(tree, rank.owners, roots);
    CHECK(exchange.nodes_sent() + exchange.bodies_sent() + exchange.nodes_received() == 0);
    RealBuffer out(test_context(), Precision::float32, 3 * 200);
    CHECK_THROWS_WITH_AS(tree.evaluate(out, 0), doctest::Contains("its rank's groups alone"), UsageError);
    const Range groups = tree.branch_groups();
    CHECK(groups.size() == tree.groups(200));
    CHECK_THROWS_WITH_AS(tree.evaluate_in_tree_order({0, groups.end + 1}, out), doctest::Contains("of a walk of"),
                         UsageError);
    // Groups larger than the branches' nodes would span several ranks.
    TreeOptions large;
    large.group_size = 128;
    RankBranches deep = build_rank_branches(world, Precision::float32, b, large, 3, 7);
    deep.tree->build_top(3, deep.tree->node_rows(3, {0, 8}));
    CHECK_THROWS_WITH_AS(deep.tree->import_essential({}, {}, {}, {}), doctest::Contains("would span several nodes"),
                         UsageError);
}
}
