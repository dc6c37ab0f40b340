#pragma once
// sort_by_key: sorts keys[0, n) ascending and carries a value (usually a particle index) along
// with each key. Stable: equal keys keep their order, so two passes (by a secondary key, then by
// a primary one) sort by the pair, as the tree build's segmented sorts and the cell sorts of PIC
// and MPS need. On OpenCL, Boost.Compute's radix sort (GPUs) or merge sort (CPUs); on CUDA,
// CUB's radix sort.
#include <cstdint>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

// key_bits: every key is below 2^key_bits (in [0, 32]), so only those bits need sorting: CUB
// sorts only them (fewer passes), 0 leaves the buffers as they are; Boost.Compute sorts all.
void sort_by_key(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                 std::size_t n, unsigned key_bits = 32);
// The key_bits that hold every key below `bound` (a count of distinct keys).
unsigned bits_for(std::uint64_t bound) noexcept;
// Keys of the buffer's precision (NaN keys are a UsageError's business of the caller: their
// order is unspecified).
void sort_by_key(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n);

} // namespace partcl
