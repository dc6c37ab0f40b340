#pragma once
// reduce_max: the largest of values[0, n) (n > 0), as a double whatever the buffer's precision.
// On OpenCL, Boost.Compute; on CUDA, CUB.
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

double reduce_max(Queue& queue, const RealBuffer& values, std::size_t n);

} // namespace partcl
