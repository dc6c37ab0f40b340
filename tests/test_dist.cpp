// The dist layer: which devices a rank takes (suite `dist`, one process), and the collectives,
// the Allgather plan and DistributedDenseGravity on 1, 2 and 3 ranks (suite `mpi`, which CTest
// runs under mpirun; run alone it is one rank). Every rank checks its own part against what it
// computes alone, bit for bit, so no rank has to gather the answer.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>

#include <partcl/dist/allgather.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/device_share.hpp>
#include <partcl/dist/environment.hpp>
#include <partcl/models/nbody/distributed_dense_gravity.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::test_context;

namespace {

// The same random seed on every rank (rank 0's fresh one).
std::uint32_t shared_seed(const dist::Communicator& world) {
    std::uint32_t seed = partcl_test::fresh_seed();
    world.broadcast(&seed, sizeof seed);
    return seed;
}

// Rank r's block of n items cut at weights 1 : 3 : 1 : 3 ..., so blocks differ in size.
Range uneven_block(std::size_t n, const dist::Communicator& world) {
    std::vector<double> weights;
    for (int r = 0; r < world.size(); ++r) weights.push_back(r % 2 ? 3.0 : 1.0);
    return Partition::by_weight(n, weights)[std::size_t(world.rank())];
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

} // namespace

TEST_SUITE("dist") {
TEST_CASE("device_share divides a machine's devices between its ranks in node-rank order") {
    const std::vector<Device> one = {test_context().device(0)};
    std::vector<Device> four;
    for (std::size_t i = 0; i < 4; ++i) four.push_back(one[0].renumbered(i, 0));
    auto indices = [](const std::vector<Device>& ds) {
        std::vector<std::size_t> out;
        for (const Device& d : ds) out.push_back(d.info().index);
        return out;
    };
    CHECK(indices(dist::device_share(four, 0, 2)) == std::vector<std::size_t>{0, 1});
    CHECK(indices(dist::device_share(four, 1, 2)) == std::vector<std::size_t>{2, 3});
    CHECK(indices(dist::device_share(four, 2, 3)) == std::vector<std::size_t>{2, 3});
    CHECK(indices(dist::device_share(four, 0, 1)) == std::vector<std::size_t>{0, 1, 2, 3});
    CHECK(indices(dist::device_share(four, 5, 6)) == std::vector<std::size_t>{1});
    CHECK(dist::device_share(one, 2, 3).size() == 1);
    CHECK_THROWS_AS(dist::device_share({}, 0, 1), UsageError);
    CHECK_THROWS_AS(dist::device_share(four, 2, 2), UsageError);
}

TEST_CASE("without an Environment the world is one rank, and its collectives copy") {
    if (dist::Environment::active()) return;  // under mpirun: suite mpi
    const dist::Communicator& world = dist::Communicator::world();
    CHECK(world.rank() == 0);
    CHECK(world.size() == 1);
    CHECK_FALSE(world.mpi());
    CHECK(world.allgatherv(std::vector<int>{4, 5}) == std::vector<int>{4, 5});
    CHECK(world.broadcast(std::string("text")) == "text");
}
}

TEST_SUITE("mpi") {
TEST_CASE("collectives: values, vectors of every size and texts, in rank order") {
    const dist::Communicator& world = dist::Communicator::world();
    INFO("rank " << world.rank() << " of " << world.size());
    if (dist::Environment::launched()) CHECK(world.mpi() == dist::Environment::built_with_mpi());
    const std::vector<int> ranks = world.allgather(world.rank());
    std::vector<int> expected(std::size_t(world.size()));
    std::iota(expected.begin(), expected.end(), 0);
    CHECK(ranks == expected);
    // Rank r sends r items (rank 0 none), each 100 r + i.
    std::vector<long> mine;
    for (int i = 0; i < world.rank(); ++i) mine.push_back(100L * world.rank() + i);
    std::vector<long> all_expected;
    for (int r = 0; r < world.size(); ++r)
        for (int i = 0; i < r; ++i) all_expected.push_back(100L * r + i);
    CHECK(world.allgatherv(mine) == all_expected);
    CHECK(world.broadcast(world.root() ? std::string("from the root") : std::string()) ==
          "from the root");
    CHECK(world.node_rank() < world.node_size());
    world.barrier();
}

TEST_CASE("Allgather brings every rank's block of a field to every rank, whole and in order") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1000)}) {
        const Range block = uneven_block(n, world);
        const dist::Allgather plan(world, block.size());
        REQUIRE(plan.total() == n);
        CHECK(plan.offset() == block.begin);
        // Three components of item i: i, 10^6 + i, 2 * 10^6 + i, at a local stride past the block.
        const std::size_t stride = block.size() + 3, components = 3;
        std::vector<double> local(components * stride, -1.0);
        for (std::size_t c = 0; c < components; ++c)
            for (std::size_t i = 0; i < block.size(); ++i)
                local[c * stride + i] = double(c) * 1e6 + double(block.begin + i) + 0.25;
        std::vector<double> expected(components * n);
        for (std::size_t c = 0; c < components; ++c)
            for (std::size_t i = 0; i < n; ++i) expected[c * n + i] = double(c) * 1e6 + double(i) + 0.25;
        CHECK(same_bits(plan.gather(local, stride, components), expected));
        for (const Precision precision : {Precision::float32, Precision::float64}) {
            RealBuffer mine(context, precision, local.size()), everyone(context, precision, components * n + 1);
            mine.write(queue, local);
            plan.gather(queue, mine, stride, everyone, n, components);
            std::vector<double> got = everyone.read(queue);
            got.resize(components * n);
            CHECK_MESSAGE(same_bits(got, expected), "n " << n << ", " << to_string(precision));
        }
        CHECK_THROWS_AS(plan.gather(std::vector<double>(), block.size() + 1, 2), UsageError);
    }
}

