#pragma once
// The floating-point type of a program's `real` and of the buffers it reads, chosen at run time.
#include <cstddef>
#include <string>

namespace partcl {

enum class Precision { float32, float64 };

const char* to_string(Precision precision) noexcept;  // "float" / "double"
Precision parse_precision(const std::string& text);   // "float"|"single"|"double"; UsageError
inline std::size_t size_of(Precision precision) noexcept {
    return precision == Precision::float64 ? 8 : 4;
}

} // namespace partcl
