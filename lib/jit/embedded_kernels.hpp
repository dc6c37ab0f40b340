#pragma once
// The cl/ tree as compiled into the library (see cmake/EmbedFiles.cmake): paths relative to cl/.
#include <cstddef>

#include "support/embedded_file.hpp"

namespace partcl::detail {

extern const EmbeddedFile embedded_kernel_files[];
extern const std::size_t embedded_kernel_file_count;

} // namespace partcl::detail
