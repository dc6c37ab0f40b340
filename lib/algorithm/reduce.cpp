#include <partcl/algorithm/reduce.hpp>

#include "backend/interface.hpp"

namespace partcl {

double reduce_max(Queue& queue, const RealBuffer& values, std::size_t n) {
    if (n == 0 || n > values.size())
        throw UsageError("reduce_max: " + std::to_string(n) + " elements asked of a buffer of " +
                         std::to_string(values.size()));
    return detail::backend(queue.backend())
        .reduce_max(queue.impl(), *values.memory().impl(), values.precision(), n);
}

} // namespace partcl
