// Four processes building the same program into the same cold cache directory at once. The
// parent starts this test binary four times (suite cache_race_child), releases them at the same
// moment, and checks that all succeed and that the cache they leave is valid.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.hpp"

extern char** environ;

using namespace partcl;
using namespace partcl_test;

namespace {

constexpr int processes = 4;
constexpr int rounds = 8;          // clear + build + run, per child
constexpr int hammer_stores = 300; // store/load pairs on one shared key, per child

// A blob whose every byte follows from its first 8 (the writer's tag) and its length, so a
// reader can tell a whole entry from a mix of two writers' bytes.
std::vector<unsigned char> tagged(std::uint64_t tag, std::size_t size) {
    std::vector<unsigned char> data(size);
    for (int b = 0; b < 8; ++b) data[b] = static_cast<unsigned char>(tag >> (8 * b));
    for (std::size_t i = 8; i < size; ++i)
        data[i] = static_cast<unsigned char>((tag * 2654435761u + i * 40503u) >> 7);
    return data;
}

bool consistent(const std::vector<unsigned char>& data) {
    if (data.size() < 8) return false;
    std::uint64_t tag = 0;
    for (int b = 0; b < 8; ++b) tag |= std::uint64_t(data[b]) << (8 * b);
    return data == tagged(tag, data.size());
}

DeviceInfo hammer_device() {
    DeviceInfo info;
    info.name = "RaceDevice";
    info.platform = "Race Platform";
    return info;
}

bool wait_for(const fs::path& file, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!fs::exists(file)) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return true;
}

pid_t spawn_child(const std::string& exe, int id, const fs::path& root) {
    EnvGuard dir("PARTCL_TEST_RACE_DIR", root.string());
    EnvGuard which("PARTCL_TEST_RACE_ID", std::to_string(id));
    std::vector<std::string> args{exe, "-ts=cache_race_child", "--no-skip", "--no-version"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ);
    REQUIRE_MESSAGE(error == 0, "posix_spawn failed: " << error);
    return pid;
}

} // namespace

