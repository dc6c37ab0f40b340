// ElectrostaticPic spread over the devices of a context (split_context: two or three PoCL
// devices, or Oclgrind's one device named twice) against the same model on one device: with the
// gather deposit the charge density, the field and the particles are bit for bit the
// one-device ones after several steps, for any split (weights forced uneven, particles fewer
// than devices); the atomic deposit, unordered on any number of devices, within the bound of
// reordered sums; a run goes on bit for bit on another number of devices; and the launches are
// re-weighted from their kernels' times.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pic_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

const std::vector<PicSpecies> two_species{{-1.0, 1.0, 0.5}, {2.0, 100.0, 0.25}};

std::vector<Precision> precisions() {
    std::vector<Precision> list{Precision::float32};
    if (test_context().device(0).info().fp64) list.push_back(Precision::float64);
    return list;
}

// Sizes that no work-group or weight divides; at least two work-groups of 64 nodes per device
// where Oclgrind does not make that slow, so that every device gets nodes to compute.
PicGrid grid_of(int dimensions) {
    PicGrid grid;
    grid.dimensions = dimensions;
    const bool small = under_oclgrind();
    if (dimensions == 1) grid.nodes = {small ? 150u : 200u, 1u, 1u};
    if (dimensions == 2) grid.nodes = {small ? 12u : 16u, small ? 10u : 14u, 1u};
    if (dimensions == 3) grid.nodes = {small ? 6u : 8u, small ? 5u : 7u, small ? 4u : 6u};
    grid.spacing = 0.37;
    return grid;
}

// n random particles from `seed`.
PicParticles random_particles(const PicGrid& grid, std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    return random_pic_particles(grid, n, rng);
}

// 1:3 for two devices, 1:3:2 for three: uneven, and not the weights the scheduler starts from.
// Two and three devices; under Oclgrind (one device named several times, slow) three only, the
// unevener split, to keep the suite short (the re-weighting case splits over two).
std::vector<std::size_t> device_counts() {
    if (under_oclgrind()) return {3};
    return {2, 3};
}

// Every grid in float; under Oclgrind, whose time is CI's longest, double in 3-D alone (the
// kernels are the same source in either precision; the PoCL runs take every case).
std::vector<int> dimensions_of(Precision precision) {
    if (under_oclgrind() && precision == Precision::float64) return {3};
    return {1, 2, 3};
}

std::vector<double> uneven_weights(std::size_t devices) {
    std::vector<double> weights{1.0, 3.0, 2.0};
    weights.resize(devices, 1.0);
    return weights;
}

Context one_device() { return Context({test_context().device(0)}); }

bool same(const PicParticles& a, const PicParticles& b) {
    return a.position == b.position && a.velocity == b.velocity && a.species == b.species;
}

// The state of a split run and of a one-device run of the same particles, compared bit for bit
// (vector == on the doubles read back) at the start and after each step.
void check_bitwise(Context& split, Precision precision, int dimensions, std::size_t n,
                   std::uint32_t seed) {
    CAPTURE(seed);
    CAPTURE(std::string(to_string(precision)));
    CAPTURE(dimensions);
    CAPTURE(n);
    CAPTURE(split.size());
    const PicGrid grid = grid_of(dimensions);
    const PicParticles start = random_particles(grid, n, seed);
    Context single = one_device();
    ElectrostaticPic one(single, precision, grid, two_species, start, PicDeposit::gather,
                         memory_cache());
    ElectrostaticPic many(split, precision, grid, two_species, start, PicDeposit::gather,
                          memory_cache());
    many.set_weights(uneven_weights(split.size()));
    // Under Oclgrind one step: the kernels a step runs are the same at every step.
    const int steps = under_oclgrind() ? 1 : 4;
    for (int step = 0; step <= steps; ++step) {
        CAPTURE(step);
        CHECK(many.charge_density() == one.charge_density());
        CHECK(many.field() == one.field());
        CHECK(same(many.particles(), one.particles()));
        CHECK(many.field_energy() == one.field_energy());
        if (step == steps) break;
        one.step(0.3);
        many.step(0.3);
    }
}

