#pragma once
// What the OpenCL backend's files give each other: the Khronos C++ objects behind the
// backend-neutral interfaces, and the entry points its BackendImpl (backend.cpp) is made of.
// Each file does the job it is named for, as in backend/cuda/.
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <partcl/backend/opencl/cl.hpp>
#include <partcl/backend/opencl/error.hpp>

#include "backend/interface.hpp"

namespace partcl::detail::opencl {

using partcl::opencl::check;
using partcl::opencl::error;

// device.cpp: every device of every platform the ICD loader knows.
std::vector<BackendDevice> enumerate_devices();
cl::Device cl_device(const BackendDevice& device);

// PoCL before 7.0 counts the commands that run each compiled kernel in one list shared by all
// its devices and takes a finished command off the first entry of the kernel it finds, which
// need not be the one the command used: with the same kernel running on three queues at once
// it aborts (pocl_release_dlhandle_cache: `found->ref_count > 0'; fixed upstream by pocl
// c9ac4c0c3, "fix dlhandle cache"). The queues of a context on such a driver share one
// LaunchTurns: a launch of a kernel waits for that kernel's last launch on another queue, so
// one command of each kernel runs at a time; different kernels still overlap.
class LaunchTurns {
public:
    // Whether a context of `devices` needs turns: several queues on PoCL before 7.
    static bool needed(const std::vector<BackendDevice>& devices);

    // Enqueues through `enqueue(wait)`, where `wait` (null or a list) is what the launch of
    // `kernel` on `queue` must wait for, and remembers the event it returns as that kernel's
    // last launch. Concurrent callers take turns, so no two launches wait for the same event.
    template <class Enqueue>
    cl::Event take(const std::string& kernel, const cl::CommandQueue& queue, Enqueue&& enqueue) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<cl::Event> wait;
        const auto last = last_.find(kernel);
        if (last != last_.end() && last->second.first != queue()) wait.push_back(last->second.second);
        cl::Event event = enqueue(wait.empty() ? nullptr : &wait);
        last_[kernel] = {queue(), event};
        return event;
    }

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::pair<cl_command_queue, cl::Event>> last_;
};

// pinned_staging.cpp: copies between the memories of two devices of a context, where the runtime
// keeps them separate, through host memory the driver pins (NVIDIA's OpenCL has no peer
// copies): read in pieces on the sending device's queue, written from there on the receiving
// one's, a ring of slots reused once the write that emptied each has run.
class PinnedStaging {
public:
    PinnedStaging(cl::Context context, std::vector<cl::CommandQueue> queues);
    ~PinnedStaging();  // once the queues are idle
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;

    // Rows of `from` (memory of device `from_home`) into `to` (of `to_home`), ordered as a copy
    // enqueued on queue `queue` would be: after that queue's commands so far, and before its
    // next ones. The event of the last piece.
    cl::Event copy(std::size_t queue, const cl::Buffer& from, std::size_t from_home,
                   const cl::Buffer& to, std::size_t to_home, const RowsCopy& rows);

private:
    struct Slot {
        cl::Buffer buffer;
        void* host = nullptr;
        std::size_t bytes = 0;
        cl::Event emptied;  // the write that last read this slot
    };
    // The ring's next slot, at least `bytes` large.
    Slot& slot_for(std::size_t bytes);
    static bool idle(const Slot& slot);

    std::mutex mutex_;
    cl::Context context_;
    std::vector<cl::CommandQueue> queues_;
    std::vector<Slot> slots_;  // made as copies need them
    std::size_t next_ = 0;
};

// context.cpp: a context of devices of one platform, with one profiling queue per device.
// Where `separate_memories`, copies between memories of different devices go through
// PinnedStaging.
std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices,
                                          bool separate_memories);
const cl::Context& cl_context(const ContextImpl& context);
cl::CommandQueue& cl_queue(QueueImpl& queue);
LaunchTurns* launch_turns(QueueImpl& queue);  // null where the driver needs none

// event.cpp
std::shared_ptr<EventImpl> make_event(cl::Event event);
cl_event cl_event_of(EventImpl& event);  // the cl_event behind one of make_event's

// memory.cpp: a buffer of `bytes` in `context`, refused by name above a device's largest; the
// device it is for (ContextImpl::allocate's home), which its regions keep.
std::shared_ptr<MemoryImpl> allocate(const cl::Context& context,
                                     const std::vector<BackendDevice>& devices, std::size_t bytes,
                                     std::optional<std::size_t> home);
const cl::Buffer& cl_buffer(const MemoryImpl& memory);
std::optional<std::size_t> home_of(const MemoryImpl& memory);
// How many of a copy's leading rows one rectangle command may take from `from` into `to`:
// NVIDIA's OpenCL refuses one (CL_INVALID_VALUE) where rows times pitch passes a buffer's end,
// though its last row ends inside; the rows after go as plain copies.
std::size_t rectangle_rows(const cl::Buffer& from, const cl::Buffer& to, const RowsCopy& rows);

// kernel.cpp: programs and their kernels.
std::shared_ptr<ProgramImpl> make_program(cl::Program program);
const cl::Program& cl_program(const ProgramImpl& program);

// compiler.cpp: the driver's compiler, with binaries kept in the program cache per device.
BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                   const ProgramSource& source, const BuildOptions& options,
                   const BinaryCache& cache);

// algorithms.cpp: the device algorithms with Boost.Compute (sort, scan, reduce) and VkFFT.
void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                 const MemoryImpl& values, std::size_t n);
void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out, std::size_t n);
double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision, std::size_t n,
              Reduction op);
std::unique_ptr<FftPlan> fft_plan(ContextImpl& context, const BackendDevice& device,
                                  std::size_t index, Precision precision,
                                  const std::array<std::size_t, 3>& shape,
                                  const std::array<bool, 3>& axes);

} // namespace partcl::detail::opencl
