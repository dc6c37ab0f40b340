#pragma once
// The particles of an MPS fluid on the host, apart from MpsFluid so io can draw and store them
// without device code.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace partcl {

enum class MpsType : std::uint32_t { fluid = 0, wall = 1, dummy = 2 };

// Component k of particle i at position[k * size() + i].
struct MpsParticles {
    int dimensions = 2;
    std::vector<double> position, velocity;
    std::vector<MpsType> type;
    std::size_t size() const noexcept { return type.size(); }
    std::size_t count(MpsType t) const;
};

} // namespace partcl
