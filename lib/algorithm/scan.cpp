#include <partcl/algorithm/scan.hpp>
#include <partcl/runtime/profile.hpp>

#include "backend/interface.hpp"

namespace partcl {

void exclusive_scan(Queue& queue, const Buffer<std::uint32_t>& in, Buffer<std::uint32_t>& out,
                    std::size_t n) {
    if (in.size() < n || out.size() < n)
        throw UsageError("exclusive_scan: " + std::to_string(n) + " elements asked of buffers of " +
                         std::to_string(in.size()) + " and " + std::to_string(out.size()));
    if (n == 0) return;
    profiled(queue, "exclusive_scan (library)", [&] {
        detail::backend(queue.backend())
            .exclusive_scan(queue.impl(), *in.memory().impl(), *out.memory().impl(), n);
    });
}

} // namespace partcl
