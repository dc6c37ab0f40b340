#pragma once
// What the backends' compilers take and give: BuildOptions, what a kernel build is specialised
// on (precision is chosen at run time per program; cl/common/real.h turns it into the `real`
// vocabulary inside kernels), and DeviceBuild, how each device got its binary.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <partcl/backend/precision.hpp>

namespace partcl {

struct BuildOptions {
    Precision precision = Precision::float32;
    // -D NAME[=VALUE], in the order given (later ones win, as with the compiler).
    std::vector<std::pair<std::string, std::string>> defines;
    // Extra OpenCL compiler flags, e.g. "-cl-fast-relaxed-math".
    std::vector<std::string> flags;
    // Searched, after the including file's own directory, for `#include "..."`; partcl's own
    // kernel tree (cl/) is always searched last.
    std::vector<std::filesystem::path> include_dirs;

    // Throws UsageError unless `name` is a C identifier.
    BuildOptions& define(const std::string& name, const std::string& value = {});
    BuildOptions& define(const std::string& name, long long value) {
        return define(name, std::to_string(value));
    }

    // The macros every backend's compiler gets: -DPARTCL_DOUBLE=1 for double, then each define
    // as -DNAME or -DNAME=VALUE, in order.
    std::vector<std::string> macro_options() const;

    // The option string handed to the OpenCL compiler (part of the program cache key).
    std::string compiler_options() const;
};

// How one device got its binary.
struct DeviceBuild {
    enum class Origin { compiled, disk_cache, memory_cache };
    std::string device;
    Origin origin = Origin::compiled;
    double seconds = 0;  // wall time of the whole build (all devices of the context together)
    std::string log;     // compiler warnings, if any
};

const char* to_string(DeviceBuild::Origin origin) noexcept;

// Compiler logs in the user's terms. Some compilers ignore `#line` and name the expanded source
// as a whole (NVIDIA: `<kernel>:4:12`, Oclgrind: `input.cl:106`); this rewrites such locations
// to `file.cl:LINE` by reading the `#line` markers of `expanded` (Source::expand's output).
std::string map_log_locations(const std::string& log, const std::string& expanded);

} // namespace partcl
