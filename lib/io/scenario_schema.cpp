#include "io/scenario_schema.hpp"

#include <partcl/backend/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "io/toml_text.hpp"

namespace partcl::detail {

void Location::fail(std::int64_t line, const std::string& message) const {
    throw UsageError(source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                     message);
}

std::vector<Field> of_model(const char* model, std::vector<Field> fields) {
    for (auto& field : fields)
        if (!field.model) field.model = model;
    return fields;
}

// ---------------------------------------------------------------------------------------------
// Formatting

// Shortest decimal that reads back as the same double, always recognisable as a TOML float.
std::string format_double(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char text[40];
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    std::string result = text;
    if (result.find_first_of(".en") == std::string::npos) result += ".0";
    return result;
}

// The same for messages: "-1", not the TOML spelling "-1.0".
std::string format_number(double value) {
    std::string text = format_double(value);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0)
        text.resize(text.size() - 2);
    return text;
}

std::string quote(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char escape[8];
                std::snprintf(escape, sizeof escape, "\\u%04x", c);
                out += escape;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

std::string format_mode(const std::array<std::uint64_t, 3>& m) {
    if (m[1] == 0 && m[2] == 0) return std::to_string(m[0]);
    return "[" + std::to_string(m[0]) + ", " + std::to_string(m[1]) + ", " + std::to_string(m[2]) + "]";
}

std::string describe(const toml::node& node) {
    switch (node.type()) {
    case toml::node_type::string: return quote(node.as_string()->get());
    case toml::node_type::integer: return std::to_string(node.as_integer()->get());
    case toml::node_type::floating_point: return format_number(node.as_floating_point()->get());
    case toml::node_type::boolean: return node.as_boolean()->get() ? "true" : "false";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: {
        const auto& array = *node.as_array();
        std::string text = "[";
        for (std::size_t i = 0; i < array.size(); ++i)
            text += (i ? ", " : "") + describe(*array.get(i));
        return text + "]";
    }
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

std::string finite(double v) {
    return std::isfinite(v) ? ok() : "must be a finite number (got " + format_number(v) + ")";
}
std::string positive(double v) {
    if (!std::isfinite(v)) return finite(v);
    return v > 0 ? ok() : "must be positive (got " + format_number(v) + ")";
}
std::string non_negative(double v) {
    if (!std::isfinite(v)) return finite(v);
    return v >= 0 ? ok() : "must not be negative (got " + format_number(v) + ")";
}
std::string interval_or_zero(double every, double end_time) {
    if (auto p = non_negative(every); !p.empty()) return p;
    return every == 0 || end_time / every <= 1e5
               ? ok()
               : "must be 0 or at least end_time / 10^5 (got " + format_number(every) + ")";
}
std::string count_limit(std::uint64_t v) {
    return v <= std::uint64_t(std::numeric_limits<std::int64_t>::max())
               ? ok()
               : "must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max()) +
                     " (got " + std::to_string(v) + ")";
}
std::string one_of(const std::string& v, const std::vector<std::string>& names,
                   const char* what) {
    if (std::find(names.begin(), names.end(), v) != names.end()) return ok();
    return quote(v) + " is not " + what + " (known: " + join(names) + ")";
}

// ---------------------------------------------------------------------------------------------
// The schema's tables and keys

namespace {

bool applies(const Field& field, const std::string& model) {
    return !*field.model || model == field.model;
}

// Which model a table belongs to: that of its first key not shared by every model.
std::string model_of_table(const Schema& schema, const std::string& table) {
    for (const auto& field : schema.fields)
        if (table == field.table && *field.model) return field.model;
    return {};
}

bool table_applies(const Schema& schema, const std::string& table, const std::string& model) {
    for (const auto& field : schema.fields)
        if (table == field.table && applies(field, model)) return true;
    return false;
}

std::string other_model(const Schema& schema, const std::string& table, const std::string& model) {
    std::string note;
    for (const auto& rules : schema.models)
        if (model == rules.model && *rules.length_note) note = std::string(" (") + rules.length_note + ")";
    return "is for model = \"" + model_of_table(schema, table) + "\" scenarios; this one is model = \"" +
           model + "\"" + note;
}

std::vector<std::string> table_names(const Schema& schema) {
    std::vector<std::string> names;
    for (const auto& field : schema.fields)
        if (std::find(names.begin(), names.end(), field.table) == names.end())
            names.push_back(field.table);
    return names;
}

std::vector<std::string> key_names(const Schema& schema, const std::string& table) {
    std::vector<std::string> names;
    for (const auto& field : schema.fields)
        if (table == field.table) names.push_back(field.key);
    return names;
}

const Field* find_field(const Schema& schema, const std::string& table, const std::string& key) {
    for (const auto& field : schema.fields)
        if (table == field.table && key == field.key) return &field;
    return nullptr;
}

std::string label(const Field& field) { return std::string("[") + field.table + "] " + field.key; }

std::string key_of(const Field& field) { return std::string(field.table) + "." + field.key; }

// What is wrong with the field's value: an unknown name, or what its check says.
std::string problem(const Field& field, const Scenario& s, const UnknownNames& unknown) {
    if (auto it = unknown.find(key_of(field)); it != unknown.end()) {
        const auto& ref = std::get<EnumRef>(field.ref);
        return one_of(it->second, ref.names(), ref.what);
    }
    return field.check(s);
}

// ---------------------------------------------------------------------------------------------
// Reading

void read_value(Scenario& s, const Field& field, const toml::node& node, const Location& at,
                UnknownNames& unknown) {
    const auto line = node.source().begin.line;
    const auto type_error = [&](const char* wanted) {
        at.fail(line, label(field) + " must be " + wanted + " (got " + describe(node) + ")");
    };
    const auto real = [&](const toml::node& n) -> double {
        if (auto v = n.as_floating_point()) return v->get();
        if (auto v = n.as_integer()) return double(v->get());
        type_error("a number");
        return 0.0;  // not reached
    };
    std::visit(
        [&](auto ref) {
            using T = decltype(ref);
            if constexpr (std::is_same_v<T, RealRef>) {
                ref(s) = real(node);
            } else if constexpr (std::is_same_v<T, CountRef> || std::is_same_v<T, IntRef>) {
                const auto* v = node.as_integer();
                if (!v) type_error("an integer");
                if (v->get() < 0) type_error("a non-negative integer");
                if constexpr (std::is_same_v<T, IntRef>) {
                    if (v->get() > std::numeric_limits<int>::max())
                        at.fail(line, label(field) + " is too large (got " +
                                          std::to_string(v->get()) + ")");
                    ref(s) = int(v->get());
                } else {
                    ref(s) = std::uint64_t(v->get());
                }
            } else if constexpr (std::is_same_v<T, TextRef> || std::is_same_v<T, PathRef>) {
                const auto* v = node.as_string();
                if (!v) type_error("a string");
                ref(s) = v->get();
            } else if constexpr (std::is_same_v<T, PairRef>) {
                const auto* array = node.as_array();
                if (!array || array->size() != 2) type_error("an array of 2 numbers");
                for (std::size_t i = 0; i < 2; ++i) {
                    const auto& element = *array->get(i);
                    if (!element.is_number()) type_error("an array of 2 numbers");
                    ref(s)[i] = real(element);
                }
            } else if constexpr (std::is_same_v<T, ModeRef>) {
                std::array<std::uint64_t, 3> mode{};
                if (const auto* v = node.as_integer()) {
                    if (v->get() < 0) type_error("a non-negative integer or an array of 1 to 3 of them");
                    mode[0] = std::uint64_t(v->get());
                } else if (const auto* array = node.as_array(); array && !array->empty() && array->size() <= 3) {
                    for (std::size_t i = 0; i < array->size(); ++i) {
                        const auto* e = array->get(i)->as_integer();
                        if (!e || e->get() < 0) type_error("a non-negative integer or an array of 1 to 3 of them");
                        mode[i] = std::uint64_t(e->get());
                    }
                } else {
                    type_error("a non-negative integer or an array of 1 to 3 of them");
                }
                ref(s) = mode;
            } else if constexpr (std::is_same_v<T, CustomRef>) {
                ref.read(s, node, at);
            } else if constexpr (std::is_same_v<T, EnumRef>) {
                const auto* v = node.as_string();
                if (!v) type_error("a string");
                if (!ref.set(s, v->get())) unknown[key_of(field)] = v->get();
            } else if constexpr (std::is_same_v<T, PrecisionRef>) {
                const auto* v = node.as_string();
                if (!v) type_error("a string");
                try {
                    ref(s) = parse_precision(v->get());
                } catch (const UsageError&) {
                    at.fail(line, label(field) + " " + quote(v->get()) +
                                      " is not a precision (known: float, double)");
                }
            }
        },
        field.ref);
}

} // namespace

Scenario parse(const Schema& schema, const std::string& toml_text, const std::string& source_name,
               Given& lines) {
    check_toml_text(toml_text, source_name);
    toml::table document;
    try {
        document = toml::parse(toml_text, source_name);
    } catch (const toml::parse_error& error) {
        const auto& where = error.source().begin;
        throw UsageError(source_name + ":" + std::to_string(where.line) + ":" +
                         std::to_string(where.column) + ": malformed TOML: " +
                         std::string(error.description()));
    }

    const Location at{source_name};
    Scenario s;
    lines.clear();
    UnknownNames unknown;
    const auto known_tables = table_names(schema);
    for (auto&& [table_key, table_node] : document) {
        const std::string table_name(table_key.str());
        const auto table_line = table_key.source().begin.line;
        if (std::find(known_tables.begin(), known_tables.end(), table_name) ==
            known_tables.end()) {
            at.fail(table_line, "unknown " +
                                    std::string(table_node.is_table() ? "table [" + table_name + "]"
                                                                      : "key '" + table_name + "'") +
                                    " (known tables: " + join(known_tables) + ")");
        }
        const auto* table = table_node.as_table();
        if (!table)
            at.fail(table_line, "'" + table_name + "' must be a table [" + table_name +
                                    "] (got " + describe(table_node) + ")");
        lines[table_name] = table_line;
        for (auto&& [key, node] : *table) {
            const std::string key_name(key.str());
            const Field* field = find_field(schema, table_name, key_name);
            if (!field)
                at.fail(key.source().begin.line,
                        "unknown key '" + key_name + "' in [" + table_name +
                            "] (known: " + join(key_names(schema, table_name)) + ")");
            read_value(s, *field, node, at, unknown);
            lines[table_name + "." + key_name] = node.source().begin.line;
        }
    }

    for (const auto& rules : schema.models)
        if (rules.defaults) rules.defaults(s, lines);

    // Tables and keys of the other model (the model is known only once everything is read).
    if (std::find(model_names().begin(), model_names().end(), s.model) != model_names().end()) {
        for (const auto& [name, line] : lines) {
            const auto dot = name.find('.');
            if (dot == std::string::npos) {
                if (!table_applies(schema, name, s.model))
                    at.fail(line, "[" + name + "] " + other_model(schema, name, s.model));
            } else if (!applies(*find_field(schema, name.substr(0, dot), name.substr(dot + 1)), s.model)) {
                at.fail(line, "[" + name.substr(0, dot) + "] " + name.substr(dot + 1) + " " +
                                  other_model(schema, name.substr(0, dot), s.model));
            }
        }
    }

    for (const auto& field : schema.fields) {
        if (!applies(field, s.model)) continue;
        const std::string what = problem(field, s, unknown);
        if (what.empty()) continue;
        std::int64_t line = 0;
        if (auto it = lines.find(key_of(field)); it != lines.end()) line = it->second;
        else if (auto table = lines.find(field.table); table != lines.end()) line = table->second;
        at.fail(line, label(field) + " " + what);
    }
    return s;
}

void validate(const Schema& schema, const Scenario& scenario, const UnknownNames& unknown) {
    for (const auto& field : schema.fields) {
        if (!applies(field, scenario.model)) continue;
        const std::string what = problem(field, scenario, unknown);
        if (!what.empty())
            throw UsageError("scenario '" + scenario.name + "': " + label(field) + " " + what);
    }
}

void set_by_name(const Schema& schema, Scenario& scenario, const std::string& key,
                 const std::string& name, UnknownNames& unknown) {
    const auto dot = key.find('.');
    const Field* field = dot == std::string::npos
                             ? nullptr
                             : find_field(schema, key.substr(0, dot), key.substr(dot + 1));
    if (field) {
        if (const auto* ref = std::get_if<EnumRef>(&field->ref)) {
            if (ref->set(scenario, name)) unknown.erase(key);
            else unknown[key] = name;
            return;
        }
        if (const auto* ref = std::get_if<TextRef>(&field->ref)) {
            (*ref)(scenario) = name;
            return;
        }
    }
    throw UsageError("no key '" + key + "' set by name in scenarios");
}

std::string to_toml(const Schema& schema, const Scenario& scenario) {
    auto& s = const_cast<Scenario&>(scenario);  // the schema's references are read only here
    std::ostringstream out;
    std::string table;
    for (const auto& field : schema.fields) {
        if (!applies(field, scenario.model)) continue;
        if (table != field.table) {
            out << (table.empty() ? "" : "\n") << "[" << field.table << "]\n";
            table = field.table;
        }
        if (const auto* custom = std::get_if<CustomRef>(&field.ref)) {
            custom->write(scenario, out);
            continue;
        }
        std::string value = std::visit(
            [&](auto ref) -> std::string {
                using T = decltype(ref);
                if constexpr (std::is_same_v<T, RealRef>) return format_double(ref(s));
                else if constexpr (std::is_same_v<T, ModeRef>) return format_mode(ref(s));
                else if constexpr (std::is_same_v<T, CustomRef>) return {};  // above
                else if constexpr (std::is_same_v<T, EnumRef>) return quote(ref.name(s));
                else if constexpr (std::is_same_v<T, CountRef>) return std::to_string(ref(s));
                else if constexpr (std::is_same_v<T, IntRef>) return std::to_string(ref(s));
                else if constexpr (std::is_same_v<T, TextRef>) return quote(ref(s));
                else if constexpr (std::is_same_v<T, PathRef>) return quote(ref(s).string());
                else if constexpr (std::is_same_v<T, PairRef>)
                    return "[" + format_double(ref(s)[0]) + ", " + format_double(ref(s)[1]) + "]";
                else return quote(to_string(ref(s)));
            },
            field.ref);
        std::string line = std::string(field.key) + " = " + value;
        if (*field.comment) {
            if (line.size() < 32) line.resize(32, ' ');
            else line += "  ";
            line += std::string("# ") + field.comment;
        }
        out << line << "\n";
    }
    return out.str();
}

} // namespace partcl::detail
