// Explicit MPS (include/partcl/models/mps/mps_fluid.hpp): each kernel against a float64 host
// reference (tests/mps_check.cpp), the lattice constants, usage errors, and whole steps that
// keep every particle; suite mps_physics: the hydrostatic pressure and the dam break against
// Martin & Moyce (1952).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "mps_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

bool has_fp64() { return test_context().device(0).info().fp64; }

} // namespace

TEST_SUITE("mps") {

TEST_CASE("each MPS kernel matches the float64 host reference") {
    for (int dims : {2, 3}) {
        const std::size_t per_axis = dims == 2 ? 21 : 8;
        check_mps_kernels(Precision::float32, dims, per_axis);
        if (has_fp64()) check_mps_kernels(Precision::float64, dims, per_axis);
    }
}

TEST_CASE("n0 and lambda0 of the square and cubic lattices") {
    // 2-D, re = 2.1: 4 neighbours at 1 (w = 1.1), 4 at sqrt 2, 4 at 2 (w = 0.05).
    const double w2 = 2.1 / std::sqrt(2.0) - 1;
    const MpsLattice square = mps_lattice(2, 2.1);
    CHECK(square.n0 == doctest::Approx(4 * 1.1 + 4 * w2 + 4 * 0.05).epsilon(1e-14));
    CHECK(square.lambda0 ==
          doctest::Approx((4 * 1.1 + 4 * 2 * w2 + 4 * 4 * 0.05) / square.n0).epsilon(1e-14));
    // 3-D, re = 2.1: 6 at 1, 12 at sqrt 2, 8 at sqrt 3, 6 at 2; sqrt 5 > 2.1.
    const MpsLattice cubic = mps_lattice(3, 2.1);
    CHECK(cubic.n0 == doctest::Approx(6 * 1.1 + 12 * w2 + 8 * (2.1 / std::sqrt(3.0) - 1) + 6 * 0.05)
                          .epsilon(1e-14));
}

TEST_CASE("bad MPS input is a usage error naming the problem") {
    Context& context = test_context();
    MpsTank tank;
    tank.spacing = 0.02;
    const MpsScene scene = mps_tank(tank);
    MpsParameters p;
    p.spacing = 0.02;
    auto make = [&](const MpsParameters& q, const MpsParticles& particles) {
        MpsFluid fluid(context, Precision::float32, q, particles, scene.lower, scene.upper, memory_cache());
    };
    CHECK_NOTHROW(make(p, scene.particles));
    MpsParameters q = p;
    q.re_ratio = 0.9;  // spacing larger than re
    CHECK_THROWS_WITH_AS(make(q, scene.particles), doctest::Contains("smaller than the influence radii"), UsageError);
    q = p;
    q.sound_speed = 0;
    CHECK_THROWS_AS(make(q, scene.particles), UsageError);
    MpsParticles bad = scene.particles;
    bad.position[3] = NAN;
    CHECK_THROWS_WITH_AS(make(p, bad), doctest::Contains("NaN"), UsageError);
    bad = scene.particles;
    bad.position[bad.size() + 5] = 10;  // far above the box
    CHECK_THROWS_WITH_AS(make(p, bad), doctest::Contains("outside the grid's box"), UsageError);
    bad = scene.particles;
    bad.velocity.pop_back();
    CHECK_THROWS_AS(make(p, bad), UsageError);
    tank.water = {0.3, 0.1, 0};  // wider than the tank? no: 0.3 < 0.5; not a multiple of 0.02?
    tank.water = {0.6, 0.1, 0};
    CHECK_THROWS_WITH_AS(mps_tank(tank), doctest::Contains("does not fit"), UsageError);
    tank.water = {0.105, 0.1, 0};
    CHECK_THROWS_WITH_AS(mps_tank(tank), doctest::Contains("multiple of the spacing"), UsageError);
}

TEST_CASE("steps keep every particle, walls stay put, time follows the CFL limit") {
    Context& context = test_context();
    for (int dims : {2, 3}) {
        for (Precision precision : {Precision::float32, Precision::float64}) {
            if (precision == Precision::float64 && !has_fp64()) continue;
            CAPTURE(dims);
            CAPTURE(std::string(to_string(precision)));
            MpsTank tank;
            tank.dimensions = dims;
            tank.spacing = 0.01;
            tank.tank = dims == 2 ? std::array<double, 3>{0.2, 0.1, 0} : std::array<double, 3>{0.1, 0.05, 0.06};
            tank.water = dims == 2 ? std::array<double, 3>{0.05, 0.05, 0} : std::array<double, 3>{0.03, 0.05, 0.03};
            const MpsScene scene = mps_tank(tank);
            MpsParameters p;
            p.dimensions = dims;
            p.spacing = tank.spacing;
            p.gravity = dims == 2 ? std::array<double, 3>{0, -9.81, 0} : std::array<double, 3>{0, 0, -9.81};
            p.sound_speed = 10;
            MpsFluid fluid(context, precision, p, scene.particles, scene.lower, scene.upper, memory_cache());
            const double first_dt = fluid.next_dt();
            CHECK(first_dt == doctest::Approx(0.2 * 0.01 / 10));
            for (int s = 0; s < 200; ++s) fluid.step();
            CHECK(fluid.steps() == 200);
            const MpsParticles now = fluid.particles();
            const std::size_t n = now.size();
            CHECK(n == scene.particles.size());
            CHECK(now.count(MpsType::fluid) == scene.particles.count(MpsType::fluid));
            CHECK(now.count(MpsType::wall) == scene.particles.count(MpsType::wall));
            CHECK(now.count(MpsType::dummy) == scene.particles.count(MpsType::dummy));
            // Walls: the same multiset of positions (sorted), none moved.
            auto wall_points = [&](const MpsParticles& ps) {
                std::vector<std::array<double, 3>> w;
                for (std::size_t i = 0; i < ps.size(); ++i)
                    if (ps.type[i] != MpsType::fluid) {
                        std::array<double, 3> q{0, 0, 0};
                        for (int k = 0; k < dims; ++k) q[k] = ps.position[k * ps.size() + i];
                        w.push_back(q);
                    }
                std::sort(w.begin(), w.end());
                return w;
            };
            const auto before = wall_points(scene.particles), after = wall_points(now);
            REQUIRE(before.size() == after.size());
            double moved = 0;
            for (std::size_t i = 0; i < before.size(); ++i)
                for (int k = 0; k < dims; ++k) moved = std::max(moved, std::fabs(before[i][k] - after[i][k]));
            CHECK(moved <= 1e-6);
            // Fluid fell: its mean height dropped, it is moving, and the step shrank with it.
            double mean_before = 0, mean_after = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (scene.particles.type[i] == MpsType::fluid) mean_before += scene.particles.position[(dims - 1) * n + i];
                if (now.type[i] == MpsType::fluid) mean_after += now.position[(dims - 1) * n + i];
            }
            CHECK(mean_after < mean_before);
            CHECK(fluid.max_speed() > 0);
            CHECK(fluid.next_dt() == doctest::Approx(0.2 * 0.01 / (10 + fluid.max_speed())));
            CHECK(fluid.time() > 199 * fluid.next_dt());
        }
    }
}

}
