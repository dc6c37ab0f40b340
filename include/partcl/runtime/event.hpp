#pragma once
// A finished-or-pending command. Queues are created with profiling on, so every event knows how
// long the device spent on it; the scheduler re-weights devices from exactly these times.
#include <memory>

namespace partcl {

namespace detail {
class EventImpl;
}

class Event {
public:
    Event() = default;
    explicit Event(std::shared_ptr<detail::EventImpl> impl) : impl_(std::move(impl)) {}

    void wait() const;
    // Device time from start to end of the command, in seconds; waits for it first.
    double seconds() const;
    // Device time from the end of `earlier` (a command of the same queue) to the end of this
    // one, in seconds; waits for this one first.
    double seconds_since(const Event& earlier) const;

    bool valid() const noexcept { return impl_ != nullptr; }

private:
    std::shared_ptr<detail::EventImpl> impl_;
};

} // namespace partcl
