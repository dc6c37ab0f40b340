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

void sort_by_key(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                 std::size_t n);
// Keys of the buffer's precision (NaN keys are a UsageError's business of the caller: their
// order is unspecified).
void sort_by_key(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n);

} // namespace partcl
