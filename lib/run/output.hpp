#pragma once
// What the runs of lib/run share: the names of numbered output files, the output directory and
// the device description checkpoints keep.
// Private to the library.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include <partcl/runtime/context.hpp>
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

// "name (platform) + name (platform)": the devices of a run, for its checkpoints.
inline std::string device_names(const Context& context) {
    std::string text;
    for (const auto& d : context.devices())
        text += (text.empty() ? "" : " + ") + d.info().name + " (" + d.info().platform + ")";
    return text;
}

} // namespace partcl::detail
