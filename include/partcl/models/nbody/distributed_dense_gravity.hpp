#pragma once
// DistributedDenseGravity: all-pairs gravity over the ranks of a communicator. Each rank holds a
// block of the bodies (contiguous in the global order, rank 0's first) and asks for the
// accelerations of its own block. Every evaluation passes the blocks of positions and masses
// around the ranks (dist::BlockRing) while the rank's DenseGravity, spread over its devices,
// computes its targets against its own block; the other sources follow as they arrive.
//
// Each target's sum runs over the sources in one fixed order whatever the ranks, so the
// accelerations are one rank's bit for bit (DenseGravity on devices of the same shapes): the
// tiled form cuts the sources into parts of whole tiles, summed after in part order
// (dense_sum_parts), and only the parts that lie within the rank's own block go first. The
// untiled form (CPUs) sums each target over all sources in one pass, so there the work waits
// for the ring; so does a rank of several devices with separate memories, whose copies of the
// sources would read them while they are written.
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

    // What bringing the sources to this rank has cost so far: host wall time of the rings
    // (this rank's block read back, then the steps, while the device may work), and bytes
    // received from other ranks.
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
