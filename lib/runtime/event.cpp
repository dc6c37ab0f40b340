#include <partcl/runtime/event.hpp>

#include "backend/interface.hpp"

namespace partcl {

void Event::wait() const {
    if (impl_) impl_->wait();
}

double Event::seconds() const { return impl_ ? impl_->seconds() : 0.0; }

double Event::seconds_since(const Event& earlier) const {
    if (!impl_ || !earlier.impl_) return 0.0;
    return impl_->seconds_since(*earlier.impl_);
}

} // namespace partcl
