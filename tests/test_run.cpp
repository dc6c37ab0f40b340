// The main job end to end through the library: initial conditions (Plummer in virial
// equilibrium), a run interrupted and resumed bit for bit, the files it writes.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <map>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/integrate/integrator.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/run/nbody_run.hpp>
#include <partcl/run/scenario.hpp>

#include "cli_process.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {


// devices.csv's rows (run_loop.hpp): launch, device and the numbers after the device's name.
struct DeviceRow {
    std::string launch;
    std::size_t device;
    double weight, share, launches, items, seconds;
};
std::vector<DeviceRow> device_rows(const fs::path& file) {
    std::istringstream text(read_file(file));
    std::string line;
    std::getline(text, line);
    CHECK(line == "rank,launch,device,device_name,weight,share,launches,items,kernel_seconds");
    std::vector<DeviceRow> rows;
    while (std::getline(text, line)) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
        REQUIRE(f.size() >= 9);  // more where a device's name holds a comma
        CHECK(f[0] == "0");      // one rank
        const std::size_t k = f.size() - 5;
        rows.push_back({f[1], std::stoul(f[2]), std::stod(f[k]), std::stod(f[k + 1]),
                        std::stod(f[k + 2]), std::stod(f[k + 3]), std::stod(f[k + 4])});
    }
    return rows;
}

void check_same_state(const fs::path& a, const fs::path& b) {
    const Checkpoint x = read_checkpoint(a), y = read_checkpoint(b);
    CHECK(x.step == y.step);
    CHECK(x.time == y.time);
    CHECK(x.dt == y.dt);
    CHECK(x.state == y.state);
    CHECK(x.output_text == y.output_text);
}

void check_same_snapshot(const fs::path& a, const fs::path& b) {
    const Snapshot x = read_snapshot(a), y = read_snapshot(b);
    CHECK(x.time == y.time);
    for (auto field : {&Bodies::x, &Bodies::y, &Bodies::z, &Bodies::vx, &Bodies::vy, &Bodies::vz,
                       &Bodies::m})
        CHECK(x.bodies.*field == y.bodies.*field);
}

} // namespace

