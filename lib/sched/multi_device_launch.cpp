#include <partcl/backend/error.hpp>
#include <partcl/sched/multi_device_launch.hpp>

#include <partcl/runtime/marker.hpp>

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

Partition MultiDeviceLaunch::split(std::size_t n, std::size_t work_group) const {
    if (min_split_seconds_ > 0 && context_->size() > 1 && timed_seconds_ > 0 &&
        double(n) * timed_seconds_ / timed_items_ < min_split_seconds_)
        return Partition::on_one_device(n, context_->size());
    return scheduler_.split(n, work_group);
}

void MultiDeviceLaunch::share_inputs() {
    if (context_->size() > 1) fork(nullptr);
}

void MultiDeviceLaunch::fork(const Partition* partition) {
    std::vector<Marker> marks;
    for (std::size_t d = 0; d < context_->size(); ++d) marks.push_back(mark(context_->queue(d)));
    for (std::size_t d = 0; d < context_->size(); ++d) {
        if (partition && (*partition)[d].empty()) continue;
        for (std::size_t other = 0; other < context_->size(); ++other)
            if (other != d) wait_for(context_->queue(d), marks[other]);
    }
}

void MultiDeviceLaunch::join(const Partition& partition) {
    for (std::size_t d = 1; d < context_->size(); ++d)
        if (!partition[d].empty()) wait_for(context_->queue(0), mark(context_->queue(d)));
}

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

void MultiDeviceLaunch::defer(const Partition& partition, std::vector<Event> events) {
    // Runs this far back have had later runs enqueued behind them on every queue they used.
    constexpr std::size_t kept = 4;
    account(partition, std::vector<double>(partition.parts(), 0.0));
    unsettled_runs_.push_back({partition, std::move(events)});
    if (unsettled_runs_.size() <= kept) return;
    record(unsettled_runs_.front());
    unsettled_runs_.pop_front();
}

void MultiDeviceLaunch::record(const UnsettledRun& run) const {
    std::vector<double> seconds(run.partition.parts(), 0.0);
    for (std::size_t d = 0; d < run.partition.parts(); ++d) {
        seconds[d] = run.events[d].seconds();  // 0 for a device without a part
        work_[d].seconds += seconds[d];
    }
    if (!run.partition[0].empty() && seconds[0] > 0) {
        timed_items_ += double(run.partition[0].size());
        timed_seconds_ += seconds[0];
    }
    scheduler_.record(run.partition, seconds);
}

void MultiDeviceLaunch::settle() const {
    for (const Event& event : unsettled_) work_[0].seconds += event.seconds();
    unsettled_.clear();
    for (const UnsettledRun& run : unsettled_runs_) record(run);
    unsettled_runs_.clear();
}

void MultiDeviceLaunch::check(const Partition& partition) const {
    if (partition.parts() != context_->size())
        throw UsageError("MultiDeviceLaunch::run: a partition of " +
                         std::to_string(partition.parts()) + " parts for a context of " +
                         std::to_string(context_->size()) + " devices");
}

} // namespace partcl
