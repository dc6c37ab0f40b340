// ElectrostaticPic over 1, 2 and 3 ranks (suite `mpi`): every rank runs the model over the
// ranks and, alone on its device, the one-rank model of the same particles, and checks that the
// gathered field, charge and energies agree within rounding after steps in which particles
// cross between the ranks' slabs (in 1-D, 2-D and 3-D, both deposits), that no particle is lost
// and each rank holds only those of its own planes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>

#include "pic_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::memory_cache;
using partcl_test::test_context;

namespace {

double largest(const std::vector<double>& values) {
    double m = 0;
    for (double v : values) m = std::max(m, std::abs(v));
    return m;
}

double worst_difference(const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

void check_against_one_rank(Precision precision, const PicGrid& grid, std::size_t n,
                            PicDeposit deposit) {
    const dist::Communicator& world = dist::Communicator::world();
    Context& context = test_context();
    if (precision == Precision::float64 && !context.device(0).info().fp64) return;
    if (deposit == PicDeposit::atomic && precision == Precision::float64) {
        try {
            require_deposit(context.device(0).info(), precision, deposit);
        } catch (const Unsupported&) {
            return;
        }
    }
    const std::uint32_t seed = partcl_test::shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size() << ", "
                 << grid.dimensions << "-D, " << std::string(to_string(precision)) << ", "
                 << std::string(to_string(deposit)));
    std::mt19937 rng(seed);
    const PicParticles particles = partcl_test::random_pic_particles(grid, n, rng);
    // Electrons and heavy ions, both weighted for a plasma frequency near 1.
    const double volume = std::pow(grid.spacing, grid.dimensions) * double(grid.points());
    const double weight = volume / double(n);
    const std::vector<PicSpecies> species = {{-1, 1, weight}, {1, 50, weight}};

    ElectrostaticPic ranks(context, precision, grid, species, particles, deposit, memory_cache(),
                           world);
    ElectrostaticPic alone(context, precision, grid, species, particles, deposit, memory_cache(),
                           dist::Communicator::self());
    const std::vector<std::size_t> sizes = world.allgather(ranks.local_size());
    std::size_t total = 0;
    for (std::size_t s : sizes) total += s;
    CHECK(total == n);
    CHECK(ranks.size() == n);

    // Rounding differs (the slab transform, the ghost plane's sum) and random plasmas amplify
    // it slowly: after 12 steps the fields differed by 4e-15 (double) and 5e-6 (float) of
    // their scale on 3 ranks; the bounds leave a factor 40, and stay far below a particle's
    // share of the field (about 1 / N of it), which a lost or doubled particle would show.
    const double eps = precision == Precision::float64 ? 1e-11 : 2e-4;
    for (int step = 0; step < 12; ++step) {
        ranks.step(0.5);
        alone.step(0.5);
    }
    const std::vector<double> e = ranks.field(), e_alone = alone.field();
    const double scale = largest(e_alone);
    CAPTURE(scale);
    CHECK(worst_difference(e, e_alone) <= eps * scale);
    const std::vector<double> rho = ranks.charge_density(), rho_alone = alone.charge_density();
    CHECK(worst_difference(rho, rho_alone) <= eps * largest(rho_alone));
    CHECK(std::abs(ranks.field_energy() - alone.field_energy()) <= 4 * eps * alone.field_energy());
    CHECK(std::abs(ranks.kinetic_energy() - alone.kinetic_energy()) <=
          4 * eps * alone.kinetic_energy());

    // Every particle is still there, in the box, and this rank's in its own planes (the
    // gathered particles come in rank order).
    const PicParticles now = ranks.particles();
    REQUIRE(now.size() == n);
    const int axis = grid.dimensions - 1;
    const double length = grid.length(axis);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = now.position[std::size_t(axis) * n + i];
        CHECK(x >= 0);
        CHECK(x < length);
    }
    const std::vector<std::size_t> after = world.allgather(ranks.local_size());
    std::size_t first = 0;
    for (int r = 0; r < world.rank(); ++r) first += after[std::size_t(r)];
    REQUIRE(!ranks.planes().empty());
    const double low = double(ranks.planes().begin) * grid.spacing,
                 high = double(ranks.planes().end) * grid.spacing;
    for (std::size_t i = first; i < first + ranks.local_size(); ++i) {
        const double x = now.position[std::size_t(axis) * n + i];
        CHECK(x >= low - 1e-6 * grid.spacing);
        CHECK(x < high + 1e-6 * grid.spacing);
    }
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("ElectrostaticPic over ranks gives one rank's field and energies, particles migrating") {
    PicGrid line;
    line.dimensions = 1;
    line.nodes = {48, 1, 1};
    line.spacing = 0.75;
    PicGrid plane;
    plane.dimensions = 2;
    plane.nodes = {12, 10, 1};
    PicGrid cube;
    cube.dimensions = 3;
    cube.nodes = {6, 5, 8};
    cube.spacing = 1.25;
    for (Precision p : {Precision::float64, Precision::float32}) {
        check_against_one_rank(p, line, 3000, PicDeposit::gather);
        check_against_one_rank(p, plane, 2000, PicDeposit::gather);
        check_against_one_rank(p, cube, 2000, PicDeposit::gather);
        check_against_one_rank(p, plane, 2000, PicDeposit::atomic);
    }
}

TEST_CASE("ElectrostaticPic refuses more ranks than planes, on every rank") {
    const dist::Communicator& world = dist::Communicator::world();
    if (world.size() < 3) return;  // a 2-D grid has 2 planes at least
    PicGrid grid;
    grid.dimensions = 2;
    grid.nodes = {8, 2, 1};
    std::mt19937 rng(5);
    const PicParticles p = partcl_test::random_pic_particles(grid, 10, rng);
    CHECK_THROWS_AS(ElectrostaticPic(test_context(), Precision::float32, grid, {{-1, 1, 1}}, p,
                                     PicDeposit::gather, memory_cache(), world),
                    UsageError);
}
}
