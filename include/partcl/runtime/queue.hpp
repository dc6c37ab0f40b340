#pragma once
// Queue: the in-order, profiling command queue of one device of a Context (an OpenCL command
// queue, or a CUDA stream). Commands on one queue run in the order given; buffers and kernels
// take the queue to run on. The OpenCL queue or CUDA stream behind one:
// partcl/backend/{opencl,cuda}/interop.hpp.
#include <cstddef>
#include <memory>

#include <partcl/backend/backend.hpp>

namespace partcl {

namespace detail {
class QueueImpl;
}

class Queue {
public:
    Queue(std::shared_ptr<detail::QueueImpl> impl, Backend backend, std::size_t device)
        : impl_(std::move(impl)), backend_(backend), device_(device) {}

    Backend backend() const noexcept { return backend_; }
    // The device's index in its Context.
    std::size_t device() const noexcept { return device_; }
    // Blocks until every command given so far has finished.
    void finish();

    detail::QueueImpl& impl() const noexcept { return *impl_; }

private:
    std::shared_ptr<detail::QueueImpl> impl_;
    Backend backend_;
    std::size_t device_;
};

} // namespace partcl
