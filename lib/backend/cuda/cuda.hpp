#pragma once
// What the CUDA backend's files give each other: the entry points its BackendImpl
// (backend.cpp) is made of, and the stream and device addresses behind partcl's queues and
// buffers for the CUB and cuFFT calls.
#include "backend/cuda/check.hpp"
#include "backend/interface.hpp"

namespace partcl::detail::cuda {

// Empty when there is no driver or no device (not an error: no NVIDIA GPU here).
std::vector<Device> enumerate_devices(std::size_t first_index, std::size_t platform_index);
std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices);  // context.cpp
BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                   ProgramCache& cache);                                    // kernel.cpp
std::unique_ptr<FftPlan> fft_with_cufft(Context& context, std::size_t device,
                                        Precision precision,
                                        const std::array<std::size_t, 3>& shape);  // fft.cpp

void* stream(QueueImpl& queue);           // cudaStream_t
void* pointer(const MemoryImpl& memory);  // device address
int ordinal(QueueImpl& queue);

// The queue's stream, its device made current.
inline cudaStream_t stream_of(Queue& queue) {
    use_device(ordinal(queue.impl()));
    return static_cast<cudaStream_t>(stream(queue.impl()));
}

template <class T>
T* device_address(const MemoryImpl& memory) {
    return static_cast<T*>(pointer(memory));
}

} // namespace partcl::detail::cuda
