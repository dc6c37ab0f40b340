#include <partcl/models/nbody/distributed_tree_gravity.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include <partcl/dist/distributor.hpp>

namespace partcl {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

DistributedTreeGravity::DistributedTreeGravity(const dist::Communicator& communicator,
                                               TreeGravity& local)
    : communicator_(&communicator), local_(local) {}

Partition DistributedTreeGravity::cut(std::size_t groups) {
    // Every rank cuts with the same gathered speeds, so every rank makes the same cut. Until
    // each has walked once (or where one walked nothing), all count as equal.
    std::vector<double> speeds = communicator_->allgather(speed_);
    if (std::any_of(speeds.begin(), speeds.end(), [](double s) { return !(s > 0); }))
        speeds.assign(speeds.size(), 1.0);
    return Partition::by_weight(groups, speeds, local_.granule());
}

void DistributedTreeGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                           std::size_t n, RealBuffer& out, std::size_t out_offset,
                                           RealBuffer* potential) {
    if (communicator_->size() == 1) {
        ranks_ = Partition({0, n});
        local_.accelerations(positions, mass, n, out, out_offset, potential);
        walks_ = Partition({0, local_.groups(n)});
        return;
    }
    const dist::Allgather blocks(*communicator_, n);
    ranks_ = blocks.ranks();
    const std::size_t total = blocks.total();
    if (total == 0) return;
    Context& context = local_.context();
    const Precision precision = local_.precision();
    if (positions_.size() < 3 * total) {
        positions_ = RealBuffer(context, precision, 3 * total);
        mass_ = RealBuffer(context, precision, total);
    }
    Queue& queue = context.queue(0);
    auto start = std::chrono::steady_clock::now();
    blocks.gather(queue, positions, n, positions_, total, 3);
    blocks.gather(queue, mass, n, mass_, total, 1);
    gather_seconds_ += seconds_since(start);
    bytes_received_ += 4.0 * double(total - n) * double(size_of(precision));

    local_.build(positions_, mass_, total);
    walks_ = cut(local_.groups(total));
    const Range mine = walks_[std::size_t(communicator_->rank())];
    const std::size_t first = local_.tree_begin(mine.begin),
                      count = local_.tree_begin(mine.end) - first;
    // (At least one body's room: a rank that walks nothing still passes buffers of its precision.)
    if (walked_.empty() || walked_.size() < 3 * count)
        walked_ = RealBuffer(context, precision, 3 * std::max<std::size_t>(count, 1));
    if (potential && (walked_potential_.empty() || walked_potential_.size() < count))
        walked_potential_ = RealBuffer(context, precision, std::max<std::size_t>(count, 1));
    start = std::chrono::steady_clock::now();
    local_.evaluate_in_tree_order(mine, walked_, potential ? &walked_potential_ : nullptr);
    const double walk_seconds = seconds_since(start);
    speed_ = mine.empty() || !(walk_seconds > 0) ? 0.0 : double(mine.size()) / walk_seconds;

    start = std::chrono::steady_clock::now();
    send_results(first, count, n, out, out_offset, potential);
    exchange_seconds_ += seconds_since(start);
}

void DistributedTreeGravity::send_results(std::size_t first, std::size_t count, std::size_t n,
                                          RealBuffer& out, std::size_t out_offset,
                                          RealBuffer* potential) {
    Queue& queue = local_.context().queue(0);
    const std::size_t size = size_of(local_.precision()), components = potential ? 4 : 3;
    const std::size_t item = components * size;
    // The walked results as items (x, y, z[, potential] of one body together) and their bodies.
    bodies_.resize(count);
    soa_.resize(components * count * size);
    if (count > 0) {
        local_.permutation().read(queue, bodies_.data(), count, first);
        walked_.memory().read(queue, 0, 3 * count * size, soa_.data());
        if (potential) walked_potential_.memory().read(queue, 0, count * size, soa_.data() + 3 * count * size);
    }
    values_.resize(count * item);
    std::vector<int> owners(count);
    const std::vector<std::size_t>& offsets = ranks_.offsets();
    for (std::size_t j = 0; j < count; ++j) {
        owners[j] = int(std::upper_bound(offsets.begin() + 1, offsets.end(), std::size_t(bodies_[j])) -
                        (offsets.begin() + 1));
        for (std::size_t c = 0; c < components; ++c)
            std::memcpy(values_.data() + j * item + c * size, soa_.data() + (c * count + j) * size, size);
    }
    const dist::Distributor plan(*communicator_, owners);
    const std::vector<std::uint32_t> arrived_bodies = plan.distribute(bodies_);
    arrived_.resize(plan.received() * item);
    plan.distribute(values_.data(), item, arrived_.data());
    bytes_received_ += double(plan.received() - plan.sources()[std::size_t(communicator_->rank())].size()) *
                       double(item + sizeof(std::uint32_t));
    if (plan.received() != n)
        throw Error("DistributedTreeGravity: rank " + std::to_string(communicator_->rank()) +
                    " received " + std::to_string(plan.received()) + " results for its " +
                    std::to_string(n) + " bodies (the ranks' blocks disagree)");
    // Into this rank's block, structure of arrays again.
    const std::size_t offset = ranks_[std::size_t(communicator_->rank())].begin;
    soa_.resize(components * n * size);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = arrived_bodies[k] - offset;
        for (std::size_t c = 0; c < components; ++c)
            std::memcpy(soa_.data() + (c * n + i) * size, arrived_.data() + k * item + c * size, size);
    }
    if (n == 0) return;
    Memory target = out.memory();
    target.write(queue, out_offset * size, 3 * n * size, soa_.data());
    if (potential) {
        Memory pot = potential->memory();
        pot.write(queue, 0, n * size, soa_.data() + 3 * n * size);
    }
    queue.finish();  // the writes read soa_ until they are done
}

} // namespace partcl
