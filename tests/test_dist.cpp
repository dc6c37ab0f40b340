// The dist layer: which devices a rank takes (suite `dist`, one process), and the collectives,
// the Allgather and Distributor plans, DistributedDenseGravity and DistributedTreeGravity on 1,
// 2 and 3 ranks (suite `mpi`, which CTest runs under mpirun; run alone it is one rank). Every rank checks its own part against what it
// computes alone, bit for bit, so no rank has to gather the answer.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>

#include <partcl/dist/allgather.hpp>
#include <partcl/dist/block_ring.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/device_share.hpp>
#include <partcl/dist/environment.hpp>
#include <partcl/dist/index_directory.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/models/nbody/distributed_dense_gravity.hpp>
#include <partcl/models/nbody/distributed_tree_gravity.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::test_context;

namespace {

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

TEST_CASE("BlockRing puts every rank's block of its fields in place, its own at start, the others' as they pass") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1000)}) {
        const Range block = uneven_block(n, world);
        dist::BlockRing ring(world, block.size());
        REQUIRE(ring.total() == n);
        CHECK(ring.offset() == block.begin);
        // Field a: three components of item i, c * 10^6 + i + 0.25, at a local stride past the
        // block; field b: one, -i - 0.5.
        const std::size_t stride = block.size() + 3;
        std::vector<double> a(3 * stride, -1.0), b(std::max<std::size_t>(block.size(), 1), -1.0);
        for (std::size_t i = 0; i < block.size(); ++i) {
            for (std::size_t c = 0; c < 3; ++c) a[c * stride + i] = double(c) * 1e6 + double(block.begin + i) + 0.25;
            b[i] = -double(block.begin + i) - 0.5;
        }
        for (const Precision precision : {Precision::float32, Precision::float64}) {
            RealBuffer local_a(context, precision, a.size()), local_b(context, precision, b.size());
            RealBuffer all_a(context, precision, 3 * n + 1), all_b(context, precision, n + 1);
            local_a.write(queue, a);
            local_b.write(queue, b);
            all_a.fill(queue, -7.0);
            all_b.fill(queue, -7.0);
            const std::vector<dist::BlockRing::Field> fields{{&local_a, stride, &all_a, n, 3},
                                                             {&local_b, block.size(), &all_b, n, 1}};
            ring.start(queue, fields);
            const std::vector<double> started = all_a.read(queue);
            bool own_in_place = true, others_not_yet = true;
            for (std::size_t i = 0; i < n; ++i) {
                const bool own = i >= block.begin && i < block.end;
                const double want = own ? 1e6 + double(i) + 0.25 : -7.0;
                own_in_place = own_in_place && (!own || started[n + i] == want);
                others_not_yet = others_not_yet && (own || started[n + i] == -7.0);
            }
            CHECK(own_in_place);
            CHECK(others_not_yet);
            ring.pass(queue, fields);
            const std::vector<double> got_a = all_a.read(queue), got_b = all_b.read(queue);
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t c = 0; c < 3; ++c) wrong += got_a[c * n + i] != double(c) * 1e6 + double(i) + 0.25;
                wrong += got_b[i] != -double(i) - 0.5;
            }
            CHECK_MESSAGE(wrong == 0, "n " << n << ", " << to_string(precision));
            CHECK((ring.bytes_received() > 0.0) == (n > block.size()));
        }
        RealBuffer short_buffer(context, Precision::float32, 1), all(context, Precision::float32, 3 * n + 1);
        if (block.size() > 1)
            CHECK_THROWS_AS(ring.start(queue, {{&short_buffer, block.size(), &all, n, 3}}), UsageError);
    }
}

