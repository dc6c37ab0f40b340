// MpsFluid over 1, 2 and 3 ranks (suite `mpi`): every rank steps the fluid over the ranks and,
// alone on its device, the one-rank fluid from the same particles, and checks the gathered
// particles, pressure, time and next step bit for bit: a water block falling in a closed tank
// with random velocities, so that particles cross between the ranks' slabs, 2-D and 3-D, float
// and double; then a resume of the ranks' state. And each rank on two devices (the test device
// twice, split one to three), whose particles leave and join the rank from either device. And
// the ranks' slabs cut again every step (rebalance_every(1, 0), by the particles alone and by
// measured work): the same fluid, and cuts that move as a block rises.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/mps/mps_tank.hpp>

#include "falling_block.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::memory_cache;
using partcl_test::split_context;
using partcl_test::test_context;

namespace {

// The falling block (falling_block.hpp) at 1.5 m/s with 0.3 m/s of random velocities: in 40
// steps it falls about half a cell, across the ranks' slab borders (the slabs are layers of
// cells along the vertical).
partcl_test::FallingBlock random_block(int dims, std::uint32_t seed) {
    MpsTank tank;
    tank.dimensions = dims;
    tank.spacing = 0.01;
    tank.tank = dims == 2 ? std::array<double, 3>{0.12, 0.15, 0} : std::array<double, 3>{0.06, 0.04, 0.09};
    tank.water = dims == 2 ? std::array<double, 3>{0.08, 0.13, 0} : std::array<double, 3>{0.04, 0.03, 0.07};
    return partcl_test::falling_block(tank, 1.5, 0.3, seed);
}

// A water block thrown upwards at 2.5 m/s in a tank with room above it, taking its weight up
// across the ranks' cuts: the balanced cut of two ranks moves after about 24 steps, of three
// after about 70.
partcl_test::FallingBlock rising_block(std::uint32_t seed) {
    MpsTank tank;
    tank.dimensions = 2;
    tank.spacing = 0.01;
    tank.tank = {0.12, 0.25, 0};
    tank.water = {0.08, 0.10, 0};
    return partcl_test::falling_block(tank, -2.5, 0.3, seed);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void check_same(const MpsFluid& ranks, const MpsFluid& alone) {
    const MpsParticles a = ranks.particles(), b = alone.particles();
    CHECK(same_bits(a.position, b.position));
    CHECK(same_bits(a.velocity, b.velocity));
    CHECK(a.type == b.type);
    CHECK(same_bits(ranks.pressure(), alone.pressure()));
    CHECK(ranks.time() == alone.time());
    CHECK(ranks.next_dt() == alone.next_dt());
    CHECK(ranks.max_speed() == alone.max_speed());
    CHECK(ranks.steps() == alone.steps());
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("MpsFluid over ranks is one rank's fluid bit for bit, particles crossing the ranks") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    for (const int dims : {2, 3})
        for (const Precision precision : {Precision::float32, Precision::float64}) {
            if (precision == Precision::float64 && !context.device(0).info().fp64) continue;
            const std::uint32_t seed = partcl_test::shared_seed(world);
            INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size() << ", "
                         << dims << "-D, " << std::string(to_string(precision)));
            partcl_test::FallingBlock b = random_block(dims, seed);
            // In double, the surface's sweeps and the viscosity's reconstruction too: they read
            // the ranks' ghosts' swept pressures, velocities and velocity gradients.
            if (precision == Precision::float64) {
                b.parameters.surface_sweeps = 2;
                b.parameters.artificial_viscosity = 0.5;
                b.parameters.viscosity_reconstruction = 0.5;
            }
            MpsFluid ranks(context, precision, b.parameters, b.scene.particles, b.scene.lower,
                           b.scene.upper, memory_cache(), world);
            MpsFluid alone(context, precision, b.parameters, b.scene.particles, b.scene.lower,
                           b.scene.upper, memory_cache(), dist::Communicator::self());
            CHECK(ranks.size() == b.scene.particles.size());
            for (int step = 0; step < 40; ++step) {
                ranks.step();
                alone.step();
            }
            check_same(ranks, alone);
            const std::vector<std::size_t> sent = world.allgather(ranks.traffic().particles_sent);
            std::size_t moved = 0;
            for (std::size_t s : sent) moved += s;
            CAPTURE(moved);
            if (world.size() > 1) CHECK(moved > 0);
            // A resume from the ranks' state continues as the one rank does.
            const MpsState saved = ranks.state();
            for (int step = 0; step < 5; ++step) alone.step();
            ranks.restore(saved);
            for (int step = 0; step < 5; ++step) ranks.step();
            check_same(ranks, alone);
        }
}

TEST_CASE("MpsFluid over ranks of two devices each is one rank's fluid bit for bit") {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    Context two = split_context(2);
    const std::uint32_t seed = partcl_test::shared_seed(world);
    for (const int dims : {2, 3}) {
        INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size() << ", " << dims << "-D");
        const partcl_test::FallingBlock b = random_block(dims, seed);
        MpsFluid ranks(two, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                       b.scene.upper, memory_cache(), world);
        MpsFluid alone(context, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                       b.scene.upper, memory_cache(), dist::Communicator::self());
        ranks.scheduler() = Scheduler({1.0, 3.0});
        for (int step = 0; step < 30; ++step) {
            ranks.step();
            alone.step();
            ranks.scheduler() = Scheduler({1.0, 3.0});
        }
        const Partition split = ranks.slabs();
        CAPTURE(split[0].size());
        CAPTURE(split[1].size());
        CHECK((split[0].size() > 0 && split[1].size() > 0));
        check_same(ranks, alone);
    }
}