TEST_SUITE("run") {

TEST_CASE("a Plummer sphere of 4096 bodies is in virial equilibrium") {
    Scenario s = builtin_scenario("plummer");
    s.n = 4096;
    s.seed = fresh_seed();
    INFO("seed " << s.seed);
    const Bodies b = make_bodies(s);
    Context& context = test_context();
    // Unsoftened potential, in double: the virial theorem of the point-mass system.
    DenseGravity gravity(context, Precision::float64, {s.gravity.G, 0.0}, {}, memory_cache());
    DeviceBodies bodies(context, Precision::float64, b);
    NBodySystem system(context, gravity, bodies);
    const NBodyDiagnostics d = measure(b, system.potentials());
    INFO("T " << d.kinetic << ", W " << d.potential << ", 2T/|W| " << d.virial_ratio());
    CHECK(std::abs(d.virial_ratio() - 1.0) < 0.05);
    // G = M = 1 and the standard Plummer energy E = -3 pi / 64 for a = 1: checks the scale.
    CHECK(d.total() == doctest::Approx(-3.0 * 3.14159265358979 / 64).epsilon(0.05));
    for (int k = 0; k < 3; ++k) CHECK(std::abs(d.momentum[k]) < 1e-12);
}

TEST_CASE("a resumed run is bitwise identical to the uninterrupted one") {
    // Every integrator (adaptive steps, multistep histories, aliases), in both precisions, and
    // each with dense gravity in one and tree gravity in the other. The tree is refitted
    // between builds and opened by the relative criterion too, so each evaluation depends on
    // the ones before: the checkpoint must carry the tree's order and the integrator's kept
    // derivative, and the diagnostics' evaluations (at steps 3, 6, 9, 12, and 7 in the first
    // half only) must leave the tree as they found it. Implicit methods refuse those options.
    for (const IntegratorInfo& method : integrator_catalog()) {
        const std::string integrator = method.name;
        const bool tree_first = (&method - integrator_catalog().data()) % 2 == 1;
        for (Precision precision : {Precision::float32, Precision::float64}) {
            const bool tree = tree_first == (precision == Precision::float32);
            INFO(integrator << ", " << to_string(precision) << (tree ? ", tree" : ", dense"));
            TempDir whole("whole"), split("split");
            Scenario s = builtin_scenario("plummer");
            s.n = 301;
            s.steps = 12;
            s.integrator = integrator;
            s.precision = precision;
            if (tree) {
                s.gravity_model = GravityModelKind::tree;
                s.tree.rebuild_every = 4;
                s.tree.rebuild_growth = 0.05;
                s.tree.relative_accuracy = 0.003;
                if (integrator_iterates(integrator)) {
                    // A fixed-point iteration needs forces of the state alone: refused by name.
                    TempDir refused("refused");
                    CHECK(contains(usage_error([&] { NBodyRun(test_context(), s, refused.path()); }),
                                   "implicit integrator '" + integrator + "'"));
                    s.tree.rebuild_every = 1;
                    s.tree.relative_accuracy = 0;
                }
            }
            s.frame_every = 0;
            s.checkpoint_every = 5;
            s.snapshot_every = 0;
            s.diagnostics_every = 3;
            Context& context = test_context();
            NBodyRun(context, s, whole.path()).run();
            if (tree) {
                // How often a run samples changes nothing of its bodies.
                TempDir every("every");
                Scenario each = s;
                each.diagnostics_every = 1;
                NBodyRun(context, each, every.path()).run();
                CHECK(read_checkpoint(every / "checkpoint.bin").state == read_checkpoint(whole / "checkpoint.bin").state);
            }

            s.steps = 7;  // stops with a checkpoint at step 7 (the last step)
            NBodyRun(context, s, split.path()).run();
            // Not into a directory of another run's outputs, whose rows it would mix with...
            TempDir moved("moved");
            fs::copy_file(split / "checkpoint.bin", moved / "start.bin");
            write_file(moved / "energy.csv", "step,time\n99,1\n");
            CHECK(contains(usage_error([&] {
                               NBodyRun::resume(context, moved / "start.bin", moved.path(), RunLength{12});
                           }),
                           "holds another run's rows"));
            CHECK(read_file(moved / "energy.csv") == "step,time\n99,1\n");
            // ...but into a new one: the checkpoint's rows and then this run's, as in the run's
            // own directory.
            fs::remove(moved / "energy.csv");
            NBodyRun::resume(context, moved / "start.bin", moved.path(), RunLength{12}).run();
            const NBodyRunSummary resumed =
                NBodyRun::resume(context, split / "checkpoint.bin", split.path(), RunLength{12}).run();
            CHECK(resumed.first_step == 7);
            CHECK(resumed.last_step == 12);

            const Checkpoint a = read_checkpoint(whole / "checkpoint.bin");
            const Checkpoint b = read_checkpoint(split / "checkpoint.bin");
            CHECK(a.step == 12);
            CHECK(a.time == b.time);
            CHECK(a.dt == b.dt);
            CHECK(a.state == b.state);  // exact
            if (tree && s.tree.relative_accuracy > 0) {
                // The order went into the checkpoint: {age, leaf radii, |a| of each body}.
                CHECK(a.run_state.size() == 2 + 301);
                CHECK(a.run_state == b.run_state);
                CHECK(a.tree_order == b.tree_order);
            }
            // The same rows, plus the one the first half wrote at its last step.
            std::string split_csv = read_file(split / "energy.csv");
            const auto row7 = split_csv.find("\n7,");
            REQUIRE(row7 != std::string::npos);
            split_csv.erase(row7 + 1, split_csv.find('\n', row7 + 1) - row7);
            CHECK(read_file(moved / "energy.csv") == read_file(split / "energy.csv"));
            CHECK(read_file(whole / "energy.csv") == split_csv);
            const Snapshot last = read_snapshot(whole / "snapshot_000012.h5");
            CHECK(last.time == a.time);
            CHECK(last.bodies.size() == 301);
        }
    }
}

TEST_CASE("partcl run --help lists every integrator with its order; a TOML scenario names one") {
    TempDir dir("run-integrators");
    REQUIRE(run_cli({"run", "--help"}, dir / "help.log") == 0);
    const std::string help = read_file(dir / "help.log");
    for (const IntegratorInfo& m : integrator_catalog()) {
        CAPTURE(m.name);
        std::istringstream lines(help);
        std::string line;
        bool listed = false;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string name;
            int order = 0;
            if (words >> name >> order && name == m.name) listed = order == m.order;
        }
        CHECK(listed);
    }
    Scenario s = builtin_scenario("kepler");
    s.integrator = "rkdverk6";
    s.steps = 3;
    const std::string toml = to_toml(s);
    CHECK(contains(toml, "name = \"rkdverk6\""));
    write_file(dir / "s.toml", toml);
    REQUIRE(run_cli({"run", (dir / "s.toml").string(), "--out", (dir / "out").string(), "--quiet"},
                    dir / "run.log") == 0);
    CHECK(read_checkpoint(dir / "out" / "checkpoint.bin").step == 3);
    // An implicit method's run reports its fixed-point sweeps.
    REQUIRE(run_cli({"run", "kepler", "--integrator", "rkgl6", "--steps", "4", "--out",
                     (dir / "gl").string(), "--quiet"},
                    dir / "gl.log") == 0);
    CHECK(contains(read_file(dir / "gl.log"), "rkgl6: "));
    CHECK(contains(read_file(dir / "gl.log"), " fixed-point sweeps a step"));
    CHECK(!contains(read_file(dir / "run.log"), "sweeps"));
}

