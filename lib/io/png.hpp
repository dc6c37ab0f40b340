#pragma once
// The PNG encoder, private to partcl's io layer: stb_image_write is compiled once, with internal
// linkage, in render.cpp, and every picture io writes (frames, plots) goes through this.
#include <filesystem>
#include <vector>

namespace partcl::detail {

// 8-bit RGB rows, top row first (width * height * 3 bytes), encoded in memory and written
// atomically; throws Error when encoding or writing fails.
void write_png(const std::filesystem::path& png, const std::vector<unsigned char>& rgb, int width,
               int height);

} // namespace partcl::detail
