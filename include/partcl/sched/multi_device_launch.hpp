#pragma once
// MultiDeviceLaunch: one launch over [0, n) spread on every device of a Context. It owns the
// Scheduler whose weights cut the range (split), orders every device's queue after the inputs,
// calls the caller's launch once per device with that device's range, orders device 0's queue
// after every launch, and re-weights the scheduler from the kernels' profiled times once they
// are done (run). The host waits for none of it: queues wait for each other's markers. Outputs are PartitionedOutput objects
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
//     out.read(context.queue(0));                            // the whole output
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
#include <partcl/runtime/marker.hpp>
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
    // Per device of the context, since construction (waits for the launches whose times are
    // not counted yet, and then includes them).
    const std::vector<DeviceWork>& work() const {
        settle();
        return work_;
    }

    Context& context() const noexcept { return *context_; }
    // Re-weighted from every run so far (waits for the kernels of runs not recorded yet).
    Scheduler& scheduler() {
        settle();
        return scheduler_;
    }
    const Scheduler& scheduler() const {
        settle();
        return scheduler_;
    }

    // [0, n) by the scheduler's weights, on multiples of `work_group`: the group size of every
    // device's launch, or a multiple of each (a launch in groups of `work_group` then runs
    // whole groups inside its own range, and only the last device's groups pass n, where the
    // kernel's bound check on n stops them; Kernel::launch refuses a launch begun off its group
    // size, so one in other groups fails instead of overlapping).
    // A launch that device 0 would finish alone within min_split_seconds() (by its measured
    // speed, items per second of kernel time in earlier runs) stays on device 0.
    Partition split(std::size_t n, std::size_t work_group) const;

    // Ordering the queues for a split costs time of its own (microseconds per marker on a CPU
    // device): a launch shorter than a few of those gains nothing from being cut. 0 (the
    // default): every launch is split by the weights.
    void set_min_split_seconds(double seconds) { min_split_seconds_ = seconds; }
    double min_split_seconds() const noexcept { return min_split_seconds_; }

    // Orders every queue of the context after the commands given so far on every other queue,
    // without the host waiting (partcl/runtime/marker.hpp): inputs written on any device's queue
    // are complete before commands enqueued afterwards on another device's queue read them (a
    // buffer of one context is readable by all its devices), and buffers another device still
    // reads are not overwritten under it. run() does this first for the queues it launches on;
    // call it alone before work on several queues that is not a run() (nothing to do on one
    // device).
    void share_inputs();

    // One launch. On several devices: the queues with a non-empty range of `partition` wait for
    // every other queue (share_inputs, by markers, not the host), launch(d, range) is called for
    // each of them in device order, and device 0's queue then waits for everything those calls
    // enqueued on the other queues, so that commands enqueued later on device 0's queue see the
    // whole output (PartitionedOutput::gather copies there). `launch` enqueues on
    // context().queue(d) and returns the event of the kernel whose time measures the device. The
    // host waits for nothing: the kernels' times are read after a later run's launches are
    // enqueued, when they are long done, or when work() or scheduler() is asked, and re-weight
    // the scheduler then (a split made before that uses the weights as they were). Commands
    // enqueued later on a queue other than device 0's see the other devices' output only after
    // the next run() or share_inputs(). On one device nothing is waited for (the queue is in
    // order, so later commands on it see the results), and the kernel's time joins work()
    // later: waiting would stall the queue at every launch.
    template <class Launch>
    void run(const Partition& partition, Launch&& launch) {
        check(partition);
        if (partition.parts() == 1) {
            if (partition[0].empty()) return;
            defer(launch(0, partition[0]));
            account(partition, {0.0});
            return;
        }
        fork(&partition);
        std::vector<Event> events(partition.parts());
        for (std::size_t d = 0; d < partition.parts(); ++d)
            if (!partition[d].empty()) events[d] = launch(d, partition[d]);
        join(partition);
        defer(partition, std::move(events));
    }

private:
    // A partition of one part per device of the context (UsageError otherwise).
    void check(const Partition& partition) const;
    void account(const Partition& partition, const std::vector<double>& seconds);
    // One-device launches whose times are not in work_ yet: kept until work() asks, or until
    // so many are kept that the oldest, long done, is taken (a wait that does not stall).
    void defer(Event event);
    // A multi-device run whose kernels' times are not recorded yet: kept until a few later runs
    // have been enqueued, so that reading them does not wait, or until settle().
    void defer(const Partition& partition, std::vector<Event> events);
    // Records every deferred time (in work_, and runs' in the scheduler): waits for them.
    void settle() const;
    // The queues with a part of `partition` (every queue where null) wait for every other
    // queue; join: device 0's waits for those with a part.
    void fork(const Partition* partition);
    void join(const Partition& partition);

    struct UnsettledRun {
        Partition partition;
        std::vector<Event> events;
    };
    void record(const UnsettledRun& run) const;

    Context* context_;
    // Mutable: a deferred run's times re-weight it when a const accessor settles them.
    mutable Scheduler scheduler_;
    std::string name_;
    mutable std::vector<DeviceWork> work_;
    mutable std::deque<Event> unsettled_;
    mutable std::deque<UnsettledRun> unsettled_runs_;
    double min_split_seconds_ = 0;
    // Device 0's items and kernel seconds of the runs whose times are known: its speed.
    mutable double timed_items_ = 0, timed_seconds_ = 0;
};

// The multi-device launches a model makes, in the order it makes them: what the run's report of
// the split (devices.csv) reads.
using LaunchList = std::vector<const MultiDeviceLaunch*>;

} // namespace partcl
