#include <partcl/jit/compiler.hpp>

#include <chrono>

#include "backend/interface.hpp"

namespace partcl {

namespace {

} // namespace

BuildError::BuildError(std::string program, std::string device, std::string log)
    : Error("kernel build failed: " + program + " on " + device + ":\n" + log),
      program_(std::move(program)), device_(std::move(device)), log_(std::move(log)) {}

const char* to_string(DeviceBuild::Origin origin) noexcept {
    switch (origin) {
    case DeviceBuild::Origin::compiled: return "compiled";
    case DeviceBuild::Origin::disk_cache: return "disk cache";
    default: return "memory cache";
    }
}

Program::Program(std::shared_ptr<detail::ProgramImpl> program, Backend backend, std::string name,
                 BuildOptions options, std::vector<DeviceBuild> builds)
    : program_(std::move(program)), backend_(backend), name_(std::move(name)),
      options_(std::move(options)), builds_(std::move(builds)) {}

const cl::Program& Program::cl_program() const {
    if (backend_ != Backend::opencl)
        throw UsageError("cl_program(): program " + name_ + " belongs to the " +
                         to_string(backend_) + " backend");
    return detail::opencl::cl_program(*program_);
}

std::vector<std::string> Program::kernel_names() const { return program_->kernel_names(); }

void require_precision(const DeviceInfo& device, Precision precision) {
    if (precision == Precision::float64 && !device.fp64)
        throw Unsupported("double precision asked for, but device '" + device.name + "' (" +
                          device.platform +
                          ") has no fp64 support: use float precision or another device");
}

Program build_program(const Context& context, const Source& source, const BuildOptions& options,
                      ProgramCache& cache) {
    for (const auto& d : context.devices()) require_precision(d.info(), options.precision);
    detail::BuiltProgram built;
    built = detail::backend(context.backend()).build(context, source, options, cache);
    return Program(std::move(built.program), context.backend(), source.name(), options,
                   std::move(built.builds));
}

} // namespace partcl
