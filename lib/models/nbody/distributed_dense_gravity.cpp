#include <partcl/models/nbody/distributed_dense_gravity.hpp>

namespace partcl {

DistributedDenseGravity::DistributedDenseGravity(const dist::Communicator& communicator,
                                                 DenseGravity& local)
    : communicator_(&communicator), local_(local) {}

void DistributedDenseGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                            std::size_t n, RealBuffer& out, std::size_t out_offset,
                                            RealBuffer* potential) {
    if (communicator_->size() == 1) {
        ranks_ = Partition({0, n});
        local_.accelerations(positions, mass, n, out, out_offset, potential);
        return;
    }
    // This rank's targets against its own block while the others' pass around the ring.
    ranks_ = sources_.ring(*communicator_, local_.context(), positions, mass, n,
                           [&](const dist::BlockRing& ring, const std::function<void()>& arrive) {
                               const Range mine{ring.offset(), ring.offset() + n};
                               local_.accelerations(sources_.positions(), sources_.mass(), ring.total(), mine, out,
                                                    out_offset, potential, mine, arrive);
                           });
}

} // namespace partcl
