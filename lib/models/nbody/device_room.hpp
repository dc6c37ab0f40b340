#pragma once
// Device buffers that grow to what an evaluation needs and keep their memory from one
// evaluation to the next (private to the library: DeviceTreeTop, EssentialTreeGravity). Each
// holds at least one element, as a device buffer must.
#include <algorithm>
#include <cstdint>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl::detail {

inline void reserve(const Context& context, Buffer<std::uint32_t>& buffer, std::size_t size) {
    size = std::max<std::size_t>(size, 1);
    if (buffer.size() < size) buffer = Buffer<std::uint32_t>(context, size);
}

inline void reserve(const Context& context, Precision precision, RealBuffer& buffer, std::size_t size) {
    size = std::max<std::size_t>(size, 1);
    if (buffer.size() < size || buffer.precision() != precision) buffer = RealBuffer(context, precision, size);
}

} // namespace partcl::detail
