#pragma once
// The cl/ tree as compiled into the library (see cmake/EmbedFiles.cmake).
#include <cstddef>

namespace partcl::detail {

struct EmbeddedFile {
    const char* path;  // relative to cl/, '/'-separated
    const char* data;
    std::size_t size;
};

extern const EmbeddedFile embedded_kernel_files[];
extern const std::size_t embedded_kernel_file_count;

} // namespace partcl::detail