TEST_CASE("alltoallv and a Distributor deliver each item to its rank, in the senders' order") {
    const dist::Communicator& world = dist::Communicator::world();
    const int k = world.size(), me = world.rank();
    // Rank r sends rank s (r + s) % 3 values 1000 r + 10 s + i.
    std::vector<std::size_t> send_counts, recv_counts;
    std::vector<long> sent, expected;
    for (int s = 0; s < k; ++s) {
        const int count = (me + s) % 3;
        send_counts.push_back(std::size_t(count) * sizeof(long));
        for (int i = 0; i < count; ++i) sent.push_back(1000L * me + 10L * s + i);
    }
    for (int r = 0; r < k; ++r) {
        const int count = (r + me) % 3;
        recv_counts.push_back(std::size_t(count) * sizeof(long));
        for (int i = 0; i < count; ++i) expected.push_back(1000L * r + 10L * me + i);
    }
    std::vector<long> received(expected.size());
    world.alltoallv(sent.data(), send_counts, received.data(), recv_counts);
    CHECK(received == expected);
    CHECK(world.alltoall(std::vector<int>(std::size_t(k), me)) == world.allgather(me) );
    // A Distributor from each item's destination: items interleaved, destinations (i * 7 + me) % k.
    std::vector<int> destinations;
    std::vector<long> items;
    for (int i = 0; i < 50 + me; ++i) {
        destinations.push_back((i * 7 + me) % k);
        items.push_back(100000L * me + i);
    }
    const dist::Distributor plan(world, destinations);
    CHECK(plan.sent() == items.size());
    std::vector<long> arrived_expected;
    for (int r = 0; r < k; ++r) {
        CHECK(plan.sources()[std::size_t(r)].begin == arrived_expected.size());
        for (int i = 0; i < 50 + r; ++i)
            if ((i * 7 + r) % k == me) arrived_expected.push_back(100000L * r + i);
    }
    CHECK(plan.distribute(items) == arrived_expected);
    CHECK_THROWS_AS(plan.distribute(std::vector<long>(1)), UsageError);
    CHECK_THROWS_AS(dist::Distributor(dist::Communicator::self(), {1}), UsageError);
}

namespace {
// Each rank's block of `bodies`, positions x | y | z and masses, on the device.
struct Block {
    Block(Context& context, Precision precision, const Bodies& bodies, Range block)
        : positions(context, precision, 3 * std::max<std::size_t>(block.size(), 1)),
          mass(context, precision, std::max<std::size_t>(block.size(), 1)) {
        if (block.empty()) return;
        std::vector<double> xyz;
        for (const auto* c : {&bodies.x, &bodies.y, &bodies.z})
            xyz.insert(xyz.end(), c->begin() + std::ptrdiff_t(block.begin), c->begin() + std::ptrdiff_t(block.end));
        positions.write(context.queue(0), xyz);
        mass.write(context.queue(0), std::vector<double>(bodies.m.begin() + std::ptrdiff_t(block.begin),
                                                         bodies.m.begin() + std::ptrdiff_t(block.end)));
    }
    RealBuffer positions, mass;
};

// `spread` (over the world) gives each rank one rank's answer (`alone`, every body on this
// rank) for its uneven block of n random bodies, bit for bit, accelerations and potentials.
template <class Spread>
void check_against_one_rank(GravityModel& alone, Spread& spread, Precision precision,
                            std::size_t n, std::uint32_t seed) {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    INFO("N " << n << ", " << std::string(to_string(precision)) << ", rank " << world.rank() << " of "
              << world.size() << ", seed " << seed);
    const Bodies bodies = partcl_test::random_bodies(n, seed + std::uint32_t(n));
    const Range block = uneven_block(n, world);
    const Block all(context, precision, bodies, {0, n});
    RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
    alone.accelerations(all.positions, all.mass, n, acc, 0, &pot);
    const std::vector<double> acc_all = acc.read(queue), pot_all = pot.read(queue);
    const Block part(context, precision, bodies, block);
    const std::size_t k = std::max<std::size_t>(block.size(), 1);
    RealBuffer acc_mine(context, precision, 3 * k + 2), pot_mine(context, precision, k);
    spread.accelerations(part.positions, part.mass, block.size(), acc_mine, 2, &pot_mine);
    CHECK(spread.ranks().total() == n);
    CHECK(spread.ranks()[std::size_t(world.rank())] == block);
    std::vector<double> got(3 * block.size()), want;
    if (!block.empty()) acc_mine.read(queue, got.data(), got.size(), 2);
    for (std::size_t c = 0; c < 3; ++c)
        want.insert(want.end(), acc_all.begin() + std::ptrdiff_t(c * n + block.begin),
                    acc_all.begin() + std::ptrdiff_t(c * n + block.end));
    CHECK(same_bits(got, want));
    std::vector<double> got_pot(block.size());
    if (!block.empty()) pot_mine.read(queue, got_pot.data(), got_pot.size());
    CHECK(same_bits(got_pot, std::vector<double>(pot_all.begin() + std::ptrdiff_t(block.begin),
                                                 pot_all.begin() + std::ptrdiff_t(block.end))));
}

std::vector<std::size_t> spread_sizes() {
    return {1, 2, 5, partcl_test::under_oclgrind() ? 70u : 777u};
}
} // namespace

