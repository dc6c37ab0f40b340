#pragma once
// The dam break the MPS benchmarks time (partcl_bench_mps, partcl_bench_mps_ranks).
#include <algorithm>
#include <cmath>

#include <partcl/models/mps/mps_tank.hpp>

namespace partcl_bench {

// A dam break of about `fluid` fluid particles: a block m wide (and m deep in 3-D) and m high
// in a tank 2 m long, spacing 1 cm; `p` gets the matching parameters.
inline partcl::MpsScene dam_break_scene(int dims, std::size_t fluid, partcl::MpsParameters& p) {
    const double l0 = 0.01;
    const long long m = std::max<long long>(4, std::llround(std::pow(double(fluid), 1.0 / dims)));
    partcl::MpsTank tank;
    tank.dimensions = dims;
    tank.spacing = l0;
    const double side = double(m) * l0;
    const double up = double(m + m / 2) * l0;
    tank.tank = dims == 2 ? std::array<double, 3>{2 * side, up, 0}
                          : std::array<double, 3>{2 * side, side, up};
    tank.water = {side, side, side};
    p.dimensions = dims;
    p.spacing = l0;
    p.gravity = {0, 0, 0};
    p.gravity[dims - 1] = -9.81;
    p.sound_speed = 10 * std::sqrt(2 * 9.81 * side);
    return partcl::mps_tank(tank);
}

} // namespace partcl_bench
