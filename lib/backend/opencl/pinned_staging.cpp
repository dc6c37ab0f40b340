// Copies between memories of two devices through pinned host memory. NVIDIA's OpenCL has no
// peer copies, and clEnqueueCopyBuffer between buffers last used on different GPUs runs far
// below the bus's speed; a read into host memory the driver pins, on the sending device's
// queue, and a write from it on the receiving one's, in pieces so that the two directions
// overlap, runs near it (partcl_bench_device_copy; docs/performance.md has the figures).
#include <algorithm>
#include <array>

#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

// Pieces of at least 1 MiB (a smaller one costs a command's latency for little), at most 8 MiB,
// and eight of them where the copy is large enough: as many as the ring has slots, the
// pipeline's depth.
constexpr std::size_t slot_count = 8;
constexpr std::size_t min_piece = std::size_t(1) << 20;
constexpr std::size_t max_piece = std::size_t(8) << 20;

// A slot's size: a power of two from 64 KiB, so that growing copies regrow it rarely.
std::size_t slot_size(std::size_t bytes) {
    std::size_t size = std::size_t(64) << 10;
    while (size < bytes) size *= 2;
    return size;
}

void check_staged(cl_int status, const char* call) {
    if (status != CL_SUCCESS)
        throw error(status, call, "a copy between devices through pinned host memory");
}

} // namespace

PinnedStaging::PinnedStaging(cl::Context context, std::vector<cl::CommandQueue> queues)
    : context_(std::move(context)), queues_(std::move(queues)) {}

PinnedStaging::~PinnedStaging() {
    for (auto& q : queues_) q.finish();
    cl::CommandQueue& queue = queues_.front();
    for (auto& slot : slots_)
        if (slot.host) queue.enqueueUnmapMemObject(slot.buffer, slot.host);
    queue.finish();
}

bool PinnedStaging::idle(const Slot& slot) {
    if (!slot.emptied()) return true;
    cl_int status = CL_QUEUED;
    check_staged(slot.emptied.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), "clGetEventInfo");
    return status == CL_COMPLETE;
}

PinnedStaging::Slot& PinnedStaging::slot_for(std::size_t bytes) {
    // An idle slot large enough, else a new one while the ring has room (a copy now and then
    // keeps to one slot), else the next in turn, whose piece waits for the write emptying it.
    std::size_t at = slots_.size();
    for (std::size_t k = 0; k < slots_.size() && at == slots_.size(); ++k) {
        const std::size_t i = (next_ + k) % slots_.size();
        if (slots_[i].bytes >= bytes && idle(slots_[i])) at = i;
    }
    if (at == slots_.size()) {
        if (slots_.size() < slot_count) slots_.emplace_back();
        else at = next_ % slots_.size();
    }
    next_ = (at + 1) % slot_count;
    Slot& slot = slots_[at];
    if (slot.bytes >= bytes) return slot;
    bytes = slot_size(bytes);
    // Grown to what a copy needs, so small copies (tests, Oclgrind) keep small slots; the old
    // one goes once the write that last read it has run.
    if (slot.host) {
        check_staged(slot.emptied.wait(), "clWaitForEvents");
        check_staged(queues_.front().enqueueUnmapMemObject(slot.buffer, slot.host),
                     "clEnqueueUnmapMemObject");
        check_staged(queues_.front().finish(), "clFinish");
        slot = Slot();
    }
    // A buffer allocated in host memory and mapped once: the driver pins it for its copies.
    cl_int status = CL_SUCCESS;
    slot.buffer = cl::Buffer(context_, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, nullptr,
                             &status);
    check_staged(status, "clCreateBuffer");
    slot.host = queues_.front().enqueueMapBuffer(slot.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                 0, bytes, nullptr, nullptr, &status);
    check_staged(status, "clEnqueueMapBuffer");
    slot.bytes = bytes;
    return slot;
}

