#pragma once
// exclusive_scan: out[i] = in[0] + ... + in[i - 1] (out[0] = 0), for i in [0, n); `out` may be
// `in`. Bucket and cell starts come from scanning per-bucket counts. On OpenCL, Boost.Compute;
// on CUDA, CUB.
#include <cstdint>

#include <partcl/runtime/buffer.hpp>

namespace partcl {

void exclusive_scan(Queue& queue, const Buffer<std::uint32_t>& in, Buffer<std::uint32_t>& out,
                    std::size_t n);

} // namespace partcl
