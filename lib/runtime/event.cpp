#include <partcl/runtime/event.hpp>

#include "backend/interface.hpp"

namespace partcl {

void Event::wait() const {
    if (impl_) impl_->wait();
}

double Event::seconds() const { return impl_ ? impl_->seconds() : 0.0; }

} // namespace partcl
