#include <partcl/models/nbody/distributed_dense_gravity.hpp>

#include <chrono>

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
    const dist::Allgather blocks(*communicator_, n);
    ranks_ = blocks.ranks();
    const std::size_t total = blocks.total();
    if (total == 0) return;
    Context& context = local_.context();
    if (positions_.size() < 3 * total) {
        positions_ = RealBuffer(context, local_.precision(), 3 * total);
        mass_ = RealBuffer(context, local_.precision(), total);
    }
    Queue& queue = context.queue(0);
    const auto start = std::chrono::steady_clock::now();
    blocks.gather(queue, positions, n, positions_, total, 3);
    blocks.gather(queue, mass, n, mass_, total, 1);
    gather_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Four values a body from every other rank, in the model's precision.
    bytes_received_ += 4.0 * double(total - n) * double(size_of(local_.precision()));
    local_.accelerations(positions_, mass_, total, {blocks.offset(), blocks.offset() + n}, out,
                         out_offset, potential);
}

} // namespace partcl
