#include "backend/cuda/error.hpp"

#include <partcl/backend/error.hpp>

namespace partcl::detail::cuda {

void check(cudaError_t status, const char* call, const std::string& detail) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    BackendError error(call, int(status), cudaGetErrorName(status), cudaGetErrorString(status),
                       detail);
    // Out of device memory is the hardware's limit, as a buffer above its largest is.
    if (status == cudaErrorMemoryAllocation) throw Unsupported(error.what());
    throw error;
}

void use_device(int ordinal) { check(cudaSetDevice(ordinal), "cudaSetDevice"); }

} // namespace partcl::detail::cuda
