#pragma once
// Source: one kernel file and how to find what it includes. partcl's own kernels (the cl/ tree)
// are embedded in the library at build time; setting PARTCL_KERNEL_PATH to a directory makes
// the library read that tree from disk instead, for kernel development without rebuilding.
//
// expand() inlines every `#include "..."` it can find (each file once, as if it had
// `#pragma once`) and marks each piece with `#line N "file"`, so compiler messages and Oclgrind
// name the real file and line. Lookup order for an include: the including file's directory,
// then BuildOptions::include_dirs, then partcl's tree (so user kernels can `#include
// "common/real.h"`). An include found nowhere, and every `#include <...>`, is left in place
// for the compiler, which reports it at its line only if the preprocessor keeps it.
#include <filesystem>
#include <string>
#include <vector>

#include <partcl/backend/build.hpp>
#include <partcl/backend/error.hpp>

namespace partcl {

// A missing or unreadable kernel file; what() names it.
class SourceError : public Error {
public:
    using Error::Error;
};

class Source {
public:
    // A file of partcl's kernel tree, by its path inside cl/, e.g. "common/real_check.cl".
    static Source builtin(const std::string& path);
    // A file on disk.
    static Source from_file(const std::filesystem::path& path);
    // Text held by the program; `name` is what messages call it.
    static Source from_string(std::string name, std::string text);

    const std::string& name() const noexcept { return name_; }
    const std::string& text() const noexcept { return text_; }

    std::string expand(const std::vector<std::filesystem::path>& include_dirs = {}) const;

private:
    enum class Origin { tree, disk, memory };
    Source(Origin origin, std::string name, std::string text, std::string directory);

    Origin origin_;
    std::string name_;
    std::string text_;
    std::string directory_;  // tree-relative or on-disk directory its own includes start from
};

// Every `.cl` file of partcl's kernel tree (headers excluded), sorted.
std::vector<std::string> builtin_kernels();

// Where partcl's kernel tree is read from: "embedded, N files" or "PARTCL_KERNEL_PATH=<dir>".
std::string kernel_tree_location();

} // namespace partcl
