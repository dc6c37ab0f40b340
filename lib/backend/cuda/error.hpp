#pragma once
// CUDA runtime calls that fail become a partcl::BackendError naming the call, CUDA's status and
// its own words for it (an allocation that fails: Unsupported). Plain declarations, for nvcc's
// files too.
#include <string>

#include <cuda_runtime_api.h>

namespace partcl::detail::cuda {

void check(cudaError_t status, const char* call, const std::string& detail = {});

// Makes `ordinal` the calling thread's current device (runtime calls act on it).
void use_device(int ordinal);

} // namespace partcl::detail::cuda
