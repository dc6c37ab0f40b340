#pragma once
// A water block in a closed tank (walls and dummies), its fluid moving down at `down` m/s with
// random velocities of up to `jitter` m/s on top (from `seed`), so that particles cross cell
// layers within a few steps: the fluid the tests split over devices and ranks.
#include <random>

#include <partcl/models/mps/mps_tank.hpp>

namespace partcl_test {

struct FallingBlock {
    partcl::MpsScene scene;
    partcl::MpsParameters parameters;
};

inline FallingBlock falling_block(const partcl::MpsTank& tank, double down, double jitter,
                                  std::uint32_t seed) {
    using namespace partcl;
    const int dims = tank.dimensions;
    FallingBlock b{mps_tank(tank), {}};
    MpsParameters& p = b.parameters;
    p.dimensions = dims;
    p.spacing = tank.spacing;
    p.gravity = {0, 0, 0};
    p.gravity[std::size_t(dims - 1)] = -9.81;
    p.sound_speed = 10;
    MpsParticles& particles = b.scene.particles;
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> uniform(-jitter, jitter);
    const std::size_t n = particles.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (particles.type[i] != MpsType::fluid) continue;
        for (int k = 0; k < dims; ++k) particles.velocity[std::size_t(k) * n + i] = uniform(random);
        particles.velocity[std::size_t(dims - 1) * n + i] -= down;
    }
    return b;
}

} // namespace partcl_test
