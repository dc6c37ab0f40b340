#pragma once
// DistributedDenseGravity: all-pairs gravity over the ranks of a communicator. Each rank holds a
// block of the bodies (contiguous in the global order, rank 0's first) and asks for the
// accelerations of its own block; every evaluation brings all positions and masses to every rank
// (dist::Allgather) and lets the rank's DenseGravity, spread over the rank's devices, compute
// its block's targets against all sources. Each target's sum runs over the sources in the
// global order on every device of every rank, so the accelerations are one rank's bit for bit,
// whatever the blocks (DenseGravity on devices of the same shapes).
//
// Why gathered and not passed around a ring while computing: the sum of a target must see the
// sources in one fixed order to give one rank's bits, and a ring brings rank r the blocks
// r - 1, r - 2, ... in an order that differs on every rank; gathering O(N) values costs little
// against the O(N^2 / K) interactions of a rank.
#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/gathered_bodies.hpp>

namespace partcl {

class DistributedDenseGravity : public GravityModel {
public:
    // `local` computes on this rank's devices; it must outlive this object.
    DistributedDenseGravity(const dist::Communicator& communicator, DenseGravity& local);

    // Collective: every rank calls it with its own block (n bodies, any n, 0 included). The
    // accelerations and potentials of the block's bodies, in place when it returns.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;

    const GravityParameters& parameters() const noexcept override { return local_.parameters(); }
    // This rank's pair interactions.
    double interactions() const noexcept override { return local_.interactions(); }
    LaunchList launches() const override { return local_.launches(); }

    // What bringing the sources to this rank has cost so far: host wall time of the gathers
    // (which block until the sources are on the device), and bytes received from other ranks.
    double gather_seconds() const noexcept { return sources_.seconds(); }
    double bytes_received() const noexcept { return sources_.bytes_received(); }

    const dist::Communicator& communicator() const noexcept { return *communicator_; }
    // The blocks of the latest evaluation (rank r's bodies are [r.begin, r.end) of all).
    const Partition& ranks() const noexcept { return ranks_; }

private:
    const dist::Communicator* communicator_;
    DenseGravity& local_;
    Partition ranks_;
    GatheredBodies sources_;  // every rank's bodies
};

} // namespace partcl
