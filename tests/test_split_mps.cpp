// MpsFluid spread over several devices (include/partcl/models/mps/mps_fluid.hpp): steps of a
// fluid block with walls on two and three devices against one device, bit for bit (particles,
// velocities, pressure, time, next step), in float and double, 2-D and 3-D; forced weights
// 1:3; particles crossing the slab borders and so moving between the devices; fewer particles
// than devices; a resume on another number of devices. Suite split_mps
// (partcl_add_split_tests: two and three PoCL devices, and Oclgrind's one device named twice).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "falling_block.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

bool has_fp64() { return test_context().device(0).info().fp64; }

// The falling block (falling_block.hpp) at 0.4 m/s with 0.3 m/s of random velocities; small
// under Oclgrind.
using Block = FallingBlock;

Block random_block(int dims, std::uint32_t seed) {
    const bool small = under_oclgrind();
    MpsTank tank;
    tank.dimensions = dims;
    tank.spacing = 0.01;
    if (small) {  // about 60 (2-D) and 150 (3-D) particles
        tank.tank = dims == 2 ? std::array<double, 3>{0.04, 0.04, 0} : std::array<double, 3>{0.03, 0.02, 0.03};
        tank.water = dims == 2 ? std::array<double, 3>{0.03, 0.03, 0} : std::array<double, 3>{0.02, 0.02, 0.02};
        tank.dummy_layers = 1;
    } else {
        tank.tank = dims == 2 ? std::array<double, 3>{0.2, 0.15, 0} : std::array<double, 3>{0.08, 0.05, 0.09};
        tank.water = dims == 2 ? std::array<double, 3>{0.11, 0.13, 0} : std::array<double, 3>{0.05, 0.05, 0.07};
    }
    return falling_block(tank, 0.4, 0.3, seed);
}

Context one_device(Context& split) { return Context(std::vector<Device>{split.device(0)}); }

// Bit for bit: the particles in their order, the pressure, time, next step and top speed.
void check_same(const MpsFluid& split, const MpsFluid& one) {
    const MpsParticles a = split.particles(), b = one.particles();
    REQUIRE(a.position.size() == b.position.size());
    CHECK(std::memcmp(a.position.data(), b.position.data(), a.position.size() * sizeof(double)) == 0);
    CHECK(std::memcmp(a.velocity.data(), b.velocity.data(), a.velocity.size() * sizeof(double)) == 0);
    CHECK(a.type == b.type);
    const auto pa = split.pressure(), pb = one.pressure();
    CHECK(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(double)) == 0);
    CHECK(split.time() == one.time());
    CHECK(split.next_dt() == one.next_dt());
    CHECK(split.max_speed() == one.max_speed());
    CHECK(split.steps() == one.steps());
}

// Weights 1:3 (1:3:3 ... for more devices).
Scheduler one_to_three(std::size_t devices) {
    std::vector<double> weights(devices, 3.0);
    weights[0] = 1.0;
    return Scheduler(weights);
}

// The slab of each particle (in particles()' order) at the fluid's last cell sort.
std::vector<std::uint32_t> slab_of_particles(const MpsFluid& fluid) {
    const CellGrid& grid = fluid.grid();
    const std::uint32_t plane = grid.dimensions == 3 ? grid.cells[0] * grid.cells[1] : grid.cells[0];
    std::vector<std::uint32_t> slabs = fluid.cell_keys();
    for (std::uint32_t& s : slabs) s /= plane;
    return slabs;
}

} // namespace

