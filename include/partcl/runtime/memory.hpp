#pragma once
// Memory: untyped device memory of one Context, what Buffer<T> and RealBuffer are made of. Zero
// bytes is valid and owns nothing (OpenCL forbids zero-byte buffers), so code need not
// special-case empty particle sets. Allocation failures say how much was asked, of which device.
#include <cstddef>
#include <memory>
#include <optional>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/event.hpp>

namespace partcl {

namespace detail {
class MemoryImpl;
}

// The entry of a Context whose device alone will use a memory (sched's mirrors and per-device
// parts): the memory is placed where that device works fastest, on a GPU in its own memory.
struct OnDevice {
    std::size_t index = 0;
};

class Memory {
public:
    Memory() = default;
    // Memory every device of the context uses.
    Memory(const Context& context, std::size_t bytes);
    // Memory that only `device`'s queue uses (UsageError for an entry the context lacks).
    Memory(const Context& context, std::size_t bytes, OnDevice device);

    std::size_t bytes() const noexcept { return bytes_; }
    bool empty() const noexcept { return bytes_ == 0; }
    Backend backend() const noexcept { return backend_; }

    // Copies host bytes to [offset, offset + bytes). Non-blocking unless `blocking`: the event
    // completes when the copy has, and `host` must live until then.
    Event write(Queue& queue, std::size_t offset, std::size_t bytes, const void* host,
                bool blocking = false);
    // Copies [offset, offset + bytes) to host; blocks until done.
    void read(Queue& queue, std::size_t offset, std::size_t bytes, void* host) const;
    // Device-side copy into `target` (same context).
    Event copy_to(Queue& queue, Memory& target, std::size_t offset, std::size_t target_offset,
                  std::size_t bytes) const;
    // `rows` rows of `row_bytes` into `target` in one command (a structure of arrays'
    // components): row r from offset + r * pitch to target_offset + r * target_pitch. Pitches
    // are at least row_bytes where rows > 1; within one memory the rows go one by one.
    Event copy_rows_to(Queue& queue, Memory& target, std::size_t offset, std::size_t pitch,
                       std::size_t target_offset, std::size_t target_pitch, std::size_t row_bytes,
                       std::size_t rows) const;
    // Repeats a pattern of 1, 2, 4 or 8 bytes over [offset, offset + bytes).
    Event fill(Queue& queue, const void* pattern, std::size_t pattern_size, std::size_t offset,
               std::size_t bytes);

    // Bytes [offset, offset + bytes) as memory of their own (UsageError outside this memory),
    // which one device may write while another writes a disjoint region of the same memory:
    // OpenCL leaves concurrent writes by several devices to one buffer undefined, but defines
    // them on disjoint sub-buffers. Empty for no bytes; nullopt where the backend refuses the
    // offset (OpenCL: not a multiple of every device's CL_DEVICE_MEM_BASE_ADDR_ALIGN). While
    // a region is written, the memory itself may not be used (OpenCL's rule again).
    std::optional<Memory> region(std::size_t offset, std::size_t bytes) const;

    detail::MemoryImpl* impl() const noexcept { return impl_.get(); }

private:
    void check_range(std::size_t offset, std::size_t bytes, const char* what) const;
    void check_queue(const Queue& queue) const;

    std::size_t bytes_ = 0;
    Backend backend_ = Backend::opencl;
    std::shared_ptr<detail::MemoryImpl> impl_;
};

} // namespace partcl
