// move_bodies on 1, 2 and 3 ranks (suite `mpi`): every body, with its index and its values in
// the vectors that travel with it, arrives intact at the rank named for it, in rank order of
// the senders and each sender's order.
#include <doctest/doctest.h>

#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/travelling_bodies.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// Body g's value f (0 .. 6 its fields, then 6 a vector): distinct and exactly representable.
double value(std::uint32_t g, std::size_t f) { return double(g) * 64 + double(f); }

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("move_bodies sends every body with its index and vectors to the rank named for it") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    const std::size_t ranks = std::size_t(world.size()), vectors = 2;
    std::mt19937 random(seed);
    // Bodies 0 .. 299 in blocks of 100, each with a random destination (the same draw everywhere).
    const std::size_t total = 300;
    std::vector<int> destination(total);
    for (int& d : destination) d = int(random() % ranks);
    const std::size_t block = total / ranks, first = block * std::size_t(world.rank());
    const std::size_t last = world.rank() + 1 == world.size() ? total : first + block;
    TravellingBodies mine;
    mine.bodies.resize(last - first);
    mine.vectors.assign(vectors, std::vector<double>(6 * (last - first)));
    std::vector<int> to;
    std::vector<double> Bodies::*const fields[] = {&Bodies::x,  &Bodies::y,  &Bodies::z, &Bodies::vx,
                                                   &Bodies::vy, &Bodies::vz, &Bodies::m};
    for (std::size_t g = first; g < last; ++g) {
        const std::size_t i = g - first, n = last - first;
        for (std::size_t f = 0; f < 7; ++f) (mine.bodies.*fields[f])[i] = value(std::uint32_t(g), f);
        for (std::size_t v = 0; v < vectors; ++v)
            for (std::size_t c = 0; c < 6; ++c) mine.vectors[v][c * n + i] = value(std::uint32_t(g), 7 + 6 * v + c);
        mine.ids.push_back(std::uint32_t(g));
        to.push_back(destination[g]);
    }
    const TravellingBodies arrived = move_bodies(world, to, mine);
    // What should arrive: the bodies named for this rank, by sender (blocks ascend), in order.
    std::vector<std::uint32_t> expected;
    for (std::uint32_t g = 0; g < total; ++g)
        if (destination[g] == world.rank()) expected.push_back(g);
    CHECK(arrived.ids == expected);
    const std::size_t m = arrived.ids.size();
    REQUIRE(arrived.bodies.size() == m);
    REQUIRE(arrived.vectors.size() == vectors);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) {
        const std::uint32_t g = arrived.ids[i];
        for (std::size_t f = 0; f < 7; ++f) wrong += (arrived.bodies.*fields[f])[i] != value(g, f);
        for (std::size_t v = 0; v < vectors; ++v)
            for (std::size_t c = 0; c < 6; ++c) wrong += arrived.vectors[v][c * m + i] != value(g, 7 + 6 * v + c);
    }
    CHECK(wrong == 0);
    // Counts that do not match the bodies, on every rank alike.
    TravellingBodies short_ids = mine;
    short_ids.ids.push_back(0);
    CHECK_THROWS_WITH_AS(move_bodies(world, to, short_ids), doctest::Contains("indices for"), UsageError);
    TravellingBodies short_vector = mine;
    short_vector.vectors[1].push_back(0);
    CHECK_THROWS_WITH_AS(move_bodies(world, to, short_vector), doctest::Contains("a vector of"), UsageError);
}
}
