#pragma once
// BuildOptions: what a kernel build is specialised on. Precision is chosen at run time per
// program; cl/common/real.h turns it into the `real` vocabulary inside kernels.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <partcl/runtime/precision.hpp>

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

} // namespace partcl
