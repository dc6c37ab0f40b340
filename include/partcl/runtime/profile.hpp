#pragma once
// Profile: where the devices' time goes, command by command, on every backend. While a Profile
// records (from its construction to its destruction, one at a time in a process), every kernel
// partcl launches, every copy, write and fill it enqueues, and every call it makes into a
// backend's library (sorts, scans, reductions, transforms: CUB and cuFFT on CUDA, Boost.Compute
// and VkFFT on OpenCL) is kept with its name and its device's index in the Context; entries()
// then sums each name's count and device seconds per device. A library call is timed from a
// marker before it to a marker after it on its queue, so its entry holds every command it made.
//
// A library call's time runs from the end of the commands before it to the end of its own, so
// it holds what the library does on the host between them (its first call's program build).
// Blocking reads are host waits, not recorded. Recording costs each command a little host
// time (an event kept, and two markers around a library call); a command's event is held until
// entries() reads it or, past a few thousand, until the oldest are read to make room.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <partcl/runtime/event.hpp>
#include <partcl/runtime/queue.hpp>

namespace partcl {

class Profile {
public:
    // Starts recording; UsageError when another Profile records already.
    Profile();
    ~Profile();
    Profile(const Profile&) = delete;
    Profile& operator=(const Profile&) = delete;

    struct Entry {
        std::string name;         // the kernel's, "copy", "write", "fill", "sort_by_key (library)"...
        std::size_t device = 0;   // in its Context
        std::size_t count = 0;    // commands (calls, for a library)
        double seconds = 0;       // device time, summed
    };
    // Every name's entry on each device, the longest first; waits for the commands recorded so
    // far. Recording goes on.
    std::vector<Entry> entries();
    // Forgets what was recorded (a benchmark's warm-up).
    void clear();

    // True while a Profile records (what the recording hooks below check first).
    static bool recording() noexcept;
};

namespace detail {
// A command's event under `name`, kept while a Profile records.
void profile_command(const char* name, const Queue& queue, const Event& event);
} // namespace detail

// Runs `call` (a library's commands on `queue`) and, while a Profile records, times it as one
// entry `name` between markers enqueued before and after it.
void profiled(Queue& queue, const char* name, const std::function<void()>& call);

} // namespace partcl
