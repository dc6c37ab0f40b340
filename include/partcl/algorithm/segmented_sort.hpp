#pragma once
// SegmentedSort: sorts each segment of real keys on its own, ascending and stable, carrying a
// 32-bit value along, as the tree build's per-node median splits need. Segment s is
// [offsets[s], offsets[s + 1]); the segments tile [0, n): offsets[0] = 0, offsets[segments] = n,
// ascending (empty segments allowed). On CUDA, CUB's DeviceSegmentedSort (small segments sort
// in shared memory, one pass); elsewhere (detail: sort_segments_by_two_sorts) a stable sort by
// key, then a stable sort by segment over the segment's bits.
//
//   SegmentedSort segments(context, precision);
//   segments.sort(queue, keys, values, offsets, segments_count, n);
#include <cstdint>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class SegmentedSort {
public:
    SegmentedSort(Context& context, Precision precision, ProgramCache& cache = ProgramCache::global());

    // Keys of the sort's precision; offsets as above (not checked on the device: a wrong tiling
    // sorts wrongly, it does not write out of bounds on CUDA, nor elsewhere).
    void sort(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values,
              const Buffer<std::uint32_t>& offsets, std::size_t segments, std::size_t n);

private:
    void reserve(std::size_t n);

    Context& context_;
    Precision precision_;
    Program program_;
    Kernel ids_, gather_real_, gather_uint_;
    std::size_t capacity_ = 0;
    RealBuffer key_scratch_;
    Buffer<std::uint32_t> index_, ids_scratch_, sorted_ids_;
};

} // namespace partcl
