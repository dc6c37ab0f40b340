// The whole scenario schema, io's tables and the models' put together, and the public reading,
// checking and writing of scenarios (run/scenario.hpp).
#include <partcl/run/scenario.hpp>

#include <partcl/backend/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "run/model_tables.hpp"

namespace partcl {

namespace fs = std::filesystem;

namespace {

// The tables in the order to_toml writes them and messages list them.
const detail::Schema& schema() {
    static const detail::Schema whole = [] {
        detail::Schema s;
        for (const auto* table :
             {&detail::scenario_table(), &detail::initial_condition_tables(),
              &detail::gravity_table(), &detail::units_table(), &detail::integrator_table(),
              &detail::run_table(), &detail::render_table(), &detail::fluid_table(),
              &detail::plasma_table(), &detail::cosmology_table()})
            s.fields.insert(s.fields.end(), table->begin(), table->end());
        s.models = {{"nbody", "", detail::nbody_defaults},
                    {"mps", "[fluid] end_time or steps sets its length", nullptr},
                    {"pic", "[plasma] end_time sets its length", nullptr},
                    {"cosmology", "[cosmology] output_redshifts and steps set its length", nullptr}};
        return s;
    }();
    return whole;
}

} // namespace

Scenario parse_scenario(const std::string& toml_text, const std::string& source_name) {
    detail::Given given;
    return detail::parse(schema(), toml_text, source_name, given);
}

void validate(const Scenario& scenario) { detail::validate(schema(), scenario); }

void validate(const Scenario& scenario, const UnknownNames& unknown) {
    detail::validate(schema(), scenario, unknown);
}

void set_by_name(Scenario& scenario, const std::string& key, const std::string& name,
                 UnknownNames& unknown) {
    detail::set_by_name(schema(), scenario, key, name, unknown);
}

Scenario load_scenario(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    if (!in || fs::is_directory(file, ec)) {
        const int error = errno;
        throw UsageError("cannot read scenario " + file.string() + ": " +
                         (fs::is_directory(file, ec) ? std::string("it is a directory")
                                                     : std::string(std::strerror(error))));
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw UsageError("cannot read scenario " + file.string());
    detail::Given given;
    Scenario s = detail::parse(schema(), text.str(), file.string(), given);
    if (!given.count("scenario.name") && !file.stem().empty()) s.name = file.stem().string();
    if (!s.snapshot.empty() && s.snapshot.is_relative() && file.has_parent_path())
        s.snapshot = file.parent_path() / s.snapshot;
    if (!s.cosmology.initial_file.empty() && s.cosmology.initial_file.is_relative() && file.has_parent_path())
        s.cosmology.initial_file = file.parent_path() / s.cosmology.initial_file;
    return s;
}

Scenario builtin_scenario(const std::string& name) {
    return parse_scenario(builtin_scenario_toml(name), "builtin:" + name);
}

Scenario find_scenario(const std::string& argument) {
    std::error_code ec;
    if (fs::exists(argument, ec)) return load_scenario(argument);
    const auto names = builtin_scenario_names();
    if (std::find(names.begin(), names.end(), argument) != names.end())
        return builtin_scenario(argument);
    throw UsageError("no scenario file '" + argument + "' and no built-in scenario of that name " +
                     "(built-in: " + detail::join(names) + ")");
}

std::string to_toml(const Scenario& scenario) { return detail::to_toml(schema(), scenario); }

bool operator==(const Scenario& a, const Scenario& b) {
    // Every member is in the schema and doubles are written exactly, so equal text is equality
    // (of the keys of the scenario's model: those of the other model are no part of it).
    return to_toml(a) == to_toml(b);
}

} // namespace partcl
