#pragma once
// NBodySystem: bodies on the device plus a gravity model, seen by integrators as
// dy/dt = f(y) with y = (positions | velocities) and f = (velocities | accelerations).
#include <partcl/integrate/integrator.hpp>
#include <partcl/models/nbody/gravity.hpp>

namespace partcl {

class NBodySystem {
public:
    NBodySystem(Context& context, GravityModel& gravity, DeviceBodies& bodies);

    DeviceBodies& bodies() noexcept { return bodies_; }
    GravityModel& gravity() noexcept { return gravity_; }
    std::size_t size() const noexcept { return bodies_.size(); }

    Derivative derivative();
    // Per-body potentials of the current state, read back (for diagnostics).
    std::vector<double> potentials();

private:
    Context& context_;
    GravityModel& gravity_;
    DeviceBodies& bodies_;
    RealBuffer potential_, scratch_;
};

} // namespace partcl
