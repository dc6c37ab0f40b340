#pragma once
// Which compute API runs partcl's kernels. Every build has OpenCL; CUDA exists in builds made
// with PARTCL_CUDA, as the library libpartcl-cuda that partcl loads when CUDA is first asked
// for (backend_built). `automatic` takes CUDA for NVIDIA GPUs when it is there and a driver is
// present, and OpenCL for everything else.
#include <string>

namespace partcl {

enum class Backend { automatic, opencl, cuda };

const char* to_string(Backend backend) noexcept;
// "auto", "opencl" or "cuda"; throws UsageError otherwise.
Backend parse_backend(const std::string& text);
// `cli` when not empty, else PARTCL_BACKEND when set, else automatic.
Backend backend_from_environment(const std::string& cli = {});
// Whether the backend is there to use: OpenCL always; CUDA when partcl was built with it and
// libpartcl-cuda and the CUDA libraries it needs load (Device enumeration then says why not).
bool backend_built(Backend backend) noexcept;

} // namespace partcl
