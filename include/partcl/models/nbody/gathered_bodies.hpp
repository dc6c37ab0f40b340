#pragma once
// GatheredBodies: every rank's positions and masses, brought to this rank's devices in the
// global order (rank 0's block first) by a dist::Allgather: the sources that both distributed
// gravity models (DistributedDenseGravity, DistributedTreeGravity) read, and what it has cost.
#include <partcl/dist/allgather.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class GatheredBodies {
public:
    // Collective: every rank gives its own block (n bodies, x | y | z positions and masses).
    // Returns the plan of this gather (the ranks' blocks); positions() and mass() then hold all
    // plan.total() bodies, on device 0's queue.
    dist::Allgather gather(const dist::Communicator& communicator, Context& context,
                           const RealBuffer& positions, const RealBuffer& mass, std::size_t n);

    const RealBuffer& positions() const noexcept { return positions_; }
    const RealBuffer& mass() const noexcept { return mass_; }
    // Host wall time of the gathers so far (they block until the sources are on the device),
    // and bytes received from other ranks.
    double seconds() const noexcept { return seconds_; }
    double bytes_received() const noexcept { return bytes_received_; }

private:
    RealBuffer positions_, mass_;
    double seconds_ = 0, bytes_received_ = 0;
};

} // namespace partcl
