#pragma once
// Arrays a model keeps on one device from step to step, whose particle counts change a little
// every step (particles that leave or join a rank or a device): grown to hold `size` elements,
// with a quarter to spare so that the next steps rarely grow them again, in device `device`'s
// memory. A grown array's contents are undefined; an array that fits is left as it is.
#include <algorithm>
#include <cstdint>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

inline void fit_on_device(RealBuffer& array, Context& context, Precision precision, std::size_t size,
                          OnDevice device) {
    if (array.size() < size || array.precision() != precision)
        array = RealBuffer(context, precision, std::max<std::size_t>(size + size / 4, 1), device);
}

inline void fit_on_device(Buffer<std::uint32_t>& array, Context& context, std::size_t size,
                          OnDevice device) {
    if (array.size() < size || array.size() == 0)
        array = Buffer<std::uint32_t>(context, std::max<std::size_t>(size + size / 4, 1), device);
}

} // namespace partcl
