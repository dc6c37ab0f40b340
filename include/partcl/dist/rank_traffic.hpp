#pragma once
// RankTraffic: what a model's exchanges with other ranks have cost one rank so far, for
// benchmarks and reports: their wall time (device reads and writes around the messages
// included), the bytes it sent to other ranks, and the particles it sent away. TrafficTimer
// counts one exchange into it.
#include <chrono>
#include <cstddef>

#include <partcl/runtime/queue.hpp>

namespace partcl::dist {

struct RankTraffic {
    double seconds = 0;
    double bytes_sent = 0;
    std::size_t particles_sent = 0;
};

// Times from construction to destruction; the queue is finished first, so that the device's
// earlier work is not counted as the exchange's.
class TrafficTimer {
public:
    TrafficTimer(Queue& queue, RankTraffic& traffic) : traffic_(traffic) {
        queue.finish();
        start_ = std::chrono::steady_clock::now();
    }
    ~TrafficTimer() {
        traffic_.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    TrafficTimer(const TrafficTimer&) = delete;
    TrafficTimer& operator=(const TrafficTimer&) = delete;
    void sent(std::size_t bytes) { traffic_.bytes_sent += double(bytes); }

private:
    RankTraffic& traffic_;
    std::chrono::steady_clock::time_point start_;
};

} // namespace partcl::dist
