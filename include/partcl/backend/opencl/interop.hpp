#pragma once
// OpenCL interop: the Khronos C++ objects behind partcl's handles, for code that calls OpenCL,
// or a library on it (Boost.Compute, clFFT), on partcl's devices, queues and buffers:
//
//   cl::CommandQueue queue = partcl::opencl::native(context.queue(0));
//   cl::Buffer positions = partcl::opencl::native(buffer);
//
// Each returns a new reference to the object (retained), valid while the caller keeps it.
// UsageError for a handle of another backend.
#include <utility>

#include <partcl/backend/native.hpp>
#include <partcl/backend/opencl/cl.hpp>

namespace partcl::opencl {

inline cl::Device native(const Device& device) {
    return cl::Device(static_cast<cl_device_id>(
                          detail::native_device(device, Backend::opencl, "opencl::native(device)")),
                      true);
}
inline cl::Platform platform(const Device& device) {
    return cl::Platform(static_cast<cl_platform_id>(detail::native_platform(
                            device, Backend::opencl, "opencl::platform(device)")),
                        true);
}
inline cl::Context native(const Context& context) {
    return cl::Context(static_cast<cl_context>(detail::native_context(
                           context, Backend::opencl, "opencl::native(context)")),
                       true);
}
inline cl::CommandQueue native(const Queue& queue) {
    return cl::CommandQueue(static_cast<cl_command_queue>(
                                detail::native_queue(queue, Backend::opencl, "opencl::native(queue)")),
                            true);
}
// A null handle for empty memory.
inline cl::Buffer native(const Memory& memory) {
    void* buffer = detail::native_memory(memory, Backend::opencl, "opencl::native(memory)");
    return buffer ? cl::Buffer(static_cast<cl_mem>(buffer), true) : cl::Buffer();
}
// Buffer<T> and RealBuffer: their memory's.
template <class TypedBuffer, class = decltype(std::declval<const TypedBuffer&>().memory())>
cl::Buffer native(const TypedBuffer& buffer) {
    return native(buffer.memory());
}
inline cl::Program native(const Program& program) {
    return cl::Program(static_cast<cl_program>(detail::native_program(
                           program, Backend::opencl, "opencl::native(program)")),
                       true);
}

} // namespace partcl::opencl
