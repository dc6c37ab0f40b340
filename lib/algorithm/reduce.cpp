#include <partcl/algorithm/reduce.hpp>
#include <partcl/runtime/profile.hpp>

#include "backend/interface.hpp"

namespace partcl {

const char* to_string(ReduceOp op) noexcept {
    switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    }
    return "unknown";
}

namespace {

// values[0, n) of memory holding `size` elements of `precision`.
double reduce_memory(Queue& queue, const Memory& memory, std::size_t size, Precision precision,
                     std::size_t n, ReduceOp op) {
    const std::string name = std::string("reduce_") + to_string(op);
    detail::Reduction reduction;
    switch (op) {
    case ReduceOp::sum: reduction = detail::Reduction::sum; break;
    case ReduceOp::min: reduction = detail::Reduction::min; break;
    case ReduceOp::max: reduction = detail::Reduction::max; break;
    default: throw UsageError("reduce: unknown operation " + std::to_string(int(op)));
    }
    if (n == 0 || n > size)
        throw UsageError(name + ": " + std::to_string(n) + " elements asked of a buffer of " +
                         std::to_string(size));
    if (n > 0x7fffffffull) throw UsageError(name + ": more than 2^31 - 1 elements");
    if (memory.backend() != queue.backend())
        throw UsageError(name + ": a buffer of the " + to_string(memory.backend()) +
                         " backend on a queue of the " + to_string(queue.backend()) + " backend");
    double result = 0;
    profiled(queue, "reduce (library)", [&] {
        result = detail::backend(queue.backend()).reduce(queue.impl(), *memory.impl(), precision, n, reduction);
    });
    return result;
}

} // namespace

double reduce(Queue& queue, const RealBuffer& values, std::size_t n, ReduceOp op) {
    return reduce_memory(queue, values.memory(), values.size(), values.precision(), n, op);
}
double reduce(Queue& queue, const Buffer<float>& values, std::size_t n, ReduceOp op) {
    return reduce_memory(queue, values.memory(), values.size(), Precision::float32, n, op);
}
double reduce(Queue& queue, const Buffer<double>& values, std::size_t n, ReduceOp op) {
    return reduce_memory(queue, values.memory(), values.size(), Precision::float64, n, op);
}

} // namespace partcl
