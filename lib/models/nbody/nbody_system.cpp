#include <partcl/models/nbody/nbody_system.hpp>

namespace partcl {

NBodySystem::NBodySystem(Context& context, GravityModel& gravity, DeviceBodies& bodies)
    : context_(context), gravity_(gravity), bodies_(bodies),
      potential_(context, bodies.precision(), bodies.size()),
      scratch_(context, bodies.precision(), 3 * bodies.size()) {}

Derivative NBodySystem::derivative() {
    return [this](double, const RealBuffer& y, RealBuffer& dydt) {
        const std::size_t n = bodies_.size();
        // The velocities are a transfer on device 0's queue (device 0 alone writes dydt, as the
        // gravity model's gather does), waited for so that dydt is whole for every device.
        const Event velocities = y.copy_to(context_.queue(0), dydt, 3 * n, 3 * n, 0);
        gravity_.accelerations(y, bodies_.mass, n, dydt, 3 * n);
        velocities.wait();
    };
}

std::vector<double> NBodySystem::potentials() {
    const std::size_t n = bodies_.size();
    gravity_.accelerations(bodies_.state, bodies_.mass, n, scratch_, 0, &potential_);
    return potential_.read(context_.queue(0));
}

} // namespace partcl
