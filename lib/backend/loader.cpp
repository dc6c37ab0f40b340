// Which backend serves a handle: OpenCL's is linked in; CUDA's is libpartcl-cuda, opened with
// dlopen the first time it is asked for, from the directory libpartcl itself was loaded from
// (the build tree or the install's library directory). A program that never asks for CUDA, and
// every machine without the CUDA libraries, runs without them.
#include <partcl/backend/error.hpp>

#include <dlfcn.h>

#include <filesystem>

#include "backend/interface.hpp"

namespace partcl::detail {

namespace {

struct CudaModule {
    BackendImpl* backend = nullptr;
    std::string why;
};

#ifdef PARTCL_CUDA_MODULE
CudaModule open_cuda_module() {
    CudaModule module;
    Dl_info self{};
    std::filesystem::path file = PARTCL_CUDA_MODULE;
    if (dladdr(reinterpret_cast<void*>(&open_cuda_module), &self) && self.dli_fname)
        file = std::filesystem::path(self.dli_fname).parent_path() / PARTCL_CUDA_MODULE;
    // Kept open for the life of the process: contexts and kernels of the backend may live until
    // exit, and unloading the CUDA runtime under them would be the crash at exit again.
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        const char* error = dlerror();
        std::error_code ec;
        module.why = std::filesystem::exists(file, ec)
                         ? "the CUDA backend cannot be loaded: " +
                               std::string(error ? error : "unknown error") +
                               " (it needs the CUDA libraries partcl was built with: NVRTC, cuFFT)"
                         : "the CUDA backend's library " + file.string() +
                               " is missing (partcl was built with CUDA: install it whole)";
        return module;
    }
    using Entry = BackendImpl* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "partcl_cuda_backend"));
    if (!entry) {
        module.why = "the CUDA backend cannot be loaded: " + file.string() +
                     " has no partcl_cuda_backend (not partcl's CUDA library)";
        return module;
    }
    module.backend = entry();
    return module;
}
#else
CudaModule open_cuda_module() {
    return {nullptr, "the CUDA backend is not built into this partcl (configure with "
                     "-DPARTCL_CUDA=ON where the CUDA toolkit is)"};
}
#endif

} // namespace

BackendImpl* cuda_backend(std::string* why) {
    static const CudaModule module = open_cuda_module();
    if (!module.backend && why) *why = module.why;
    return module.backend;
}

BackendImpl& backend(Backend which) {
    if (which == Backend::opencl) return opencl::backend();
    if (which == Backend::cuda) {
        std::string why;
        if (BackendImpl* cuda = cuda_backend(&why)) return *cuda;
        throw Unsupported(why);
    }
    throw UsageError("no backend is called 'auto': a device's backend is opencl or cuda");
}

} // namespace partcl::detail
