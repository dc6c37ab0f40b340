#pragma once
// What every partcl benchmark program needs: comma-separated option lists and median timings.
#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace partcl_bench {

// "a,b,c" -> {"a", "b", "c"}
inline std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) parts.push_back(part);
    return parts;
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median wall time of `repeat` runs, after a pause (in which another side's idle threads stop
// spinning) and one untimed run.
template <class F>
double median_seconds(int repeat, F&& run) {
    using Clock = std::chrono::steady_clock;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    run();
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
        const auto start = Clock::now();
        run();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return median(times);
}

} // namespace partcl_bench
