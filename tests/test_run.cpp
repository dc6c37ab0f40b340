// The main job end to end through the library: initial conditions (Plummer in virial
// equilibrium), a run interrupted and resumed bit for bit, the files it writes.
#include <doctest/doctest.h>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/run/nbody_run.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

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
    for (const char* integrator : {"leapfrog", "dopri5", "ab5", "rk4"}) {
        for (Precision precision : {Precision::float32, Precision::float64}) {
            INFO(integrator << ", " << to_string(precision));
            TempDir whole("whole"), split("split");
            Scenario s = builtin_scenario("plummer");
            s.n = 301;
            s.steps = 12;
            s.integrator = integrator;
            s.precision = precision;
            s.frame_every = 0;
            s.checkpoint_every = 5;
            s.snapshot_every = 0;
            s.diagnostics_every = 3;
            Context& context = test_context();
            NBodyRun(context, s, whole.path()).run();

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
    }
}

}
