#pragma once
// What the PIC benchmarks share (partcl_bench_pic, partcl_bench_pic_ranks): the --deposit option
// and the plasma they time, electrons and ions (mass 100) at uniform random positions with
// thermal velocities (0.1), the same for the same grid and count.
#include <cstdint>
#include <random>
#include <vector>

#include <partcl/models/pic/electrostatic_pic.hpp>

#include "common.hpp"

namespace partcl_bench {

// --deposit gather,atomic (by the names the scenarios use).
inline void add_deposits(CLI::App& app, std::vector<partcl::PicDeposit>& deposits) {
    add_list(app, "--deposit", deposits,
             [](const std::string& s) {
                 partcl::PicDeposit d{};
                 if (!partcl::from_name(partcl::pic_deposits, s, d))
                     throw partcl::UsageError("--deposit takes gather and atomic, not '" + s + "'");
                 return d;
             },
             "gather, atomic");
}

inline const std::vector<partcl::PicSpecies> plasma{{-1.0, 1.0, 1.0}, {1.0, 100.0, 1.0}};

inline partcl::PicParticles particles(const partcl::PicGrid& grid, std::size_t n) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> thermal(0.0, 0.1);
    partcl::PicParticles p;
    p.dimensions = grid.dimensions;
    for (int k = 0; k < grid.dimensions; ++k)
        for (std::size_t i = 0; i < n; ++i) p.position.push_back(u(rng) * grid.length(k));
    for (std::size_t i = 0; i < std::size_t(grid.dimensions) * n; ++i) p.velocity.push_back(thermal(rng));
    for (std::size_t i = 0; i < n; ++i) p.species.push_back(std::uint32_t(i % 2));
    return p;
}

} // namespace partcl_bench