// Per node, the number of particles depositing on it and the sum of the magnitudes of their
// contributions |q| w_CIC, from the positions as the device holds them (rounded to `precision`).
struct NodeSums {
    std::vector<double> count, magnitude;
};
NodeSums node_sums(const PicGrid& grid, const PicParticles& p, Precision precision) {
    const int d = grid.dimensions;
    NodeSums sums{std::vector<double>(grid.points()), std::vector<double>(grid.points())};
    const double volume = std::pow(grid.spacing, d);
    for (std::size_t i = 0; i < p.size(); ++i) {
        std::size_t cell[3] = {0, 0, 0};
        double f[3] = {0, 0, 0};
        for (int k = 0; k < d; ++k) {
            double x = p.position[k * p.size() + i];
            if (precision == Precision::float32) x = double(float(x));
            const double t = x / grid.spacing;
            cell[k] = std::min<std::size_t>(std::size_t(t), grid.nodes[k] - 1);
            f[k] = t - double(cell[k]);
        }
        const PicSpecies& s = two_species[p.species[i]];
        for (int b = 0; b < (1 << d); ++b) {
            std::size_t node = 0, scale = 1;
            double w = std::abs(s.charge * s.weight) / volume;
            for (int k = 0; k < d; ++k) {
                const std::size_t up = (b >> k) & 1, c = cell[k] + up;
                node += (c == grid.nodes[k] ? 0 : c) * scale;
                scale *= grid.nodes[k];
                w *= up ? f[k] : 1 - f[k];
            }
            sums.count[node] += 1;
            sums.magnitude[node] += w;
        }
    }
    return sums;
}

// The atomic deposit adds in no fixed order, on one device as on several, so the comparison is
// with the bound of reordered sums. Both runs compute each particle's contribution to a node the
// same way (the same kernel code on the same rounded inputs) and differ only in the order of
// the additions: the split run adds each device's grid in device order, one more addition per
// device. Recursive summation of m terms t_j in any order is within (m - 1) eps sum |t_j| of the
// exact sum of those terms (to first order), so two orders differ by at most
// 2 (m - 1 + devices) eps sum |t_j|; the host's sum |t_j|, from double weights, is within a few
// eps of the device's, covered by doubling the bound.
void check_atomic(Context& split, Precision precision, int dimensions, std::size_t n,
                  std::uint32_t seed) {
    CAPTURE(seed);
    CAPTURE(n);
    CAPTURE(split.size());
    CAPTURE(std::string(to_string(precision)));
    CAPTURE(dimensions);
    const double eps = precision == Precision::float32 ? std::numeric_limits<float>::epsilon()
                                                       : std::numeric_limits<double>::epsilon();
    const PicGrid grid = grid_of(dimensions);
    const PicParticles start = random_particles(grid, n, seed);
    Context single = one_device();
    ElectrostaticPic one(single, precision, grid, two_species, start, PicDeposit::atomic,
                         memory_cache());
    ElectrostaticPic many(split, precision, grid, two_species, start, PicDeposit::atomic,
                          memory_cache());
    many.set_weights(uneven_weights(split.size()));
    // The same particles in the same (cell) order on both.
    REQUIRE(same(many.particles(), one.particles()));
    const NodeSums sums = node_sums(grid, one.particles(), precision);
    const std::vector<double> a = many.charge_density(), b = one.charge_density();
    REQUIRE(a.size() == b.size());
    for (std::size_t g = 0; g < a.size(); ++g) {
        CAPTURE(g);
        const double bound = 2 * 2 * (sums.count[g] + double(split.size())) * eps * sums.magnitude[g];
        CHECK(std::abs(a[g] - b[g]) <= bound);
    }
}

} // namespace

