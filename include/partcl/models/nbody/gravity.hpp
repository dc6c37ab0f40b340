#pragma once
// What every gravity model (dense, tree) offers integrators and diagnostics. The potential
// convention is phi_i = -G sum_j m_j / sqrt(r_ij^2 + eps^2) over j with r_ij > 0, and the
// potential energy is W = 1/2 sum_i m_i phi_i.
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/gravity_parameters.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl {

class GravityModel {
public:
    virtual ~GravityModel() = default;

    // Accelerations of n bodies whose positions are positions[0, 3n) (x | y | z), written as
    // a_x | a_y | a_z into out[out_offset, out_offset + 3n); the potentials into
    // potential[0, n) when `potential` is given. Returns with the results in place for every
    // later command on device 0's queue (the queue every read of them goes through); the
    // kernels may still be running there.
    virtual void accelerations(const RealBuffer& positions, const RealBuffer& mass,
                               std::size_t n, RealBuffer& out, std::size_t out_offset,
                               RealBuffer* potential = nullptr) = 0;

    virtual const GravityParameters& parameters() const noexcept = 0;
    // Pair interactions computed so far (for interactions per second).
    virtual double interactions() const noexcept = 0;
    // Its multi-device launches (sched), for the report of each device's share.
    virtual LaunchList launches() const = 0;
};

} // namespace partcl
