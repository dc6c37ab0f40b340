#include <partcl/backend/error.hpp>
#include <partcl/sched/multi_device_launch.hpp>

#include <string>

namespace partcl {

MultiDeviceLaunch::MultiDeviceLaunch(Context& context)
    : MultiDeviceLaunch(context, Scheduler::for_devices(context.devices())) {}

MultiDeviceLaunch::MultiDeviceLaunch(Context& context, Scheduler scheduler)
    : context_(&context), scheduler_(std::move(scheduler)) {
    if (scheduler_.size() != context.size())
        throw UsageError("MultiDeviceLaunch: a scheduler of " + std::to_string(scheduler_.size()) +
                         " weights for a context of " + std::to_string(context.size()) +
                         " devices");
}

void MultiDeviceLaunch::share_inputs() const { context_->finish(); }

void MultiDeviceLaunch::check(const Partition& partition) const {
    if (partition.parts() != context_->size())
        throw UsageError("MultiDeviceLaunch::run: a partition of " +
                         std::to_string(partition.parts()) + " parts for a context of " +
                         std::to_string(context_->size()) + " devices");
}

} // namespace partcl
