#pragma once
// Reading, checking and writing scenarios (io/scenario.hpp: the Scenario and its keys). The
// schema is put together here, in the run layer, from the tables io shares and each model's
// own, defined beside the model's run code (lib/run/{nbody,mps,pic}_scenario.cpp).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <partcl/io/scenario.hpp>

namespace partcl {

// Reads a scenario file. A relative [bodies] snapshot or [cosmology] initial_file path is taken
// relative to the file's
// directory (and stored resolved that way); without [scenario] name, the name is the file's
// stem. A missing or unreadable file is a UsageError.
Scenario load_scenario(const std::filesystem::path& file);

// Parses scenario TOML; `source_name` is used in messages ("scenario.toml", "builtin:plummer").
// Missing tables and keys keep their defaults (the members' initialisers of Scenario).
Scenario parse_scenario(const std::string& toml_text, const std::string& source_name);

// The built-in scenarios by name; UsageError naming the known ones for an unknown name.
Scenario builtin_scenario(const std::string& name);

// `argument` is a built-in name when it is one and no file of that name exists, else a file.
Scenario find_scenario(const std::string& argument);

// Every setting as TOML; parse_scenario(to_toml(s), ...) gives back s exactly (doubles are
// written with enough digits to round-trip). Used to store the scenario inside checkpoints.
std::string to_toml(const Scenario& scenario);

// Checks every value (what parse_scenario checks, without line numbers); throws UsageError.
// For scenarios built or changed in code, e.g. after command-line overrides.
void validate(const Scenario& scenario);

// Keys set by name in code, as the command line's --traversal nested: set_by_name sets the
// key "table.key" (an enum option, or text such as "integrator.name") and keeps a name the
// option does not know in `unknown`; validate(scenario, unknown) reports it where validate()
// checks that key, so the first problem in the schema's order is the one reported.
using UnknownNames = std::map<std::string, std::string>;  // "table.key" -> name
void set_by_name(Scenario& scenario, const std::string& key, const std::string& name,
                 UnknownNames& unknown);
void validate(const Scenario& scenario, const UnknownNames& unknown);

bool operator==(const Scenario& a, const Scenario& b);
inline bool operator!=(const Scenario& a, const Scenario& b) { return !(a == b); }

// Names accepted for [fluid] setup, [plasma] setup, [plasma] deposit, [gravity] model and
// [cosmology] initial.
const std::vector<std::string>& fluid_setup_names();
const std::vector<std::string>& plasma_setup_names();
const std::vector<std::string>& pic_deposit_names();
const std::vector<std::string>& gravity_model_names();
const std::vector<std::string>& cosmology_start_names();

} // namespace partcl
