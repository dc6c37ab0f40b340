#pragma once
// Atomic file replacement: the new contents go to a temporary file in the target's directory
// (so the rename never crosses file systems), which is flushed to disk (fsync) and then renamed
// over the target. A reader, or a crash at any moment, sees either the old file or the complete
// new one, never a partial file. On any failure the temporary file is removed and the old file
// is left untouched.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

namespace partcl {

// Calls `write(temporary)`, which must create and fill the file at `temporary` (a path in the
// same directory as `target` that does not exist yet) and close it; then makes it the target.
// This lets libraries that open files by name (HDF5, stb) write atomically. An exception from
// `write` propagates unchanged after the temporary is removed. Errors of the replacement itself
// throw partcl::Error naming the path and the system's reason, e.g.
// "cannot write out/frame.png: No space left on device". The target's directory must exist.
void write_file_atomically(const std::filesystem::path& target,
                           const std::function<void(const std::filesystem::path& temporary)>& write);

// Writes `contents` (bytes, not reinterpreted) as the whole new file.
void write_file_atomically(const std::filesystem::path& target, const std::string& contents);

// The temporary name the next write of `target` would use is `target` + ".tmp.<pid>.<n>"; a
// leftover one (from a process that was killed) matches this test.
bool is_atomic_temporary(const std::filesystem::path& path);

// Removes the temporaries in `directory` left by processes that no longer run (killed while
// writing); those of live processes stay. Returns how many went. Never throws for a file.
std::size_t remove_stale_temporaries(const std::filesystem::path& directory);

} // namespace partcl
