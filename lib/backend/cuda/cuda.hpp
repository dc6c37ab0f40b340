#pragma once
// What the CUDA backend's files give each other: the CUDA runtime's objects behind the
// backend-neutral interfaces, and the entry points its BackendImpl (backend.cpp) is made of.
// Each file does the job it is named for, as in backend/opencl/.
#include <cuda_runtime_api.h>

#include <functional>
#include <map>

#include <partcl/backend/cuda/compiler.hpp>
#include <partcl/backend/error.hpp>

#include "backend/cuda/error.hpp"
#include "backend/interface.hpp"

namespace partcl::detail::cuda {

// device.cpp: every CUDA device; empty when there is no driver or no device (not an error).
std::vector<BackendDevice> enumerate_devices(std::size_t first_index, std::size_t platform_index);

// context.cpp: a context of CUDA devices, with one stream per device.
std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices);
cudaStream_t stream(QueueImpl& queue);
int ordinal(QueueImpl& queue);

// The queue's stream, its device made current.
inline cudaStream_t stream_of(QueueImpl& queue) {
    use_device(ordinal(queue));
    return stream(queue);
}

// event.cpp: runs `command` on `stream` between the records of a timing event.
std::shared_ptr<EventImpl> timed(int ordinal, cudaStream_t stream,
                                 const std::function<void()>& command);
// Makes `stream` wait for the end of `event`, one of timed's, without the host waiting.
void wait_on(cudaStream_t stream, EventImpl& event);

// memory.cpp: device memory, refused by name above a device's largest allocation. With `home`,
// on that entry's device; without, memory every device of the context uses: on the first
// device where the others reach it directly (peer access, which enable_peer_access turned on),
// else managed memory.
std::shared_ptr<MemoryImpl> allocate(const std::vector<BackendDevice>& devices,
                                     std::optional<std::size_t> home, std::size_t bytes);
// Lets every device of `devices` use every other's memory where the hardware allows it; true
// when every pair of distinct devices can.
bool enable_peer_access(const std::vector<BackendDevice>& devices);
void* pointer(const MemoryImpl& memory);  // device address

template <class T>
T* device_address(const MemoryImpl& memory) {
    return static_cast<T*>(pointer(memory));
}

// kernel.cpp: a program of one loaded library per architecture, and its kernels.
std::shared_ptr<ProgramImpl> make_program(std::map<std::string, cudaLibrary_t> libraries,
                                          std::vector<std::string> device_arch,
                                          std::vector<std::string> names);

// compiler.cpp: PTX from NVRTC through the program cache (partcl::cuda::compile over
// partcl's Source and ProgramCache is lib/jit/cuda_compiler.cpp), loaded for each device.
partcl::cuda::Ptx compile(const ProgramSource& source, const BuildOptions& options,
                          const std::string& arch, const BinaryCache& cache);
BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                   const ProgramSource& source, const BuildOptions& options,
                   const BinaryCache& cache);

// algorithms.cpp: the device algorithms with CUB (algorithms.cu) and cuFFT.
void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                 const MemoryImpl& values, std::size_t n, unsigned key_bits);
void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out, std::size_t n);
double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision, std::size_t n,
              Reduction op);
std::unique_ptr<FftPlan> fft_plan(const BackendDevice& device, Precision precision,
                                  const std::array<std::size_t, 3>& shape,
                                  const std::array<bool, 3>& axes);

} // namespace partcl::detail::cuda
