// The CUDA backend's compiler: NVRTC's PTX, kept in the program cache per architecture, loaded
// as a CUDA library for the devices of a context.
#include <partcl/backend/error.hpp>

#include <chrono>
#include <regex>

#include <nvrtc.h>

#include "backend/cuda/cuda.hpp"
#include "backend/text.hpp"

namespace partcl::cuda {

namespace {

using Clock = std::chrono::steady_clock;

void check_nvrtc(nvrtcResult result, const char* call) {
    if (result != NVRTC_SUCCESS)
        throw Error(std::string(call) + " failed: " + nvrtcGetErrorString(result));
}

// NVRTC writes `file(line): error: ...`; OpenCL compilers and partcl's messages say
// `file:line: error: ...`.
std::string colon_locations(const std::string& log) {
    static const std::regex location(R"re((^|\n)([^\n(]+)\(([0-9]+)\): )re");
    return std::regex_replace(log, location, "$1$2:$3: ");
}

// What the cache key needs to know of the target: NVRTC's version and the architecture play
// the part of the driver and the device.
DeviceInfo target(const std::string& arch) {
    DeviceInfo info;
    info.name = arch;
    info.vendor = "NVIDIA";
    info.platform = "NVRTC";
    info.platform_version = nvrtc_version();
    info.driver_version = nvrtc_version();
    info.type = DeviceType::gpu;
    return info;
}

} // namespace

std::string nvrtc_version() {
    int major = 0, minor = 0;
    check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
    return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_options(const BuildOptions& options, const std::string& arch) {
    static const std::regex architecture("compute_[0-9]+[a-z]?");
    if (!std::regex_match(arch, architecture))
        throw UsageError("CUDA architecture '" + arch + "' is not a virtual architecture such as "
                         "compute_90");
    std::vector<std::string> list{"--gpu-architecture=" + arch, "--std=c++17", "-DPARTCL_CUDA=1"};
    for (auto& macro : options.macro_options()) list.push_back(std::move(macro));
    for (const auto& flag : options.flags) {
        if (flag == "-cl-fast-relaxed-math") list.push_back("--use_fast_math");
        else if (flag == "-cl-denorms-are-zero") list.push_back("--ftz=true");
        else if (flag == "-cl-mad-enable") list.push_back("--fmad=true");
        else
            throw UsageError("OpenCL compiler flag '" + flag +
                             "' has no NVRTC equivalent in partcl's CUDA backend");
    }
    return list;
}

} // namespace partcl::cuda

namespace partcl::detail::cuda {

namespace {

using partcl::cuda::check_nvrtc;
using partcl::cuda::Clock;
using partcl::cuda::colon_locations;
using partcl::cuda::target;

std::string arch_of(const DeviceInfo& info) {
    return "compute_" + std::to_string(info.compute_capability);
}

// Entry names from the PTX text (`.entry name(` or `.entry name`).
std::vector<std::string> entries(const std::string& ptx) {
    std::vector<std::string> names;
    for (std::size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
        std::size_t start = at + 7, end = start;
        while (end < ptx.size() && ptx[end] != '(' && ptx[end] != ' ' && ptx[end] != '\n') ++end;
        names.push_back(ptx.substr(start, end - start));
    }
    return names;
}

// NVRTC's options for `arch` as one string: part of the program's cache key.
std::string joined_options(const BuildOptions& options, const std::string& arch) {
    std::string joined;
    for (const auto& o : partcl::cuda::nvrtc_options(options, arch))
        joined += (joined.empty() ? "" : " ") + o;
    return joined;
}

} // namespace

partcl::cuda::Ptx compile(const ProgramSource& source, const BuildOptions& options,
                          const std::string& arch, const BinaryCache& cache) {
    using partcl::cuda::Ptx;
    const Clock::time_point start = Clock::now();
    const std::vector<std::string> list = partcl::cuda::nvrtc_options(options, arch);
    const std::string joined = joined_options(options, arch);
    const std::string& expanded = source.expanded;
    const DeviceInfo device = target(arch);
    const std::string key = cache.key(expanded, joined, device);

    Ptx ptx;
    ptx.arch = arch;
    ptx.options = joined;
    ptx.build.device = arch + " (NVRTC " + device.driver_version + ")";
    if (auto binary = cache.load(key)) {
        ptx.text.assign(binary->begin(), binary->end());
        ptx.build.origin = DeviceBuild::Origin::disk_cache;
        ptx.build.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return ptx;
    }

    nvrtcProgram program = nullptr;
    check_nvrtc(nvrtcCreateProgram(&program, expanded.c_str(), "input.cl", 0, nullptr, nullptr),
                "nvrtcCreateProgram");
    struct Release {
        nvrtcProgram& p;
        ~Release() { nvrtcDestroyProgram(&p); }
    } release{program};
    std::vector<const char*> argv;
    for (const auto& o : list) argv.push_back(o.c_str());
    const nvrtcResult result = nvrtcCompileProgram(program, int(argv.size()), argv.data());
    std::size_t log_size = 0;
    check_nvrtc(nvrtcGetProgramLogSize(program, &log_size), "nvrtcGetProgramLogSize");
    std::string log(log_size, '\0');
    if (log_size > 0) check_nvrtc(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
    log = map_log_locations(colon_locations(trim_end(log)), expanded);
    if (result != NVRTC_SUCCESS) {
        if (log.empty()) log = std::string("(no compiler log; ") + nvrtcGetErrorString(result) + ")";
        throw BuildError(source.name, ptx.build.device, log);
    }
    std::size_t size = 0;
    check_nvrtc(nvrtcGetPTXSize(program, &size), "nvrtcGetPTXSize");
    ptx.text.assign(size, '\0');
    check_nvrtc(nvrtcGetPTX(program, ptx.text.data()), "nvrtcGetPTX");
    while (!ptx.text.empty() && ptx.text.back() == '\0') ptx.text.pop_back();
    cache.store(key, source.name, ptx.build.device, joined,
                std::vector<unsigned char>(ptx.text.begin(), ptx.text.end()));
    ptx.build.origin = DeviceBuild::Origin::compiled;
    ptx.build.log = log;
    ptx.build.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return ptx;
}

BuiltProgram build(ContextImpl&, const std::vector<BackendDevice>& devices,
                   const ProgramSource& source, const BuildOptions& options,
                   const BinaryCache& cache) {
    const Clock::time_point start = Clock::now();
    // The context's memory tier, as on OpenCL: the same source and options for the same
    // architectures is the program already loaded.
    std::string combined;
    for (const auto& d : devices) {
        const std::string arch = arch_of(d.info);
        combined += cache.key(source.expanded, joined_options(options, arch), target(arch));
    }
    if (auto program = cache.find(combined)) {
        std::vector<DeviceBuild> builds(devices.size());
        for (std::size_t i = 0; i < devices.size(); ++i) {
            builds[i].device = devices[i].info.name;
            builds[i].origin = DeviceBuild::Origin::memory_cache;
            builds[i].seconds = std::chrono::duration<double>(Clock::now() - start).count();
        }
        return BuiltProgram{std::move(program), std::move(builds)};
    }
    std::map<std::string, cudaLibrary_t> libraries;
    std::map<std::string, partcl::cuda::Ptx> ptx;
    std::vector<std::string> device_arch;
    std::vector<DeviceBuild> builds;
    try {
        for (std::size_t i = 0; i < devices.size(); ++i) {
            const BackendDevice& d = devices[i];
            const std::string arch = arch_of(d.info);
            // One library serves every device of an architecture, but a device named again (a
            // second stream of it) gets a library of its own: a library's globals are per
            // device, and two streams writing one partcl_global_offset would race.
            std::size_t again = 0;
            for (std::size_t j = 0; j < i; ++j) again += devices[j].ordinal == d.ordinal;
            const std::string library_key = again ? arch + "#" + std::to_string(again) : arch;
            device_arch.push_back(library_key);
            auto it = ptx.find(arch);
            if (it == ptx.end()) it = ptx.emplace(arch, compile(source, options, arch, cache)).first;
            if (!libraries.count(library_key)) {
                use_device(d.ordinal);
                cudaLibrary_t library = nullptr;
                check(cudaLibraryLoadData(&library, it->second.text.c_str(), nullptr, nullptr, 0,
                                          nullptr, nullptr, 0),
                      "cudaLibraryLoadData", source.name + " for " + arch);
                libraries[library_key] = library;
            }
            DeviceBuild build = it->second.build;
            build.device = d.info.name;
            builds.push_back(std::move(build));
        }
    } catch (...) {
        for (auto& [arch, library] : libraries) cudaLibraryUnload(library);
        throw;
    }
    auto names = entries(ptx.begin()->second.text);
    auto program = make_program(std::move(libraries), std::move(device_arch), std::move(names));
    cache.remember(combined, program);
    return BuiltProgram{std::move(program), std::move(builds)};
}

} // namespace partcl::detail::cuda
