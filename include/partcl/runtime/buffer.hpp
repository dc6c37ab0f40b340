#pragma once
// Buffer<T>: a typed, sized, owning device buffer in a Context. Sizes are in elements. A buffer
// of zero elements is valid and owns no device memory, so code need not special-case empty
// particle sets.
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <partcl/backend/error.hpp>
#include <partcl/runtime/memory.hpp>

namespace partcl {

template <class T>
class Buffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

public:
    Buffer() = default;
    Buffer(const Context& context, std::size_t size) : size_(size), memory_(context, size * sizeof(T)) {}
    // A buffer only `device`'s queue uses (Memory's OnDevice).
    Buffer(const Context& context, std::size_t size, OnDevice device)
        : size_(size), memory_(context, size * sizeof(T), device) {}
    Buffer(Context& context, const std::vector<T>& host) : Buffer(context, host.size()) {
        write(context.queue(0), host).wait();
    }

    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }
    bool empty() const noexcept { return size_ == 0; }
    const Memory& memory() const noexcept { return memory_; }

    // Copies host[0, count) to elements [offset, offset + count). Non-blocking: the returned
    // event completes when the copy has; `host` must live until then.
    Event write(Queue& queue, const T* host, std::size_t count, std::size_t offset = 0) {
        check_range(offset, count, "write");
        return memory_.write(queue, offset * sizeof(T), count * sizeof(T), host);
    }
    Event write(Queue& queue, const std::vector<T>& host, std::size_t offset = 0) {
        return write(queue, host.data(), host.size(), offset);
    }

    // Copies elements [offset, offset + count) to host; blocks until done.
    void read(Queue& queue, T* host, std::size_t count, std::size_t offset = 0) const {
        check_range(offset, count, "read");
        memory_.read(queue, offset * sizeof(T), count * sizeof(T), host);
    }
    std::vector<T> read(Queue& queue) const {
        std::vector<T> host(size_);
        read(queue, host.data(), size_);
        return host;
    }

    // Device-side copy of `count` elements into `target`.
    Event copy_to(Queue& queue, Buffer& target, std::size_t count, std::size_t offset = 0,
                  std::size_t target_offset = 0) const {
        check_range(offset, count, "copy_to");
        target.check_range(target_offset, count, "copy_to");
        return memory_.copy_to(queue, target.memory_, offset * sizeof(T),
                               target_offset * sizeof(T), count * sizeof(T));
    }

    // `rows` runs of `count` elements in one command (Memory::copy_rows_to): run r from
    // r * stride + offset to r * target_stride + target_offset.
    Event copy_rows_to(Queue& queue, Buffer& target, std::size_t count, std::size_t rows,
                       std::size_t offset, std::size_t stride, std::size_t target_offset,
                       std::size_t target_stride) const {
        return memory_.copy_rows_to(queue, target.memory_, offset * sizeof(T), stride * sizeof(T),
                                    target_offset * sizeof(T), target_stride * sizeof(T),
                                    count * sizeof(T), rows);
    }

    // Elements [offset, offset + count) as a buffer of their own (Memory::region: nullopt where
    // the backend refuses the offset; UsageError outside this buffer).
    std::optional<Buffer> region(std::size_t offset, std::size_t count) const {
        std::optional<Memory> memory = memory_.region(offset * sizeof(T), count * sizeof(T));
        if (!memory) return std::nullopt;
        Buffer part;
        part.size_ = count;
        part.memory_ = std::move(*memory);
        return part;
    }

    // Sets every element to `value`.
    Event fill(Queue& queue, const T& value) { return fill(queue, value, 0, size_); }
    // Elements [offset, offset + count) only.
    Event fill(Queue& queue, const T& value, std::size_t offset, std::size_t count) {
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                      "fill takes elements of 1, 2, 4 or 8 bytes");
        check_range(offset, count, "fill");
        return memory_.fill(queue, &value, sizeof(T), offset * sizeof(T), count * sizeof(T));
    }

private:
    void check_range(std::size_t offset, std::size_t count, const char* what) const {
        if (offset > size_ || count > size_ - offset)
            throw Error(std::string("Buffer::") + what + ": elements [" + std::to_string(offset) +
                        ", " + std::to_string(offset + count) + ") outside a buffer of " +
                        std::to_string(size_));
    }

    std::size_t size_ = 0;
    Memory memory_;
};

} // namespace partcl