cl::Event PinnedStaging::copy(std::size_t queue, const cl::Buffer& from, std::size_t from_home,
                              const cl::Buffer& to, std::size_t to_home, const RowsCopy& rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    cl::CommandQueue& ordering = queues_.at(queue);
    cl::CommandQueue& sender = queues_.at(from_home);
    cl::CommandQueue& receiver = queues_.at(to_home);
    // The reads start after every command enqueued on the ordering queue so far (its waits
    // included), as a copy enqueued there would; the writes follow their reads.
    std::vector<cl::Event> after_ordering;
    if (from_home != queue) {
        cl::Event point;
        check_staged(ordering.enqueueMarkerWithWaitList(nullptr, &point),
                     "clEnqueueMarkerWithWaitList");
        check_staged(ordering.flush(), "clFlush");
        after_ordering.push_back(point);
    }
    cl::Event last;
    // One piece: `count` rows of `size` bytes from `from_at` and to `to_at` (pitches as the
    // copy's), packed in a slot; a single row is a plain read and write.
    auto piece = [&](std::size_t from_at, std::size_t to_at, std::size_t size, std::size_t count) {
        Slot& slot = slot_for(size * count);
        // A slot is filled again only once the write that emptied it has run.
        std::vector<cl::Event> before_read = after_ordering;
        if (slot.emptied()) before_read.push_back(slot.emptied);
        const std::vector<cl::Event>* waits = before_read.empty() ? nullptr : &before_read;
        cl::Event read;
        const std::array<std::size_t, 3> none{0, 0, 0}, from_origin{from_at, 0, 0},
            to_origin{to_at, 0, 0}, region{size, count, 1};
        if (count == 1)
            check_staged(sender.enqueueReadBuffer(from, CL_FALSE, from_at, size, slot.host, waits,
                                                  &read),
                         "clEnqueueReadBuffer");
        else
            check_staged(sender.enqueueReadBufferRect(from, CL_FALSE, from_origin, none, region,
                                                      rows.from_pitch, 0, size, 0, slot.host,
                                                      waits, &read),
                         "clEnqueueReadBufferRect");
        // Another queue waits for this one's commands: they must be submitted (clFlush).
        check_staged(sender.flush(), "clFlush");
        const std::vector<cl::Event> before_write{read};
        if (count == 1)
            check_staged(receiver.enqueueWriteBuffer(to, CL_FALSE, to_at, size, slot.host,
                                                     &before_write, &slot.emptied),
                         "clEnqueueWriteBuffer");
        else
            check_staged(receiver.enqueueWriteBufferRect(to, CL_FALSE, to_origin, none, region,
                                                         rows.to_pitch, 0, size, 0, slot.host,
                                                         &before_write, &slot.emptied),
                         "clEnqueueWriteBufferRect");
        check_staged(receiver.flush(), "clFlush");
        last = slot.emptied;
    };
    const std::size_t bytes = rows.row_bytes * rows.rows;
    std::size_t row = 0;
    if (rows.rows > 1 && bytes <= max_piece) {
        const std::size_t whole = rectangle_rows(from, to, rows);
        if (whole > 1) {
            piece(rows.from_offset, rows.to_offset, rows.row_bytes, whole);  // in one command
            row = whole;
        }
    }
    const std::size_t size = std::clamp(bytes / slot_count, min_piece, max_piece);
    for (; row < rows.rows; ++row)
        for (std::size_t done = 0; done < rows.row_bytes; done += size)
            piece(rows.from_offset + row * rows.from_pitch + done,
                  rows.to_offset + row * rows.to_pitch + done,
                  std::min(size, rows.row_bytes - done), 1);
    // The ordering queue's next commands see the copy done (the receiver's, by its order).
    if (to_home != queue) {
        const std::vector<cl::Event> written{last};
        check_staged(ordering.enqueueBarrierWithWaitList(&written, nullptr),
                     "clEnqueueBarrierWithWaitList");
    }
    return last;
}

} // namespace partcl::detail::opencl
