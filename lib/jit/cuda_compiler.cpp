// partcl::cuda::compile over the jit layer's Source and ProgramCache: the CUDA backend's NVRTC
// compile (backend/cuda/compiler.cpp) of the expanded source. Part of libpartcl-cuda.
#include <partcl/backend/cuda/compiler.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/jit/source.hpp>

#include "backend/cuda/cuda.hpp"
#include "jit/binary_cache.hpp"

namespace partcl::cuda {

Ptx compile(const Source& source, const BuildOptions& options, const std::string& arch,
            ProgramCache& cache) {
    return detail::cuda::compile({source.name(), source.expand(options.include_dirs)}, options,
                                 arch, detail::ProgramCacheForBackend(cache, nullptr));
}

Ptx compile(const Source& source, const BuildOptions& options, const std::string& arch) {
    return compile(source, options, arch, ProgramCache::global());
}

} // namespace partcl::cuda
