#pragma once
// Mirror: an input of a multi-device launch, brought to every device of a context for reading.
// Where the devices share memory (Context::shares_memory: CPU devices, one device named several
// times) every device reads the input itself and nothing is copied. Where each works in a memory
// of its own (two GPUs), a kernel reading the other device's buffer pays the link on every
// access, and a driver keeping one buffer coherent over two devices may run their kernels one
// after the other; so each device other than 0 reads a copy in its own memory, made by update()
// whenever the input has changed:
//
//     Mirror<RealBuffer> positions(context);
//     positions.update(state, 3 * n);        // state complete on device 0's queue
//     spread.run(p, [&](std::size_t d, Range r) {
//         kernel[d].args(..., positions.on(d), ...);
//         ...
//     });
//
// update() copies on each other device's queue, after everything enqueued on device 0's queue
// so far (a marker: the host does not wait) and after that device's earlier commands (its queue
// is in order), so a kernel still reading the old copy finishes first. The copy is bit for bit,
// so results do not depend on the memory model.
//
// An array a launch both reads and writes, each device only the elements of its own items
// (y = a x + y), is a Mirror too: every device writes its range into what on(d) gave it, and
// collect() brings the other devices' ranges back into the source.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <partcl/backend/error.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/marker.hpp>
#include <partcl/sched/detail/buffer_like.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

template <class B>
class Mirror {
public:
    explicit Mirror(Context& context) : context_(&context), copies_(context.size()) {}

    // Whether update() copies (the context's devices have separate memories).
    bool copies() const noexcept { return context_->size() > 1 && !context_->shares_memory(); }

    // The first `count` elements of `source` for every device from now on: `source` itself for
    // device 0 (and for all where memory is shared), a copy for the others. `source` must be
    // complete for commands enqueued next on device 0's queue, and must outlive the launches
    // that read it.
    void update(const B& source, std::size_t count) {
        if (count > source.size())
            throw UsageError("Mirror::update: " + std::to_string(count) + " elements of a buffer of " +
                             std::to_string(source.size()));
        source_ = &source;
        count_ = count;
        if (!copies() || count == 0) return;
        const Marker ready = mark(context_->queue(0));
        for (std::size_t d = 1; d < copies_.size(); ++d) {
            if (copies_[d].size() < count)
                copies_[d] = detail::buffer_like(source, *context_, count, OnDevice{d});
            Queue& queue = context_->queue(d);
            wait_for(queue, ready);
            source.copy_to(queue, copies_[d], count);
        }
    }

    // After a launch in which every device d wrote the elements of its items of `partition`
    // into on(d) (item i's `per_item` elements at [i * per_item, (i + 1) * per_item)), copies
    // each other device's into `destination` (the updated source, non-const) on device 0's
    // queue, device by device in order, after that device's commands so far (a marker). Nothing
    // to copy where the devices share memory.
    void collect(const Partition& partition, B& destination, std::size_t per_item) {
        if (partition.parts() != copies_.size())
            throw UsageError("Mirror::collect: a partition of " + std::to_string(partition.parts()) +
                             " parts for a context of " + std::to_string(copies_.size()) +
                             " devices");
        if (&destination != source_)
            throw UsageError("Mirror::collect: the destination is not the updated source");
        if (!copies()) return;
        Queue& queue = context_->queue(0);
        for (std::size_t d = 1; d < copies_.size(); ++d) {
            const Range range = partition[d];
            if (range.empty()) continue;
            const std::size_t first = range.begin * per_item, count = range.size() * per_item;
            if (first + count > count_)
                throw UsageError("Mirror::collect: items " + std::to_string(range.begin) + " to " +
                                 std::to_string(range.end) + " of " + std::to_string(per_item) +
                                 " elements each, past the " + std::to_string(count_) +
                                 " updated");
            wait_for(queue, mark(context_->queue(d)));
            copies_[d].copy_to(queue, destination, count, first, first);
        }
    }

    // What device d reads: at least the updated elements (UsageError before any update()).
    const B& on(std::size_t d) const {
        if (!source_) throw UsageError("Mirror::on: no update() yet");
        if (d >= copies_.size())
            throw UsageError("Mirror::on: device " + std::to_string(d) + " of a context of " +
                             std::to_string(copies_.size()) + " devices");
        return d == 0 || !copies() ? *source_ : copies_[d];
    }

private:
    Context* context_;
    const B* source_ = nullptr;
    std::size_t count_ = 0;  // elements of the last update()
    std::vector<B> copies_;  // [d]: device d's copy (none for device 0)
};

} // namespace partcl
