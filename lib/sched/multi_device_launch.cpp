#include <partcl/backend/error.hpp>
#include <partcl/sched/multi_device_launch.hpp>

#include <string>

namespace partcl {

MultiDeviceLaunch::MultiDeviceLaunch(Context& context, std::string name)
    : MultiDeviceLaunch(context, Scheduler::for_devices(context.devices()), std::move(name)) {}

MultiDeviceLaunch::MultiDeviceLaunch(Context& context, Scheduler scheduler, std::string name)
    : context_(&context), scheduler_(std::move(scheduler)), name_(std::move(name)),
      work_(context.size()) {
    if (scheduler_.size() != context.size())
        throw UsageError("MultiDeviceLaunch: a scheduler of " + std::to_string(scheduler_.size()) +
                         " weights for a context of " + std::to_string(context.size()) +
                         " devices");
}

void MultiDeviceLaunch::share_inputs() const { context_->finish(); }

void MultiDeviceLaunch::account(const Partition& partition, const std::vector<double>& seconds) {
    for (std::size_t d = 0; d < partition.parts(); ++d) {
        if (partition[d].empty()) continue;
        ++work_[d].launches;
        work_[d].items += double(partition[d].size());
        work_[d].seconds += seconds[d];
    }
}

void MultiDeviceLaunch::defer(Event event) {
    constexpr std::size_t kept = 64;
    unsettled_.push_back(std::move(event));
    if (unsettled_.size() <= kept) return;
    work_[0].seconds += unsettled_.front().seconds();
    unsettled_.pop_front();
}

void MultiDeviceLaunch::settle() const {
    for (const Event& event : unsettled_) work_[0].seconds += event.seconds();
    unsettled_.clear();
}

void MultiDeviceLaunch::check(const Partition& partition) const {
    if (partition.parts() != context_->size())
        throw UsageError("MultiDeviceLaunch::run: a partition of " +
                         std::to_string(partition.parts()) + " parts for a context of " +
                         std::to_string(context_->size()) + " devices");
}

} // namespace partcl
