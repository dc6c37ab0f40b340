#pragma once
// build_program: source + options -> a program built for every device of a context, through the
// program cache, by the context's backend (OpenCL's compiler, or NVRTC for CUDA). Double
// precision on a device without fp64 is refused before any build. BuildError and DeviceBuild
// are the backends' (partcl/backend/error.hpp, build.hpp).
#include <memory>
#include <string>
#include <vector>

#include <partcl/backend/build.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/jit/source.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

namespace detail {
class ProgramImpl;
}

// A program built for every device of a context, by the context's backend.
class Program {
public:
    Program(std::shared_ptr<detail::ProgramImpl> program, Backend backend, std::string name,
            BuildOptions options, std::vector<DeviceBuild> builds);

    Backend backend() const noexcept { return backend_; }
    detail::ProgramImpl& impl() const noexcept { return *program_; }
    const std::string& name() const noexcept { return name_; }
    const BuildOptions& options() const noexcept { return options_; }
    Precision precision() const noexcept { return options_.precision; }
    const std::vector<DeviceBuild>& builds() const noexcept { return builds_; }
    std::vector<std::string> kernel_names() const;

private:
    std::shared_ptr<detail::ProgramImpl> program_;
    Backend backend_;
    std::string name_;
    BuildOptions options_;
    std::vector<DeviceBuild> builds_;
};

// Throws Unsupported, naming the device, when it cannot run `precision`.
void require_precision(const DeviceInfo& device, Precision precision);

Program build_program(const Context& context, const Source& source,
                      const BuildOptions& options = {},
                      ProgramCache& cache = ProgramCache::global());

} // namespace partcl