TEST_CASE("DistributedDenseGravity gives every rank one rank's accelerations of its block, bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    const std::uint32_t seed = partcl_test::shared_seed(world);
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        DenseGravity alone(context, precision, {1.0, 0.01}, {}, partcl_test::memory_cache());
        DenseGravity mine(context, precision, {1.0, 0.01}, {}, partcl_test::memory_cache());
        DistributedDenseGravity spread(world, mine);
        for (const std::size_t n : spread_sizes()) check_against_one_rank(alone, spread, precision, n, seed);
        // The tiled form in source parts, as GPUs run it: the parts within a rank's own block go
        // while the others' blocks pass around the ring, and the sums stay one rank's.
        DenseOptions tiled;
        tiled.tile = 16;
        tiled.targets = 2;
        tiled.source_parts = 7;
        DenseGravity alone_tiled(context, precision, {1.0, 0.01}, tiled, partcl_test::memory_cache());
        DenseGravity mine_tiled(context, precision, {1.0, 0.01}, tiled, partcl_test::memory_cache());
        DistributedDenseGravity spread_tiled(world, mine_tiled);
        for (const std::size_t n : spread_sizes())
            check_against_one_rank(alone_tiled, spread_tiled, precision, n, seed + 1);
    }
}

TEST_CASE("DistributedTreeGravity gives every rank one rank's accelerations of its block, bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    const std::uint32_t seed = partcl_test::shared_seed(world);
    // theta 0.6 (nodes taken whole) and 0 (every node opened); listed groups and single bodies.
    const TreeOptions walks[] = {{0.6, 4, TreeTraversal::stackless, 16, std::nullopt},
                                 {0.0, 4, TreeTraversal::nested, 1, std::nullopt}};
    for (const Precision precision : {Precision::float32, Precision::float64})
        for (const TreeOptions& options : walks) {
            CAPTURE(options.theta);
            TreeGravity alone(context, precision, {1.0, 0.01}, options, partcl_test::memory_cache());
            TreeGravity mine(context, precision, {1.0, 0.01}, options, partcl_test::memory_cache());
            DistributedTreeGravity spread(world, mine);
            // Twice each: the second cut by the first's measured speeds.
            for (const std::size_t n : spread_sizes())
                for (int evaluation = 0; evaluation < 2; ++evaluation) {
                    check_against_one_rank(alone, spread, precision, n, seed);
                    CHECK(spread.walks().total() == mine.groups(n));
                }
        }
}

TEST_CASE("IndexDirectory names each index's rank and slot, and puts rank order back in order") {
    const dist::Communicator& world = dist::Communicator::world();
    const int k = world.size(), me = world.rank();
    // 40 indices, index i on rank (7 i + 1) mod k, each rank's in descending order.
    std::vector<std::uint32_t> mine;
    for (int i = 39; i >= 0; --i)
        if ((7 * i + 1) % k == me) mine.push_back(std::uint32_t(i));
    const dist::IndexDirectory where(world, mine);
    CHECK(where.total() == 40);
    CHECK(where.mine() == mine);
    CHECK(!where.in_order());
    for (std::uint32_t i = 0; i < 40; ++i) {
        CHECK(where.rank_of(i) == int(7 * i + 1) % k);
        if (where.rank_of(i) == me) CHECK(mine.at(where.slot_of(i)) == i);
    }
    // A field of two components, each item's value its index (and 1000 more), in rank order.
    std::vector<double> rank_ordered(80);
    for (std::size_t j = 0; j < 40; ++j) {
        rank_ordered[j] = double(where.gathered()[j]);
        rank_ordered[40 + j] = 1000.0 + where.gathered()[j];
    }
    const std::vector<double> global = where.to_global(rank_ordered, 2);
    for (std::size_t i = 0; i < 40; ++i) {
        CHECK(global[i] == double(i));
        CHECK(global[40 + i] == 1000.0 + double(i));
    }
    CHECK_THROWS_AS(where.to_global(rank_ordered, 3), UsageError);
    // Blocks in rank order are in order.
    const Range block = uneven_block(40, world);
    std::vector<std::uint32_t> blocked;
    for (std::size_t i = block.begin; i < block.end; ++i) blocked.push_back(std::uint32_t(i));
    CHECK(dist::IndexDirectory(world, blocked).in_order());
    // An index held twice, or past the total, is refused on every rank.
    std::vector<std::uint32_t> twice = mine;
    if (me == 0) twice.push_back(6);  // rank (7 * 6 + 1) mod k's too
    CHECK_THROWS_AS(dist::IndexDirectory(world, twice), UsageError);
    std::vector<std::uint32_t> past = mine;
    if (me == 0) past.at(0) = 40;  // rank 0 holds the indices i with 7 i + 1 = 0 mod k
    CHECK_THROWS_AS(dist::IndexDirectory(world, past), UsageError);
}

