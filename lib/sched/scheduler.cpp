#include <partcl/backend/error.hpp>
#include <partcl/sched/scheduler.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace partcl {

namespace {
void normalise(std::vector<double>& weights) {
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    for (double& w : weights) w /= total;
}
} // namespace

Scheduler::Scheduler(std::vector<double> weights, double smoothing)
    : weights_(std::move(weights)), smoothing_(smoothing) {
    if (weights_.empty()) throw UsageError("a Scheduler needs at least one device");
    for (double w : weights_)
        if (!(w > 0) || !std::isfinite(w))
            throw UsageError("scheduler weights must be positive and finite");
    if (!(smoothing_ > 0 && smoothing_ <= 1))
        throw UsageError("scheduler smoothing must lie in (0, 1]");
    normalise(weights_);
}

Scheduler Scheduler::for_devices(const std::vector<Device>& devices, double smoothing) {
    std::vector<double> weights;
    for (const auto& d : devices)
        weights.push_back(std::max(1.0, double(d.info().compute_units)) *
                          std::max(1.0, double(d.info().clock_mhz)));
    return Scheduler(std::move(weights), smoothing);
}

Partition Scheduler::split(std::size_t n, std::size_t granule) const {
    return Partition::by_weight(n, weights_, granule);
}

void Scheduler::record(const Partition& partition, const std::vector<double>& seconds) {
    if (partition.parts() != weights_.size() || seconds.size() != weights_.size())
        throw UsageError("Scheduler::record: one part and one time per device (" +
                         std::to_string(weights_.size()) + " devices, " +
                         std::to_string(partition.parts()) + " parts, " +
                         std::to_string(seconds.size()) + " times)");
    // Throughput of the measured devices, rescaled so they keep their current total share:
    // an unmeasured device (empty slice) is neither rewarded nor punished.
    double measured_share = 0, throughput_total = 0;
    std::vector<double> throughput(weights_.size(), 0.0);
    for (std::size_t d = 0; d < weights_.size(); ++d) {
        const Range part = partition[d];
        if (part.empty() || !(seconds[d] > 0)) continue;
        throughput[d] = double(part.size()) / seconds[d];
        throughput_total += throughput[d];
        measured_share += weights_[d];
    }
    if (throughput_total <= 0) return;
    for (std::size_t d = 0; d < weights_.size(); ++d) {
        if (throughput[d] <= 0) continue;
        const double target = measured_share * throughput[d] / throughput_total;
        weights_[d] = (1 - smoothing_) * weights_[d] + smoothing_ * target;
    }
    // A floor keeps every device in the split, so a device that was slow once is measured
    // again and can win its share back.
    const double floor = 1e-3 / double(weights_.size());
    for (double& w : weights_) w = std::max(w, floor);
    normalise(weights_);
}

} // namespace partcl
