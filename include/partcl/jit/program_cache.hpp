#pragma once
// ProgramCache: compiled programs kept in memory (per context) and on disk (per device),
// so a program is compiled once per machine, not once per run.
//
// The key is a SHA-1 over everything that changes a binary: the full source after includes,
// the compiler options, the platform, device and driver names and versions, and the partcl
// version. Each disk entry carries a checksum of its binary; an entry that is truncated,
// corrupt or rejected by the driver is removed and rebuilt, never used. Entries are written to a
// temporary file and renamed into place, so processes sharing a cache never see half a file.
//
// Location: PARTCL_CACHE_DIR, else $XDG_CACHE_HOME/partcl, else ~/.cache/partcl.
// PARTCL_CACHE=off keeps the disk out of it (the memory tier stays).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>

namespace partcl {

namespace detail {
class ProgramImpl;
}

// What a disk entry was built from, kept in its header for `partcl cache list`.
struct CacheEntry {
    std::filesystem::path file;
    std::string program;   // source name
    std::string device;
    std::string options;
    std::uintmax_t bytes = 0;  // file size
    bool valid = false;        // header and checksum verified
};

class ProgramCache {
public:
    struct Settings {
        bool disk = true;
        std::filesystem::path directory;
    };
    static Settings settings_from_environment();

    explicit ProgramCache(Settings settings = settings_from_environment());

    // The cache every build uses unless given another; configured from the environment on first
    // use.
    static ProgramCache& global();

    bool disk_enabled() const noexcept { return settings_.disk; }
    const std::filesystem::path& directory() const noexcept { return settings_.directory; }

    static std::string key(const std::string& expanded_source, const std::string& options,
                           const DeviceInfo& device);

    // The binary stored under `key`, or nothing when absent, unreadable or damaged (a damaged
    // entry is deleted). Never throws for a bad entry.
    std::optional<std::vector<unsigned char>> load(const std::string& key) const;
    // Writes atomically; a failure to write (read-only disk, full disk) is not an error for the
    // build that produced the binary, so it returns false instead of throwing, and says so on
    // stderr once per cache.
    bool store(const std::string& key, const CacheEntry& about,
               const std::vector<unsigned char>& binary) const;
    // Drops an entry the driver rejected.
    void remove(const std::string& key) const;

    // Small text results that depend on a device as binaries do (autotuned kernel shapes),
    // kept beside them under keys made the same way, written atomically, removed by clear().
    std::optional<std::string> load_note(const std::string& key) const;
    bool store_note(const std::string& key, const std::string& text) const;

    std::vector<CacheEntry> list() const;
    std::size_t clear() const;  // removes every entry; returns how many

    // Memory tier, kept in the context (an entry dies with it) under this cache's identity and
    // the program's combined key.
    std::shared_ptr<detail::ProgramImpl> find(const Context& context, const std::string& key) const;
    void remember(const Context& context, const std::string& key,
                  std::shared_ptr<detail::ProgramImpl> program) const;
    // Later builds through this cache find nothing in memory (the programs already remembered
    // stay with their contexts until those die).
    void forget_memory() noexcept;

    std::filesystem::path entry_path(const std::string& key) const;

private:
    // True after a write failed: says why on stderr, the first time.
    bool stored(const std::string& failure) const;

    Settings settings_;
    mutable std::atomic<bool> warned_{false};
    // Never reused, unlike an address, so a new cache cannot meet a dead one's programs.
    std::atomic<std::uint64_t> identity_;
};

} // namespace partcl
