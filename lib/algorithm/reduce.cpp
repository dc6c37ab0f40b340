#include <partcl/algorithm/reduce.hpp>

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

double reduce(Queue& queue, const RealBuffer& values, std::size_t n, ReduceOp op) {
    const std::string name = std::string("reduce_") + to_string(op);
    detail::Reduction reduction;
    switch (op) {
    case ReduceOp::sum: reduction = detail::Reduction::sum; break;
    case ReduceOp::min: reduction = detail::Reduction::min; break;
    case ReduceOp::max: reduction = detail::Reduction::max; break;
    default: throw UsageError("reduce: unknown operation " + std::to_string(int(op)));
    }
    if (n == 0 || n > values.size())
        throw UsageError(name + ": " + std::to_string(n) + " elements asked of a buffer of " +
                         std::to_string(values.size()));
    if (n > 0x7fffffffull) throw UsageError(name + ": more than 2^31 - 1 elements");
    if (values.memory().backend() != queue.backend())
        throw UsageError(name + ": a buffer of the " + to_string(values.memory().backend()) +
                         " backend on a queue of the " + to_string(queue.backend()) + " backend");
    return detail::backend(queue.backend())
        .reduce(queue.impl(), *values.memory().impl(), values.precision(), n, reduction);
}

} // namespace partcl
