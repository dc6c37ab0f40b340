// Suite faults: the partcl command killed while it writes, and a disk that fills up, as a user
// meets them. The command runs as its own process (PARTCL_CLI_PATH, the built partcl tool).
//   kill -9   at random moments of a run that writes a snapshot every 10 steps and a checkpoint
//             every 5, and as soon as a temporary file shows (in the middle of a write): no
//             file under its final name is ever partial, and --resume from what is
//             left ends with the uninterrupted run's files (energy.csv byte for byte, the final
//             checkpoint's state and snapshot exactly)
//   full disk a tmpfs of 300 KiB (or, where mounting is not allowed, a file-size limit): the run
//             fails with status 1 and a message naming the file it could not write; what it
//             wrote before is complete, and no temporary file is left.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <partcl/support/atomic_file.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/io/snapshot.hpp>

#include "cli_process.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

using Clock = std::chrono::steady_clock;

std::vector<fs::path> files_named(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> found;
    for (const auto& item : fs::directory_iterator(dir))
        if (item.path().filename().string().rfind(prefix, 0) == 0 &&
            !is_atomic_temporary(item.path()))
            found.push_back(item.path());
    std::sort(found.begin(), found.end());
    return found;
}

std::size_t temporaries_in(const fs::path& dir) {
    std::size_t count = 0;
    for (const auto& item : fs::directory_iterator(dir)) count += is_atomic_temporary(item.path());
    return count;
}

void check_same_snapshot(const fs::path& a, const fs::path& b) {
    CAPTURE(a);
    const Snapshot x = read_snapshot(a), y = read_snapshot(b);
    CHECK(x.time == y.time);
    CHECK(x.bodies.x == y.bodies.x);
    CHECK(x.bodies.y == y.bodies.y);
    CHECK(x.bodies.z == y.bodies.z);
    CHECK(x.bodies.vx == y.bodies.vx);
    CHECK(x.bodies.vy == y.bodies.vy);
    CHECK(x.bodies.vz == y.bodies.vz);
    CHECK(x.bodies.m == y.bodies.m);
}

// Every line of an energy.csv whole: the header's 12 fields each, and at least `rows_at_least`
// lines. A run killed between opening its CSV (the header, written atomically) and its first
// sample leaves the header alone, which is whole.
void check_whole_rows(const fs::path& csv, std::size_t rows_at_least) {
    const std::string text = read_file(csv);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');
    std::size_t start = 0, rows = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        CHECK_MESSAGE(std::count(line.begin(), line.end(), ',') == 11, "line: " << line);
        start = end == std::string::npos ? text.size() : end + 1;
        ++rows;
    }
    CHECK(rows >= rows_at_least);
}

} // namespace

