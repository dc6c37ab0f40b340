#include <partcl/runtime/context.hpp>
#include <partcl/runtime/error.hpp>

namespace partcl {

Context::Context(std::vector<Device> devices) : devices_(std::move(devices)) {
    if (devices_.empty()) throw UsageError("a Context needs at least one device");
    std::vector<cl::Device> handles;
    for (const auto& d : devices_) {
        if (d.info().platform_index != devices_.front().info().platform_index)
            throw UsageError("one Context cannot span platforms ('" + devices_.front().info().platform +
                             "' and '" + d.info().platform +
                             "'): OpenCL contexts are per platform; use make_contexts()");
        handles.push_back(d.cl_device());
    }
    cl_int status = CL_SUCCESS;
    cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM,
        reinterpret_cast<cl_context_properties>(devices_.front().cl_platform()()), 0};
    context_ = cl::Context(handles, properties, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    for (const auto& d : devices_) {
        queues_.emplace_back(context_, d.cl_device(), CL_QUEUE_PROFILING_ENABLE, &status);
        check(status, "clCreateCommandQueue");
    }
}

Context Context::from_filter(const DeviceFilter& filter) {
    auto chosen = filter.select();
    std::vector<Device> first_platform;
    for (auto& d : chosen)
        if (d.info().platform_index == chosen.front().info().platform_index)
            first_platform.push_back(d);
    return Context(std::move(first_platform));
}

void Context::finish() const {
    for (const auto& q : queues_) check(q.finish(), "clFinish");
}

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
