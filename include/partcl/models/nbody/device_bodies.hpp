#pragma once
// DeviceBodies: the device copy of Bodies. On the device the system is one state vector of 6N
// reals, x | y | z | vx | vy | vz, so an integrator advances it with whole-vector operations,
// plus the masses.
#include <cstddef>

#include <partcl/models/nbody/bodies.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class DeviceBodies {
public:
    DeviceBodies(Context& context, Precision precision, const Bodies& bodies);

    std::size_t size() const noexcept { return n_; }
    Precision precision() const noexcept { return state.precision(); }

    void upload(Queue& queue, const Bodies& bodies);
    Bodies download(Queue& queue) const;
    // Positions and velocities only, into `bodies` (of this size; masses left as they are):
    // what changes during a run.
    void download_motion(Queue& queue, Bodies& bodies) const;

    RealBuffer state;  // 6N: positions then velocities, each as x | y | z
    RealBuffer mass;   // N

private:
    std::size_t n_;
};

} // namespace partcl
