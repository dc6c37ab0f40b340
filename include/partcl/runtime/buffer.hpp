#pragma once
// Buffer<T>: a typed, sized, owning device buffer in a Context. Sizes are in elements. A buffer
// of zero elements is valid and owns no OpenCL object (OpenCL forbids zero-byte buffers), so
// code need not special-case empty particle sets.
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/error.hpp>
#include <partcl/runtime/event.hpp>

namespace partcl {

namespace detail {
// Turns allocation failures into messages that say how much was asked and of which device.
cl::Buffer allocate(const Context& context, cl_mem_flags flags, std::size_t bytes);
} // namespace detail

template <class T>
class Buffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

public:
    Buffer() = default;
    Buffer(const Context& context, std::size_t size, cl_mem_flags flags = CL_MEM_READ_WRITE)
        : size_(size) {
        if (size_ > 0) buffer_ = detail::allocate(context, flags, size_ * sizeof(T));
    }
    Buffer(Context& context, const std::vector<T>& host, cl_mem_flags flags = CL_MEM_READ_WRITE)
        : Buffer(context, host.size(), flags) {
        write(context.queue(0), host).wait();
    }

    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }
    bool empty() const noexcept { return size_ == 0; }
    const cl::Buffer& cl_buffer() const noexcept { return buffer_; }

    // Copies host[0, count) to elements [offset, offset + count). Non-blocking: the returned
    // event completes when the copy has; `host` must live until then.
    Event write(cl::CommandQueue& queue, const T* host, std::size_t count, std::size_t offset = 0) {
        check_range(offset, count, "write");
        cl::Event event;
        if (count > 0)
            check(queue.enqueueWriteBuffer(buffer_, CL_FALSE, offset * sizeof(T), count * sizeof(T),
                                           host, nullptr, &event),
                  "clEnqueueWriteBuffer");
        return Event(event);
    }
    Event write(cl::CommandQueue& queue, const std::vector<T>& host, std::size_t offset = 0) {
        return write(queue, host.data(), host.size(), offset);
    }

    // Copies elements [offset, offset + count) to host; blocks until done.
    void read(cl::CommandQueue& queue, T* host, std::size_t count, std::size_t offset = 0) const {
        check_range(offset, count, "read");
        if (count > 0)
            check(queue.enqueueReadBuffer(buffer_, CL_TRUE, offset * sizeof(T), count * sizeof(T),
                                          host),
                  "clEnqueueReadBuffer");
    }
    std::vector<T> read(cl::CommandQueue& queue) const {
        std::vector<T> host(size_);
        read(queue, host.data(), size_);
        return host;
    }

    // Sets every element to `value`.
    Event fill(cl::CommandQueue& queue, const T& value) {
        cl::Event event;
        if (size_ > 0)
            check(queue.enqueueFillBuffer(buffer_, value, 0, bytes(), nullptr, &event),
                  "clEnqueueFillBuffer");
        return Event(event);
    }

private:
    void check_range(std::size_t offset, std::size_t count, const char* what) const {
        if (offset > size_ || count > size_ - offset)
            throw Error(std::string("Buffer::") + what + ": elements [" + std::to_string(offset) +
                        ", " + std::to_string(offset + count) + ") outside a buffer of " +
                        std::to_string(size_));
    }

    std::size_t size_ = 0;
    cl::Buffer buffer_;
};

} // namespace partcl
