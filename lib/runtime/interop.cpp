// The backend objects behind the runtime's handles, for the interop headers of
// partcl/backend/{opencl,cuda}/ (partcl/backend/native.hpp).
#include <partcl/backend/native.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/runtime/memory.hpp>

#include "backend/interface.hpp"

namespace partcl::detail {

namespace {
void require(Backend owner, Backend backend, const char* what, const char* handle) {
    if (owner != backend)
        throw UsageError(std::string(what) + ": this " + handle + " belongs to the " +
                         to_string(owner) + " backend");
}
} // namespace

void* native_device(const Device& device, Backend backend, const char* what) {
    require(device.backend(), backend, what, "device");
    return device.backend_device().device;
}

void* native_platform(const Device& device, Backend backend, const char* what) {
    require(device.backend(), backend, what, "device");
    return device.backend_device().platform;
}

void* native_context(const Context& context, Backend backend, const char* what) {
    require(context.backend(), backend, what, "context");
    return context.impl().native();
}

void* native_queue(const Queue& queue, Backend backend, const char* what) {
    require(queue.backend(), backend, what, "queue");
    return queue.impl().native();
}

void* native_memory(const Memory& memory, Backend backend, const char* what) {
    // Empty memory holds nothing of any backend.
    if (!memory.impl()) return nullptr;
    require(memory.backend(), backend, what, "memory");
    return memory.impl()->native();
}

} // namespace partcl::detail
