#include <partcl/algorithm/segmented_sort.hpp>

#include <partcl/algorithm/sort_by_key.hpp>

#include "detail/cub.hpp"

namespace partcl {

namespace {

Program build_segmented_sort(const Context& context, Precision precision, ProgramCache& cache) {
    BuildOptions options;
    options.precision = precision;
    return build_program(context, Source::builtin("algorithm/segmented_sort.cl"), options, cache);
}

} // namespace

SegmentedSort::SegmentedSort(Context& context, Precision precision, ProgramCache& cache)
    : context_(context), precision_(precision),
      program_(build_segmented_sort(context, precision, cache)),
      ids_(program_, "segmented_sort_ids"), gather_real_(program_, "segmented_sort_gather_real"),
      gather_uint_(program_, "segmented_sort_gather_uint") {}

void SegmentedSort::reserve(std::size_t n) {
    if (n <= capacity_) return;
    key_scratch_ = RealBuffer(context_, precision_, n);
    index_ = Buffer<std::uint32_t>(context_, n);
    ids_scratch_ = Buffer<std::uint32_t>(context_, n);
    sorted_ids_ = Buffer<std::uint32_t>(context_, n);
    capacity_ = n;
}

void SegmentedSort::sort(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values,
                         const Buffer<std::uint32_t>& offsets, std::size_t segments, std::size_t n) {
    if (keys.precision() != precision_)
        throw UsageError(std::string("SegmentedSort: ") + to_string(keys.precision()) + " keys given to a " +
                         to_string(precision_) + " sort");
    if (keys.size() < n || values.size() < n || offsets.size() < segments + 1)
        throw UsageError("SegmentedSort: " + std::to_string(n) + " elements in " + std::to_string(segments) +
                         " segments asked of buffers of " + std::to_string(keys.size()) + " keys, " +
                         std::to_string(values.size()) + " values and " + std::to_string(offsets.size()) +
                         " offsets");
    if (n > 0x7fffffffull) throw UsageError("SegmentedSort: more than 2^31 - 1 elements");
    if (n < 2 || segments == 0) return;
#ifdef PARTCL_WITH_CUDA
    if (queue.backend() == Backend::cuda) {
        const auto stream = detail::cuda_stream(queue);
        auto* v = detail::cuda_pointer<std::uint32_t>(values.memory());
        const auto* o = detail::cuda_pointer<std::uint32_t>(offsets.memory());
        if (precision_ == Precision::float64)
            return detail::cuda::sort_segments(stream, detail::cuda_pointer<double>(keys.memory()), v, n, o, segments);
        return detail::cuda::sort_segments(stream, detail::cuda_pointer<float>(keys.memory()), v, n, o, segments);
    }
#endif
    // sort_segments_by_two_sorts: by key, then by segment (stable: each segment stays in key
    // order), through a permutation `index_` of the positions; then both gathered by it.
    reserve(n);
    const cl_uint un = cl_uint(n);
    ids_.args(un, cl_uint(segments), offsets, ids_scratch_, index_).launch(queue, n, 64);
    keys.copy_to(queue, key_scratch_, n);
    sort_by_key(queue, key_scratch_, index_, n);
    gather_uint_.args(un, index_, ids_scratch_, sorted_ids_).launch(queue, n, 64);
    sort_by_key(queue, sorted_ids_, index_, n, bits_for(segments));
    gather_real_.args(un, index_, keys, key_scratch_).launch(queue, n, 64);
    gather_uint_.args(un, index_, values, ids_scratch_).launch(queue, n, 64);
    key_scratch_.copy_to(queue, keys, n);
    ids_scratch_.copy_to(queue, values, n);
}

} // namespace partcl