TEST_SUITE("split_mps") {

TEST_CASE("steps on two and three devices are one device's, bit for bit") {
    // Under Oclgrind: two devices, forced weights (three devices: the resume case), the seed's
    // method in float in 2-D and the alternatives in double in 3-D (the kernels are one source
    // in either precision and dimension; the PoCL runs take every case).
    const bool small = under_oclgrind();
    const int steps = small ? 3 : 12;
    for (std::size_t parts : {2, 3})
        for (int dims : {2, 3})
            for (Precision precision : {Precision::float32, Precision::float64}) {
                if (precision == Precision::float64 && !has_fp64()) continue;
                if (small && (parts == 3 || (dims == 3) != (precision == Precision::float64)))
                    continue;
                for (bool forced : {false, true}) {
                    if (small && !forced) continue;
                    const std::uint32_t seed = fresh_seed();
                    CAPTURE(seed);
                    CAPTURE(parts);
                    CAPTURE(dims);
                    CAPTURE(std::string(to_string(precision)));
                    CAPTURE(forced);
                    // The seed's method, and the alternatives (whose artificial viscosity
                    // copies velocities to the ghosts too; shifting moves positions after the
                    // gradient; the surface's sweeps read the neighbours' swept pressures), each
                    // on half the runs.
                    const bool stabilised = small ? precision == Precision::float64 : forced;
                    CAPTURE(stabilised);
                    Block b = random_block(dims, seed);
                    if (stabilised) {
                        b.parameters.weight = MpsWeight::quadratic;
                        b.parameters.gradient = MpsGradient::corrected;
                        b.parameters.artificial_viscosity = 0.5;
                        b.parameters.shifting = 0.01;
                        b.parameters.surface_sweeps = 2;
                        b.parameters.viscosity_reconstruction = 0.5;  // reads ghosts' gradients
                    }
                    Context split = split_context(parts);
                    Context single = one_device(split);
                    MpsFluid spread(split, precision, b.parameters, b.scene.particles, b.scene.lower,
                                    b.scene.upper, memory_cache());
                    MpsFluid one(single, precision, b.parameters, b.scene.particles, b.scene.lower,
                                 b.scene.upper, memory_cache());
                    for (int s = 0; s < steps; ++s) {
                        // Forced: 1:3 at every step (a run re-weights from the kernels' times).
                        if (forced) spread.scheduler() = one_to_three(parts);
                        CHECK(spread.step() == one.step());
                        // Every cut on a slab border.
                        const auto slab = slab_of_particles(spread);
                        for (std::size_t d = 1; d < parts; ++d) {
                            const std::size_t cut = spread.slabs()[d].begin;
                            if (cut > 0 && cut < spread.size()) CHECK(slab[cut - 1] < slab[cut]);
                        }
                    }
                    check_same(spread, one);
                    // The slab borders follow the weights: at 1:3, device 0 has the smaller part.
                    if (forced && !small)
                        CHECK(spread.slabs()[0].size() < spread.slabs()[1].size());
                }
            }
}

TEST_CASE("particles that cross the slab border between two devices move to the other") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    Block b = random_block(2, seed);
    Context split = split_context(2);
    Context single = one_device(split);
    const Precision precision = Precision::float32;
    auto fluid = [&](Context& context) {
        return MpsFluid(context, precision, b.parameters, b.scene.particles, b.scene.lower,
                        b.scene.upper, memory_cache());
    };
    // The grid depends on the box and the radii alone. Lift the fluid so that its lowest row
    // lies 0.1 mm above the slab border `border`: falling, it crosses within a few steps.
    const CellGrid grid = fluid(single).grid();
    const double origin = grid.origin[1], edge = grid.cell_size;
    MpsParticles& particles = b.scene.particles;
    const std::size_t n = particles.size();
    double lowest = 1e300;
    for (std::size_t i = 0; i < n; ++i)
        if (particles.type[i] == MpsType::fluid) lowest = std::min(lowest, particles.position[n + i]);
    const double border = std::ceil((lowest - origin) / edge);
    const double lift = origin + border * edge + 1e-4 - lowest;
    for (std::size_t i = 0; i < n; ++i)
        if (particles.type[i] == MpsType::fluid) particles.position[n + i] += lift;
    MpsFluid spread = fluid(split), one = fluid(single);
    // Weights that put the cut on that border: the particles below it to device 0.
    auto cut_at_border = [&] {
        const MpsParticles now = spread.particles();
        double below = 0;
        for (std::size_t i = 0; i < n; ++i) below += (now.position[n + i] - origin) / edge < border;
        spread.scheduler() = Scheduler({below, double(n) - below});
    };
    std::size_t crossed = 0, migrated = 0;
    const int steps = under_oclgrind() ? 6 : 30;
    cut_at_border();
    spread.step();
    one.step();
    for (int s = 0; s < steps; ++s) {
        // On one device, slot j of this step is slot order[j] of the step before (the cell
        // sort's order): the particles whose slab changed.
        const auto slab_before = slab_of_particles(one);
        cut_at_border();
        spread.step();
        one.step();
        const auto slab_now = slab_of_particles(spread);
        CHECK(slab_now == slab_of_particles(one));
        const std::size_t cut = spread.slabs()[1].begin;
        REQUIRE(cut > 0);
        REQUIRE(cut < n);
        CHECK(slab_now[cut - 1] < border);
        CHECK(slab_now[cut] >= border);
        const auto order = one.cells().order().read(single.queue(0));
        for (std::size_t j = 0; j < n; ++j) crossed += slab_now[j] != slab_before[order[j]];
        migrated += spread.migrated();
    }
    MESSAGE(crossed << " slab crossings, " << migrated << " moves between devices in " << steps
                    << " steps of " << n << " particles");
    CHECK(crossed > 0);
    CHECK(migrated > 0);
    check_same(spread, one);
}

