#pragma once
// What the models of lib/run share: the names of numbered output files, the output directory,
// the device description checkpoints keep, the checks every resume starts with, and text.
// Private to the library.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <system_error>
#include <vector>

#include <partcl/support/atomic_file.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/scenario.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/run/run_model.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/backend/error.hpp>

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

// A resumed run writes its CSV afresh from the rows its checkpoint holds. A directory whose CSV
// does not begin with those rows holds another run's outputs, which the resumed run's would
// silently mix with: refused, before anything is written. (The run's own directory always
// begins with them: rows are appended before the checkpoint that holds them is written.)
inline void check_resume_directory(const std::filesystem::path& out, const std::string& csv,
                                   const std::string& checkpoint_rows,
                                   const std::filesystem::path& checkpoint) {
    std::ifstream in(out / csv, std::ios::binary);
    if (!in) return;
    std::string head(checkpoint_rows.size(), '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(in.gcount()));
    if (head != checkpoint_rows)
        throw UsageError("cannot resume " + checkpoint.string() + " into " + out.string() + ": its " +
                         csv + " holds another run's rows (they differ from the checkpoint's); " +
                         "resume into the run's own directory or a new one");
}

// Bodies from a checkpoint's state (x | y | z | vx | vy | vz, 6N) and masses (N); UsageError for
// a state of another length.
inline Bodies bodies_from_state(const std::vector<double>& state, const std::vector<double>& mass) {
    const std::size_t n = mass.size();
    if (state.size() != 6 * n)
        throw UsageError("checkpoint: a state of " + std::to_string(state.size()) +
                         " values for " + std::to_string(n) + " bodies");
    Bodies b;
    b.resize(n);
    std::vector<double>* fields[] = {&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz};
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(state.begin() + std::ptrdiff_t(f * n), state.begin() + std::ptrdiff_t((f + 1) * n),
                  fields[f]->begin());
    b.m = mass;
    return b;
}

// A CSV row of `values` as %.9g.
// A structure-of-arrays vector quantity (component k of particle i at soa[k * n + i]) as an
// (n, components) state array.
inline StateArray state_array(std::string name, const std::vector<double>& soa, std::size_t n,
                              std::size_t components) {
    StateArray a{std::move(name), {n, components}, std::vector<double>(n * components)};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < components; ++k) a.values[i * components + k] = soa[k * n + i];
    return a;
}

// Bodies as RunModel::state() gives them: (N, 3) position and velocity, (N) mass.
inline std::vector<StateArray> body_state(const Bodies& b) {
    const std::size_t n = b.size();
    std::vector<double> position = b.x, velocity = b.vx;
    position.insert(position.end(), b.y.begin(), b.y.end());
    position.insert(position.end(), b.z.begin(), b.z.end());
    velocity.insert(velocity.end(), b.vy.begin(), b.vy.end());
    velocity.insert(velocity.end(), b.vz.begin(), b.vz.end());
    return {state_array("position", position, n, 3), state_array("velocity", velocity, n, 3), {"mass", {n}, b.m}};
}

inline std::string format_row(std::initializer_list<double> values) {
    std::string row;
    char text[40];
    for (double v : values) {
        std::snprintf(text, sizeof text, "%.9g", v);
        row += (row.empty() ? "" : ",") + std::string(text);
    }
    return row + "\n";
}

// "m:ss", for a time left.
inline std::string clock_text(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    return text;
}

// As an ostream prints a double by default (6 significant digits).
inline std::string shortest(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// printf into a std::string.
template <typename... Args>
std::string format(const char* pattern, Args... args) {
    const int size = std::snprintf(nullptr, 0, pattern, args...);
    std::string text(std::size_t(size > 0 ? size : 0), '\0');
    std::snprintf(text.data(), text.size() + 1, pattern, args...);
    return text;
}

} // namespace partcl::detail
