#pragma once
// Scheduler: the weights by which a launch's range is cut between the devices of a context (the
// policy behind a Partition). Weights start from compute units x clock, or are given, and then
// follow the devices' measured throughput (items per second of kernel time, from profiling
// events), smoothed so one noisy launch does not swing the split. It holds no device state, so
// a weight policy can be tested without devices; MultiDeviceLaunch runs launches with it.
#include <cstddef>
#include <vector>

#include <partcl/runtime/device.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

class Scheduler {
public:
    // `smoothing` in (0, 1]: the share of a new measurement in the weights (1: only the latest).
    explicit Scheduler(std::vector<double> weights, double smoothing = 0.5);
    // Weights from compute units x clock.
    static Scheduler for_devices(const std::vector<Device>& devices, double smoothing = 0.5);

    std::size_t size() const noexcept { return weights_.size(); }
    // Normalised to sum 1.
    const std::vector<double>& weights() const noexcept { return weights_; }

    // [0, n) by the current weights, cut on multiples of `granule` (Partition::by_weight).
    Partition split(std::size_t n, std::size_t granule = 1) const;

    // Feeds back how long each device took for its part of `partition`. Devices with an empty
    // part or no time keep their weight.
    void record(const Partition& partition, const std::vector<double>& seconds);

private:
    std::vector<double> weights_;
    double smoothing_;
};

} // namespace partcl
