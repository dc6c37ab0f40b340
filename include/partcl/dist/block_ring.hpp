#pragma once
// BlockRing: every rank's block of some device fields passed around the ranks, rank r sending
// to r + 1 and receiving from r - 1, the block it has just received going on at the next step,
// so that after K - 1 steps every rank holds the whole fields in the global order (rank 0's
// block first). Unlike dist::Allgather, a rank's own block is in place at once (start) and
// the others land in the global buffers as they arrive (pass, non-blocking writes on the
// queue), so the device can work on what is there while the ranks pass the rest
// (DistributedDenseGravity).
//
//   BlockRing ring(world, n);                          // collective: the blocks' sizes
//   ring.start(queue, {{&x, n, &all_x, ring.total(), 3}});
//   ... enqueue work on [ring.offset(), ring.offset() + n) of all_x ...
//   ring.pass(queue, {{&x, n, &all_x, ring.total(), 3}});   // collective
#include <cstddef>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/runtime/queue.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl::dist {

class BlockRing {
public:
    // local[c * local_stride + i] of this rank's block (i < mine()) is global[c *
    // global_stride + offset() + i] of the whole field, for c < components.
    struct Field {
        const RealBuffer* local;
        std::size_t local_stride;
        RealBuffer* global;
        std::size_t global_stride;
        std::size_t components;
    };

    // Collective: every rank gives the size of its own block.
    BlockRing(const Communicator& communicator, std::size_t mine);
    ~BlockRing();  // waits for the writes that read its host arrays
    BlockRing(const BlockRing&) = delete;
    BlockRing& operator=(const BlockRing&) = delete;

    const Partition& ranks() const noexcept { return ranks_; }
    std::size_t total() const noexcept { return ranks_.total(); }
    std::size_t mine() const noexcept { return ranks_[std::size_t(communicator_->rank())].size(); }
    std::size_t offset() const noexcept { return ranks_[std::size_t(communicator_->rank())].begin; }

    // This rank's block of each field into place (device copies on `queue`), read back for
    // the ring (blocks). UsageError for buffers too short, strides shorter than a block, or
    // fields of different precisions.
    void start(Queue& queue, const std::vector<Field>& fields);
    // Collective, after start() with the same fields: the K - 1 steps, each arriving block
    // written into place on `queue` (not waited for). The fields are whole for the commands
    // enqueued on `queue` after it.
    void pass(Queue& queue, const std::vector<Field>& fields);
    // Bytes this rank has received.
    double bytes_received() const noexcept { return bytes_received_; }

private:
    void check(const std::vector<Field>& fields) const;
    char* block(std::size_t r) { return host_.data() + record_ * ranks_[r].begin; }

    const Communicator* communicator_;
    Partition ranks_;
    std::size_t record_ = 0;  // bytes of one item over all fields' components
    std::vector<char> host_;  // every rank's block, rank after rank, each component after component
    Queue* writing_ = nullptr;
    double bytes_received_ = 0;
};

} // namespace partcl::dist
