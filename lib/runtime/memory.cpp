#include <partcl/backend/error.hpp>
#include <partcl/runtime/memory.hpp>
#include <partcl/runtime/profile.hpp>

#include "backend/interface.hpp"

namespace partcl {

Memory::Memory(const Context& context, std::size_t bytes)
    : bytes_(bytes), backend_(context.backend()) {
    if (bytes_ > 0) impl_ = context.impl().allocate(bytes_, std::nullopt);
}

Memory::Memory(const Context& context, std::size_t bytes, OnDevice device)
    : bytes_(bytes), backend_(context.backend()) {
    if (device.index >= context.size())
        throw UsageError("Memory: device " + std::to_string(device.index) +
                         " of a context of " + std::to_string(context.size()) + " devices");
    if (bytes_ > 0) impl_ = context.impl().allocate(bytes_, device.index);
}

std::optional<Memory> Memory::region(std::size_t offset, std::size_t bytes) const {
    if (offset > bytes_ || bytes > bytes_ - offset)
        throw UsageError("Memory::region: bytes [" + std::to_string(offset) + ", " +
                         std::to_string(offset + bytes) + ") outside memory of " +
                         std::to_string(bytes_) + " bytes");
    Memory part;
    part.backend_ = backend_;
    if (bytes == 0) return part;
    part.impl_ = impl_->region(offset, bytes);
    if (!part.impl_) return std::nullopt;
    part.bytes_ = bytes;
    return part;
}

namespace {
// The command's event, kept by the recording Profile if one records.
Event recorded(const char* name, const Queue& queue, Event event) {
    if (Profile::recording()) detail::profile_command(name, queue, event);
    return event;
}
} // namespace

void Memory::check_range(std::size_t offset, std::size_t bytes, const char* what) const {
    if (offset > bytes_ || bytes > bytes_ - offset)
        throw Error(std::string("Memory::") + what + ": bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) + ") outside memory of " +
                    std::to_string(bytes_) + " bytes");
}

void Memory::check_queue(const Queue& queue) const {
    // Empty memory (default-constructed, or of 0 bytes) holds nothing of any backend.
    if (impl_ && queue.backend() != backend_)
        throw UsageError(std::string("memory of the ") + to_string(backend_) +
                         " backend used on a queue of the " + to_string(queue.backend()) +
                         " backend");
}

Event Memory::write(Queue& queue, std::size_t offset, std::size_t bytes, const void* host,
                    bool blocking) {
    check_range(offset, bytes, "write");
    check_queue(queue);
    if (bytes == 0) return Event();
    return recorded("write", queue, Event(queue.impl().write(*impl_, offset, bytes, host, blocking)));
}

void Memory::read(Queue& queue, std::size_t offset, std::size_t bytes, void* host) const {
    check_range(offset, bytes, "read");
    check_queue(queue);
    if (bytes > 0) queue.impl().read(*impl_, offset, bytes, host);
}

Event Memory::copy_to(Queue& queue, Memory& target, std::size_t offset, std::size_t target_offset,
                      std::size_t bytes) const {
    check_range(offset, bytes, "copy_to");
    target.check_range(target_offset, bytes, "copy_to");
    check_queue(queue);
    target.check_queue(queue);
    if (bytes == 0) return Event();
    return recorded("copy", queue, Event(queue.impl().copy(*impl_, offset, *target.impl_, target_offset, bytes)));
}

Event Memory::copy_rows_to(Queue& queue, Memory& target, std::size_t offset, std::size_t pitch,
                           std::size_t target_offset, std::size_t target_pitch,
                           std::size_t row_bytes, std::size_t rows) const {
    if (rows > 1 && (pitch < row_bytes || target_pitch < row_bytes))
        throw UsageError("Memory::copy_rows_to: pitches " + std::to_string(pitch) + " and " +
                         std::to_string(target_pitch) + " are shorter than a row of " +
                         std::to_string(row_bytes) + " bytes");
    if (rows == 0 || row_bytes == 0) return copy_to(queue, target, offset, target_offset, 0);
    check_range(offset, (rows - 1) * pitch + row_bytes, "copy_rows_to");
    target.check_range(target_offset, (rows - 1) * target_pitch + row_bytes, "copy_rows_to");
    check_queue(queue);
    target.check_queue(queue);
    // OpenCL refuses a rectangle copy within one buffer whose bounds overlap.
    if (rows == 1 || impl_ == target.impl_) {
        Event last;
        for (std::size_t r = 0; r < rows; ++r)
            last = copy_to(queue, target, offset + r * pitch, target_offset + r * target_pitch,
                           row_bytes);
        return last;
    }
    return recorded("copy_rows", queue,
                    Event(queue.impl().copy_rows(*impl_, *target.impl_,
                                                 {offset, pitch, target_offset, target_pitch, row_bytes, rows})));
}

Event Memory::fill(Queue& queue, const void* pattern, std::size_t pattern_size, std::size_t offset,
                   std::size_t bytes) {
    check_range(offset, bytes, "fill");
    check_queue(queue);
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8)
        throw UsageError("Memory::fill: patterns are 1, 2, 4 or 8 bytes, not " +
                         std::to_string(pattern_size));
    if (bytes % pattern_size != 0 || offset % pattern_size != 0)
        throw UsageError("Memory::fill: range not a whole number of patterns");
    if (bytes == 0) return Event();
    return recorded("fill", queue, Event(queue.impl().fill(*impl_, pattern, pattern_size, offset, bytes)));
}

} // namespace partcl
