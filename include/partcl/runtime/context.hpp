#pragma once
// Context: the chosen devices of one platform, one OpenCL context over them and one in-order
// profiling queue per device. OpenCL cannot put devices of two platforms in one context, so a
// selection that spans platforms becomes one Context per platform (make_contexts).
#include <string>
#include <vector>

#include <partcl/runtime/device.hpp>
#include <partcl/runtime/filter.hpp>

namespace partcl {

// The in-order, profiling command queue of one device. Code names it `Queue` so it does not
// depend on how a backend spells it.
using Queue = cl::CommandQueue;

class Context {
public:
    // All devices must belong to one platform (UsageError otherwise) and there must be at least
    // one.
    explicit Context(std::vector<Device> devices);

    // The first platform's devices among those `filter` selects; the usual way to start.
    static Context from_filter(const DeviceFilter& filter = DeviceFilter::from_environment());

    std::size_t size() const noexcept { return devices_.size(); }
    const std::vector<Device>& devices() const noexcept { return devices_; }
    const Device& device(std::size_t i) const { return devices_.at(i); }
    const cl::Context& cl_context() const noexcept { return context_; }
    cl::CommandQueue& queue(std::size_t i) { return queues_.at(i); }
    const cl::CommandQueue& queue(std::size_t i) const { return queues_.at(i); }

    // Blocks until every queue is empty.
    void finish() const;

private:
    std::vector<Device> devices_;
    cl::Context context_;
    std::vector<cl::CommandQueue> queues_;
};

// One Context per platform present in `devices`, in enumeration order.
std::vector<Context> make_contexts(const std::vector<Device>& devices);

} // namespace partcl
