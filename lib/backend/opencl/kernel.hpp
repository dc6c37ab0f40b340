#pragma once
// The OpenCL backend's programs and kernels.
#include "backend/interface.hpp"

namespace partcl::detail::opencl {

class OpenclProgram final : public ProgramImpl {
public:
    explicit OpenclProgram(cl::Program program) : program(std::move(program)) {}
    std::vector<std::string> kernel_names() const override;
    std::unique_ptr<KernelImpl> kernel(const std::string& name) const override;

    cl::Program program;
};

} // namespace partcl::detail::opencl
