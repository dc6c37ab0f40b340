#pragma once
// reduce: the sum, smallest or largest of values[0, n) of a RealBuffer, as a double whatever the
// buffer's precision; reduce_sum, reduce_min and reduce_max name the three. On OpenCL,
// Boost.Compute; on CUDA, CUB. Blocks until the result is on the host.
//
// min and max are exact (they pick a value). The sum is accumulated in the buffer's precision
// (float buffers add in float) in an order the library chooses, which is not fixed: it may
// differ between backends, devices and sizes, so it may differ from a sequential or a float64
// sum in the last bits and is not guaranteed to be the same from one device to another. For
// any order, |computed - exact| <= (n - 1) u sum |values[i]| to first order, u the unit
// roundoff (2^-24 for float, 2^-53 for double; Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., section 4.2); tests/test_algorithm.cpp allows n epsilon sum |values[i]|
// (epsilon = 2u), that bound with room to spare, against a float64 reference of the values as
// stored, and checks exact sums where every partial sum is representable.
//
// UsageError for n = 0, n beyond the buffer, n from 2^31 on (CUB counts items in an int), or a
// buffer of another backend than the queue's.
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

enum class ReduceOp { sum, min, max };

const char* to_string(ReduceOp op) noexcept;  // "sum", "min", "max"

double reduce(Queue& queue, const RealBuffer& values, std::size_t n, ReduceOp op);

inline double reduce_sum(Queue& queue, const RealBuffer& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::sum);
}
inline double reduce_min(Queue& queue, const RealBuffer& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::min);
}
inline double reduce_max(Queue& queue, const RealBuffer& values, std::size_t n) {
    return reduce(queue, values, n, ReduceOp::max);
}

} // namespace partcl
