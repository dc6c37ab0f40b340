#pragma once
// The CUDA backend's precompiled device code (algorithms.cu, compiled by nvcc): buffer fills,
// and CUB's radix sort, scan and reduction behind partcl's device algorithms. Plain C++
// declarations, so the rest of the backend is compiled by the host compiler.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace partcl::detail::cuda {

// Repeats a 1, 2, 4 or 8-byte pattern `count` times from `target`.
cudaError_t fill_pattern(cudaStream_t stream, void* target, const void* pattern,
                         std::size_t pattern_size, std::size_t count);

// Stable ascending sort of keys[0, n), values carried along (CUB DeviceRadixSort).
// Sorts the low key_bits bits of the keys.
void sort_pairs(cudaStream_t stream, std::uint32_t* keys, std::uint32_t* values, std::size_t n,
                unsigned key_bits = 32);
void sort_pairs(cudaStream_t stream, float* keys, std::uint32_t* values, std::size_t n);
void sort_pairs(cudaStream_t stream, double* keys, std::uint32_t* values, std::size_t n);
// out[i] = in[0] + ... + in[i - 1] (CUB DeviceScan); in == out allowed.
void exclusive_sum(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, std::size_t n);
// The sum, smallest or largest of values[0, n) (n > 0) (CUB DeviceReduce, the sum in the
// values' type), returned to the host.
enum class CubReduction { sum, min, max };
double reduce_values(cudaStream_t stream, const float* values, std::size_t n, CubReduction op);
double reduce_values(cudaStream_t stream, const double* values, std::size_t n, CubReduction op);

} // namespace partcl::detail::cuda
