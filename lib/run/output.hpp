#pragma once
// What the runs of lib/run share: the names of numbered output files and the output directory.
// Private to the library.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include <partcl/runtime/error.hpp>

namespace partcl::detail {

// "frame_000120.png"
inline std::string numbered(const char* stem, std::uint64_t index, const char* extension) {
    char name[64];
    std::snprintf(name, sizeof name, "%s_%06llu.%s", stem, static_cast<unsigned long long>(index),
                  extension);
    return name;
}

// Creates the output directory (and its parents); UsageError naming it when that fails.
inline void create_output_directory(const std::filesystem::path& out) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw UsageError("cannot create output directory " + out.string() + ": " + ec.message());
}

} // namespace partcl::detail
