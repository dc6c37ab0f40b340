#include <partcl/jit/options.hpp>
#include <partcl/runtime/error.hpp>

#include <algorithm>
#include <cctype>

namespace partcl {

BuildOptions& BuildOptions::define(const std::string& name, const std::string& value) {
    const bool identifier =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
        std::all_of(name.begin(), name.end(),
                    [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    if (!identifier) throw UsageError("bad macro name '" + name + "' in a define");
    // Compilers split the option string at blanks; a value with blanks or quotes would be cut.
    for (unsigned char c : value)
        if (std::isspace(c) || c == '"' || c == '\'' || c == '\\')
            throw UsageError("the value of macro " + name + " ('" + value +
                             "') holds a blank, quote or backslash, which compiler options cannot carry");
    defines.emplace_back(name, value);
    return *this;
}

std::vector<std::string> BuildOptions::macro_options() const {
    std::vector<std::string> list;
    if (precision == Precision::float64) list.push_back("-DPARTCL_DOUBLE=1");
    for (const auto& [name, value] : defines)
        list.push_back("-D" + name + (value.empty() ? "" : "=" + value));
    return list;
}

std::string BuildOptions::compiler_options() const {
    std::string text = "-cl-std=CL1.2";
    for (const auto& macro : macro_options()) text += " " + macro;
    for (const auto& flag : flags) text += " " + flag;
    return text;
}

} // namespace partcl
