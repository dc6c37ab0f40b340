#include <partcl/jit/program_cache.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>
#include <partcl/support/digest.hpp>
#include <partcl/version.hpp>

#include "backend/interface.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace partcl {

namespace fs = std::filesystem;

namespace {

// Version 2: SHA-256 keys and checksums (version 1 used SHA-1; its files are never read as
// entries, and `partcl cache list` shows them as damaged).
constexpr const char* magic = "partcl-program-cache 2";
constexpr std::size_t hex_digits = 64;

std::string sha256_hex(const void* data, std::size_t size) {
    return to_hex(sha256_digest(data, size));
}

std::uint64_t new_identity() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next++;
}

std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

struct Parsed {
    CacheEntry entry;
    std::string key;
    std::vector<unsigned char> binary;
};

// Parses and verifies one entry; nothing on any damage.
std::optional<Parsed> parse(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string line;
    if (!std::getline(in, line) || line != magic) return std::nullopt;
    Parsed parsed;
    parsed.entry.file = file;
    std::string checksum;
    long long bytes = -1;
    while (std::getline(in, line) && !line.empty()) {
        const auto colon = line.find(": ");
        if (colon == std::string::npos) return std::nullopt;
        const std::string field = line.substr(0, colon), value = line.substr(colon + 2);
        if (field == "key") parsed.key = value;
        else if (field == "program") parsed.entry.program = value;
        else if (field == "device") parsed.entry.device = value;
        else if (field == "options") parsed.entry.options = value;
        else if (field == "sha256") checksum = value;
        else if (field == "bytes") {
            try {
                bytes = std::stoll(value);
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
    }
    if (!in || bytes < 0 || checksum.size() != hex_digits || parsed.key.empty()) return std::nullopt;
    const auto body = in.tellg();
    in.seekg(0, std::ios::end);
    if (!in || in.tellg() - body != bytes) return std::nullopt;  // truncated or padded
    in.seekg(body);
    parsed.binary.resize(static_cast<std::size_t>(bytes));
    if (!in.read(reinterpret_cast<char*>(parsed.binary.data()), bytes)) return std::nullopt;
    if (sha256_hex(parsed.binary.data(), parsed.binary.size()) != checksum) return std::nullopt;
    std::error_code ec;
    parsed.entry.bytes = fs::file_size(file, ec);
    parsed.entry.valid = true;
    return parsed;
}

bool is_entry(const fs::path& path) { return path.extension() == ".bin"; }
bool is_note(const fs::path& path) { return path.extension() == ".note"; }
bool is_temporary(const fs::path& path) {
    return path.filename().string().find(".tmp.") != std::string::npos;
}

// The entry in one atomic write (readers see the old file or the new one). Empty on success,
// else why the entry could not be written.
std::string write_entry(const fs::path& path, std::string contents) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return "cannot create the directory: " + ec.message();
    try {
        write_file_atomically(path, contents);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

ProgramCache::Settings ProgramCache::settings_from_environment() {
    Settings settings;
    if (const char* mode = std::getenv("PARTCL_CACHE")) {
        const std::string m = mode;
        settings.disk = !(m == "off" || m == "0" || m == "false" || m == "no");
    }
    if (const char* dir = std::getenv("PARTCL_CACHE_DIR"); dir && *dir) {
        settings.directory = dir;
    } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
        settings.directory = fs::path(xdg) / "partcl";
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        settings.directory = fs::path(home) / ".cache" / "partcl";
    } else {
        settings.directory = fs::temp_directory_path() / ("partcl-cache-" + std::to_string(getuid()));
    }
    return settings;
}

ProgramCache::ProgramCache(Settings settings)
    : settings_(std::move(settings)), identity_(new_identity()) {}

ProgramCache& ProgramCache::global() {
    static ProgramCache cache;
    return cache;
}

std::string ProgramCache::key(const std::string& expanded_source, const std::string& options,
                              const DeviceInfo& device) {
    std::string text;
    text.reserve(expanded_source.size() + 512);
    text += std::string("partcl ") + version + "\n";
    text += "platform: " + device.platform + " | " + device.platform_version + "\n";
    text += "device: " + device.name + " | " + device.vendor + " | " + device.device_version +
            " | " + device.driver_version + "\n";
    text += "options: " + options + "\n";
    text += "source:\n" + expanded_source;
    return sha256_hex(text.data(), text.size());
}

fs::path ProgramCache::entry_path(const std::string& key) const {
    return settings_.directory / (key + ".bin");
}

std::optional<std::vector<unsigned char>> ProgramCache::load(const std::string& key) const {
    if (!settings_.disk) return std::nullopt;
    const fs::path file = entry_path(key);
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    auto parsed = parse(file);
    if (!parsed || parsed->key != key) {
        fs::remove(file, ec);  // damaged: rebuilt and replaced by the caller
        return std::nullopt;
    }
    return std::move(parsed->binary);
}

bool ProgramCache::store(const std::string& key, const CacheEntry& about,
                         const std::vector<unsigned char>& binary) const {
    if (!settings_.disk || binary.empty()) return false;
    std::ostringstream header;
    header << magic << "\n"
           << "key: " << key << "\n"
           << "program: " << one_line(about.program) << "\n"
           << "device: " << one_line(about.device) << "\n"
           << "options: " << one_line(about.options) << "\n"
           << "bytes: " << binary.size() << "\n"
           << "sha256: " << sha256_hex(binary.data(), binary.size()) << "\n\n";
    header.write(reinterpret_cast<const char*>(binary.data()), std::streamsize(binary.size()));
    return stored(write_entry(entry_path(key), header.str()));
}

std::optional<std::string> ProgramCache::load_note(const std::string& key) const {
    if (!settings_.disk) return std::nullopt;
    std::ifstream in(settings_.directory / (key + ".note"), std::ios::binary);
    std::string first, text;
    // First line: the checksum of the rest, so a damaged note is ignored like a damaged binary.
    if (!in || !std::getline(in, first)) return std::nullopt;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (first != "sha256: " + sha256_hex(text.data(), text.size())) return std::nullopt;
    return text;
}

bool ProgramCache::store_note(const std::string& key, const std::string& text) const {
    if (!settings_.disk) return false;
    return stored(write_entry(settings_.directory / (key + ".note"),
                              "sha256: " + sha256_hex(text.data(), text.size()) + "\n" + text));
}

bool ProgramCache::stored(const std::string& failure) const {
    if (failure.empty()) return true;
    // A cache that cannot be written costs every later run its compile time: said once.
    if (!warned_.exchange(true))
        std::fprintf(stderr,
                     "partcl: cannot write the program cache in %s: %s; kernels will be compiled "
                     "again by later runs (PARTCL_CACHE_DIR chooses another directory, "
                     "PARTCL_CACHE=off turns the disk cache off)\n",
                     settings_.directory.c_str(), failure.c_str());
    return false;
}

void ProgramCache::remove(const std::string& key) const {
    std::error_code ec;
    fs::remove(entry_path(key), ec);
}

std::vector<CacheEntry> ProgramCache::list() const {
    std::vector<CacheEntry> entries;
    std::error_code ec;
    if (!fs::is_directory(settings_.directory, ec)) return entries;
    for (const auto& item : fs::directory_iterator(settings_.directory, ec)) {
        if (!item.is_regular_file() || !is_entry(item.path())) continue;
        if (auto parsed = parse(item.path())) {
            entries.push_back(std::move(parsed->entry));
        } else {
            CacheEntry damaged;
            damaged.file = item.path();
            damaged.bytes = fs::file_size(item.path(), ec);
            entries.push_back(std::move(damaged));
        }
    }
    std::sort(entries.begin(), entries.end(),
              [](const CacheEntry& a, const CacheEntry& b) { return a.file < b.file; });
    return entries;
}

std::size_t ProgramCache::clear() const {
    std::size_t removed = 0;
    std::error_code ec;
    if (!fs::is_directory(settings_.directory, ec)) return 0;
    std::vector<fs::path> doomed;
    for (const auto& item : fs::directory_iterator(settings_.directory, ec))
        if (item.is_regular_file() &&
            (is_entry(item.path()) || is_note(item.path()) || is_temporary(item.path())))
            doomed.push_back(item.path());
    for (const auto& path : doomed)
        if (fs::remove(path, ec) && is_entry(path)) ++removed;
    return removed;
}

std::shared_ptr<detail::ProgramImpl> ProgramCache::find(const Context& context,
                                                        const std::string& key) const {
    return context.impl().find_program(identity_.load(), key);
}

void ProgramCache::remember(const Context& context, const std::string& key,
                            std::shared_ptr<detail::ProgramImpl> program) const {
    context.impl().remember_program(identity_.load(), key, std::move(program));
}

void ProgramCache::forget_memory() noexcept { identity_ = new_identity(); }

} // namespace partcl
