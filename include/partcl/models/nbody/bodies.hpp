#pragma once
// Bodies: an N-body system as structure of arrays. The host copy is always double (what files
// and initial conditions speak). On the device the system is one state vector of 6N reals,
// x | y | z | vx | vy | vz, so an integrator advances it with whole-vector operations, plus the
// masses.
#include <string>
#include <vector>

#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

struct Bodies {
    std::vector<double> x, y, z;
    std::vector<double> vx, vy, vz;
    std::vector<double> m;

    std::size_t size() const noexcept { return m.size(); }
    void resize(std::size_t n);
    // Throws UsageError naming the first problem: N = 0, arrays of different lengths, a NaN or
    // infinite value (with its array and index), a negative mass.
    void validate() const;
};

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
