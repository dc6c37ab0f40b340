#include <partcl/runtime/real_buffer.hpp>

#include <algorithm>

namespace partcl {

RealBuffer::RealBuffer(const Context& context, Precision precision, std::size_t size,
                       cl_mem_flags flags)
    : precision_(precision), size_(size) {
    if (size_ > 0) buffer_ = detail::allocate(context, flags, bytes());
}

void RealBuffer::check_range(std::size_t offset, std::size_t count, const char* what) const {
    if (offset > size_ || count > size_ - offset)
        throw Error(std::string("RealBuffer::") + what + ": elements [" + std::to_string(offset) +
                    ", " + std::to_string(offset + count) + ") outside a buffer of " +
                    std::to_string(size_));
}

void RealBuffer::write(cl::CommandQueue& queue, const double* host, std::size_t count,
                       std::size_t offset) {
    check_range(offset, count, "write");
    if (count == 0) return;
    const std::size_t width = size_of(precision_);
    if (precision_ == Precision::float64) {
        check(queue.enqueueWriteBuffer(buffer_, CL_TRUE, offset * width, count * width, host),
              "clEnqueueWriteBuffer");
        return;
    }
    std::vector<float> narrow(host, host + count);
    check(queue.enqueueWriteBuffer(buffer_, CL_TRUE, offset * width, count * width, narrow.data()),
          "clEnqueueWriteBuffer");
}

void RealBuffer::read(cl::CommandQueue& queue, double* host, std::size_t count,
                      std::size_t offset) const {
    check_range(offset, count, "read");
    if (count == 0) return;
    const std::size_t width = size_of(precision_);
    if (precision_ == Precision::float64) {
        check(queue.enqueueReadBuffer(buffer_, CL_TRUE, offset * width, count * width, host),
              "clEnqueueReadBuffer");
        return;
    }
    std::vector<float> narrow(count);
    check(queue.enqueueReadBuffer(buffer_, CL_TRUE, offset * width, count * width, narrow.data()),
          "clEnqueueReadBuffer");
    std::copy(narrow.begin(), narrow.end(), host);
}

std::vector<double> RealBuffer::read(cl::CommandQueue& queue) const {
    std::vector<double> host(size_);
    read(queue, host.data(), size_);
    return host;
}

Event RealBuffer::copy_to(cl::CommandQueue& queue, RealBuffer& target, std::size_t count,
                          std::size_t offset, std::size_t target_offset) const {
    check_range(offset, count, "copy_to");
    target.check_range(target_offset, count, "copy_to");
    if (target.precision_ != precision_)
        throw Error("RealBuffer::copy_to: a " + std::string(to_string(precision_)) +
                    " buffer cannot be copied into a " + to_string(target.precision_) + " one");
    cl::Event event;
    const std::size_t width = size_of(precision_);
    if (count > 0)
        check(queue.enqueueCopyBuffer(buffer_, target.buffer_, offset * width, target_offset * width,
                                      count * width, nullptr, &event),
              "clEnqueueCopyBuffer");
    return Event(event);
}

Event RealBuffer::fill(cl::CommandQueue& queue, double value) {
    cl::Event event;
    if (size_ == 0) return Event(event);
    const cl_int status =
        precision_ == Precision::float64
            ? queue.enqueueFillBuffer(buffer_, value, 0, bytes(), nullptr, &event)
            : queue.enqueueFillBuffer(buffer_, static_cast<float>(value), 0, bytes(), nullptr, &event);
    check(status, "clEnqueueFillBuffer");
    return Event(event);
}

} // namespace partcl
