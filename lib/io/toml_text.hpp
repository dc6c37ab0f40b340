#pragma once
// Checks scenario text before toml++ reads it. Debian 12's toml++ 3.3.0 reaches
// __builtin_unreachable (undefined behaviour) when it asks whether some non-ASCII characters
// (Latin-1 letters such as 'é' among them) are whitespace, which it does for every such
// character outside a string or comment and in the whitespace a multi-line string's
// line-ending backslash trims (fixed in toml++ 3.4). TOML allows non-ASCII characters only in
// strings and comments, so refusing them elsewhere refuses nothing valid; the one valid form it
// refuses, a non-ASCII character right after a trimmed line end, gets a message that says how to
// write it. Private to the io layer.
#include <string>

namespace partcl::detail {

// UsageError "SOURCE:LINE:COLUMN: ..." for such a character; nothing otherwise.
void check_toml_text(const std::string& text, const std::string& source_name);

} // namespace partcl::detail
