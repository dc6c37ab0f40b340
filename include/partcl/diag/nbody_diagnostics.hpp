#pragma once
// Conserved quantities of an N-body system, summed in double with compensation.
#include <array>
#include <vector>

#include <partcl/models/nbody/bodies.hpp>

namespace partcl {

struct NBodyDiagnostics {
    double kinetic = 0;    // T = 1/2 sum m v^2
    double potential = 0;  // W = 1/2 sum m phi
    double total() const noexcept { return kinetic + potential; }
    std::array<double, 3> momentum{};          // sum m v
    std::array<double, 3> angular_momentum{};  // sum m r x v
    // 2T / |W|: 1 in virial equilibrium.
    double virial_ratio() const noexcept;
};

// `potential` holds phi_i per body, as GravityModel::accelerations writes it.
NBodyDiagnostics measure(const Bodies& bodies, const std::vector<double>& potential);

} // namespace partcl
