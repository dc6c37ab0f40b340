#pragma once
// Which compute API runs partcl's kernels. Every build has OpenCL; CUDA exists in builds made
// with PARTCL_CUDA (backend_built). `automatic` takes CUDA for NVIDIA GPUs when it is built and a
// driver is present, and OpenCL for everything else.
#include <string>

namespace partcl {

enum class Backend { automatic, opencl, cuda };

const char* to_string(Backend backend) noexcept;
// "auto", "opencl" or "cuda"; throws UsageError otherwise.
Backend parse_backend(const std::string& text);
// `cli` when not empty, else PARTCL_BACKEND when set, else automatic.
Backend backend_from_environment(const std::string& cli = {});
bool backend_built(Backend backend) noexcept;

} // namespace partcl
