#pragma once
// OrderedSum: per-device partial arrays of one length (a grid each device deposits into, a few
// partial sums) added element by element into one destination, in device order, on device 0's
// queue:
//
//     destination = ((part(0) + part(1)) + part(2)) + ...
//
// The order of the additions is fixed by the device order alone, never by which device finished
// first, so a sum over a given partition is the same on every run. Devices left out of the sum
// (an empty part of the launch) add nothing. On one device the destination is device 0's part,
// stored as it is: the sum of one part is that part, bit for bit.
//
//     OrderedSum sum(context, precision);
//     sum.resize(points);
//     spread.run(partition, [&](std::size_t d, Range r) {
//         sum.part(d).fill(context.queue(d), 0);
//         return deposit[d].args(..., sum.part(d)).launch(context.queue(d), r.size());
//     });
//     sum.sum_into(grid, partition);  // after every queue with a part, on queue 0
#include <cstddef>
#include <vector>

#include <partcl/jit/kernel.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

class OrderedSum {
public:
    OrderedSum(Context& context, Precision precision,
               ProgramCache& cache = ProgramCache::global());

    // Every part holds `size` elements from now on (grown, never shrunk; contents undefined),
    // in its device's own memory where the context's memories are separate.
    void resize(std::size_t size);
    std::size_t size() const noexcept { return size_; }
    Precision precision() const noexcept { return precision_; }

    // Device d's partial array (UsageError past the context's devices).
    RealBuffer& part(std::size_t d);

    // destination[offset, offset + size()) = the ordered sum of the parts of the devices with a
    // non-empty range in `partition`, on device 0's queue, after everything enqueued so far on
    // those devices' queues (by markers: the host does not wait). A part may be written again
    // after the next MultiDeviceLaunch::run or share_inputs, which order its queue after the sum.
    void sum_into(RealBuffer& destination, const Partition& partition, std::size_t offset = 0);

private:
    Context* context_;
    Precision precision_;
    std::size_t size_ = 0;
    std::vector<RealBuffer> parts_;
    Kernel add_;
};

} // namespace partcl
