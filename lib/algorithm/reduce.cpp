#include <partcl/algorithm/reduce.hpp>

#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/functional/operator.hpp>

#include "detail/boost_compute.hpp"
#include "detail/cub.hpp"

namespace partcl {

namespace {
template <class T>
double max_with_boost_compute(Queue& queue, const cl::Buffer& values, std::size_t n) {
    auto q = detail::boost_queue(queue);
    T result = 0;
    boost::compute::reduce(detail::boost_iterator<T>(values, 0), detail::boost_iterator<T>(values, n),
                           &result, boost::compute::max<T>(), q);
    return double(result);
}
} // namespace

double reduce_max(Queue& queue, const RealBuffer& values, std::size_t n) {
    if (n == 0 || n > values.size())
        throw UsageError("reduce_max: " + std::to_string(n) + " elements asked of a buffer of " +
                         std::to_string(values.size()));
#ifdef PARTCL_WITH_CUDA
    if (queue.backend() == Backend::cuda) {
        if (values.precision() == Precision::float64)
            return detail::cuda::max_of(detail::cuda_stream(queue),
                                        detail::cuda_pointer<double>(values.memory()), n);
        return detail::cuda::max_of(detail::cuda_stream(queue),
                                    detail::cuda_pointer<float>(values.memory()), n);
    }
#endif
    return values.precision() == Precision::float64
               ? max_with_boost_compute<double>(queue, values.cl_buffer(), n)
               : max_with_boost_compute<float>(queue, values.cl_buffer(), n);
}

} // namespace partcl
