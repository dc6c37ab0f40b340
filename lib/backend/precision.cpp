#include <partcl/backend/error.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl {

const char* to_string(Precision precision) noexcept {
    return precision == Precision::float64 ? "double" : "float";
}

Precision parse_precision(const std::string& text) {
    if (text == "float" || text == "single" || text == "float32") return Precision::float32;
    if (text == "double" || text == "float64") return Precision::float64;
    throw UsageError("unknown precision '" + text + "' (use float or double)");
}

} // namespace partcl
