#include <partcl/dist/block_ring.hpp>

#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/backend/precision.hpp>
#include <partcl/dist/allgather.hpp>

namespace partcl::dist {

BlockRing::BlockRing(const Communicator& communicator, std::size_t mine)
    : communicator_(&communicator), ranks_(rank_blocks(communicator, mine)) {}

BlockRing::~BlockRing() {
    if (!writing_) return;
    try {
        writing_->finish();
    } catch (...) {  // a failed queue has nothing more to read
    }
}

void BlockRing::check(const std::vector<Field>& fields) const {
    const std::size_t n = mine(), total = ranks_.total();
    for (const Field& f : fields) {
        if (f.local_stride < n || f.local->size() < (f.components - 1) * f.local_stride + n ||
            f.global_stride < total || f.global->size() < (f.components - 1) * f.global_stride + total)
            throw UsageError("dist::BlockRing: buffers of " + std::to_string(f.local->size()) + " and " +
                             std::to_string(f.global->size()) + " elements for " + std::to_string(f.components) +
                             " components of " + std::to_string(n) + " of " + std::to_string(total) +
                             " items (strides " + std::to_string(f.local_stride) + ", " +
                             std::to_string(f.global_stride) + ")");
        if (f.local->precision() != fields[0].local->precision() || f.global->precision() != f.local->precision())
            throw UsageError("dist::BlockRing: fields of different precisions");
    }
}

void BlockRing::start(Queue& queue, const std::vector<Field>& fields) {
    if (fields.empty()) return;
    check(fields);
    const std::size_t n = mine(), at = offset(), size = size_of(fields[0].local->precision());
    record_ = 0;
    for (const Field& f : fields) record_ += f.components * size;
    if (writing_) writing_->finish();  // the previous pass's writes read host_
    writing_ = nullptr;
    host_.resize(record_ * total());
    char* mine_at = block(std::size_t(communicator_->rank()));
    for (const Field& f : fields)
        for (std::size_t c = 0; c < f.components && n > 0; ++c) {
            f.local->copy_to(queue, *f.global, n, c * f.local_stride, c * f.global_stride + at);
            if (communicator_->size() > 1)
                f.local->memory().read(queue, c * f.local_stride * size, n * size, mine_at);
            mine_at += n * size;
        }
}

void BlockRing::pass(Queue& queue, const std::vector<Field>& fields) {
    const std::size_t ranks = ranks_.parts();
    if (fields.empty() || ranks == 1) return;
    check(fields);
    const std::size_t rank = std::size_t(communicator_->rank()), size = size_of(fields[0].local->precision());
    const int next = int((rank + 1) % ranks), previous = int((rank + ranks - 1) % ranks);
    for (std::size_t step = 1; step < ranks; ++step) {
        const std::size_t sent = (rank + ranks - step + 1) % ranks, arriving = (rank + ranks - step) % ranks;
        const std::size_t count = ranks_[arriving].size();
        communicator_->sendrecv(block(sent), record_ * ranks_[sent].size(), next, block(arriving), record_ * count,
                                previous);
        bytes_received_ += double(record_ * count);
        // (A Memory is a handle: writing through a copy writes the field.)
        const char* from = block(arriving);
        for (const Field& f : fields) {
            Memory target = f.global->memory();
            for (std::size_t c = 0; c < f.components && count > 0; ++c) {
                target.write(queue, (c * f.global_stride + ranks_[arriving].begin) * size, count * size, from);
                from += count * size;
            }
        }
        writing_ = &queue;
    }
}

} // namespace partcl::dist
