// The run loop (run/run_loop.hpp) with a model of its own: what a RunModel plugs in is all a
// new model needs; the loop's cadence by steps and by time, its checkpoints and resume, its
// progress reports. And RunLoop itself picking the model from a scenario or a checkpoint.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include <partcl/io/checkpoint.hpp>
#include <partcl/run/nbody_run.hpp>
#include <partcl/run/run_loop.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// Steps of `dt` from a clock; by time, a step is cut short to land on `until`. Its row is
// "step,time", its frame a file holding the step.
class Clock final : public RunModel {
public:
    Clock(RunSchedule schedule, double dt, double end_time = 0)
        : schedule_(schedule), dt_(dt), end_time_(end_time) {
        scenario_.name = "clock";
    }
    const Scenario& scenario() const override { return scenario_; }
    RunSchedule schedule() const override { return schedule_; }
    std::uint64_t step() const override { return step_; }
    double time() const override { return time_; }
    bool finished() const override {
        return schedule_.steps ? step_ >= schedule_.steps : time_ >= end_time_;
    }
    void advance(double until) override {
        ++step_;
        time_ = std::isfinite(until) ? std::min(until, time_ + dt_) : time_ + dt_;
    }
    std::string csv_name() const override { return "clock.csv"; }
    std::string csv_header() const override { return "step,time\n"; }
    std::string sample() override {
        return std::to_string(step_) + "," + std::to_string(time_) + "\n";
    }
    void write_frame(const fs::path& file) override { std::ofstream(file) << step_; }
    void save(Checkpoint& c) const override { c.run_state.push_back(42); }
    std::vector<StateArray> state() override { return {{"time", {1}, {time_}}}; }
    std::string title(const std::string& resumed_from) const override {
        return "clock" + (resumed_from.empty() ? std::string() : ", resumed from " + resumed_from);
    }
    std::string progress_text(const RunProgress& p) const override {
        return "step " + std::to_string(p.step);
    }
    std::vector<std::string> summary_lines(const RunSummary& s, const std::string& out) const override {
        return {std::to_string(s.frames) + " frames in " + out};
    }
    void restore(std::uint64_t step, double time) {
        step_ = step;
        time_ = time;
    }

private:
    Scenario scenario_;
    RunSchedule schedule_;
    double dt_, end_time_;
    std::uint64_t step_ = 0;
    double time_ = 0;
};

std::size_t files_named(const fs::path& dir, const std::string& prefix) {
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(dir))
        count += entry.path().filename().string().rfind(prefix, 0) == 0;
    return count;
}

} // namespace

