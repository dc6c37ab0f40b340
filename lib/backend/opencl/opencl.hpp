#pragma once
// What the OpenCL backend's files give each other: the Khronos C++ objects behind the
// backend-neutral interfaces, and the entry points its BackendImpl (backend.cpp) is made of.
// Each file does the job it is named for, as in backend/cuda/.
#include <partcl/backend/opencl/cl.hpp>
#include <partcl/backend/opencl/error.hpp>

#include "backend/interface.hpp"

namespace partcl::detail::opencl {

using partcl::opencl::check;
using partcl::opencl::error;

// device.cpp: every device of every platform the ICD loader knows.
std::vector<BackendDevice> enumerate_devices();
cl::Device cl_device(const BackendDevice& device);

// context.cpp: a context of devices of one platform, with one profiling queue per device.
std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices);
const cl::Context& cl_context(const ContextImpl& context);
cl::CommandQueue& cl_queue(QueueImpl& queue);

// event.cpp
std::shared_ptr<EventImpl> make_event(cl::Event event);
cl_event cl_event_of(EventImpl& event);  // the cl_event behind one of make_event's

// memory.cpp: a buffer of `bytes` in `context`, refused by name above a device's largest.
std::shared_ptr<MemoryImpl> allocate(const cl::Context& context,
                                     const std::vector<BackendDevice>& devices, std::size_t bytes);
const cl::Buffer& cl_buffer(const MemoryImpl& memory);

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
                                  const std::array<std::size_t, 3>& shape);

} // namespace partcl::detail::opencl
