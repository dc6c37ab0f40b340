#include "backend/cuda/error.hpp"

#include <partcl/backend/error.hpp>

namespace partcl::detail::cuda {

void check(cudaError_t status, const char* call, const std::string& detail) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    std::string what = std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                       cudaGetErrorString(status) + ")";
    if (!detail.empty()) what += ": " + detail;
    if (status == cudaErrorMemoryAllocation) throw Unsupported(what);
    throw Error(what);
}

void use_device(int ordinal) { check(cudaSetDevice(ordinal), "cudaSetDevice"); }

} // namespace partcl::detail::cuda
