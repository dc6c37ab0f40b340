#include <partcl/models/nbody/gathered_bodies.hpp>

#include <chrono>

namespace partcl {

dist::Allgather GatheredBodies::gather(const dist::Communicator& communicator, Context& context,
                                       const RealBuffer& positions, const RealBuffer& mass,
                                       std::size_t n) {
    dist::Allgather blocks(communicator, n);
    const std::size_t total = blocks.total();
    if (total == 0) return blocks;
    const Precision precision = positions.precision();
    if (positions_.size() < 3 * total || positions_.precision() != precision) {
        positions_ = RealBuffer(context, precision, 3 * total);
        mass_ = RealBuffer(context, precision, total);
    }
    Queue& queue = context.queue(0);
    const auto start = std::chrono::steady_clock::now();
    blocks.gather(queue, positions, n, positions_, total, 3);
    blocks.gather(queue, mass, n, mass_, total, 1);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Four values a body from every other rank, in the model's precision.
    bytes_received_ += 4.0 * double(total - n) * double(size_of(precision));
    return blocks;
}

} // namespace partcl
