// The values the backends' compilers take and give.
#include <partcl/backend/build.hpp>
#include <partcl/backend/error.hpp>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

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

const char* to_string(DeviceBuild::Origin origin) noexcept {
    switch (origin) {
    case DeviceBuild::Origin::compiled: return "compiled";
    case DeviceBuild::Origin::disk_cache: return "disk cache";
    default: return "memory cache";
    }
}

std::string map_log_locations(const std::string& log, const std::string& expanded) {
    // (file, line) of every line of the expanded source, from the #line markers it carries.
    static const std::regex marker(R"re(^#line ([0-9]+) "((?:[^"\\]|\\.)*)"$)re");
    std::vector<std::pair<std::string, std::size_t>> origin{{"", 0}};  // 1-based
    std::istringstream lines(expanded);
    std::string line, file;
    std::size_t next = 1;
    std::smatch match;
    while (std::getline(lines, line)) {
        if (std::regex_match(line, match, marker)) {
            origin.emplace_back(file, 0);
            next = std::stoul(match[1].str());
            file.clear();
            const std::string quoted_name = match[2].str();
            for (std::size_t i = 0; i < quoted_name.size(); ++i) {
                if (quoted_name[i] == '\\' && i + 1 < quoted_name.size()) ++i;
                file += quoted_name[i];
            }
            continue;
        }
        origin.emplace_back(file, next++);
    }
    static const std::regex location(R"re((<kernel>|<source>|<stdin>|input\.cl):([0-9]+))re");
    std::string out;
    auto begin = log.cbegin();
    for (std::sregex_iterator it(log.begin(), log.end(), location), end; it != end; ++it) {
        const std::size_t at = std::stoul((*it)[2].str());
        out.append(begin, log.cbegin() + it->position());
        if (at < origin.size() && origin[at].second > 0)
            out += origin[at].first + ":" + std::to_string(origin[at].second);
        else
            out += it->str();
        begin = log.cbegin() + it->position() + it->length();
    }
    out.append(begin, log.cend());
    return out;
}

} // namespace partcl
