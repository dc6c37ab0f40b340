#pragma once
// Ordering between the queues of one Context without the host waiting. A Marker is a point in
// one queue's commands; a queue told to wait for it (wait_for) starts the commands enqueued on it
// afterwards only once every command enqueued on the marked queue before the marker has
// finished. That is how work on one device's queue is made to see what another device's queue
// wrote (a buffer of the context is readable by all its devices once the writes are complete):
// OpenCL's markers and barriers with wait lists across queues of one context, CUDA's events
// recorded on one stream and waited for on another.
#include <memory>

#include <partcl/runtime/event.hpp>
#include <partcl/runtime/queue.hpp>

namespace partcl {

class Marker {
public:
    Marker() = default;  // marks nothing: waiting for it waits for nothing

    bool valid() const noexcept { return impl_ != nullptr; }
    // The marker as an event (wait() blocks the host until the point is reached).
    Event event() const { return Event(impl_); }

private:
    friend Marker mark(Queue& queue);
    friend void wait_for(Queue& queue, const Marker& marker);
    explicit Marker(std::shared_ptr<detail::EventImpl> impl) : impl_(std::move(impl)) {}

    std::shared_ptr<detail::EventImpl> impl_;
};

// The point after every command enqueued on `queue` so far.
Marker mark(Queue& queue);
// Commands enqueued on `queue` from now on start after `marker`'s point of its queue (a queue
// of the same context; a marker of `queue` itself orders nothing new: a queue is in order).
void wait_for(Queue& queue, const Marker& marker);

} // namespace partcl