TEST_CASE("the run writes energy, snapshots, frames and a checkpoint") {
    TempDir out("out");
    Scenario s = builtin_scenario("kepler");
    s.steps = 8;
    s.frame_every = 4;
    s.snapshot_every = 4;
    s.diagnostics_every = 2;
    std::vector<RunProgress> progress;
    NBodyRun run(test_context(), s, out.path());
    run.on_progress([&](const RunProgress& p) { progress.push_back(p); });
    const NBodyRunSummary summary = run.run();
    CHECK(progress.size() == 8);
    CHECK(progress.back().step == 8);
    for (const char* name : {"energy.csv", "checkpoint.bin", "snapshot_000000.h5",
                             "snapshot_000004.h5", "snapshot_000008.h5", "frame_000000.png",
                             "frame_000004.png", "frame_000008.png"})
        CHECK_MESSAGE(fs::exists(out / name), name);
    // Header plus steps 0, 2, 4, 6, 8.
    const std::string csv = read_file(out / "energy.csv");
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 6);
    CHECK(summary.energy_drift < 1e-3);
    CHECK(summary.interactions_per_second > 0);

    // snapshot_every = 0: one snapshot, at the end.
    TempDir end_only("end-only");
    s.snapshot_every = 0;
    s.frame_every = 0;
    NBodyRun(test_context(), s, end_only.path()).run();
    CHECK(!fs::exists(end_only / "snapshot_000000.h5"));
    CHECK(fs::exists(end_only / "snapshot_000008.h5"));
}

}

