#pragma once
// Scheduler: cuts an index range [0, n) into one contiguous slice per device of a context, in
// proportion to per-device weights. Weights start from compute units x clock and then follow
// the devices' measured throughput (items per second of kernel time, from profiling events),
// smoothed so one noisy launch does not swing the split.
#include <cstddef>
#include <vector>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/event.hpp>

namespace partcl {

struct Range {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t size() const noexcept { return end - begin; }
    bool empty() const noexcept { return end <= begin; }
};

class Scheduler {
public:
    // `smoothing` in (0, 1]: the share of a new measurement in the weights (1: only the latest).
    explicit Scheduler(std::vector<double> weights, double smoothing = 0.5);
    // Weights from compute units x clock.
    static Scheduler for_devices(const std::vector<Device>& devices, double smoothing = 0.5);

    std::size_t size() const noexcept { return weights_.size(); }
    // Normalised to sum 1.
    const std::vector<double>& weights() const noexcept { return weights_; }

    // Contiguous slices covering [0, n) in device order; slice boundaries fall on multiples of
    // `granule` (except the final end, n), so work-groups are not split needlessly.
    std::vector<Range> split(std::size_t n, std::size_t granule = 1) const;

    // Feeds back how long each device took for its slice of the last split. Devices with an
    // empty slice or no time keep their weight.
    void record(const std::vector<Range>& slices, const std::vector<double>& seconds);

    // Splits [0, n) on multiples of `work_group`, calls launch(device, range) for each device
    // with a non-empty range, waits for all, and records their times. `launch` enqueues
    // range.size() items at range.begin in work-groups of `work_group` items (or of a divisor of
    // it; 0 or 1 when the driver chooses) and returns the kernel's event: a slice then ends
    // where the next begins, on a whole group, and only the last slice's rounded-up groups pass
    // n, where the kernel's bound check on n stops them. Kernel::launch refuses a slice begun
    // off its group size, so a launch with another group size fails instead of overlapping.
    template <class Launch>
    std::vector<Range> run(std::size_t n, std::size_t work_group, Launch&& launch) {
        const auto slices = split(n, work_group);
        std::vector<Event> events(slices.size());
        for (std::size_t d = 0; d < slices.size(); ++d)
            if (!slices[d].empty()) events[d] = launch(d, slices[d]);
        std::vector<double> seconds(slices.size(), 0.0);
        for (std::size_t d = 0; d < slices.size(); ++d) seconds[d] = events[d].seconds();
        if (slices.size() > 1) record(slices, seconds);
        return slices;
    }

private:
    std::vector<double> weights_;
    double smoothing_;
};

} // namespace partcl
