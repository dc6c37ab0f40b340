#pragma once
// The scenario engine, private to partcl: a schema is a list of fields (table, key, where the
// value lives in a Scenario, its check, the comment to_toml writes), and the engine reads TOML
// into a Scenario by it, checks it and writes it back. It knows no model: each model's tables
// are defined beside its run code (lib/run/*_scenario.cpp), the tables every model shares and
// the N-body initial conditions' here in lib/io, and run/scenario.cpp puts them together.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include <partcl/io/scenario.hpp>

#include "io/toml.hpp"

namespace partcl::detail {

// Messages "SOURCE:LINE: ..." (no line: "SOURCE: ...").
struct Location {
    const std::string& source;
    [[noreturn]] void fail(std::int64_t line, const std::string& message) const;
};

using S = Scenario;
using RealRef = double& (*)(S&);
using CountRef = std::uint64_t& (*)(S&);
using IntRef = int& (*)(S&);
using TextRef = std::string& (*)(S&);
using PathRef = std::filesystem::path& (*)(S&);
using PairRef = std::array<double, 2>& (*)(S&);
using PrecisionRef = Precision& (*)(S&);
using ModeRef = std::array<std::uint64_t, 3>& (*)(S&);  // an integer (x) or 1 to 3 integers
// A value of its own shape (an array of tables), read and written by its model's code.
struct CustomRef {
    void (*read)(S&, const toml::node&, const Location&);
    void (*write)(const S&, std::ostream&);  // whole lines, after the table's other keys
};
// An enum option, written by its name (its table: models/option_names.hpp). A name it does not
// know is reported when the key is checked, so problems come in the schema's order.
struct EnumRef {
    const char* (*name)(const S&);
    bool (*set)(S&, const std::string& name);  // false for an unknown name
    std::vector<std::string> (*names)();
    const char* what;  // "a tree traversal"
};
using Ref = std::variant<RealRef, CountRef, IntRef, TextRef, PathRef, PairRef, PrecisionRef,
                         ModeRef, CustomRef, EnumRef>;
// "" when the value is fine, else what is wrong, e.g. "must be positive (got -1)".
using Check = std::string (*)(const S&);

struct Field {
    const char* table;
    const char* key;
    Ref ref;
    Check check;
    const char* comment;  // for to_toml, may be empty
    // The model whose scenarios have the key; "" for every model. Unset: the model of the list
    // it is given in (of_model).
    const char* model = nullptr;
};

// `fields` with every unset model set to `model`.
std::vector<Field> of_model(const char* model, std::vector<Field> fields);

// Keys given in a file: "table" and "table.key" -> line.
using Given = std::map<std::string, std::int64_t>;
// Unknown names given to enum keys: "table.key" -> the name.
using UnknownNames = std::map<std::string, std::string>;

// What one model adds to a schema beside its fields.
struct ModelRules {
    const char* model;
    // What sets a run's length, for the message about another model's key; may be empty.
    const char* length_note;
    // Defaults that depend on other keys, applied after reading (`given`: the keys read).
    void (*defaults)(S&, const Given& given);
};

struct Schema {
    std::vector<Field> fields;  // in the order to_toml writes them
    std::vector<ModelRules> models;
};

// The engine.
Scenario parse(const Schema& schema, const std::string& toml_text, const std::string& source_name,
               Given& given);
// UsageError "scenario 'NAME': ..." for the first problem in the schema's order.
void validate(const Schema& schema, const Scenario& scenario, const UnknownNames& unknown = {});
std::string to_toml(const Schema& schema, const Scenario& scenario);
// Sets the enum or text key "table.key" by name; an enum's unknown name goes to `unknown`.
void set_by_name(const Schema& schema, Scenario& scenario, const std::string& key,
                 const std::string& name, UnknownNames& unknown);
// Nothing to check: an enum's value is always one of its names.
inline std::string any_value(const S&) { return {}; }

// Values in TOML and in messages.
std::string format_double(double value);  // round-trips, always a TOML float
std::string format_number(double value);  // the same without a trailing ".0"
std::string quote(const std::string& text);
std::string join(const std::vector<std::string>& names);
std::string describe(const toml::node& node);  // the value as a message shows it
std::string format_mode(const std::array<std::uint64_t, 3>& mode);  // as ModeRef writes it

// Checks, "" when fine.
inline std::string ok() { return {}; }
std::string finite(double v);
std::string positive(double v);
std::string non_negative(double v);
// An interval of a run of length end_time that writes something every `every`: 0 (never) or
// at most 10^5 of them.
std::string interval_or_zero(double every, double end_time);
std::string count_limit(std::uint64_t v);  // fits an int64 (TOML's integers)
std::string one_of(const std::string& v, const std::vector<std::string>& names, const char* what);

// The tables of lib/io: [scenario], the N-body initial conditions ([bodies], [plummer],
// [galaxies], [kepler], [cube]), [units], [run] and [render]; and the initial conditions'
// defaults (n by initial).
const std::vector<Field>& scenario_table();
const std::vector<Field>& initial_condition_tables();
const std::vector<Field>& units_table();
const std::vector<Field>& run_table();
const std::vector<Field>& render_table();
void initial_condition_defaults(S& s, const Given& given);
// The G of [units] with all three units; 0 when they are fewer or do not read.
double units_G(const S& s);
// What make_bodies reads: the initial conditions and [units] (UsageError as validate()).
void validate_initial_conditions(const Scenario& scenario);

} // namespace partcl::detail