namespace {

// The rising block over the world's ranks, its slabs cut again every step (tolerance 0) by
// `work`, against one rank: the same fluid, and the same cuts on every rank. Returns whether
// the cut moved.
bool check_cut_again(MpsFluid::RankWork work) {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    const std::uint32_t seed = partcl_test::shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size() << ", by "
                 << (work == MpsFluid::RankWork::measured ? "measured work" : "particles"));
    const partcl_test::FallingBlock b = rising_block(seed);
    MpsFluid ranks(context, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                   b.scene.upper, memory_cache(), world);
    MpsFluid alone(context, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                   b.scene.upper, memory_cache(), dist::Communicator::self());
    ranks.rebalance_every(1, 0.0, work);
    const Partition first = ranks.rank_slabs();
    CHECK(first.parts() == std::size_t(world.size()));
    bool moved = false;
    for (int step = 0; step < 40; ++step) {
        ranks.step();
        alone.step();
        moved = moved || ranks.rank_slabs().offsets() != first.offsets();
    }
    check_same(ranks, alone);
    // Every rank made the same cuts.
    const std::vector<std::size_t> counts = world.allgather(ranks.rebalances());
    for (std::size_t c : counts) CHECK(c == counts[0]);
    CHECK(moved == (ranks.rebalances() > 0));
    if (world.size() == 1) CHECK(ranks.rebalances() == 0);
    return moved;
}

} // namespace

TEST_CASE("MpsFluid over ranks cut again as a block rises is one rank's fluid bit for bit") {
    // Cut by the particles alone, the cuts do not depend on timings: on two ranks the block's
    // rise moves the cut within the 40 steps.
    const bool moved = check_cut_again(MpsFluid::RankWork::particles);
    if (dist::Communicator::world().size() == 2) CHECK(moved);
    // By measured work, whether a cut moves depends on the timings; the fluid may not.
    check_cut_again(MpsFluid::RankWork::measured);
    const partcl_test::FallingBlock b = random_block(2, 1);
    MpsFluid fluid(test_context(), Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                   b.scene.upper, memory_cache(), dist::Communicator::world());
    CHECK_THROWS_AS(fluid.rebalance_every(1, -0.1), UsageError);
    CHECK_THROWS_AS(fluid.rebalance_every(1, NAN), UsageError);
    CHECK_THROWS_AS(fluid.rebalance_every(1, 0.0, MpsFluid::RankWork(7)), UsageError);
}
}
