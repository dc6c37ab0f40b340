#include <partcl/algorithm/scan.hpp>

#include <boost/compute/algorithm/exclusive_scan.hpp>

#include "detail/boost_compute.hpp"
#include "detail/cub.hpp"

namespace partcl {

void exclusive_scan(Queue& queue, const Buffer<std::uint32_t>& in, Buffer<std::uint32_t>& out,
                    std::size_t n) {
    if (in.size() < n || out.size() < n)
        throw UsageError("exclusive_scan: " + std::to_string(n) + " elements asked of buffers of " +
                         std::to_string(in.size()) + " and " + std::to_string(out.size()));
    if (n == 0) return;
#ifdef PARTCL_WITH_CUDA
    if (queue.backend() == Backend::cuda)
        return detail::cuda::exclusive_sum(detail::cuda_stream(queue),
                                           detail::cuda_pointer<std::uint32_t>(in.memory()),
                                           detail::cuda_pointer<std::uint32_t>(out.memory()), n);
#endif
    auto q = detail::boost_queue(queue);
    boost::compute::exclusive_scan(detail::boost_iterator<std::uint32_t>(in.cl_buffer(), 0),
                                   detail::boost_iterator<std::uint32_t>(in.cl_buffer(), n),
                                   detail::boost_iterator<std::uint32_t>(out.cl_buffer(), 0), q);
}

} // namespace partcl
