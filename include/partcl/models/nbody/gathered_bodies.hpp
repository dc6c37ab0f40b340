#pragma once
// GatheredBodies: every rank's positions and masses, brought to this rank's devices in the
// global order (rank 0's block first), at once by a dist::Allgather (DistributedTreeGravity) or
// around a dist::BlockRing while the device works on this rank's own block
// (DistributedDenseGravity): the sources the distributed gravity models read, and what
// bringing them has cost.
#include <functional>

#include <partcl/dist/allgather.hpp>
#include <partcl/dist/block_ring.hpp>
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

    // Collective: the same bodies around a ring. positions() and mass() hold this rank's block
    // in place when `work` is called, which may enqueue work on it on device 0's queue and must
    // call the function it is given, collective, once: the other ranks' blocks then follow,
    // written in place as they arrive. Returns the ranks' blocks.
    Partition ring(const dist::Communicator& communicator, Context& context, const RealBuffer& positions,
                   const RealBuffer& mass, std::size_t n,
                   const std::function<void(const dist::BlockRing&, const std::function<void()>&)>& work);

    const RealBuffer& positions() const noexcept { return positions_; }
    const RealBuffer& mass() const noexcept { return mass_; }
    // Host wall time of the gathers and rings so far (a gather blocks until the sources are on
    // the device; a ring's time may include waiting for its writes queued behind the work), and
    // bytes received from other ranks.
    double seconds() const noexcept { return seconds_; }
    double bytes_received() const noexcept { return bytes_received_; }

private:
    void reserve(Context& context, Precision precision, std::size_t total);

    RealBuffer positions_, mass_;
    double seconds_ = 0, bytes_received_ = 0;
};

} // namespace partcl
