#include <partcl/backend/native.hpp>
#include <partcl/jit/compiler.hpp>

#include "backend/interface.hpp"
#include "jit/binary_cache.hpp"

namespace partcl {

Program::Program(std::shared_ptr<detail::ProgramImpl> program, Backend backend, std::string name,
                 BuildOptions options, std::vector<DeviceBuild> builds)
    : program_(std::move(program)), backend_(backend), name_(std::move(name)),
      options_(std::move(options)), builds_(std::move(builds)) {}

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
    std::vector<detail::BackendDevice> devices;
    for (const auto& d : context.devices()) devices.push_back(d.backend_device());
    detail::BuiltProgram built = detail::backend(context.backend())
                                     .build(context.impl(), devices,
                                            {source.name(), source.expand(options.include_dirs)},
                                            options, detail::ProgramCacheForBackend(cache, &context));
    return Program(std::move(built.program), context.backend(), source.name(), options,
                   std::move(built.builds));
}

void* detail::native_program(const Program& program, Backend backend, const char* what) {
    if (program.backend() != backend)
        throw UsageError(std::string(what) + ": program " + program.name() + " belongs to the " +
                         to_string(program.backend()) + " backend");
    return program.impl().native();
}

} // namespace partcl
