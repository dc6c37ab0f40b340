#pragma once
// What a PIC plasma is made of on the host (its species, grid and particles), apart from
// ElectrostaticPic so set-ups and io can build, draw and store them without device code. The
// predicates are the ranges ElectrostaticPic and a scenario's [plasma] both check.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace partcl {

struct PicSpecies {
    double charge = -1;  // per physical particle
    double mass = 1;
    double weight = 1;   // physical particles per macro-particle

    static bool valid_charge(double q) noexcept { return std::isfinite(q); }
    static bool valid_mass(double m) noexcept { return m > 0 && std::isfinite(m); }
    static bool valid_weight(double w) noexcept { return w > 0 && std::isfinite(w); }
};

struct PicGrid {
    int dimensions = 1;
    std::array<std::uint32_t, 3> nodes{64, 1, 1};  // per axis; 1 for unused axes
    double spacing = 1;                            // dx, the same on every axis
    std::size_t points() const noexcept { return std::size_t(nodes[0]) * nodes[1] * nodes[2]; }
    double length(int axis) const noexcept { return nodes[axis] * spacing; }

    static constexpr bool valid_dimensions(int d) noexcept { return d >= 1 && d <= 3; }
};

// Component k of particle i at position[k * size() + i] (k < dimensions).
struct PicParticles {
    int dimensions = 1;
    std::vector<double> position, velocity;
    std::vector<std::uint32_t> species;
    std::size_t size() const noexcept { return species.size(); }
};

} // namespace partcl
