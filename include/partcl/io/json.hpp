#pragma once
// JSON output (benchmarks' JSON lines, `partcl devices --json`): only what writing needs.
#include <string>

namespace partcl {

// `text` as a JSON string literal, quotes included. Invalid UTF-8 becomes U+FFFD, so the
// output is always valid JSON whatever a driver puts in its strings.
std::string json_string(const std::string& text);

} // namespace partcl
