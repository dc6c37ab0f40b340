#pragma once
// ComovingLeapfrog: Gadget-2's kick-drift-kick leapfrog in the scale factor for bodies in a
// periodic comoving box. With comoving positions x, canonical velocities u = a^2 dx/dt and the
// comoving acceleration g of the masses (a GravityModel in comoving coordinates: TreePmGravity
// with G = cosmology::gravitational_constant), the equations of motion are dx/dt = u / a^2 and
// du/dt = g / a, so over a step from a0 to a1
//   u += g(x) kick(a0, am),  x += u drift(a0, a1),  u += g(x) kick(am, a1)
// with am the step's geometric middle and drift and kick Background's integrals
// da / (a^3 H) and da / (a^2 H). The state stays on the device (DeviceBodies::state: positions
// then velocities).
#include <partcl/integrate/vector_ops.hpp>
#include <partcl/models/cosmology/cosmology.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/gravity.hpp>

namespace partcl::cosmology {

class ComovingLeapfrog {
public:
    // Starts at scale factor `a` (in [1e-3, 1]). The bodies and the gravity model must outlive it.
    ComovingLeapfrog(Context& context, const Background& background, GravityModel& gravity,
                     DeviceBodies& bodies, double a, ProgramCache& cache = ProgramCache::global());

    // One step to a1 (a() < a1 <= 1; UsageError otherwise).
    void step(double a1);
    double a() const noexcept { return a_; }
    std::size_t steps() const noexcept { return steps_; }

private:
    const Background& background_;
    GravityModel& gravity_;
    DeviceBodies& bodies_;
    VectorOps ops_;
    RealBuffer acceleration_;
    bool have_acceleration_ = false;  // of the current positions (the last step's second kick)
    double a_;
    std::size_t steps_ = 0;
};

} // namespace partcl::cosmology
