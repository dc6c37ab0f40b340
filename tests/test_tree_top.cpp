// TreeTop on 1, 2 and 3 ranks (suite `mpi`): each rank holds a random share of the bodies in a
// random order, and every body's node at the top levels must be the one it has in
// TreeGravity's tree of all of them, built on one device (its perm). Plummer spheres, rounded
// to float where float is asked (bodies there share coordinates now and then), and bodies on
// a lattice of four values an axis, whose ties only the ancestors' axes and the indices break.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/tree_top.hpp>

#include "support.hpp"
#include "tree_check.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

Bodies lattice(std::size_t n, std::uint32_t seed) {
    std::mt19937 random(seed);
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = double(random() % 4);
        b.y[i] = double(random() % 4) * 0.5;
        b.z[i] = double(random() % 4) * 0.25;
        b.m[i] = 1;
    }
    return b;
}

// Every level-`levels` node's bodies in the one-device tree of `b`: node[g] for body g.
std::vector<std::uint32_t> one_device_nodes(Precision precision, const Bodies& b, std::size_t levels) {
    TreeSnapshot tree;
    const TreeOptions o{0.5, 1, TreeTraversal::stackless, 1};
    tree_forces(precision, b, {1.0, 0.01}, o, &tree);
    REQUIRE(tree.levels >= levels);
    const std::size_t count = std::size_t(1) << levels, n = b.size();
    std::vector<std::uint32_t> node(n);
    for (std::size_t p = 0; p < count; ++p)
        for (std::size_t s = p * n / count; s < (p + 1) * n / count; ++s) node[tree.perm[s]] = std::uint32_t(p);
    return node;
}

void check_top(const dist::Communicator& world, Precision precision, const Bodies& b, std::uint32_t seed,
               std::size_t levels) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(levels);
    // This rank's share, shuffled.
    std::mt19937 random(seed);
    std::vector<std::uint64_t> index;
    for (std::size_t g = 0; g < n; ++g)
        if (random() % std::uint32_t(world.size()) == std::uint32_t(world.rank())) index.push_back(g);
    std::shuffle(index.begin(), index.end(), std::mt19937(seed + std::uint32_t(world.rank())));
    std::vector<double> x, y, z;
    for (std::uint64_t g : index) {
        x.push_back(b.x[g]);
        y.push_back(b.y[g]);
        z.push_back(b.z[g]);
    }
    const TreeTop top = TreeTop::split(world, precision, x.data(), y.data(), z.data(), index.data(),
                                       index.size(), n, levels);
    REQUIRE(top.node().size() == index.size());
    const std::vector<std::uint32_t> expected = one_device_nodes(precision, b, levels);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < index.size(); ++i) wrong += top.node()[i] != expected[index[i]];
    CHECK(wrong == 0);
    // The order: by node; every body in its node's cell; the same cells on every rank.
    const std::vector<std::size_t>& order = top.order();
    REQUIRE(order.size() == index.size());
    for (std::size_t s = 1; s < order.size(); ++s) CHECK(top.node()[order[s - 1]] <= top.node()[order[s]]);
    const std::vector<double>& box = top.cell_boxes();
    const std::size_t nodes = std::size_t(2) << levels, first = nodes / 2;
    for (std::size_t i = 0; i < index.size(); ++i) {
        const std::size_t k = first + top.node()[i];
        const double c[3] = {x[i], y[i], z[i]};
        for (std::size_t a = 0; a < 3; ++a)
            CHECK((box[a * nodes + k] <= c[a] && c[a] <= box[(3 + a) * nodes + k]));
    }
    const std::vector<double> boxes = world.allgatherv(box);
    for (int r = 1; r < world.size(); ++r)
        CHECK(std::memcmp(boxes.data(), boxes.data() + std::size_t(r) * box.size(), box.size() * sizeof(double)) == 0);
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("TreeTop puts every body in the node it has in the one-device tree of all of them") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        CAPTURE(to_string(precision));
        for (const std::size_t n : {1, 2, 7, 100, 3001}) {
            const std::size_t deepest = TreeGravity::levels_for(n, 1);
            for (const std::size_t levels : {std::size_t(0), std::size_t(1), std::size_t(4), deepest}) {
                if (levels > deepest) continue;
                check_top(world, precision, rounded(plummer(n, seed + std::uint32_t(n)), precision), seed, levels);
                check_top(world, precision, lattice(n, seed + std::uint32_t(n)), seed + 1, levels);
            }
        }
    }
    // No bodies: the root's cell is empty, and nothing to place.
    const TreeTop none = TreeTop::split(world, Precision::float32, nullptr, nullptr, nullptr, nullptr, 0, 0, 2);
    CHECK(none.node().empty());
}

TEST_CASE("TreeTop refuses bad bodies on every rank alike") {
    const dist::Communicator& world = dist::Communicator::world();
    const double zero = 0, nan = NAN;
    const std::uint64_t mine = std::uint64_t(world.rank());
    const std::size_t total = std::size_t(world.size());
    // Rank 0's coordinate is NaN: every rank throws.
    const double* x = world.rank() == 0 ? &nan : &zero;
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, x, &zero, &zero, &mine, 1, total, 1),
                         doctest::Contains("NaN"), UsageError);
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &mine, 1, total + 1, 1),
                         doctest::Contains("hold"), UsageError);
    const std::uint64_t past = total;
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &past, 1, total, 1),
                         doctest::Contains("index"), UsageError);
    CHECK_THROWS_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &mine, 1, total, 32), UsageError);
}
}