TEST_SUITE("faults") {

TEST_CASE("kill -9 while writing leaves no partial file, and --resume ends as the uninterrupted run") {
    TempDir dir("faults-kill");
    Scenario s = builtin_scenario("plummer");
    s.n = 1000;
    s.seed = 7;
    s.steps = 300;
    s.diagnostics_every = 1;
    s.snapshot_every = 10;
    s.checkpoint_every = 5;
    s.frame_every = 0;
    write_file(dir / "s.toml", to_toml(s));
    const std::string scenario = (dir / "s.toml").string();

    const auto started = Clock::now();
    REQUIRE(run_cli({"run", scenario, "--out", (dir / "whole").string(), "--quiet"}, dir / "whole.log") == 0);
    const double whole_seconds = std::chrono::duration<double>(Clock::now() - started).count();

    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> moment(0.1, 0.9);
    std::size_t resumed = 0, caught_writing = 0;
    for (int trial = 0; trial < 6; ++trial) {
        CAPTURE(trial);
        const fs::path out = dir / ("killed" + std::to_string(trial));
        const pid_t pid = start_cli({"run", scenario, "--out", out.string(), "--quiet"},
                                    dir / "killed.log");
        if (trial % 2 == 0) {
            std::this_thread::sleep_for(std::chrono::duration<double>(moment(rng) * whole_seconds));
        } else {
            // As soon as a temporary file shows, after a random moment: in the middle of a
            // write, most times.
            std::this_thread::sleep_for(std::chrono::duration<double>(moment(rng) * whole_seconds / 2));
            const auto give_up = Clock::now() + std::chrono::duration<double>(whole_seconds);
            while (Clock::now() < give_up && !(fs::exists(out) && temporaries_in(out) > 0))
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        ::kill(pid, SIGKILL);
        const int status = wait_cli(pid);
        if (status == 0) {  // it ended before the kill came
            CHECK(read_file(out / "energy.csv") == read_file(dir / "whole" / "energy.csv"));
            continue;
        }
        CHECK(status == 128 + SIGKILL);
        if (!fs::exists(out)) continue;
        caught_writing += temporaries_in(out) > 0;

        // Whatever stands under a final name is whole.
        for (const auto& snapshot : files_named(out, "snapshot_"))
            check_same_snapshot(snapshot, dir / "whole" / snapshot.filename());
        if (fs::exists(out / "energy.csv")) check_whole_rows(out / "energy.csv", 1);
        if (!fs::exists(out / "checkpoint.bin")) continue;
        CHECK_NOTHROW(read_checkpoint(out / "checkpoint.bin"));
        if (read_checkpoint(out / "checkpoint.bin").step == s.steps) {
            // Killed after its last write, on its way out (a sanitized build's exit takes a
            // good part of a short run): the run is whole, and a resume has nothing to do.
            CHECK(run_cli({"run", "--resume", (out / "checkpoint.bin").string(), "--out",
                           out.string(), "--quiet"},
                          dir / "resume.log") == 2);
            CHECK(read_file(dir / "resume.log").find("nothing to do") != std::string::npos);
            CHECK(read_file(out / "energy.csv") == read_file(dir / "whole" / "energy.csv"));
            check_same_snapshot(out / "snapshot_000300.h5", dir / "whole" / "snapshot_000300.h5");
            continue;
        }

        // And the run goes on from it to the uninterrupted run's end.
        REQUIRE(run_cli({"run", "--resume", (out / "checkpoint.bin").string(), "--out", out.string(),
                         "--quiet"},
                        dir / "resume.log") == 0);
        ++resumed;
        CHECK(read_file(out / "energy.csv") == read_file(dir / "whole" / "energy.csv"));
        const Checkpoint a = read_checkpoint(out / "checkpoint.bin");
        const Checkpoint b = read_checkpoint(dir / "whole" / "checkpoint.bin");
        CHECK(a.step == b.step);
        CHECK(a.time == b.time);
        CHECK(a.state == b.state);
        CHECK(a.output_text == b.output_text);
        check_same_snapshot(out / "snapshot_000300.h5", dir / "whole" / "snapshot_000300.h5");
        CHECK(temporaries_in(out) == 0);  // the killed run's, removed by the next one
    }
    MESSAGE("6 runs killed: " << resumed << " resumed from their checkpoints, " << caught_writing
                              << " killed while writing a file (its temporary left behind)");
    CHECK(resumed > 0);
}

TEST_CASE("a full disk fails the run with the file's name and keeps what was written") {
    TempDir dir("faults-full");
    const fs::path disk = dir / "disk";
    fs::create_directories(disk);
    // A real full file system where this process may mount one (root): 300 KiB hold the first
    // snapshot of 4096 bodies (about 266 KB) and not the second. Elsewhere a file-size limit of
    // 200 KiB, which already the first snapshot passes.
    struct Mount {
        fs::path at;
        bool done = ::mount("partcl-test", at.c_str(), "tmpfs", 0, "size=300k") == 0;
        ~Mount() {
            if (done) ::umount(at.c_str());
        }
    } mount{disk};
    const std::string out = (disk / "out").string();
    const int status = run_cli({"run", "plummer", "--n", "4096", "--steps", "10", "--snapshot-every",
                                "5", "--frame-every", "0", "--out", out},
                               dir / "full.log", mount.done ? 0 : 200 * 1024);
    const std::string said = read_file(dir / "full.log");
    INFO((mount.done ? "tmpfs" : "RLIMIT_FSIZE") << "; the run said:\n" << said);
    CHECK(status == 1);
    const std::string failed = mount.done ? "snapshot_000005.h5" : "snapshot_000000.h5";
    CHECK(contains(said, "cannot write " + out + "/" + failed + ": "));
    CHECK((contains(said, "No space left on device") || contains(said, "File too large")));
    if (mount.done) CHECK(read_snapshot(disk / "out" / "snapshot_000000.h5").bodies.size() == 4096);
    check_whole_rows(disk / "out" / "energy.csv", 2);  // the header and step 0's row
    CHECK(temporaries_in(disk / "out") == 0);
}

} // TEST_SUITE
