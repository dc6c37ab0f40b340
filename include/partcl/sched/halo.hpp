#pragma once
// Halo: a plan of copies of slot ranges between the devices of a context, made once (a step's)
// and applied to every field that has to follow, after Cabana's Halo and Distributor: the ghost
// slots of each device filled from the particles' owners, or the particles that change device
// gathered into their new owner's array. A piece copies `count` slots of every component of a
// field (structure of arrays: component c of slot i at c * stride + i, the stride per device):
//
//     Halo halo(context);
//     halo.plan({{1, 0, 0, 900, 40}});                // device 1's slots [0, 40) to device 0's
//     halo.exchange(positions, strides, 3);           // [900, 940), each of 3 components
//
// A piece runs on the receiving device's queue, after every command enqueued so far on the
// sending device's (a marker: the host does not wait) and after the receiver's own earlier
// commands (its queue is in order). The sender must not write the slots again before the
// receiver's later commands have run (a MultiDeviceLaunch run or share_inputs orders them so).
// Copies are bit for bit, so where the pieces keep the one-device order of the slots, results
// are the one-device results.
#include <cstddef>
#include <string>
#include <vector>

#include <partcl/backend/error.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/marker.hpp>

namespace partcl {

// `count` slots from device `from`'s slot `from_slot` on to device `to`'s slot `to_slot` on.
struct SlotCopy {
    std::size_t from = 0, from_slot = 0, to = 0, to_slot = 0, count = 0;
};

namespace detail {
// UsageError unless every piece names devices of the context.
void check_pieces(const std::vector<SlotCopy>& pieces, std::size_t devices);
} // namespace detail

class Halo {
public:
    explicit Halo(Context& context) : context_(&context) {}

    void plan(std::vector<SlotCopy> pieces) {
        detail::check_pieces(pieces, context_->size());
        pieces_ = std::move(pieces);
    }
    const std::vector<SlotCopy>& pieces() const noexcept { return pieces_; }

    // Every piece, for each component c < components: from[p.from] at c * from_strides[p.from]
    // + p.from_slot to to[p.to] at c * to_strides[p.to] + p.to_slot, `count` elements. One
    // buffer and stride per device. UsageError where a piece does not fit its buffers.
    template <class B>
    void apply(const std::vector<B>& from, const std::vector<std::size_t>& from_strides,
               std::vector<B>& to, const std::vector<std::size_t>& to_strides,
               std::size_t components) {
        const std::size_t devices = context_->size();
        if (from.size() != devices || to.size() != devices || from_strides.size() != devices ||
            to_strides.size() != devices)
            throw UsageError("Halo: one buffer and stride per device of the context");
        // Each receiver waits once for each sender (a marker of the sender's queue).
        std::vector<Marker> sent(devices);
        for (const SlotCopy& p : pieces_)
            if (p.count > 0 && p.from != p.to && !sent[p.from].valid())
                sent[p.from] = mark(context_->queue(p.from));
        std::vector<std::vector<bool>> waited(devices, std::vector<bool>(devices, false));
        for (const SlotCopy& p : pieces_) {
            if (p.count == 0) continue;
            Queue& queue = context_->queue(p.to);
            if (p.from != p.to && !waited[p.to][p.from]) {
                wait_for(queue, sent[p.from]);
                waited[p.to][p.from] = true;
            }
            // Every component in one command: each command costs the host microseconds.
            from[p.from].copy_rows_to(queue, to[p.to], p.count, components, p.from_slot,
                                      from_strides[p.from], p.to_slot, to_strides[p.to]);
        }
    }
    // apply() within one set of buffers (ghost slots from their owners' slots).
    template <class B>
    void exchange(std::vector<B>& fields, const std::vector<std::size_t>& strides,
                  std::size_t components) {
        apply(fields, strides, fields, strides, components);
    }

private:
    Context* context_;
    std::vector<SlotCopy> pieces_;
};

} // namespace partcl
