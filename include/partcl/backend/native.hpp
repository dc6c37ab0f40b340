#pragma once
// The backend's own objects behind partcl's handles, as opaque pointers, for the interop headers
// of each backend (partcl/backend/opencl/interop.hpp, cuda/interop.hpp), which give them their
// types. Declared here, over the handle classes of the layers above, so that no OpenCL or CUDA
// type reaches a backend-neutral header; defined by the layer of each handle.
#include <partcl/backend/backend.hpp>

namespace partcl {

class Context;
class Device;
class Memory;
class Program;
class Queue;

namespace detail {

// UsageError naming `what` when the handle belongs to another backend than `backend`.
// OpenCL: cl_device_id; CUDA: none (the device's ordinal is Device::ordinal()).
void* native_device(const Device& device, Backend backend, const char* what);
void* native_platform(const Device& device, Backend backend, const char* what);  // cl_platform_id
void* native_context(const Context& context, Backend backend, const char* what);  // cl_context
void* native_queue(const Queue& queue, Backend backend, const char* what);  // cl_command_queue, cudaStream_t
// cl_mem or a device address; null for empty memory.
void* native_memory(const Memory& memory, Backend backend, const char* what);
void* native_program(const Program& program, Backend backend, const char* what);  // cl_program

} // namespace detail

} // namespace partcl
