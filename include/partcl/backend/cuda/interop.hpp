#pragma once
// CUDA interop: the stream and device addresses behind partcl's queues and buffers, for code
// that runs CUDA (or a library on it, CUB, cuFFT) on them. The device is Device::ordinal().
// UsageError for a handle of another backend.
#include <cuda_runtime_api.h>

#include <partcl/backend/native.hpp>

namespace partcl::cuda {

inline cudaStream_t native(const Queue& queue) {
    return static_cast<cudaStream_t>(
        detail::native_queue(queue, Backend::cuda, "cuda::native(queue)"));
}
// The device address of its first byte; null for empty memory.
inline void* native(const Memory& memory) {
    return detail::native_memory(memory, Backend::cuda, "cuda::native(memory)");
}

} // namespace partcl::cuda
