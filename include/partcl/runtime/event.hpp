#pragma once
// A finished-or-pending command. Queues are created with profiling on, so every event knows how
// long the device spent on it; the scheduler re-weights devices from exactly these times.
#include <partcl/runtime/cl.hpp>

namespace partcl {

class Event {
public:
    Event() = default;
    explicit Event(cl::Event event) : event_(std::move(event)) {}

    void wait() const;
    // Device time from start to end of the command, in seconds; waits for it first.
    double seconds() const;

    const cl::Event& cl_event() const noexcept { return event_; }
    bool valid() const noexcept { return event_() != nullptr; }

private:
    cl::Event event_;
};

} // namespace partcl
