// How long a run goes, for every model: a number of steps or an end time (run/run_length.hpp).
// N-body runs to an end time (fixed steps: the same run as its steps; dopri5: its last step
// shortened onto it), MPS runs of a number of steps (and resumed with more, the state of the
// uninterrupted run), PIC runs of steps of dt.
#include <doctest/doctest.h>

#include <cmath>

#include <partcl/io/checkpoint.hpp>
#include <partcl/run/mps_run.hpp>
#include <partcl/run/nbody_run.hpp>
#include <partcl/run/pic_run.hpp>
#include <partcl/run/run_length.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

Scenario small_kepler(const char* integrator) {
    Scenario s = builtin_scenario("kepler");
    s.integrator = integrator;
    s.diagnostics_every = 1;
    s.checkpoint_every = 0;
    return s;
}

} // namespace

TEST_SUITE("run_length") {

TEST_CASE("apply_run_length sets each model's own keys and refuses both or a bad time") {
    Scenario nbody = builtin_scenario("kepler");
    apply_run_length(nbody, {});
    CHECK(nbody == builtin_scenario("kepler"));
    apply_run_length(nbody, {0, 2.5});
    CHECK(nbody.end_time == 2.5);
    apply_run_length(nbody, {40, 0});
    CHECK(nbody.steps == 40);
    CHECK(nbody.end_time == 0);

    Scenario mps = builtin_scenario("hydrostatic");
    apply_run_length(mps, {7, 0});
    CHECK(mps.fluid.steps == 7);
    apply_run_length(mps, {0, 0.125});
    CHECK(mps.fluid.end_time == 0.125);
    CHECK(mps.fluid.steps == 0);

    Scenario pic = builtin_scenario("langmuir");
    apply_run_length(pic, {5, 0});
    CHECK(pic.plasma.end_time == 5 * pic.plasma.dt);

    CHECK(contains(usage_error([&] { apply_run_length(nbody, {3, 1.0}); }), "not both"));
    CHECK(contains(usage_error([&] { apply_run_length(nbody, {0, -1.0}); }), "(got -1)"));
    CHECK(contains(usage_error([&] { apply_run_length(nbody, {0, std::nan("")}); }), "positive"));

    // A fixed-step integrator's end time is a whole number of steps.
    Scenario odd = builtin_scenario("kepler");
    odd.end_time = 1.5 * odd.dt;
    CHECK(contains(usage_error([&] { validate(odd); }), "[run] end_time must be a whole number"));
    odd.integrator = "dopri5";
    validate(odd);
}

TEST_CASE("an N-body run to an end time: the run of that many steps, or dopri5 landing on it") {
    Context& context = test_context();
    {
        TempDir by_steps("steps"), by_time("time");
        Scenario s = small_kepler("leapfrog");
        s.steps = 30;
        const NBodyRunSummary a = NBodyRun(context, s, by_steps.path()).run();
        Scenario t = small_kepler("leapfrog");
        t.steps = 1;  // end_time decides
        t.end_time = 30 * t.dt;
        const NBodyRunSummary b = NBodyRun(context, t, by_time.path()).run();
        CHECK(b.last_step == 30);
        CHECK(b.time == a.time);
        CHECK(read_file(by_time / "energy.csv") == read_file(by_steps / "energy.csv"));
        CHECK(read_checkpoint(by_time / "checkpoint.bin").state ==
              read_checkpoint(by_steps / "checkpoint.bin").state);
    }
    {
        TempDir dir("dopri5");
        Scenario s = small_kepler("dopri5");
        s.end_time = 3.0;  // about half a period of 2 pi: the steps do not land on it by themselves
        const NBodyRunSummary r = NBodyRun(context, s, dir.path()).run();
        INFO("t = " << r.time << " after " << r.last_step << " steps");
        CHECK(std::abs(r.time - 3.0) <= 1e-12 * 3.0);
        CHECK(r.last_step > 5);
        // The last diagnostics row is at the end time, and the energy is conserved to dopri5's
        // tolerance (1e-10 in the built-in).
        std::string header;
        const auto rows = read_csv(dir / "energy.csv", header);
        REQUIRE(!rows.empty());
        CHECK(std::abs(rows.back()[1] - 3.0) <= 1e-12 * 3.0);
        CHECK(std::abs(r.energy_drift) < 1e-8);

        // Resumed to a later end time, it runs on from there.
        const NBodyRunSummary later =
            NBodyRun::resume(context, dir / "checkpoint.bin", dir.path(), RunLength{0, 4.0}).run();
        CHECK(std::abs(later.time - 4.0) <= 1e-12 * 4.0);
        CHECK(later.first_step == r.last_step);
        CHECK(contains(usage_error([&] {
                           NBodyRun::resume(context, dir / "checkpoint.bin", dir.path(),
                                            RunLength{0, 2.0});
                       }),
                       "nothing to do"));
    }
}

TEST_CASE("an MPS run of a number of steps, resumed with more, is the uninterrupted run") {
    Context& context = test_context();
    TempDir whole("whole"), split("split");
    Scenario s = builtin_scenario("hydrostatic");
    s.fluid.frame_every = 0;
    s.fluid.checkpoint_every = 0;
    s.fluid.steps = 12;
    const MpsRunSummary a = MpsRun(context, s, whole.path()).run();
    CHECK(a.last_step == 12);
    CHECK(a.time < s.fluid.end_time);

    s.fluid.steps = 5;
    const MpsRunSummary first = MpsRun(context, s, split.path()).run();
    CHECK(first.last_step == 5);
    const Checkpoint at5 = read_checkpoint(split / "checkpoint.bin");
    CHECK(at5.step == 5);
    const MpsRunSummary rest =
        MpsRun::resume(context, split / "checkpoint.bin", split.path(), RunLength{12}).run();
    CHECK(rest.first_step == 5);
    CHECK(rest.last_step == 12);
    CHECK(rest.time == a.time);
    CHECK(read_checkpoint(split / "checkpoint.bin").state ==
          read_checkpoint(whole / "checkpoint.bin").state);
    CHECK(contains(usage_error([&] {
                       MpsRun::resume(context, split / "checkpoint.bin", split.path(), RunLength{12});
                   }),
                   "nothing to do"));
}

TEST_CASE("a PIC run of a number of steps takes that many steps of dt") {
    Context& context = test_context();
    TempDir dir("pic");
    Scenario s = builtin_scenario("langmuir");
    s.plasma.frame_every = 0;
    apply_run_length(s, {7, 0});
    PicRun run(context, s, dir.path());
    CHECK(run.steps() == 7);
    const PicRunSummary summary = run.run();
    CHECK(summary.last_step == 7);
    CHECK(summary.time == doctest::Approx(7 * s.plasma.dt).epsilon(1e-12));
}

} // TEST_SUITE