TEST_CASE("DistributedTreeGravity over bodies held in any order gives one rank's accelerations, bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = partcl_test::shared_seed(world);
    const int k = world.size(), me = world.rank();
    // theta 0.6 and 0, and the relative criterion (which reads every body's |a| in order).
    TreeOptions relative{0.6, 4, TreeTraversal::stackless, 16, std::nullopt};
    relative.relative_accuracy = 0.01;
    const TreeOptions walks[] = {{0.6, 4, TreeTraversal::stackless, 16, std::nullopt},
                                 {0.0, 4, TreeTraversal::nested, 1, std::nullopt}, relative};
    const std::size_t n = partcl_test::under_oclgrind() ? 70 : 777;
    const Bodies bodies = partcl_test::random_bodies(n, seed);
    // Body i on rank (5 i + 2) mod k, each rank's in descending order.
    std::vector<std::uint32_t> ids;
    for (std::size_t i = n; i-- > 0;)
        if (int((5 * i + 2) % std::size_t(k)) == me) ids.push_back(std::uint32_t(i));
    const std::size_t m = ids.size(), room = std::max<std::size_t>(m, 1);
    std::vector<double> xyz(3 * m), mass(m);
    for (std::size_t j = 0; j < m; ++j) {
        xyz[j] = bodies.x[ids[j]];
        xyz[m + j] = bodies.y[ids[j]];
        xyz[2 * m + j] = bodies.z[ids[j]];
        mass[j] = bodies.m[ids[j]];
    }
    const dist::IndexDirectory where(world, ids);
    for (const Precision precision : {Precision::float32, Precision::float64})
        for (const TreeOptions& options : walks) {
            INFO("theta " << options.theta << ", relative " << options.relative_accuracy << ", "
                          << std::string(to_string(precision)) << ", rank " << me << " of " << k
                          << ", seed " << seed);
            TreeGravity alone(context, precision, {1.0, 0.01}, options, partcl_test::memory_cache());
            TreeGravity local(context, precision, {1.0, 0.01}, options, partcl_test::memory_cache());
            DistributedTreeGravity spread(world, local);
            spread.set_directory(&where);
            const Block all(context, precision, bodies, {0, n});
            RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
            RealBuffer positions(context, precision, 3 * room), masses(context, precision, room);
            if (m > 0) {
                positions.write(queue, xyz);
                masses.write(queue, mass);
            }
            RealBuffer acc_mine(context, precision, 3 * room), pot_mine(context, precision, room);
            // Twice: the relative criterion's second evaluation reads the first's |a|.
            for (int evaluation = 0; evaluation < 2; ++evaluation) {
                alone.accelerations(all.positions, all.mass, n, acc, 0, &pot);
                spread.accelerations(positions, masses, m, acc_mine, 0, &pot_mine);
                const std::vector<double> want = acc.read(queue), want_pot = pot.read(queue);
                std::vector<double> got(3 * m), got_pot(m);
                if (m > 0) {
                    acc_mine.read(queue, got.data(), 3 * m);
                    pot_mine.read(queue, got_pot.data(), m);
                }
                std::vector<double> expected(3 * m), expected_pot(m);
                for (std::size_t j = 0; j < m; ++j) {
                    for (std::size_t c = 0; c < 3; ++c) expected[c * m + j] = want[c * n + ids[j]];
                    expected_pot[j] = want_pot[ids[j]];
                }
                CHECK(same_bits(got, expected));
                CHECK(same_bits(got_pot, expected_pot));
                REQUIRE(spread.walkers().size() == m);
                for (int w : spread.walkers()) CHECK((w >= 0 && w < k));
            }
        }
    // A directory that does not describe the bodies given is refused.
    TreeGravity local(context, Precision::float32, {1.0, 0.01}, walks[0], partcl_test::memory_cache());
    DistributedTreeGravity spread(world, local);
    spread.set_directory(&where);
    RealBuffer positions(context, Precision::float32, 3 * (m + 1)), masses(context, Precision::float32, m + 1);
    RealBuffer out(context, Precision::float32, 3 * (m + 1));
    positions.write(queue, std::vector<double>(3 * (m + 1), 0.5));
    masses.write(queue, std::vector<double>(m + 1, 1.0));
    CHECK_THROWS_AS(spread.accelerations(positions, masses, m + 1, out, 0), UsageError);
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

// Run by the same script: rank 1's test case fails (a REQUIRE, which leaves the test case) while
// rank 0 goes on to a barrier; the test runner (tests/main.cpp, RankFailure) must end both.
TEST_SUITE("mpi_test_failure") {
TEST_CASE("a rank whose test case fails ends every rank") {
    const dist::Communicator& world = dist::Communicator::world();
    REQUIRE_MESSAGE(world.rank() != 1, "a deliberate failure on rank 1 (tests/test_dist.cpp)");
    world.barrier();
    FAIL("rank " << world.rank() << " passed a barrier that rank 1 never reached");
}
}
