#pragma once
// A file compiled into the library by cmake/EmbedFiles.cmake (the cl/ kernels, the built-in
// scenarios): the lowest layer's, so that each layer embedding files reads the same record.
#include <cstddef>

namespace partcl::detail {

struct EmbeddedFile {
    const char* path;  // relative to the embedded folder, '/'-separated
    const char* data;
    std::size_t size;
};

} // namespace partcl::detail