TEST_CASE("DistributedDenseGravity gives every rank one rank's accelerations of its block, bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = shared_seed(world);
    const std::size_t sizes[] = {1, 2, 5, partcl_test::under_oclgrind() ? 70u : 777u};
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        DenseGravity alone(context, precision, {1.0, 0.01}, {}, partcl_test::memory_cache());
        DenseGravity mine(context, precision, {1.0, 0.01}, {}, partcl_test::memory_cache());
        DistributedDenseGravity spread(world, mine);
        for (const std::size_t n : sizes) {
            INFO("N " << n << ", " << to_string(precision) << ", rank " << world.rank() << " of "
                      << world.size() << ", seed " << seed);
            const Bodies bodies = partcl_test::random_bodies(n, seed + std::uint32_t(n));
            const Range block = uneven_block(n, world);
            // One rank's answer: every body, on this rank alone.
            DeviceBodies all(context, precision, bodies);
            RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
            alone.accelerations(all.state, all.mass, n, acc, 0, &pot);
            const std::vector<double> acc_all = acc.read(queue), pot_all = pot.read(queue);
            // This rank's block only.
            Bodies part;
            part.resize(block.size());
            for (std::size_t i = 0; i < block.size(); ++i) {
                const std::size_t j = block.begin + i;
                part.x[i] = bodies.x[j], part.y[i] = bodies.y[j], part.z[i] = bodies.z[j];
                part.m[i] = bodies.m[j];
            }
            const std::size_t k = std::max<std::size_t>(block.size(), 1);
            RealBuffer positions(context, precision, 3 * k), mass(context, precision, k);
            RealBuffer acc_mine(context, precision, 3 * k), pot_mine(context, precision, k);
            if (!block.empty()) {
                std::vector<double> xyz(part.x);
                xyz.insert(xyz.end(), part.y.begin(), part.y.end());
                xyz.insert(xyz.end(), part.z.begin(), part.z.end());
                positions.write(queue, xyz);
                mass.write(queue, part.m);
            }
            spread.accelerations(positions, mass, block.size(), acc_mine, 0, &pot_mine);
            CHECK(spread.ranks().total() == n);
            CHECK(spread.ranks()[std::size_t(world.rank())] == block);
            std::vector<double> got(3 * block.size()), want;
            if (!block.empty()) acc_mine.read(queue, got.data(), got.size());
            for (std::size_t c = 0; c < 3; ++c)
                want.insert(want.end(), acc_all.begin() + std::ptrdiff_t(c * n + block.begin),
                            acc_all.begin() + std::ptrdiff_t(c * n + block.end));
            CHECK(same_bits(got, want));
            std::vector<double> got_pot(block.size());
            if (!block.empty()) pot_mine.read(queue, got_pot.data(), got_pot.size());
            CHECK(same_bits(got_pot, std::vector<double>(pot_all.begin() + std::ptrdiff_t(block.begin),
                                                         pot_all.begin() + std::ptrdiff_t(block.end))));
        }
    }
}
}

// Run by tests/mpi_fails_together.sh on two ranks: rank 1 fails while rank 0 waits in a
// collective it will never finish; both must end, with rank 1's message.
TEST_SUITE("mpi_failure") {
TEST_CASE("a rank that fails ends every rank") {
    const dist::Communicator& world = dist::Communicator::world();
    if (world.rank() == 1) dist::Environment::fail("a deliberate failure (tests/test_dist.cpp)", 3);
    world.barrier();
    FAIL("rank " << world.rank() << " passed a barrier that rank 1 never reached");
}
}
