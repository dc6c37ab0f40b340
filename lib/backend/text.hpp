#pragma once
// Text the backends get from drivers and compilers.
#include <string>

namespace partcl::detail {

// Without the newlines, blanks and NULs that build logs and name lists end with.
inline std::string trim_end(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0'))
        text.pop_back();
    return text;
}

} // namespace partcl::detail
