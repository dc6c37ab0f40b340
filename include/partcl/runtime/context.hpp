#pragma once
// Context: the chosen devices of one platform of one backend, and one in-order profiling queue
// per device. OpenCL cannot put devices of two platforms in one context, so a selection that
// spans platforms (or backends) becomes one Context per platform (make_contexts).
#include <memory>
#include <string>
#include <vector>

#include <partcl/runtime/device.hpp>
#include <partcl/runtime/filter.hpp>
#include <partcl/runtime/queue.hpp>

namespace partcl {

namespace detail {
class ContextImpl;
}

// Whether the devices of a context work in one memory, which decides how sched brings a
// launch's inputs to the devices and its outputs back (sched/mirror.hpp,
// sched/partitioned_output.hpp). shared: every device reads and writes the context's buffers
// at full speed (CPU devices in host memory, one device named several times), so nothing is
// copied. separate: each device works fastest in its own memory (two GPUs), so inputs are
// mirrored onto every device and each device writes its part of an output in its own memory.
// automatic: shared when every device is a CPU or the context holds one device, else separate.
enum class MemoryModel { automatic, shared, separate };

class Context {
public:
    // All devices must belong to one platform (UsageError otherwise) and there must be at least
    // one. A device may be named more than once: each entry gets its own queue, and sched
    // treats the entries as devices (two queues on one device overlap their work; the tests
    // split launches over Oclgrind's single device so). `memory` may force either model of
    // MemoryModel (results are the same bit for bit; the tests run both on CPU devices).
    explicit Context(std::vector<Device> devices, MemoryModel memory = MemoryModel::automatic);

    // The first platform's devices among those `filter` selects; the usual way to start.
    static Context from_filter(const DeviceFilter& filter = DeviceFilter::from_environment());
    // The devices from_filter() would take (Unsupported where none matches).
    static std::vector<Device> devices_for(const DeviceFilter& filter);

    Backend backend() const noexcept { return devices_.front().backend(); }
    std::size_t size() const noexcept { return devices_.size(); }
    const std::vector<Device>& devices() const noexcept { return devices_; }
    const Device& device(std::size_t i) const { return devices_.at(i); }
    Queue& queue(std::size_t i) { return queues_.at(i); }
    const Queue& queue(std::size_t i) const { return queues_.at(i); }
    // MemoryModel::shared or separate, as given or as automatic decided.
    MemoryModel memory_model() const noexcept { return memory_; }
    bool shares_memory() const noexcept { return memory_ == MemoryModel::shared; }

    // Blocks until every queue is empty.
    void finish() const;

    detail::ContextImpl& impl() const noexcept { return *impl_; }

private:
    std::vector<Device> devices_;
    MemoryModel memory_ = MemoryModel::shared;
    std::shared_ptr<detail::ContextImpl> impl_;
    std::vector<Queue> queues_;
};

// One Context per platform present in `devices`, in enumeration order.
std::vector<Context> make_contexts(const std::vector<Device>& devices);

} // namespace partcl
