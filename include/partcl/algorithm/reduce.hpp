#pragma once
// reduce: the sum, smallest or largest of values[0, n) of a RealBuffer, a Buffer<float> or a
// Buffer<double>, as a double whatever the buffer's precision; reduce_sum, reduce_min and
// reduce_max name the three. On OpenCL, Boost.Compute; on CUDA, CUB. Blocks until the result is
// on the host.
//
// min and max are exact (they pick a value). The sum is accumulated in the buffer's precision
// (float buffers add in float) in an order the library chooses, which is not fixed: it may
// differ between backends, devices and sizes, so the rounding differs from a sequential or a
// float64 sum's, and from one device's to another's. For any order,
// |computed - exact| <= (n - 1) u sum |values[i]| to first order, u the unit roundoff (2^-24
// for float, 2^-53 for double; Higham, "Accuracy and Stability of Numerical Algorithms", 2nd
// ed., section 4.2). tests/test_algorithm.cpp allows n epsilon sum |values[i]| (epsilon = 2u:
// that bound with room to spare, because the order is not ours to fix) against a compensated
// float64 sum of the values as stored, and asks for exact sums where every partial sum of any
// order is representable.
//
// UsageError for n = 0, n beyond the buffer, n from 2^31 on (CUB counts items in an int), or a
// buffer of another backend than the queue's.
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

enum class ReduceOp { sum, min, max };

const char* to_string(ReduceOp op) noexcept;  // "sum", "min", "max"

double reduce(Queue& queue, const RealBuffer& values, std::size_t n, ReduceOp op);
double reduce(Queue& queue, const Buffer<float>& values, std::size_t n, ReduceOp op);
double reduce(Queue& queue, const Buffer<double>& values, std::size_t n, ReduceOp op);

template <class Values>
double reduce_sum(Queue& queue, const Values& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::sum);
}
template <class Values>
double reduce_min(Queue& queue, const Values& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::min);
}
template <class Values>
double reduce_max(Queue& queue, const Values& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::max);
}

} // namespace partcl
