#pragma once
// PartitionedOutput: one output of a multi-device launch, a structure of arrays of
// `components` components (3 axes, a potential, ...) of n items, written by every device for
// its own range and then gathered into one destination buffer.
//
// OpenCL leaves concurrent writes to one memory object from several devices undefined, but
// defines them on disjoint sub-buffers of one buffer. So an output is written in one of two ways:
// - in place (assign's `in_place`, one component, a context whose devices share memory, every
//   part's start aligned for a region of the destination: Memory::region): every device writes
//   its range through a region of the destination of its own, and gather() copies nothing;
// - else only device 0 writes into the destination (its range begins at 0); every other device
//   writes its part into a slice buffer of its own, in its own memory where the devices have
//   separate memories (Context::shares_memory), which gather() copies into place on device 0's
//   queue, in device order. Two GPUs take this way: a GPU writing the other's memory pays the
//   link on every store, and a driver keeping one buffer coherent over two devices (NVIDIA's
//   OpenCL) ran their kernels one after the other.
// Either way the destination holds exactly the bits the devices computed, for any split: a
// multi-device result is bit for bit the single-device one whenever the kernel computes each
// item the same way wherever it runs.
//
// Works over RealBuffer (precision chosen at run time) and Buffer<T>. Slice buffers grow to the
// largest part seen and are kept between launches; regions are made at each assign (a
// sub-buffer costs no measurable time on PoCL) and let go at gather.
#include <cstddef>
#include <string>
#include <vector>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/detail/buffer_like.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

// Where a SoA output's values sit in a buffer: component c of item i at
// offset + c * stride + i.
struct SoaLayout {
    std::size_t offset = 0;
    std::size_t stride = 0;  // >= n with several components; one component takes n
};

// Where device d writes its range: component c of item i (range.begin <= i < range.end) at
// buffer[offset + c * stride + (i - range.begin)].
template <class B>
struct OutputPart {
    B& buffer;
    std::size_t offset;
    std::size_t stride;
    Range range;
};

namespace detail {
// Checks that `layout` fits `components` x n items in a buffer of `size` elements; UsageError
// naming the problem otherwise.
void check_soa_layout(std::size_t components, std::size_t n, SoaLayout layout, std::size_t size);
// UsageError unless `d` < `parts` and a destination was assigned.
void check_output_part(std::size_t d, std::size_t parts, bool assigned);
} // namespace detail

template <class B>
class PartitionedOutput {
public:
    PartitionedOutput(Context& context, std::size_t components)
        : context_(&context), components_(components), slices_(context.size()) {
        if (components == 0) throw UsageError("a PartitionedOutput needs at least one component");
    }

    std::size_t components() const noexcept { return components_; }

    // The output of the next launch: `partition`'s items (one part per device of the context)
    // into `destination`, laid out as `layout`. Grows the slice buffers of devices other than 0
    // to their parts, unless `in_place` and the output is written through regions (in_place()
    // says which); the launch must then use the destination only through part(d), as OpenCL
    // leaves using a buffer while a sub-buffer of it is written undefined. `destination` must
    // outlive gather().
    void assign(const Partition& partition, B& destination, SoaLayout layout,
                bool in_place = false) {
        if (partition.parts() != slices_.size())
            throw UsageError("PartitionedOutput: a partition of " +
                             std::to_string(partition.parts()) + " parts for a context of " +
                             std::to_string(slices_.size()) + " devices");
        if (components_ == 1) layout.stride = partition.total();
        detail::check_soa_layout(components_, partition.total(), layout, destination.size());
        in_place_ = in_place && components_ == 1 && context_->shares_memory() &&
                    make_regions(partition, destination, layout);
        for (std::size_t d = 1; d < slices_.size() && !in_place_; ++d) {
            const std::size_t needed = components_ * partition[d].size();
            if (slices_[d].size() < needed)
                slices_[d] = detail::buffer_like(
                    destination, *context_, needed,
                    context_->shares_memory() ? std::nullopt : std::optional<OnDevice>({d}));
        }
        partition_ = partition;
        destination_ = &destination;
        layout_ = layout;
    }

    // Whether the assigned output is written through regions of the destination.
    bool in_place() const noexcept { return in_place_; }

    // Where device d writes its part of the assigned launch: its region of the destination
    // (offset 0) when in_place(); else the destination itself for device 0, its slice buffer
    // (components one after another, `stride` its range's size) for others.
    OutputPart<B> part(std::size_t d) {
        detail::check_output_part(d, slices_.size(), destination_ != nullptr);
        const Range range = partition_[d];
        if (in_place_) return {regions_[d], 0, range.size(), range};
        if (d == 0)
            return {*destination_, layout_.offset + range.begin, layout_.stride, range};
        return {slices_[d], 0, range.size(), range};
    }

    // Copies the parts of devices other than 0 into place on device 0's queue, device by device
    // in order, after the MultiDeviceLaunch::run that wrote them (whose end orders device 0's
    // queue after every device's launches). Nothing is waited for on the host: the destination
    // is complete for commands enqueued later on device 0's queue, which also wrote its own
    // part, and for other queues after their next run or share_inputs (which also keeps a
    // slice from being written again before its copy is done). The assignment ends (assign
    // again before the next launch).
    void gather() {
        detail::check_output_part(0, slices_.size(), destination_ != nullptr);
        Queue& queue = context_->queue(0);
        for (std::size_t d = 1; d < slices_.size() && !in_place_; ++d) {
            const Range range = partition_[d];
            if (range.empty()) continue;
            for (std::size_t c = 0; c < components_; ++c)
                slices_[d].copy_to(queue, *destination_, range.size(), c * range.size(),
                                   layout_.offset + c * layout_.stride + range.begin);
        }
        regions_.assign(regions_.size(), B());  // enqueued commands keep what they use
        destination_ = nullptr;
    }

private:
    // Every non-empty part's region of `destination`; false, making none, where the backend
    // refuses one (OpenCL: a start off the devices' base address alignment).
    bool make_regions(const Partition& partition, const B& destination, SoaLayout layout) {
        regions_.assign(slices_.size(), B());
        for (std::size_t d = 0; d < slices_.size(); ++d) {
            if (partition[d].empty()) continue;
            auto region = destination.region(layout.offset + partition[d].begin, partition[d].size());
            if (!region) {
                regions_.assign(slices_.size(), B());
                return false;
            }
            regions_[d] = std::move(*region);
        }
        return true;
    }

    Context* context_;
    std::size_t components_;
    std::vector<B> slices_;   // [d]: device d's part before the gather (unused for device 0)
    std::vector<B> regions_;  // [d]: device d's region of the destination, when in_place_
    bool in_place_ = false;
    Partition partition_;
    B* destination_ = nullptr;
    SoaLayout layout_;
};

} // namespace partcl
