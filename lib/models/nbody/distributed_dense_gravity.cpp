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
    const dist::Allgather blocks = sources_.gather(*communicator_, local_.context(), positions, mass, n);
    ranks_ = blocks.ranks();
    const std::size_t total = blocks.total();
    if (total == 0) return;
    local_.accelerations(sources_.positions(), sources_.mass(), total, {blocks.offset(), blocks.offset() + n}, out,
                         out_offset, potential);
}

} // namespace partcl
