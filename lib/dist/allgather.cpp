#include <partcl/dist/allgather.hpp>

#include <algorithm>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl::dist {

Partition rank_blocks(const Communicator& communicator, std::size_t mine) {
    std::vector<std::size_t> offsets{0};
    for (std::size_t size : communicator.allgather(mine)) offsets.push_back(offsets.back() + size);
    return Partition(std::move(offsets));
}

namespace {

// Bytes from each rank: its block's `components` components of `size` bytes each, which
// arrive one after another ([c0 | c1 | ...], each of the block's size).
std::vector<std::size_t> byte_counts(const Partition& ranks, std::size_t components,
                                     std::size_t size) {
    std::vector<std::size_t> counts;
    for (std::size_t r = 0; r < ranks.parts(); ++r) counts.push_back(components * ranks[r].size() * size);
    return counts;
}
} // namespace

Allgather::Allgather(const Communicator& communicator, std::size_t mine)
    : communicator_(&communicator), ranks_(rank_blocks(communicator, mine)) {}

std::vector<double> Allgather::gather(const std::vector<double>& local, std::size_t local_stride,
                                      std::size_t components) const {
    const std::size_t n = mine(), total = ranks_.total();
    if (components > 0 && (local_stride < n || local.size() < (components - 1) * local_stride + n))
        throw UsageError("dist::Allgather: a local field of " + std::to_string(local.size()) +
                         " values for " + std::to_string(components) + " components of " +
                         std::to_string(n) + " items at stride " + std::to_string(local_stride));
    std::vector<double> packed(components * n);
    for (std::size_t c = 0; c < components; ++c)
        std::copy_n(local.begin() + std::ptrdiff_t(c * local_stride), n,
                    packed.begin() + std::ptrdiff_t(c * n));
    std::vector<double> received(components * total);
    communicator_->allgatherv(packed.data(), byte_counts(ranks_, components, sizeof(double)),
                              received.data());
    std::vector<double> global(components * total);
    for (std::size_t r = 0; r < ranks_.parts(); ++r) {
        const Range block = ranks_[r];
        for (std::size_t c = 0; c < components; ++c)
            std::copy_n(received.begin() + std::ptrdiff_t(components * block.begin + c * block.size()),
                        block.size(), global.begin() + std::ptrdiff_t(c * total + block.begin));
    }
    return global;
}

void Allgather::gather(Queue& queue, const RealBuffer& local, std::size_t local_stride,
                       RealBuffer& global, std::size_t global_stride,
                       std::size_t components) const {
    const std::size_t n = mine(), total = ranks_.total();
    if (components == 0) return;
    if (local_stride < n || local.size() < (components - 1) * local_stride + n ||
        global_stride < total || global.size() < (components - 1) * global_stride + total)
        throw UsageError("dist::Allgather: buffers of " + std::to_string(local.size()) + " and " +
                         std::to_string(global.size()) + " elements for " +
                         std::to_string(components) + " components of " + std::to_string(n) +
                         " of " + std::to_string(total) + " items (strides " +
                         std::to_string(local_stride) + ", " + std::to_string(global_stride) + ")");
    if (communicator_->size() == 1) {
        for (std::size_t c = 0; c < components; ++c)
            local.copy_to(queue, global, n, c * local_stride, c * global_stride);
        return;
    }
    // In the buffers' own bytes (float or double, as both hold), packed by the device reads
    // and written back from where MPI left them: no conversions and no copies on the host
    // beyond MPI's. The host arrays are kept between gathers, so their pages are not faulted
    // in again at every evaluation.
    const std::size_t size = size_of(local.precision());
    if (size != size_of(global.precision()))
        throw UsageError("dist::Allgather: a " + std::string(to_string(local.precision())) +
                         " field gathered into a " + to_string(global.precision()) + " buffer");
    thread_local std::vector<char> sent, received;
    sent.resize(components * n * size);
    received.resize(components * total * size);
    for (std::size_t c = 0; c < components && n > 0; ++c)
        local.memory().read(queue, c * local_stride * size, n * size, sent.data() + c * n * size);
    communicator_->allgatherv(sent.data(), byte_counts(ranks_, components, size), received.data());
    // (A Memory is a handle: writing through a copy writes `global`.)
    Memory target = global.memory();
    for (std::size_t r = 0; r < ranks_.parts(); ++r) {
        const Range block = ranks_[r];
        for (std::size_t c = 0; c < components && !block.empty(); ++c)
            target.write(queue, (c * global_stride + block.begin) * size,
                                  block.size() * size,
                                  received.data() + (components * block.begin + c * block.size()) * size);
    }
    // The writes read the host arrays until they are done.
    queue.finish();
}

} // namespace partcl::dist
