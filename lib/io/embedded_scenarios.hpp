#pragma once
// The built-in scenarios, examples/scenarios/NAME.toml, as compiled into the library (see
// lib/CMakeLists.txt and cmake/EmbedFiles.cmake): path "NAME.toml", in their listed order.
#include <cstddef>

#include "support/embedded_file.hpp"

namespace partcl::detail {

extern const EmbeddedFile embedded_scenario_files[];
extern const std::size_t embedded_scenario_file_count;

} // namespace partcl::detail
