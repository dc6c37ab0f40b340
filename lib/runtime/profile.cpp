#include <partcl/runtime/profile.hpp>

#include <partcl/backend/error.hpp>
#include <partcl/runtime/marker.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace partcl {

namespace {

// A command, or a library call between two markers (`begin` valid).
struct Pending {
    std::string name;
    std::size_t device;
    Event begin, end;
};

struct Recorder {
    std::mutex mutex;
    std::vector<Pending> pending;
    std::map<std::pair<std::string, std::size_t>, std::pair<std::size_t, double>> sums;

    // Reads the first `count` pending events into the sums (the caller holds the mutex).
    void fold(std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            const Pending& p = pending[i];
            // The markers' time apart is the library call's.
            auto& sum = sums[{p.name, p.device}];
            sum.first += 1;
            sum.second += p.begin.valid() ? p.end.seconds_since(p.begin) : p.end.seconds();
        }
        pending.erase(pending.begin(), pending.begin() + std::ptrdiff_t(count));
    }

    void add(Pending p) {
        std::lock_guard<std::mutex> lock(mutex);
        // Commands this old have long finished: reading them does not stall the queue.
        constexpr std::size_t most = 4096;
        if (pending.size() >= most) fold(most / 2);
        pending.push_back(std::move(p));
    }
};

std::atomic<Recorder*> active{nullptr};

} // namespace

Profile::Profile() {
    Recorder* none = nullptr;
    auto recorder = std::make_unique<Recorder>();
    if (!active.compare_exchange_strong(none, recorder.get()))
        throw UsageError("a Profile records already: one at a time in a process");
    recorder.release();  // owned through `active` until the destructor
}

Profile::~Profile() { std::unique_ptr<Recorder>(active.exchange(nullptr)); }

bool Profile::recording() noexcept { return active.load(std::memory_order_relaxed) != nullptr; }

std::vector<Profile::Entry> Profile::entries() {
    Recorder& r = *active.load();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.fold(r.pending.size());
    std::vector<Entry> list;
    for (const auto& [key, sum] : r.sums) list.push_back({key.first, key.second, sum.first, sum.second});
    std::stable_sort(list.begin(), list.end(),
                     [](const Entry& a, const Entry& b) { return a.seconds > b.seconds; });
    return list;
}

void Profile::clear() {
    Recorder& r = *active.load();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.fold(r.pending.size());  // waits, so that nothing enqueued before is counted after
    r.sums.clear();
}

namespace detail {

void profile_command(const char* name, const Queue& queue, const Event& event) {
    Recorder* r = active.load(std::memory_order_relaxed);
    if (r && event.valid()) r->add({name, queue.device(), Event(), event});
}

} // namespace detail

void profiled(Queue& queue, const char* name, const std::function<void()>& call) {
    Recorder* r = active.load(std::memory_order_relaxed);
    if (!r) return call();
    const Event begin = mark(queue).event();
    call();
    r->add({name, queue.device(), begin, mark(queue).event()});
}

} // namespace partcl
