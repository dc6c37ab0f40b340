#pragma once
// Allgather: a communication plan that brings every rank's block of a field to every rank, whole
// and in rank order, as all-pairs gravity needs every source on every rank. Made once for the
// ranks' block sizes (a collective: each rank gives its own), applied to any number of fields.
// A field is structure of arrays: component c of item i at c * stride + i.
//
//     dist::Allgather sources(world, n_mine);
//     sources.gather(queue, positions, n_mine, everyone, sources.total(), 3);
//     // everyone[c * total + sources.offset() + i] is this rank's item i
//
// The device buffers go through host memory (an MPI without device support reads only host
// memory); on one rank gather() is a device copy.
#include <cstddef>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/runtime/queue.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl::dist {

// Collective: every rank's block of a field, in rank order, from each rank's size.
Partition rank_blocks(const Communicator& communicator, std::size_t mine);

class Allgather {
public:
    // Collective: every rank gives the size of its own block.
    Allgather(const Communicator& communicator, std::size_t mine);

    const Communicator& communicator() const noexcept { return *communicator_; }
    // The ranks' blocks of the whole field: rank r holds [ranks()[r].begin, ranks()[r].end).
    const Partition& ranks() const noexcept { return ranks_; }
    std::size_t total() const noexcept { return ranks_.total(); }
    std::size_t mine() const noexcept { return ranks_[std::size_t(communicator_->rank())].size(); }
    // The index of this rank's first item in the whole field.
    std::size_t offset() const noexcept { return ranks_[std::size_t(communicator_->rank())].begin; }

    // Every rank's local[c * local_stride + i] (i < its block) into global[c * global_stride +
    // its offset + i] on every rank, for c < components. Blocking: `global` is complete when
    // it returns (the host waits for `queue` to read `local`). UsageError where a buffer is too
    // short or a stride shorter than a block.
    void gather(Queue& queue, const RealBuffer& local, std::size_t local_stride, RealBuffer& global,
                std::size_t global_stride, std::size_t components) const;
    // The same on host arrays.
    std::vector<double> gather(const std::vector<double>& local, std::size_t local_stride,
                               std::size_t components) const;

private:
    const Communicator* communicator_;
    Partition ranks_;
};

} // namespace partcl::dist
