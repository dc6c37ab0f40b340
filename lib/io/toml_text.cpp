#include "io/toml_text.hpp"

#include <partcl/backend/error.hpp>

namespace partcl::detail {

namespace {

bool non_ascii(char c) { return static_cast<unsigned char>(c) >= 0x80; }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

} // namespace

void check_toml_text(const std::string& text, const std::string& source_name) {
    enum class In { code, comment, basic, literal, multi_basic, multi_literal };
    In in = In::code;
    std::size_t line = 1, column = 1;
    auto fail = [&](const std::string& what) {
        throw UsageError(source_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": " + what);
    };
    auto starts = [&](std::size_t i, const char* delimiter) {
        return text.compare(i, 3, delimiter) == 0;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        switch (in) {
        case In::code:
            if (non_ascii(c))
                fail("a non-ASCII character outside a string or comment (TOML allows them only "
                     "in strings and comments)");
            if (c == '#') in = In::comment;
            else if (starts(i, "\"\"\"")) in = In::multi_basic, i += 2, column += 2;
            else if (starts(i, "'''")) in = In::multi_literal, i += 2, column += 2;
            else if (c == '"') in = In::basic;
            else if (c == '\'') in = In::literal;
            break;
        case In::comment:
            if (c == '\n') in = In::code;
            break;
        case In::basic:
            if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i, ++column;
            else if (c == '"' || c == '\n') in = In::code;
            break;
        case In::literal:
            if (c == '\'' || c == '\n') in = In::code;
            break;
        case In::multi_basic:
            if (c == '\\' && i + 1 < text.size()) {
                if (non_ascii(text[i + 1])) fail("a backslash before a non-ASCII character");
                if (blank(text[i + 1])) {
                    // A line-ending backslash trims the blanks up to the next character.
                    std::size_t j = i + 1;
                    while (j < text.size() && blank(text[j])) ++j;
                    if (j < text.size() && non_ascii(text[j]))
                        fail("a non-ASCII character right after a line-ending backslash: put it "
                             "before the backslash, or escape it (\\uXXXX)");
                } else {
                    ++i, ++column;  // an escape: \" does not end the string
                }
            } else if (starts(i, "\"\"\"")) {
                in = In::code, i += 2, column += 2;
            }
            break;
        case In::multi_literal:
            if (starts(i, "'''")) in = In::code, i += 2, column += 2;
            break;
        }
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) {
            ++column;  // a character, not a UTF-8 continuation byte
        }
    }
}

} // namespace partcl::detail
