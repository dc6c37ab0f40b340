#pragma once
// What the OpenCL backend's files give each other: the entry points its BackendImpl
// (backend.cpp) is made of.
#include "backend/interface.hpp"

namespace partcl::detail::opencl {

std::vector<Device> enumerate_devices();                                   // device.cpp
std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices);  // context.cpp
BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                   ProgramCache& cache);                                    // compiler.cpp
std::unique_ptr<FftPlan> fft_with_vkfft(Context& context, std::size_t device,
                                        Precision precision,
                                        const std::array<std::size_t, 3>& shape);  // fft.cpp

} // namespace partcl::detail::opencl
