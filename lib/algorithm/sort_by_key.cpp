#include <partcl/algorithm/sort_by_key.hpp>

#include <boost/compute/algorithm/stable_sort_by_key.hpp>

#include "detail/boost_compute.hpp"
#include "detail/cub.hpp"

namespace partcl {

namespace {

void check_lengths(std::size_t keys, std::size_t values, std::size_t n) {
    if (keys < n || values < n)
        throw UsageError("sort_by_key: " + std::to_string(n) + " elements asked of buffers of " +
                         std::to_string(keys) + " keys and " + std::to_string(values) + " values");
    if (n > 0xffffffffull) throw UsageError("sort_by_key: more than 2^32 - 1 elements");
}

template <class Key>
void sort_with_boost_compute(Queue& queue, const cl::Buffer& keys, const cl::Buffer& values,
                             std::size_t n) {
    auto q = detail::boost_queue(queue);
    boost::compute::stable_sort_by_key(detail::boost_iterator<Key>(keys, 0),
                                       detail::boost_iterator<Key>(keys, n),
                                       detail::boost_iterator<std::uint32_t>(values, 0), q);
}

} // namespace

unsigned bits_for(std::uint64_t bound) noexcept {
    unsigned bits = 0;
    while (bits < 32 && (std::uint64_t(1) << bits) < bound) ++bits;
    return bits;
}

void sort_by_key(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                 std::size_t n, unsigned key_bits) {
    check_lengths(keys.size(), values.size(), n);
    if (key_bits > 32) throw UsageError("sort_by_key: key_bits " + std::to_string(key_bits) + " above 32");
    if (n < 2 || key_bits == 0) return;
#ifdef PARTCL_WITH_CUDA
    if (queue.backend() == Backend::cuda)
        return detail::cuda::sort_pairs(detail::cuda_stream(queue),
                                        detail::cuda_pointer<std::uint32_t>(keys.memory()),
                                        detail::cuda_pointer<std::uint32_t>(values.memory()), n,
                                        key_bits);
#endif
    sort_with_boost_compute<std::uint32_t>(queue, keys.cl_buffer(), values.cl_buffer(), n);
}

void sort_by_key(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n) {
    check_lengths(keys.size(), values.size(), n);
    if (n < 2) return;
#ifdef PARTCL_WITH_CUDA
    if (queue.backend() == Backend::cuda) {
        auto* v = detail::cuda_pointer<std::uint32_t>(values.memory());
        if (keys.precision() == Precision::float64)
            return detail::cuda::sort_pairs(detail::cuda_stream(queue),
                                            detail::cuda_pointer<double>(keys.memory()), v, n);
        return detail::cuda::sort_pairs(detail::cuda_stream(queue),
                                        detail::cuda_pointer<float>(keys.memory()), v, n);
    }
#endif
    if (keys.precision() == Precision::float64)
        sort_with_boost_compute<double>(queue, keys.cl_buffer(), values.cl_buffer(), n);
    else
        sort_with_boost_compute<float>(queue, keys.cl_buffer(), values.cl_buffer(), n);
}

} // namespace partcl
