#pragma once
// A new buffer of the same element type as another (RealBuffer's precision, Buffer<T>'s T), for
// sched's per-device copies and slices.
#include <cstddef>
#include <optional>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl::detail {

// Of the whole context without `device`, else only that device's (Memory's OnDevice).
inline RealBuffer buffer_like(const RealBuffer& like, const Context& context, std::size_t size,
                              std::optional<OnDevice> device = std::nullopt) {
    return device ? RealBuffer(context, like.precision(), size, *device)
                  : RealBuffer(context, like.precision(), size);
}
template <class T>
Buffer<T> buffer_like(const Buffer<T>&, const Context& context, std::size_t size,
                      std::optional<OnDevice> device = std::nullopt) {
    return device ? Buffer<T>(context, size, *device) : Buffer<T>(context, size);
}

} // namespace partcl::detail
