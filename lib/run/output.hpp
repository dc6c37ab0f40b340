#pragma once
// What the runs of lib/run share: the names of numbered output files, the output directory, the
// device description checkpoints keep and the checks every resume starts with.
// Private to the library.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include <partcl/io/atomic_file.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/scenario.hpp>
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

// Creates the output directory (and its parents), and removes what a killed run left half
// written there; UsageError naming it when that fails.
inline void create_output_directory(const std::filesystem::path& out) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw UsageError("cannot create output directory " + out.string() + ": " + ec.message());
    remove_stale_temporaries(out);  // of a run killed while writing here
}

// "name (platform) + name (platform)": the devices of a run, for its checkpoints.
inline std::string device_names(const Context& context) {
    std::string text;
    for (const auto& d : context.devices())
        text += (text.empty() ? "" : " + ") + d.info().name + " (" + d.info().platform + ")";
    return text;
}

// The scenario of checkpoint c (read from `file`), checked to be of `model` ("not " + `what`
// otherwise) and of the checkpoint's precision; UsageError naming the file.
inline Scenario resumed_scenario(const Checkpoint& c, const std::filesystem::path& file,
                                 const char* model, const std::string& what) {
    Scenario scenario = parse_scenario(c.scenario_toml, file.string());
    if (scenario.model != model)
        throw UsageError("checkpoint " + file.string() + " is of a model = \"" + scenario.model +
                         "\" run, not " + what);
    if (c.precision != to_string(scenario.precision))
        throw UsageError("checkpoint " + file.string() + " holds " + c.precision +
                         " state but its scenario says " + to_string(scenario.precision));
    return scenario;
}

} // namespace partcl::detail
