#include <partcl/models/nbody/gathered_bodies.hpp>

#include <chrono>

#include <partcl/backend/error.hpp>

namespace partcl {

dist::Allgather GatheredBodies::gather(const dist::Communicator& communicator, Context& context,
                                       const RealBuffer& positions, const RealBuffer& mass,
                                       std::size_t n) {
    dist::Allgather blocks(communicator, n);
    const std::size_t total = blocks.total();
    if (total == 0) return blocks;
    reserve(context, positions.precision(), total);
    const Precision precision = positions.precision();
    Queue& queue = context.queue(0);
    const auto start = std::chrono::steady_clock::now();
    blocks.gather(queue, positions, n, positions_, total, 3);
    blocks.gather(queue, mass, n, mass_, total, 1);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Four values a body from every other rank, in the model's precision.
    bytes_received_ += 4.0 * double(total - n) * double(size_of(precision));
    return blocks;
}

void GatheredBodies::reserve(Context& context, Precision precision, std::size_t total) {
    if (positions_.size() < 3 * total || positions_.precision() != precision) {
        positions_ = RealBuffer(context, precision, 3 * total);
        mass_ = RealBuffer(context, precision, total);
    }
}

Partition GatheredBodies::ring(const dist::Communicator& communicator, Context& context, const RealBuffer& positions,
                               const RealBuffer& mass, std::size_t n,
                               const std::function<void(const dist::BlockRing&, const std::function<void()>&)>& work) {
    dist::BlockRing ring(communicator, n);
    const std::size_t total = ring.total();
    if (total == 0) return ring.ranks();
    reserve(context, positions.precision(), total);
    Queue& queue = context.queue(0);
    const std::vector<dist::BlockRing::Field> fields{{&positions, n, &positions_, total, 3}, {&mass, n, &mass_, total, 1}};
    const auto start = std::chrono::steady_clock::now();
    ring.start(queue, fields);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool passed = false;
    work(ring, [&] {
        if (passed) throw UsageError("GatheredBodies::ring: the others' blocks asked for twice");
        passed = true;
        const auto begin = std::chrono::steady_clock::now();
        ring.pass(queue, fields);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    });
    if (!passed) throw UsageError("GatheredBodies::ring: the work never asked for the others' blocks");
    seconds_ += seconds;
    bytes_received_ += ring.bytes_received();
    return ring.ranks();
}

} // namespace partcl