TEST_SUITE("run_loop") {

TEST_CASE("by steps: rows, frames and checkpoints on their multiples and at the end") {
    TempDir dir("loop-steps");
    RunSchedule every;
    every.steps = 10;
    every.sample.steps = 3;
    every.frame.steps = 4;
    every.checkpoint.steps = 5;
    std::vector<std::uint64_t> reported;
    RunLoop loop(std::make_unique<Clock>(every, 0.5), dir.path());
    CHECK(loop.title() == "clock");
    loop.on_progress([&](const RunProgress& p) {
        reported.push_back(p.step);
        CHECK(p.text == "step " + std::to_string(p.step));
        CHECK(p.fraction == doctest::Approx(double(p.step) / 10));
        CHECK(p.done == (p.step == 10));
        if (p.step == 6) CHECK(read_checkpoint(dir / "checkpoint.bin").step == 5);
    });
    const RunSummary summary = loop.run();
    CHECK(read_file(dir / "clock.csv") == "step,time\n0,0.000000\n3,1.500000\n6,3.000000\n"
                                          "9,4.500000\n10,5.000000\n");
    CHECK(reported == std::vector<std::uint64_t>{3, 6, 9, 10});  // after each sample
    for (const char* frame : {"frame_000000.png", "frame_000004.png", "frame_000008.png", "frame_000010.png"})
        CHECK_MESSAGE(fs::exists(dir / frame), frame);
    CHECK(summary.frames == 4);
    CHECK(files_named(dir.path(), "frame_") == 4);
    CHECK(summary.first_step == 0);
    CHECK(summary.last_step == 10);
    CHECK(summary.lines == std::vector<std::string>{"4 frames in " + dir.path().string()});
    const Checkpoint end = read_checkpoint(dir / "checkpoint.bin");
    CHECK(end.step == 10);
    CHECK(end.time == 5.0);
    CHECK(end.run_state == std::vector<double>{42});  // no counters by steps: the model's only
    CHECK(end.output_text == read_file(dir / "clock.csv"));
    // A model without multi-device launches: devices.csv holds the header alone.
    CHECK(read_file(dir / "devices.csv") ==
          "rank,launch,device,device_name,weight,share,launches,items,kernel_seconds\n");

    // Resumed from step 5 with the rows so far, into a new directory: the same CSV.
    TempDir again("loop-steps-resumed");
    auto clock = std::make_unique<Clock>(every, 0.5);
    clock->restore(5, 2.5);
    RunLoop resumed(std::move(clock), again.path(),
                    ResumedLoop{"at5.bin", "step,time\n0,0.000000\n3,1.500000\n", {}});
    CHECK(resumed.title() == "clock, resumed from at5.bin");
    const RunSummary rest = resumed.run();
    CHECK(rest.first_step == 5);
    CHECK(read_file(again / "clock.csv") == read_file(dir / "clock.csv"));
    CHECK(!fs::exists(again / "frame_000000.png"));  // the start is the first run's
    CHECK(rest.frames == 2);
}

TEST_CASE("by time: samples and frames land on their times, counted in the checkpoint") {
    TempDir dir("loop-time");
    RunSchedule every;
    every.end_time = 2.5;
    every.sample.time = 1.0;
    every.frame.time = 2.0;
    every.checkpoint.time = 1.5;
    std::vector<double> reported;
    RunLoop loop(std::make_unique<Clock>(every, 0.4, 2.5), dir.path());
    loop.on_progress([&](const RunProgress& p) {
        reported.push_back(p.time);
        // The checkpoint due at 1.5 s comes with the first sample after it.
        if (p.time == 1.0) CHECK(!fs::exists(dir / "checkpoint.bin"));
        if (p.time == 2.0) CHECK(read_checkpoint(dir / "checkpoint.bin").time == 2.0);
    });
    loop.run();
    CHECK(reported == std::vector<double>{1.0, 2.0, 2.5});
    std::string header;
    const auto rows = read_csv(dir / "clock.csv", header);
    REQUIRE(rows.size() == 4);
    CHECK(rows[1][1] == doctest::Approx(1.0));
    CHECK(rows[2][1] == doctest::Approx(2.0));
    CHECK(rows[3][1] == doctest::Approx(2.5));
    CHECK(files_named(dir.path(), "frame_") == 3);  // 0, 2 s and the end
    // Whole periods done: samples at 1 and 2 s (the end is none), a frame at 2 s, a checkpoint
    // period; then the model's own.
    CHECK(read_checkpoint(dir / "checkpoint.bin").run_state == std::vector<double>{2, 1, 1, 42});
}

TEST_CASE("a run a step at a time writes the files of one run(), by steps and by time") {
    RunSchedule by_steps;
    by_steps.steps = 10;
    by_steps.sample.steps = 3;
    by_steps.frame.steps = 4;
    by_steps.checkpoint.steps = 5;
    RunSchedule by_time;
    by_time.end_time = 2.5;
    by_time.sample.time = 1.0;
    by_time.frame.time = 2.0;
    by_time.checkpoint.time = 1.5;
    for (const RunSchedule& every : {by_steps, by_time}) {
        CAPTURE(every.by_time());
        const auto clock = [&] { return std::make_unique<Clock>(every, 0.4, 2.5); };
        TempDir whole("loop-whole"), stepped("loop-stepped");
        const RunSummary all = RunLoop(clock(), whole.path()).run();

        RunLoop loop(clock(), stepped.path());
        CHECK(loop.csv_text().empty());  // nothing before the start
        CHECK(loop.summary().last_step == 0);
        loop.start();
        loop.start();  // once
        CHECK(loop.csv_text() == "step,time\n0,0.000000\n");
        std::uint64_t steps = 0;
        std::vector<double> times;
        // A few steps by hand, looking at the state, then the rest in one run().
        while (steps < 3 && loop.step()) {
            ++steps;
            times.push_back(loop.model().state().at(0).values.at(0));
        }
        CHECK(times.size() == 3);
        CHECK(times.back() == doctest::Approx(loop.model().time()));
        const RunSummary rest = loop.run();
        CHECK(loop.finished());
        CHECK_FALSE(loop.step());
        CHECK(rest.first_step == 0);
        CHECK(rest.last_step == all.last_step);
        CHECK(rest.frames == all.frames);
        CHECK(read_file(stepped / "clock.csv") == read_file(whole / "clock.csv"));
        CHECK(loop.csv_text() == read_file(whole / "clock.csv"));
        CHECK(read_checkpoint(stepped / "checkpoint.bin").run_state ==
              read_checkpoint(whole / "checkpoint.bin").run_state);
        CHECK(files_named(stepped.path(), "frame_") == files_named(whole.path(), "frame_"));
    }
}

TEST_CASE("RunLoop picks the model from the scenario or the checkpoint, read once") {
    Context& context = test_context();
    TempDir dir("loop-any");
    Scenario s = builtin_scenario("kepler");
    s.steps = 6;
    s.frame_every = 0;
    s.snapshot_every = 0;
    s.diagnostics_every = 3;  // the first run's last step is a row of the whole run's
    RunLoop first(context, s, dir / "a");
    CHECK(first.title().rfind("kepler, N = 2, ", 0) == 0);
    const RunSummary a = first.run();
    CHECK(a.last_step == 6);
    CHECK(a.snapshots == 1);  // at the end
    REQUIRE(a.lines.size() == 4);
    CHECK(a.lines[3] == "wrote 1 snapshots, 0 frames, energy.csv and checkpoint.bin in " + (dir / "a").string());

    const Checkpoint at6 = read_checkpoint(dir / "a" / "checkpoint.bin");
    RunLoop more = RunLoop::resume(context, at6, "at6.bin", dir / "a", RunLength{9});
    CHECK(contains(more.title(), ", resumed from at6.bin"));
    CHECK(more.run().first_step == 6);
    s.steps = 9;
    NBodyRun(context, s, dir / "b").run();
    CHECK(read_file(dir / "a" / "energy.csv") == read_file(dir / "b" / "energy.csv"));
    CHECK(read_checkpoint(dir / "a" / "checkpoint.bin").state ==
          read_checkpoint(dir / "b" / "checkpoint.bin").state);

    Scenario other = s;
    other.model = "sph";
    CHECK(contains(usage_error([&] { RunLoop(context, other, dir / "c"); }), "cannot run"));
}

}