TEST_SUITE("split_pic") {

TEST_CASE("gather deposit: density, field and particles bit for bit as on one device") {
    const std::size_t n = under_oclgrind() ? 211 : 1009;  // primes
    for (std::size_t parts : device_counts()) {
        Context split = split_context(parts);
        for (Precision precision : precisions())
            for (int dimensions : dimensions_of(precision))
                check_bitwise(split, precision, dimensions, n, fresh_seed());
    }
}

TEST_CASE("fewer particles than devices") {
    // Under Oclgrind float in 3-D alone: its kernels are the gather case's, with devices idle.
    Context split = split_context(3);
    for (Precision precision : precisions()) {
        if (under_oclgrind() && precision == Precision::float64) continue;
        for (int dimensions : {1, 3})
            if (!under_oclgrind() || dimensions == 3)
                check_bitwise(split, precision, dimensions, 2, fresh_seed());
    }
}

TEST_CASE("atomic deposit: within the bound of reordered sums of each node's charges") {
    const std::size_t n_many = under_oclgrind() ? 211 : 1009;
    for (std::size_t parts : device_counts()) {
        Context split = split_context(parts);
        for (Precision precision : precisions()) {
            try {
                for (const Device& device : split.devices())
                    require_deposit(device.info(), precision, PicDeposit::atomic);
            } catch (const Unsupported&) {
                MESSAGE("atomic deposit in " << to_string(precision) << " skipped: no 64-bit atomics");
                continue;
            }
            for (int dimensions : dimensions_of(precision)) {
                check_atomic(split, precision, dimensions, n_many, fresh_seed());
                // Fewer particles than devices (under Oclgrind in 3-D alone: the same kernels).
                if (!under_oclgrind() || dimensions == 3)
                    check_atomic(split, precision, dimensions, 2, fresh_seed());
            }
        }
    }
}

// A checkpoint holds the particles in cell order and the clock: continued on another number of
// devices, the run goes on bit for bit as it would have on the devices that saved it.
TEST_CASE("a run saved on several devices continues bit for bit on one, and back") {
    const std::size_t n = under_oclgrind() ? 211 : 1009;
    const PicGrid grid = grid_of(2);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    Context split = split_context(2), single = one_device();
    ElectrostaticPic first(split, Precision::float32, grid, two_species,
                           random_particles(grid, n, seed), PicDeposit::gather, memory_cache());
    first.set_weights(uneven_weights(2));
    first.step(0.3);
    first.step(0.3);
    ElectrostaticPic second(single, Precision::float32, grid, two_species, first.particles(),
                            PicDeposit::gather, memory_cache());
    second.restore_clock(first.time(), first.steps());
    first.step(0.3);
    second.step(0.3);
    CHECK(same(second.particles(), first.particles()));
    CHECK(second.field() == first.field());
    ElectrostaticPic third(split, Precision::float32, grid, two_species, second.particles(),
                           PicDeposit::gather, memory_cache());
    third.restore_clock(second.time(), second.steps());
    second.step(0.3);
    third.step(0.3);
    CHECK(same(third.particles(), second.particles()));
    CHECK(third.field() == second.field());
}

TEST_CASE("the split launches are named, cover every item and are re-weighted") {
    const std::size_t parts = 2;
    Context split = split_context(parts);
    const PicGrid grid = grid_of(2);  // slabs along y for the devices to share (1-D: one)
    const std::size_t n = under_oclgrind() ? 211 : 1009;
    ElectrostaticPic pic(split, Precision::float32, grid, two_species,
                         random_particles(grid, n, fresh_seed()), PicDeposit::gather,
                         memory_cache());
    CHECK_THROWS_AS(pic.set_weights({1.0}), UsageError);
    CHECK_THROWS_AS(pic.set_weights({1.0, 0.0}), UsageError);
    pic.set_weights({1.0, 3.0});
    const LaunchList launches = pic.launches();
    REQUIRE(launches.size() == 2);
    CHECK(launches[0]->name() == "pic deposit");
    CHECK(launches[1]->name() == "pic push");
    std::vector<std::vector<DeviceWork>> before;
    for (const MultiDeviceLaunch* launch : launches) before.push_back(launch->work());
    const int steps = 3;
    for (int s = 0; s < steps; ++s) pic.step(0.3);
    const double items[] = {double(grid.points()), double(n)};
    for (std::size_t l = 0; l < launches.size(); ++l) {
        CAPTURE(launches[l]->name());
        const std::vector<DeviceWork>& work = launches[l]->work();
        double total = 0;
        bool timed = true;
        for (std::size_t d = 0; d < parts; ++d) {
            CAPTURE(d);
            CHECK(work[d].launches == before[l][d].launches + steps);  // every device had a part
            total += work[d].items - before[l][d].items;
            timed = timed && work[d].seconds > before[l][d].seconds;
        }
        CHECK(total == steps * items[l]);
        // Forced to 1:3, the weights follow the measured times (when the device reports them).
        if (timed) CHECK(launches[l]->scheduler().weights() != std::vector<double>{0.25, 0.75});
    }
}

} // TEST_SUITE