TEST_CASE("fewer particles than devices") {
    Context split = split_context(3);
    Context single = one_device(split);
    MpsParameters p;
    p.spacing = 0.01;
    MpsParticles particles;
    particles.dimensions = 2;
    particles.position = {0.02, 0.05, 0.03, 0.05};  // x of both, then y
    particles.velocity = {0.1, -0.1, 0.0, 0.2};
    particles.type = {MpsType::fluid, MpsType::fluid};
    const std::array<double, 3> lower{0, 0, 0}, upper{0.1, 0.1, 0};
    for (Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !has_fp64()) continue;
        MpsFluid spread(split, precision, p, particles, lower, upper, memory_cache());
        MpsFluid one(single, precision, p, particles, lower, upper, memory_cache());
        for (int s = 0; s < 5; ++s) spread.step(), one.step();
        std::size_t used = 0;
        for (std::size_t d = 0; d < 3; ++d) used += !spread.slabs()[d].empty();
        CHECK(used <= 2);
        check_same(spread, one);
    }
}

TEST_CASE("a resume on another number of devices continues bit for bit") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    const Block b = random_block(3, seed);
    Context two = split_context(2), three = split_context(3);
    Context single = one_device(two);
    const int first = under_oclgrind() ? 2 : 6, then = under_oclgrind() ? 2 : 6;
    MpsFluid one(single, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                 b.scene.upper, memory_cache());
    MpsFluid on_two(two, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                    b.scene.upper, memory_cache());
    for (int s = 0; s < first; ++s) one.step(), on_two.step();
    const MpsState state = on_two.state();
    // A fluid of the same particles (its start is overwritten by the restore).
    MpsFluid on_three(three, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                      b.scene.upper, memory_cache());
    on_three.restore(state);
    for (int s = 0; s < then; ++s) one.step(), on_three.step();
    check_same(on_three, one);
}

TEST_CASE("the step's launches, each device's share of them") {
    for (const int sweeps : {0, 2}) {  // with the sweeps, the velocity gradient too
        CAPTURE(sweeps);
        Block b = random_block(2, fresh_seed());
        b.parameters.surface_sweeps = sweeps;
        if (sweeps > 0) {
            b.parameters.artificial_viscosity = 0.5;
            b.parameters.viscosity_reconstruction = 0.5;
        }
        Context split = split_context(2);
        MpsFluid fluid(split, Precision::float32, b.parameters, b.scene.particles, b.scene.lower,
                       b.scene.upper, memory_cache());
        fluid.scheduler() = Scheduler({1.0, 1.0});
        const int steps = 3;
        for (int s = 0; s < steps; ++s) fluid.step();
        const LaunchList launches = fluid.launches();
        std::vector<std::string> names{"mps predict", "mps collide"};
        if (sweeps > 0) names.push_back("mps velocity gradient");
        names.push_back("mps pressure");
        if (sweeps > 0) names.push_back("mps surface pressure");
        names.insert(names.end(), {"mps correct", "mps max speed"});
        REQUIRE(launches.size() == names.size());
        for (std::size_t k = 0; k < launches.size(); ++k) {
            CAPTURE(k);
            CHECK(launches[k]->name() == names[k]);
            const std::size_t each = names[k] == "mps surface pressure" ? std::size_t(sweeps) : 1;
            double items = 0;
            for (const DeviceWork& w : launches[k]->work()) items += w.items;
            CHECK(items == double(each * steps) * double(fluid.size()));
            CHECK(launches[k]->work()[0].launches == each * std::size_t(steps));
            CHECK(launches[k]->work()[1].launches >= 1);
        }
    }
}

}
