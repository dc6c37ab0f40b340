// The program cache: warm builds skip the compiler, keys follow everything that changes a
// binary, damaged entries are rebuilt, PARTCL_CACHE=off writes nothing.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <set>

#include <fcntl.h>
#include <unistd.h>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;
using Origin = DeviceBuild::Origin;

namespace {

bool all_origins(const Program& program, Origin origin) {
    bool all = !program.builds().empty();
    for (const auto& build : program.builds()) {
        INFO(build.device << ": " << to_string(build.origin));
        all = all && build.origin == origin;
    }
    return all;
}

std::size_t file_count(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return 0;
    std::size_t n = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) ++n;
    return n;
}

// real_check built through `cache` gives correct results on every device.
void check_results(const Program& program) {
    Context& context = test_context();
    for (std::size_t d = 0; d < context.size(); ++d) {
        const std::uint32_t seed = fresh_seed();
        const auto run = run_real_check(context, d, program, real_check_input(37, seed), 8);
        check_real_check(run, program.precision(), seed);
    }
}

// Devices with the same name, driver and platform share one binary, so one entry.
std::size_t distinct_devices(const Context& context) {
    std::set<std::string> seen;
    for (const auto& device : context.devices()) {
        const DeviceInfo& d = device.info();
        seen.insert(d.platform + '\n' + d.platform_version + '\n' + d.name + '\n' + d.vendor +
                    '\n' + d.device_version + '\n' + d.driver_version);
    }
    return seen.size();
}

ProgramCache::Settings on_disk(const fs::path& dir) { return ProgramCache::Settings{true, dir}; }

std::string bytes_of(const fs::path& file) { return read_file(file); }

void put_bytes(const fs::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
}

std::vector<unsigned char> blob(std::size_t size, unsigned seed) {
    std::vector<unsigned char> data(size);
    for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<unsigned char>(seed * 131 + i * 7);
    return data;
}

DeviceInfo fake_device() {
    DeviceInfo info;
    info.name = "FakeDevice";
    info.vendor = "Fake Vendor";
    info.platform = "Fake Platform";
    info.platform_version = "OpenCL 1.2 fake";
    info.device_version = "OpenCL 1.2 fake";
    info.driver_version = "1.0";
    return info;
}

} // namespace

