#pragma once
// RealBuffer: a device buffer of `real`, whose element type (float or double) is chosen at run
// time to match the programs that use it. The host side always speaks double; float buffers
// convert on the way (float -> double -> float is exact, so reading and writing back loses
// nothing).
#include <optional>
#include <vector>

#include <partcl/runtime/buffer.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl {

class RealBuffer {
public:
    RealBuffer() = default;
    RealBuffer(const Context& context, Precision precision, std::size_t size);
    // A buffer only `device`'s queue uses (Memory's OnDevice).
    RealBuffer(const Context& context, Precision precision, std::size_t size, OnDevice device);

    Precision precision() const noexcept { return precision_; }
    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * size_of(precision_); }
    bool empty() const noexcept { return size_ == 0; }
    // The bytes themselves, elements of precision(): for data kept in the model's precision
    // on its way between devices or processes.
    const Memory& memory() const noexcept { return memory_; }
    Memory& memory() noexcept { return memory_; }

    // Blocking: converts and copies host[0, count) to elements [offset, offset + count).
    void write(Queue& queue, const double* host, std::size_t count, std::size_t offset = 0);
    void write(Queue& queue, const std::vector<double>& host, std::size_t offset = 0) {
        write(queue, host.data(), host.size(), offset);
    }
    // Blocking: elements [offset, offset + count) to host.
    void read(Queue& queue, double* host, std::size_t count, std::size_t offset = 0) const;
    std::vector<double> read(Queue& queue) const;

    // Device-side copy of `count` elements into `target` (same precision and context).
    Event copy_to(Queue& queue, RealBuffer& target, std::size_t count,
                  std::size_t offset = 0, std::size_t target_offset = 0) const;
    // `rows` runs of `count` elements in one command (Memory::copy_rows_to): run r from
    // r * stride + offset to r * target_stride + target_offset.
    Event copy_rows_to(Queue& queue, RealBuffer& target, std::size_t count, std::size_t rows,
                       std::size_t offset, std::size_t stride, std::size_t target_offset,
                       std::size_t target_stride) const;
    Event fill(Queue& queue, double value);

    // Elements [offset, offset + count) as a buffer of their own (Memory::region: nullopt where
    // the backend refuses the offset; UsageError outside this buffer).
    std::optional<RealBuffer> region(std::size_t offset, std::size_t count) const;

private:
    void check_range(std::size_t offset, std::size_t count, const char* what) const;
    void check_precision(const RealBuffer& target, const char* what) const;

    Precision precision_ = Precision::float32;
    std::size_t size_ = 0;
    Memory memory_;
};

} // namespace partcl
