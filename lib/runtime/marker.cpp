#include <partcl/runtime/marker.hpp>

#include "backend/interface.hpp"

namespace partcl {

Marker mark(Queue& queue) { return Marker(queue.impl().marker()); }

void wait_for(Queue& queue, const Marker& marker) {
    if (marker.impl_) queue.impl().wait_for(*marker.impl_);
}

} // namespace partcl
