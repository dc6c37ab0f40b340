#pragma once
// The CUDA backend's stream and device addresses behind partcl's queues and buffers, for the
// algorithms' CUB variants (lib/backend/cuda/device_functions.cu).
#ifdef PARTCL_WITH_CUDA
#include "backend/cuda/check.hpp"
#include "backend/cuda/device_functions.hpp"
#include "backend/interface.hpp"

#include <partcl/runtime/memory.hpp>

namespace partcl::detail {

inline cudaStream_t cuda_stream(Queue& queue) {
    cuda::use_device(cuda::ordinal(queue.impl()));
    return static_cast<cudaStream_t>(cuda::stream(queue.impl()));
}

template <class T>
T* cuda_pointer(const Memory& memory) {
    return static_cast<T*>(cuda::pointer(*memory.impl()));
}

} // namespace partcl::detail
#endif
