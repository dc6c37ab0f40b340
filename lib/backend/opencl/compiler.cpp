// The OpenCL backend's compiler: the driver's clBuildProgram, with binaries kept in the program
// cache per device.
#include <chrono>

#include "backend/opencl/opencl.hpp"
#include "backend/text.hpp"

namespace partcl::detail::opencl {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
    std::string log;
    program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
    return trim_end(log);
}

// Binaries in the order of `devices`, whatever order the program lists its devices in.
std::vector<std::vector<unsigned char>> program_binaries(const cl::Program& program,
                                                         const std::vector<cl::Device>& devices) {
    std::vector<cl::Device> program_devices;
    check(program.getInfo(CL_PROGRAM_DEVICES, &program_devices), "clGetProgramInfo");
    cl::Program::Binaries binaries;
    check(program.getInfo(CL_PROGRAM_BINARIES, &binaries), "clGetProgramInfo");
    std::vector<std::vector<unsigned char>> ordered(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i)
        for (std::size_t j = 0; j < program_devices.size() && j < binaries.size(); ++j)
            if (program_devices[j]() == devices[i]()) ordered[i] = binaries[j];
    return ordered;
}

// NVIDIA's OpenCL compiler takes inline PTX, as CUDA does (cl/common/portable.h: PARTCL_PTX).
BuildOptions with_platform_defines(BuildOptions options, const std::vector<BackendDevice>& devices) {
    bool nvidia = true;
    for (const auto& d : devices)
        nvidia = nvidia && d.info.platform.find("NVIDIA") != std::string::npos;
    if (nvidia) options.define("PARTCL_PTX");
    return options;
}

} // namespace

BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                   const ProgramSource& source, const BuildOptions& options,
                   const BinaryCache& cache) {
    // A device the context names twice (a queue each) is built for once: OpenCL programs take
    // a list of distinct devices, and one build serves all the device's queues.
    std::vector<BackendDevice> distinct;
    std::vector<std::size_t> entry(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        std::size_t k = 0;
        while (k < distinct.size() && distinct[k].device != devices[i].device) ++k;
        if (k == distinct.size()) distinct.push_back(devices[i]);
        entry[i] = k;
    }
    if (distinct.size() < devices.size()) {
        BuiltProgram built = build(context, distinct, source, options, cache);
        std::vector<DeviceBuild> builds;
        for (std::size_t k : entry) builds.push_back(built.builds.at(k));
        return BuiltProgram{std::move(built.program), std::move(builds)};
    }
    const Clock::time_point start = Clock::now();
    const std::string& expanded = source.expanded;
    const std::string compiler_options = with_platform_defines(options, devices).compiler_options();
    std::vector<std::string> keys;
    std::string combined;
    for (const auto& d : devices) {
        keys.push_back(cache.key(expanded, compiler_options, d.info));
        combined += keys.back();
    }
    std::vector<DeviceBuild> builds(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i) builds[i].device = devices[i].info.name;
    std::vector<cl::Device> handles;
    for (const auto& d : devices) handles.push_back(cl_device(d));

    auto finish = [&](cl::Program program, DeviceBuild::Origin origin) {
        const double seconds = since(start);
        for (std::size_t i = 0; i < devices.size(); ++i) {
            builds[i].origin = origin;
            builds[i].seconds = seconds;
            builds[i].log = map_log_locations(build_log(program, handles[i]), expanded);
        }
        auto impl = make_program(std::move(program));
        cache.remember(combined, impl);
        return BuiltProgram{impl, std::move(builds)};
    };

    if (auto program = cache.find(combined))
        return finish(cl_program(*program), DeviceBuild::Origin::memory_cache);

    // Disk: only when every device has its binary; a device the driver rejects drops them all.
    cl::Program::Binaries binaries;
    for (const auto& key : keys) {
        auto binary = cache.load(key);
        if (!binary) break;
        binaries.push_back(std::move(*binary));
    }
    if (binaries.size() == devices.size()) {
        cl_int status = CL_SUCCESS;
        std::vector<cl_int> binary_status;
        cl::Program program(cl_context(context), handles, binaries, &binary_status, &status);
        if (status == CL_SUCCESS) status = program.build(handles, compiler_options.c_str());
        if (status == CL_SUCCESS) return finish(std::move(program), DeviceBuild::Origin::disk_cache);
        for (const auto& key : keys) cache.remove(key);
    }

    cl_int status = CL_SUCCESS;
    cl::Program program(cl_context(context), expanded, false, &status);
    check(status, "clCreateProgramWithSource");
    status = program.build(handles, compiler_options.c_str());
    if (status != CL_SUCCESS) {
        for (std::size_t i = 0; i < devices.size(); ++i) {
            cl_build_status state = CL_BUILD_NONE;
            program.getBuildInfo(handles[i], CL_PROGRAM_BUILD_STATUS, &state);
            if (state == CL_BUILD_SUCCESS) continue;
            std::string log = map_log_locations(build_log(program, handles[i]), expanded);
            if (log.empty()) log = std::string("(no compiler log; clBuildProgram returned ") +
                                   partcl::opencl::status_name(status) + ")";
            throw BuildError(source.name, devices[i].info.name, log);
        }
        throw error(status, "clBuildProgram", source.name);
    }
    const auto built = program_binaries(program, handles);
    for (std::size_t i = 0; i < devices.size(); ++i)
        cache.store(keys[i], source.name, devices[i].info.name, compiler_options, built[i]);
    return finish(std::move(program), DeviceBuild::Origin::compiled);
}

} // namespace partcl::detail::opencl
