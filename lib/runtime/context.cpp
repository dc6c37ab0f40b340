#include <partcl/runtime/context.hpp>
#include <partcl/backend/error.hpp>

#include "backend/interface.hpp"

namespace partcl {

namespace {

bool same_device(const Device& a, const Device& b) {
    return a.backend_device().device == b.backend_device().device &&
           a.backend_device().ordinal == b.backend_device().ordinal;
}

// MemoryModel::automatic's choice.
MemoryModel memory_of(const std::vector<Device>& devices) {
    bool cpus = true, one = true;
    for (const auto& d : devices) {
        cpus = cpus && d.info().type == DeviceType::cpu;
        one = one && same_device(d, devices.front());
    }
    return cpus || one ? MemoryModel::shared : MemoryModel::separate;
}

} // namespace

Context::Context(std::vector<Device> devices, MemoryModel memory) : devices_(std::move(devices)) {
    if (devices_.empty()) throw UsageError("a Context needs at least one device");
    memory_ = memory == MemoryModel::automatic ? memory_of(devices_) : memory;
    for (const auto& d : devices_) {
        if (d.info().platform_index != devices_.front().info().platform_index ||
            d.backend() != devices_.front().backend())
            throw UsageError("one Context cannot span platforms ('" + devices_.front().info().platform +
                             "' and '" + d.info().platform +
                             "'): OpenCL contexts are per platform; use make_contexts()");
    }
    std::vector<detail::BackendDevice> handles;
    for (const auto& d : devices_) handles.push_back(d.backend_device());
    impl_ = detail::backend(backend()).make_context(handles, memory_ == MemoryModel::separate);
    for (std::size_t d = 0; d < devices_.size(); ++d)
        queues_.emplace_back(impl_->queue(d), backend(), d);
}

std::vector<Device> Context::devices_for(const DeviceFilter& filter) {
    auto chosen = filter.select();
    std::vector<Device> first_platform;
    for (auto& d : chosen)
        if (d.info().platform_index == chosen.front().info().platform_index)
            first_platform.push_back(d);
    return first_platform;
}

Context Context::from_filter(const DeviceFilter& filter) { return Context(devices_for(filter)); }

void Context::finish() const {
    for (const auto& q : queues_) q.impl().finish();
}

void Queue::finish() { impl_->finish(); }

std::vector<Context> make_contexts(const std::vector<Device>& devices) {
    std::vector<Context> contexts;
    std::vector<bool> used(devices.size(), false);
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (used[i]) continue;
        std::vector<Device> group;
        for (std::size_t j = i; j < devices.size(); ++j) {
            if (devices[j].info().platform_index == devices[i].info().platform_index) {
                group.push_back(devices[j]);
                used[j] = true;
            }
        }
        contexts.emplace_back(std::move(group));
    }
    return contexts;
}

} // namespace partcl