TEST_SUITE("run_two_devices" * doctest::skip()) {

TEST_CASE("a run spread over two devices ends in the one-device state, bit for bit") {
    const auto devices = pocl_devices();
    REQUIRE_MESSAGE(devices.size() >= 2, "run with POCL_DEVICES=\"pthread pthread\"");
    Context one(std::vector<Device>{devices[0]});
    Context both(std::vector<Device>{devices[0], devices[1]});
    for (Precision precision : {Precision::float32, Precision::float64}) {
        INFO(to_string(precision));
        Scenario s = builtin_scenario("plummer");
        s.n = 1001;
        s.steps = 6;
        s.precision = precision;
        s.frame_every = 0;
        TempDir a("one"), b("both");
        NBodyRun(one, s, a.path()).run();
        NBodyRun(both, s, b.path()).run();
        const Checkpoint x = read_checkpoint(a / "checkpoint.bin");
        const Checkpoint y = read_checkpoint(b / "checkpoint.bin");
        CHECK(y.scheduler_weights.size() == 2);
        CHECK(x.state == y.state);
        CHECK(read_file(a / "energy.csv") == read_file(b / "energy.csv"));
        // Both devices had a part in every launch that ran, reported per device.
        for (const DeviceRow& row : device_rows(b / "devices.csv"))
            if (row.launch == "dense gravity" || row.launch == "vector combine")
                CHECK(row.items > 0);
    }
}

#ifdef PARTCL_CLI_PATH
TEST_CASE("partcl run --device all reports each device's share and writes one device's outputs") {
    TempDir dir("run-all");
    const std::vector<std::string> run{"run", "plummer", "--n", "1001", "--steps", "6",
                                       "--frame-every", "3", "--snapshot-every", "3", "--quiet"};
    auto with = [&](std::vector<std::string> args, const std::string& device, const fs::path& out) {
        for (const auto& a : {std::string("--device"), device, std::string("--out"), out.string()})
            args.push_back(a);
        return args;
    };
    REQUIRE(run_cli(with(run, "0", dir / "one"), dir / "one.log") == 0);
    REQUIRE(run_cli(with(run, "all", dir / "all"), dir / "all.log") == 0);
    INFO("one device said:\n" << read_file(dir / "one.log") << "all said:\n"
                              << read_file(dir / "all.log"));

    // The same outputs, bit for bit.
    CHECK(read_file(dir / "one" / "energy.csv") == read_file(dir / "all" / "energy.csv"));
    for (const char* frame : {"frame_000000.png", "frame_000003.png", "frame_000006.png"})
        CHECK(read_file(dir / "one" / frame) == read_file(dir / "all" / frame));
    for (const char* snapshot : {"snapshot_000000.h5", "snapshot_000003.h5", "snapshot_000006.h5"})
        check_same_snapshot(dir / "one" / snapshot, dir / "all" / snapshot);
    check_same_state(dir / "one" / "checkpoint.bin", dir / "all" / "checkpoint.bin");

    // One device: a row per launch, all of it device 0's, and no lines of the split.
    for (const DeviceRow& row : device_rows(dir / "one" / "devices.csv")) {
        CHECK(row.device == 0);
        CHECK(row.weight == 1.0);
        CHECK(row.share == (row.items > 0 ? 1.0 : 0.0));
    }
    CHECK(!contains(read_file(dir / "one.log"), "of items"));

    // Two: each launch that ran has both devices with a plausible share (the devices are
    // alike), shares adding to 1, time measured; the summary says so per launch.
    std::map<std::string, double> share;
    std::size_t rows = 0;
    for (const DeviceRow& row : device_rows(dir / "all" / "devices.csv")) {
        CAPTURE(row.launch);
        CAPTURE(row.device);
        CHECK(row.device < 2);
        ++rows;
        if (row.launch != "dense gravity" && row.launch != "vector combine") continue;
        CHECK(row.share > 0.1);
        CHECK(row.share < 0.9);
        CHECK(row.launches > 0);
        CHECK(row.seconds > 0);
        CHECK(row.weight > 0);
        share[row.launch] += row.share;
    }
    CHECK(rows == 8);  // dense gravity, vector combine, vector copy, error norm; 2 devices each
    REQUIRE(share.size() == 2);
    for (const auto& [launch, total] : share) CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(contains(read_file(dir / "all.log"), "dense gravity: device 0 "));
    CHECK(contains(read_file(dir / "all.log"), "vector combine: device 0 "));
}

// Every family from the command line, on one device and on both: every CSV (but devices.csv,
// whose rows are the devices) and every frame equal, byte for byte. Snapshots and checkpoints
// record times and device names; the families' state is compared by the model suites.
TEST_CASE("partcl run --device all: the tree, MPS and PIC built-ins write one device's outputs") {
    struct Case {
        std::string name;
        std::vector<std::string> args;
        std::string launch;  // one the split must have spread
    };
    const std::vector<Case> cases{
        {"tree", {"run", "plummer", "--n", "3001", "--steps", "4", "--gravity", "tree",
                  "--frame-every", "2"}, "tree walk"},
        {"mps", {"run", "dambreak", "--steps", "30"}, "mps pressure"},
        {"mps3d", {"run", "dambreak3d", "--steps", "6"}, "mps correct"},
        {"pic", {"run", "two-stream", "--steps", "20"}, "pic push"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        TempDir dir("run-all-" + c.name);
        auto with = [&](const std::string& device, const fs::path& out) {
            std::vector<std::string> args = c.args;
            for (const auto& a : {std::string("--quiet"), std::string("--device"), device,
                                  std::string("--out"), out.string()})
                args.push_back(a);
            return args;
        };
        REQUIRE(run_cli(with("0", dir / "one"), dir / "one.log") == 0);
        REQUIRE(run_cli(with("all", dir / "all"), dir / "all.log") == 0);
        INFO("one device said:\n" << read_file(dir / "one.log") << "all said:\n"
                                  << read_file(dir / "all.log"));
        std::size_t compared = 0;
        for (const auto& entry : fs::directory_iterator(dir / "one")) {
            const fs::path name = entry.path().filename();
            const std::string ext = name.extension().string();
            if (name == "devices.csv" || (ext != ".csv" && ext != ".png")) continue;
            CAPTURE(name);
            REQUIRE(fs::exists(dir / "all" / name));
            CHECK(read_file(entry.path()) == read_file(dir / "all" / name));
            ++compared;
        }
        CHECK(compared >= 2);
        bool spread = false;
        for (const DeviceRow& row : device_rows(dir / "all" / "devices.csv"))
            if (row.launch == c.launch && row.device == 1) spread = row.items > 0;
        CHECK(spread);
    }
}

TEST_CASE("a run killed on one device and resumed on two ends as the one-device run, bit for bit") {
    TempDir dir("run-resume-devices");
    Scenario s = builtin_scenario("plummer");
    s.n = 1500;
    s.steps = 200;
    s.integrator = "ab5";  // a history of derivatives in the checkpoint
    s.diagnostics_every = 5;
    s.checkpoint_every = 10;
    s.snapshot_every = 100;
    s.frame_every = 0;
    write_file(dir / "s.toml", to_toml(s));
    const std::string scenario = (dir / "s.toml").string();
    const fs::path whole = dir / "whole", killed = dir / "killed";
    REQUIRE(run_cli({"run", scenario, "--device", "0", "--out", whole.string(), "--quiet"},
                       dir / "whole.log") == 0);

    // Killed on one device after its checkpoint at step 20, well before its end.
    const pid_t pid = start_cli(
        {"run", scenario, "--device", "0", "--out", killed.string(), "--quiet"},
        dir / "killed.log");
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
        if (fs::exists(killed / "checkpoint.bin") && read_checkpoint(killed / "checkpoint.bin").step >= 20)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(pid, SIGKILL);
    REQUIRE(wait_cli(pid) == 128 + SIGKILL);
    const std::uint64_t at = read_checkpoint(killed / "checkpoint.bin").step;
    CAPTURE(at);
    REQUIRE(at < s.steps);

    // Resumed on two.
    REQUIRE(run_cli({"run", "--resume", (killed / "checkpoint.bin").string(), "--device", "all",
                        "--out", killed.string(), "--quiet"},
                       dir / "resume.log") == 0);
    INFO("the resumed run said:\n" << read_file(dir / "resume.log"));
    CHECK(contains(read_file(dir / "resume.log"), "dense gravity: device 0 "));
    CHECK(contains(read_file(dir / "resume.log"), "; device 1 "));
    CHECK(read_file(killed / "energy.csv") == read_file(whole / "energy.csv"));
    check_same_state(killed / "checkpoint.bin", whole / "checkpoint.bin");
    check_same_snapshot(killed / "snapshot_000200.h5", whole / "snapshot_000200.h5");
    for (const DeviceRow& row : device_rows(killed / "devices.csv"))
        if (row.launch == "dense gravity") CHECK(row.items > 0);
}
#endif

}
