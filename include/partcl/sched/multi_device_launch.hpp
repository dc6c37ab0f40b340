#pragma once
// MultiDeviceLaunch: one launch over [0, n) spread on every device of a Context. It owns the
// Scheduler whose weights cut the range (split), makes the inputs readable by every device,
// calls the caller's launch once per device with that device's range, waits, and re-weights
// the scheduler from the kernels' profiled times (run). Outputs are PartitionedOutput objects
// (partitioned_output.hpp) beside it:
//
//     MultiDeviceLaunch spread(context);
//     PartitionedOutput<RealBuffer> parts(context, 3);       // a SoA output of 3 components
//     const Partition p = spread.split(n, group);
//     parts.assign(p, out, {0, n});                          // out[c * n + i]
//     spread.run(p, [&](std::size_t d, Range r) {
//         const auto part = parts.part(d);                   // out itself on device 0
//         kernel[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(n), in,
//                        part.buffer, std::uint32_t(part.offset), std::uint32_t(part.stride));
//         return kernel[d].launch(context.queue(d), r.size(), group);
//     });
//     parts.gather();                                        // in device order, on queue 0
//
// The kernel writes item i's component c at buffer[offset + c * stride + (i - r.begin)]. It may
// take its range's start as an argument, as here, or be launched at offset r.begin
// (Kernel::launch's offset, which global_id(0) includes on every backend).
#include <cstddef>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/event.hpp>
#include <partcl/sched/partition.hpp>
#include <partcl/sched/scheduler.hpp>

namespace partcl {

// What one device has done in a MultiDeviceLaunch's runs, for the report of the split (a run's
// devices.csv): the runs it had a part in, their items and its kernels' profiled time.
struct DeviceWork {
    std::size_t launches = 0;
    double items = 0;
    double seconds = 0;
};

class MultiDeviceLaunch {
public:
    // Weights from compute units x clock (Scheduler::for_devices). `name` says what the launch
    // computes in reports ("tree walk", "mps pressure").
    explicit MultiDeviceLaunch(Context& context, std::string name = "launch");
    // One weight per device of the context (UsageError otherwise).
    MultiDeviceLaunch(Context& context, Scheduler scheduler, std::string name = "launch");

    const std::string& name() const noexcept { return name_; }
    // Per device of the context, since construction (waits for the last launch on a context of
    // one device, whose time it then includes).
    const std::vector<DeviceWork>& work() const {
        settle();
        return work_;
    }

    Context& context() const noexcept { return *context_; }
    Scheduler& scheduler() noexcept { return scheduler_; }
    const Scheduler& scheduler() const noexcept { return scheduler_; }

    // [0, n) by the scheduler's weights, on multiples of `work_group`: the group size of every
    // device's launch, or a multiple of each (a launch in groups of `work_group` then runs
    // whole groups inside its own range, and only the last device's groups pass n, where the
    // kernel's bound check on n stops them; Kernel::launch refuses a launch begun off its group
    // size, so one in other groups fails instead of overlapping).
    Partition split(std::size_t n, std::size_t work_group) const {
        return scheduler_.split(n, work_group);
    }

    // Waits for every queue of the context, so that inputs written on any device's queue are
    // complete before another device reads them (a buffer of one context is readable by all its
    // devices). run() does this first; call it alone before work that is not a run().
    void share_inputs() const;

    // One launch: share_inputs() when the context has several devices, then launch(d, range)
    // for each device with a non-empty range of `partition`, in device order, before any is
    // waited on; `launch` enqueues on context().queue(d) and returns the event of the kernel
    // whose time measures the device. On several devices, waits for those events and records
    // their times in the scheduler; work `launch` enqueues after that event (on the same queue)
    // may still run, and PartitionedOutput::gather waits for it. On one device nothing is
    // waited for (the queue is in order, so later commands on it see the results), and the
    // kernel's time joins work() later: waiting would stall the queue at every launch.
    template <class Launch>
    void run(const Partition& partition, Launch&& launch) {
        check(partition);
        if (partition.parts() == 1) {
            if (partition[0].empty()) return;
            defer(launch(0, partition[0]));
            account(partition, {0.0});
            return;
        }
        settle();
        share_inputs();
        std::vector<Event> events(partition.parts());
        for (std::size_t d = 0; d < partition.parts(); ++d)
            if (!partition[d].empty()) events[d] = launch(d, partition[d]);
        std::vector<double> seconds(partition.parts(), 0.0);
        for (std::size_t d = 0; d < partition.parts(); ++d)
            if (!partition[d].empty()) seconds[d] = events[d].seconds();
        account(partition, seconds);
        scheduler_.record(partition, seconds);
    }

private:
    // A partition of one part per device of the context (UsageError otherwise).
    void check(const Partition& partition) const;
    void account(const Partition& partition, const std::vector<double>& seconds);
    // One-device launches whose times are not in work_ yet: kept until work() asks, or until
    // so many are kept that the oldest, long done, is taken (a wait that does not stall).
    void defer(Event event);
    void settle() const;

    Context* context_;
    Scheduler scheduler_;
    std::string name_;
    mutable std::vector<DeviceWork> work_;
    mutable std::deque<Event> unsettled_;
};

// The multi-device launches a model makes, in the order it makes them: what the run's report of
// the split (devices.csv) reads.
using LaunchList = std::vector<const MultiDeviceLaunch*>;

} // namespace partcl