TEST_SUITE("cache_race") {

TEST_CASE("four processes build the same program into one cold cache at once") {
    TempDir root("race");
    const fs::path cache_dir = root / "cache";
    const std::string exe = fs::read_symlink("/proc/self/exe").string();
    pid_t children[processes];
    for (int c = 0; c < processes; ++c) children[c] = spawn_child(exe, c, root.path());
    // The children set up OpenCL, say they are ready, and start on "go" together.
    bool ready = true;
    for (int c = 0; c < processes; ++c)
        ready = wait_for(root / ("ready" + std::to_string(c)), 120) && ready;
    write_file(root / "go", "go\n");
    int statuses[processes];
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    for (int c = 0; c < processes; ++c) {
        for (;;) {
            int status = 0;
            const pid_t done = waitpid(children[c], &status, WNOHANG);
            if (done == children[c]) {
                statuses[c] = status;
                break;
            }
            if (std::chrono::steady_clock::now() > end) {
                kill(children[c], SIGKILL);
                waitpid(children[c], &status, 0);
                statuses[c] = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    CHECK(ready);
    for (int c = 0; c < processes; ++c) {
        CAPTURE(c);
        CHECK(statuses[c] != -1);  // not timed out
        CHECK(WIFEXITED(statuses[c]));
        CHECK(WEXITSTATUS(statuses[c]) == 0);
    }

    // What they leave behind: valid entries only, no temporary files, and a warm build.
    ProgramCache cache(ProgramCache::Settings{true, cache_dir});
    const auto entries = cache.list();
    CHECK(!entries.empty());
    for (const auto& entry : entries) {
        CAPTURE(entry.file);
        CHECK(entry.valid);
    }
    std::size_t files = 0;
    for (const auto& item : fs::directory_iterator(cache_dir)) {
        CAPTURE(item.path());
        CHECK(item.path().extension() == ".bin");
        ++files;
    }
    CHECK(files == entries.size());
    const auto hammered = ProgramCache(ProgramCache::Settings{true, root / "hammer"}).list();
    CHECK(hammered.size() == 1);
    for (const auto& entry : hammered) CHECK(entry.valid);

    Context& context = test_context();
    const Program warm = build_program(context, real_check_source(), {}, cache);
    for (const auto& build : warm.builds()) CHECK(build.origin == DeviceBuild::Origin::disk_cache);
    const std::uint32_t seed = fresh_seed();
    check_real_check(run_real_check(context, 0, warm, real_check_input(101, seed)),
                     Precision::float32, seed);
}

} // TEST_SUITE cache_race

TEST_SUITE("cache_race_child" * doctest::skip()) {

TEST_CASE("one of the racing processes") {
    const char* root_env = std::getenv("PARTCL_TEST_RACE_DIR");
    const char* id_env = std::getenv("PARTCL_TEST_RACE_ID");
    REQUIRE_MESSAGE(root_env, "run by suite cache_race only");
    REQUIRE(id_env);
    const fs::path root = root_env;
    const int id = std::atoi(id_env);
    const fs::path cache_dir = root / "cache";
    const ProgramCache::Settings settings{true, cache_dir};

    Context& context = test_context();
    const auto input = real_check_input(37, 1234 + id);
    write_file(root / ("ready" + std::to_string(id)), "ready\n");
    REQUIRE(wait_for(root / "go", 120));

    const std::string hammer_key = ProgramCache::key("hammer", "", hammer_device());
    std::size_t whole = 0, missing = 0, foreign = 0;
    for (int round = 0; round < rounds; ++round) {
        CAPTURE(round);
        // The processes take turns emptying the cache under the others' feet.
        if (round % processes == id) ProgramCache(settings).clear();
        // A fresh cache each round, as a new process would have: disk, never memory.
        ProgramCache cache(settings);
        BuildOptions options;
        options.precision = round % 2 == 0 || !context.device(0).info().fp64
                                ? Precision::float32
                                : Precision::float64;
        const Program program = build_program(context, real_check_source(), options, cache);
        for (const auto& build : program.builds())
            CHECK(build.origin != DeviceBuild::Origin::memory_cache);
        check_real_check(run_real_check(context, 0, program, input), options.precision,
                         1234 + id);
    }

    // Then all hammer one key of a directory nobody clears, released together: every load
    // after one's own store must find a whole entry (one writer's or another's), never a
    // half-written file (which the checksum would reject, so it would show up as missing).
    write_file(root / ("hammer-ready" + std::to_string(id)), "ready\n");
    for (int other = 0; other < processes; ++other)
        REQUIRE(wait_for(root / ("hammer-ready" + std::to_string(other)), 120));
    const ProgramCache hammer(ProgramCache::Settings{true, root / "hammer"});
    for (int j = 0; j < hammer_stores; ++j) {
        const std::uint64_t tag = (std::uint64_t(id) << 32) | std::uint64_t(j);
        hammer.store(hammer_key, CacheEntry{{}, "hammer", "RaceDevice", ""},
                     tagged(tag, 150000 + 4096 * std::size_t(id) + 13 * std::size_t(j % 100)));
        const auto loaded = hammer.load(hammer_key);
        if (!loaded) {
            ++missing;
            continue;
        }
        CHECK(consistent(*loaded));
        ++whole;
        if (((*loaded)[4] & 0xff) != id) ++foreign;  // another process's blob
    }
    MESSAGE("child " << id << ": " << whole << " whole loads (" << foreign
                       << " written by other processes), " << missing << " missing");
    CHECK(missing == 0);
    CHECK(whole > 0);
    // Leave the float program's entry behind for the parent's warm build.
    ProgramCache last(settings);
    build_program(context, real_check_source(), {}, last);
}

} // TEST_SUITE cache_race_child
