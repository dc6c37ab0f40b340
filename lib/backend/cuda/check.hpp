#pragma once
// CUDA runtime calls that fail become partcl::Error naming the call and CUDA's own words.
#include <string>

#include <cuda_runtime_api.h>

#include <partcl/runtime/error.hpp>

namespace partcl::detail::cuda {

inline void check(cudaError_t status, const char* call, const std::string& detail = {}) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    std::string what = std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                       cudaGetErrorString(status) + ")";
    if (!detail.empty()) what += ": " + detail;
    if (status == cudaErrorMemoryAllocation) throw Unsupported(what);
    throw Error(what);
}

// Makes `ordinal` the calling thread's current device (runtime calls act on it).
inline void use_device(int ordinal) { check(cudaSetDevice(ordinal), "cudaSetDevice"); }

} // namespace partcl::detail::cuda
