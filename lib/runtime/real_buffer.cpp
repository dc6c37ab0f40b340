#include <partcl/runtime/real_buffer.hpp>

#include <algorithm>

namespace partcl {

RealBuffer::RealBuffer(const Context& context, Precision precision, std::size_t size)
    : precision_(precision), size_(size), memory_(context, size * size_of(precision)) {}

RealBuffer::RealBuffer(const Context& context, Precision precision, std::size_t size,
                       OnDevice device)
    : precision_(precision), size_(size), memory_(context, size * size_of(precision), device) {}

std::optional<RealBuffer> RealBuffer::region(std::size_t offset, std::size_t count) const {
    const std::size_t width = size_of(precision_);
    if (offset > size_ || count > size_ - offset)
        throw UsageError("RealBuffer::region: elements [" + std::to_string(offset) + ", " +
                         std::to_string(offset + count) + ") outside a buffer of " +
                         std::to_string(size_));
    std::optional<Memory> memory = memory_.region(offset * width, count * width);
    if (!memory) return std::nullopt;
    RealBuffer part;
    part.precision_ = precision_;
    part.size_ = count;
    part.memory_ = std::move(*memory);
    return part;
}

void RealBuffer::check_range(std::size_t offset, std::size_t count, const char* what) const {
    if (offset > size_ || count > size_ - offset)
        throw Error(std::string("RealBuffer::") + what + ": elements [" + std::to_string(offset) +
                    ", " + std::to_string(offset + count) + ") outside a buffer of " +
                    std::to_string(size_));
}

void RealBuffer::write(Queue& queue, const double* host, std::size_t count, std::size_t offset) {
    check_range(offset, count, "write");
    if (count == 0) return;
    const std::size_t width = size_of(precision_);
    if (precision_ == Precision::float64) {
        memory_.write(queue, offset * width, count * width, host, true);
        return;
    }
    std::vector<float> narrow(host, host + count);
    memory_.write(queue, offset * width, count * width, narrow.data(), true);
}

void RealBuffer::read(Queue& queue, double* host, std::size_t count, std::size_t offset) const {
    check_range(offset, count, "read");
    if (count == 0) return;
    const std::size_t width = size_of(precision_);
    if (precision_ == Precision::float64) {
        memory_.read(queue, offset * width, count * width, host);
        return;
    }
    std::vector<float> narrow(count);
    memory_.read(queue, offset * width, count * width, narrow.data());
    std::copy(narrow.begin(), narrow.end(), host);
}

std::vector<double> RealBuffer::read(Queue& queue) const {
    std::vector<double> host(size_);
    read(queue, host.data(), size_);
    return host;
}

void RealBuffer::check_precision(const RealBuffer& target, const char* what) const {
    if (target.precision_ != precision_)
        throw Error(std::string("RealBuffer::") + what + ": a " + to_string(precision_) +
                    " buffer cannot be copied into a " + to_string(target.precision_) + " one");
}

Event RealBuffer::copy_to(Queue& queue, RealBuffer& target, std::size_t count, std::size_t offset,
                          std::size_t target_offset) const {
    check_range(offset, count, "copy_to");
    target.check_range(target_offset, count, "copy_to");
    check_precision(target, "copy_to");
    const std::size_t width = size_of(precision_);
    return memory_.copy_to(queue, target.memory_, offset * width, target_offset * width,
                           count * width);
}

Event RealBuffer::copy_rows_to(Queue& queue, RealBuffer& target, std::size_t count,
                               std::size_t rows, std::size_t offset, std::size_t stride,
                               std::size_t target_offset, std::size_t target_stride) const {
    check_precision(target, "copy_rows_to");
    const std::size_t width = size_of(precision_);
    return memory_.copy_rows_to(queue, target.memory_, offset * width, stride * width,
                                target_offset * width, target_stride * width, count * width, rows);
}

Event RealBuffer::fill(Queue& queue, double value) {
    if (precision_ == Precision::float64) return memory_.fill(queue, &value, sizeof value, 0, bytes());
    const float narrow = static_cast<float>(value);
    return memory_.fill(queue, &narrow, sizeof narrow, 0, bytes());
}

} // namespace partcl
