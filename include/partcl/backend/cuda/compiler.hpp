#pragma once
// The CUDA backend's compiler: the same cl/ sources the OpenCL side builds, compiled to PTX by
// NVRTC with PARTCL_CUDA defined (cl/common/portable.h and real.h map the OpenCL C spellings),
// with the same precision macros and defines, through the same ProgramCache. NVRTC runs on the
// host and needs no GPU, so this layer is built and tested wherever the CUDA toolkit is.
//
// Only present when partcl is built with the CUDA backend (PARTCL_WITH_CUDA); libpartcl-cuda
// defines it. compile() takes the jit layer's Source and ProgramCache (partcl/jit/), declared
// here only by name.
#include <string>
#include <vector>

#include <partcl/backend/build.hpp>

namespace partcl {

class ProgramCache;
class Source;

namespace cuda {

// PTX for one virtual architecture.
struct Ptx {
    std::string text;
    std::string arch;             // "compute_90"
    std::string options;          // the NVRTC options, as one string (part of the cache key)
    DeviceBuild build;            // origin (compiled or disk cache), time, warnings
};

// NVRTC's version, "13.0".
std::string nvrtc_version();

// The NVRTC options for `options`: -DPARTCL_CUDA, the precision and the defines, and the
// OpenCL flags translated (-cl-fast-relaxed-math -> --use_fast_math, -cl-denorms-are-zero ->
// --ftz=true, -cl-mad-enable -> --fmad=true). A flag with no NVRTC meaning is a UsageError.
std::vector<std::string> nvrtc_options(const BuildOptions& options, const std::string& arch);

// Compiles `source` for `arch` (a virtual architecture such as "compute_90"), through `cache`
// (or ProgramCache::global()). A compile error throws BuildError whose log names the user's
// files and lines (`nbody/dense.cl:12: error: ...`), as on OpenCL.
Ptx compile(const Source& source, const BuildOptions& options, const std::string& arch,
            ProgramCache& cache);
Ptx compile(const Source& source, const BuildOptions& options = {},
            const std::string& arch = "compute_90");

} // namespace cuda

} // namespace partcl