TEST_SUITE("cache") {

TEST_CASE("a warm build skips the compiler: memory, then disk") {
    Context& context = test_context();
    TempDir dir("cache");
    const fs::path cache_dir = dir / "cache";
    {
        ProgramCache cache(on_disk(cache_dir));
        CHECK(cache.disk_enabled());
        CHECK(cache.directory() == cache_dir);
        const Program cold = build_program(context, real_check_source(), {}, cache);
        CHECK(all_origins(cold, Origin::compiled));
        const auto entries = cache.list();
        REQUIRE(entries.size() == distinct_devices(context));
        for (std::size_t i = 0; i < entries.size(); ++i) {
            CHECK(entries[i].valid);
            CHECK(entries[i].program == "common/real_check.cl");
            CHECK(entries[i].bytes > 0);
            CHECK(entries[i].file.parent_path() == cache_dir);
        }
        CHECK(entries[0].device == context.device(0).info().name);
        CHECK(file_count(cache_dir) == distinct_devices(context));  // no temporary files left behind

        const Program again = build_program(context, real_check_source(), {}, cache);
        CHECK(all_origins(again, Origin::memory_cache));
        check_results(again);
        MESSAGE("cold build " << cold.builds()[0].seconds << " s, memory hit "
                              << again.builds()[0].seconds << " s");
    }
    {
        ProgramCache fresh(on_disk(cache_dir));  // as a new process would
        const Program warm = build_program(context, real_check_source(), {}, fresh);
        CHECK(all_origins(warm, Origin::disk_cache));
        CHECK(warm.kernel_names() == std::vector<std::string>{"real_check"});
        check_results(warm);
        MESSAGE("disk hit " << warm.builds()[0].seconds << " s");
        CHECK(fresh.list().size() == distinct_devices(context));

        // forget_memory() sends the next build back to the disk.
        CHECK(all_origins(build_program(context, real_check_source(), {}, fresh),
                          Origin::memory_cache));
        fresh.forget_memory();
        CHECK(all_origins(build_program(context, real_check_source(), {}, fresh),
                          Origin::disk_cache));

        CHECK(fresh.clear() == distinct_devices(context));
        CHECK(fresh.list().empty());
        ProgramCache after_clear(on_disk(cache_dir));
        CHECK(all_origins(build_program(context, real_check_source(), {}, after_clear),
                          Origin::compiled));
    }
}

TEST_CASE("a disabled disk cache never writes files") {
    Context& context = test_context();
    TempDir dir("cache-off");
    const fs::path cache_dir = dir / "cache";
    ProgramCache off(ProgramCache::Settings{false, cache_dir});
    CHECK_FALSE(off.disk_enabled());
    CHECK(all_origins(build_program(context, real_check_source(), {}, off), Origin::compiled));
    CHECK(all_origins(build_program(context, real_check_source(), {}, off), Origin::memory_cache));
    ProgramCache off_again(ProgramCache::Settings{false, cache_dir});
    CHECK(all_origins(build_program(context, real_check_source(), {}, off_again),
                      Origin::compiled));
    CHECK(file_count(dir.path()) == 0);
    CHECK_FALSE(off.store(ProgramCache::key("x", "", fake_device()), CacheEntry{}, blob(100, 1)));
    CHECK(file_count(dir.path()) == 0);
    CHECK_FALSE(off.load(ProgramCache::key("x", "", fake_device())).has_value());
    CHECK(off.list().empty());
}

TEST_CASE("settings from the environment") {
    EnvGuard xdg("XDG_CACHE_HOME", std::string("/tmp/partcl-xdg-test"));
    {
        EnvGuard mode("PARTCL_CACHE", std::nullopt);
        EnvGuard dir("PARTCL_CACHE_DIR", std::string("/tmp/partcl-cache-dir-test"));
        const auto s = ProgramCache::settings_from_environment();
        CHECK(s.disk);
        CHECK(s.directory == fs::path("/tmp/partcl-cache-dir-test"));
    }
    {
        EnvGuard mode("PARTCL_CACHE", std::string("off"));
        EnvGuard dir("PARTCL_CACHE_DIR", std::nullopt);
        const auto s = ProgramCache::settings_from_environment();
        CHECK_FALSE(s.disk);
        CHECK(s.directory == fs::path("/tmp/partcl-xdg-test/partcl"));
    }
    {
        EnvGuard mode("PARTCL_CACHE", std::nullopt);
        EnvGuard dir("PARTCL_CACHE_DIR", std::nullopt);
        EnvGuard no_xdg("XDG_CACHE_HOME", std::nullopt);
        EnvGuard home("HOME", std::string("/tmp/partcl-home-test"));
        const auto s = ProgramCache::settings_from_environment();
        CHECK(s.disk);
        CHECK(s.directory == fs::path("/tmp/partcl-home-test/.cache/partcl"));
    }
}

TEST_CASE("the key covers source, options, precision and the device") {
    const DeviceInfo device = fake_device();
    const std::string source = real_check_source().expand();
    BuildOptions single, twice, defined;
    twice.precision = Precision::float64;
    defined.define("EXTRA", 1);
    const std::string k = ProgramCache::key(source, single.compiler_options(), device);
    CHECK(k == ProgramCache::key(source, single.compiler_options(), device));  // deterministic
    CHECK(k.size() >= 32);
    CHECK(k != ProgramCache::key(source + " ", single.compiler_options(), device));
    CHECK(k != ProgramCache::key(source, twice.compiler_options(), device));
    CHECK(k != ProgramCache::key(source, defined.compiler_options(), device));
    auto changed = [&](auto edit) {
        DeviceInfo other = device;
        edit(other);
        return ProgramCache::key(source, single.compiler_options(), other) != k;
    };
    CHECK(changed([](DeviceInfo& d) { d.name += "2"; }));
    CHECK(changed([](DeviceInfo& d) { d.driver_version = "1.1"; }));
    CHECK(changed([](DeviceInfo& d) { d.platform = "Other Platform"; }));
    CHECK(changed([](DeviceInfo& d) { d.device_version = "OpenCL 3.0 fake"; }));

    // Through real builds: each change is a compile and a new entry, the original stays warm.
    Context& context = test_context();
    TempDir dir("cache-key");
    ProgramCache cache(on_disk(dir.path()));
    CHECK(all_origins(build_program(context, real_check_source(), single, cache), Origin::compiled));
    CHECK(all_origins(build_program(context, real_check_source(), defined, cache), Origin::compiled));
    CHECK(all_origins(build_program(context, real_check_source(), twice, cache), Origin::compiled));
    const Source edited = Source::from_string(
        "edited.cl", "#include \"common/real_check.cl\"\n// an edit\n");
    CHECK(all_origins(build_program(context, edited, single, cache), Origin::compiled));
    CHECK(cache.list().size() == 4 * distinct_devices(context));
    ProgramCache fresh(on_disk(dir.path()));
    for (const BuildOptions* options : {&single, &defined, &twice}) {
        const Program program = build_program(context, real_check_source(), *options, fresh);
        CHECK(all_origins(program, Origin::disk_cache));
        CHECK(program.precision() == options->precision);
        check_results(program);
    }
}

TEST_CASE("store and load: round trip, and every kind of damage is detected") {
    TempDir dir("cache-store");
    ProgramCache cache(on_disk(dir / "c"));
    const std::string key = ProgramCache::key("kernel text", "-cl-std=CL1.2", fake_device());
    CHECK_FALSE(cache.load(key).has_value());  // absent, no directory yet
    const auto data = blob(100000, 3);
    CHECK(cache.store(key, CacheEntry{{}, "prog.cl", "FakeDevice", "-cl-std=CL1.2"}, data));
    const fs::path file = cache.entry_path(key);
    CHECK(fs::exists(file));
    CHECK(file.parent_path() == dir / "c");
    const auto loaded = cache.load(key);
    REQUIRE(loaded.has_value());
    CHECK(*loaded == data);
    const auto entries = cache.list();
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].valid);
    CHECK(entries[0].file == file);
    CHECK(entries[0].program == "prog.cl");
    CHECK(entries[0].device == "FakeDevice");
    CHECK(entries[0].options == "-cl-std=CL1.2");
    CHECK(entries[0].bytes == fs::file_size(file));

    const std::string good = bytes_of(file);
    std::mt19937 rng(fresh_seed());
    std::string garbage(good.size(), '\0');
    for (char& c : garbage) c = char(rng());
    std::string flipped_middle = good, flipped_last = good, flipped_header = good;
    flipped_middle[good.size() / 2] ^= 0x20;
    flipped_last[good.size() - 1] ^= 0x01;
    flipped_header[5] ^= 0x01;
    const std::pair<const char*, std::string> damages[] = {
        {"truncated to half", good.substr(0, good.size() / 2)},
        {"truncated to 0", std::string()},
        {"truncated by one byte", good.substr(0, good.size() - 1)},
        {"one byte appended", good + "x"},
        {"byte flipped in the middle", flipped_middle},
        {"last byte flipped", flipped_last},
        {"byte flipped in the header", flipped_header},
        {"garbage", garbage},
    };
    for (const auto& [what, bytes] : damages) {
        CAPTURE(what);
        put_bytes(file, bytes);
        const auto listed = cache.list();
        REQUIRE(listed.size() == 1);
        CHECK_FALSE(listed[0].valid);
        CHECK_FALSE(cache.load(key).has_value());
        CHECK_FALSE(fs::exists(file));  // a damaged entry is deleted
        CHECK(cache.store(key, CacheEntry{{}, "prog.cl", "FakeDevice", ""}, data));
        CHECK(cache.load(key) == data);
    }
    // The entry of another key, renamed into this key's place, is not this key's binary.
    const std::string other = ProgramCache::key("other text", "", fake_device());
    CHECK(cache.store(other, CacheEntry{{}, "other.cl", "FakeDevice", ""}, blob(5000, 9)));
    fs::rename(cache.entry_path(other), file);
    CHECK_FALSE(cache.load(key).has_value());

    cache.remove(key);
    CHECK_FALSE(fs::exists(file));
    CHECK_NOTHROW(cache.remove(key));
    CHECK(cache.store(key, CacheEntry{}, data));
    CHECK(cache.store(other, CacheEntry{}, data));
    CHECK(cache.clear() == 2);
    CHECK(cache.list().empty());
    // An unwritable location is not an error for the build, only a false, said once on stderr.
    ProgramCache nowhere(on_disk("/proc/partcl-cannot-write-here"));
    TempDir err("cache-stderr");
    std::fflush(stderr);
    const int saved = ::dup(2);
    const int sink = ::open((err / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(saved >= 0);
    REQUIRE(sink >= 0);
    ::dup2(sink, 2);
    const bool first = nowhere.store(key, CacheEntry{}, data);
    const bool second = nowhere.store(other, CacheEntry{}, data);
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    ::close(sink);
    CHECK_FALSE(first);
    CHECK_FALSE(second);
    const std::string said = read_file(err / "stderr");
    INFO("stderr: " << said);
    CHECK(contains(said, "cannot write the program cache in /proc/partcl-cannot-write-here"));
    CHECK(said.find("partcl:") == said.rfind("partcl:"));  // once
}

TEST_CASE("a corrupted cache entry is recovered: rebuilt, correct, and replaced") {
    Context& context = test_context();
    TempDir dir("cache-damage");
    const fs::path cache_dir = dir / "cache";
    {
        ProgramCache cache(on_disk(cache_dir));
        CHECK(all_origins(build_program(context, real_check_source(), {}, cache),
                          Origin::compiled));
    }
    const auto entries = ProgramCache(on_disk(cache_dir)).list();
    REQUIRE(entries.size() == distinct_devices(context));
    const fs::path file = entries[0].file;
    const std::string good = bytes_of(file);
    const std::string key = file.stem().string();
    REQUIRE(ProgramCache(on_disk(cache_dir)).entry_path(key) == file);

    std::mt19937 rng(fresh_seed());
    using Damage = std::function<void()>;
    const std::pair<const char*, Damage> damages[] = {
        {"truncated to half", [&] { fs::resize_file(file, good.size() / 2); }},
        {"truncated to 0", [&] { fs::resize_file(file, 0); }},
        {"byte flipped in the middle",
         [&] {
             std::string bytes = good;
             bytes[bytes.size() / 2] ^= 0x5a;
             put_bytes(file, bytes);
         }},
        {"replaced with garbage",
         [&] {
             std::string bytes(good.size(), '\0');
             for (char& c : bytes) c = char(rng());
             put_bytes(file, bytes);
         }},
        {"deleted", [&] { fs::remove(file); }},
        // A well-formed entry (checksum right) whose binary the driver rejects.
        {"a binary the driver rejects",
         [&] {
             ProgramCache(on_disk(cache_dir))
                 .store(key, CacheEntry{{}, "common/real_check.cl", entries[0].device, ""},
                        blob(good.size(), 77));
             REQUIRE(ProgramCache(on_disk(cache_dir)).list().at(0).valid);
         }},
    };
    for (const auto& [what, damage] : damages) {
        CAPTURE(what);
        REQUIRE(bytes_of(file) == good);
        damage();
        ProgramCache fresh(on_disk(cache_dir));
        Program rebuilt = [&] {
            try {
                return build_program(context, real_check_source(), {}, fresh);
            } catch (const std::exception& error) {
                FAIL("the build threw: " << error.what());
                throw;
            }
        }();
        CHECK(all_origins(rebuilt, Origin::compiled));
        check_results(rebuilt);
        // Valid again afterwards: listed as valid, and the next process loads it from disk.
        const auto after = ProgramCache(on_disk(cache_dir)).list();
        REQUIRE(after.size() == distinct_devices(context));
        for (const auto& entry : after) CHECK(entry.valid);
        ProgramCache next(on_disk(cache_dir));
        const Program warm = build_program(context, real_check_source(), {}, next);
        CHECK(all_origins(warm, Origin::disk_cache));
        check_results(warm);
        CHECK(file_count(cache_dir) == distinct_devices(context));
        put_bytes(file, good);  // start the next damage from the original entry
    }
}

} // TEST_SUITE
