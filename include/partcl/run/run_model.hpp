#pragma once
// RunModel: what a model plugs into the run loop (run/run_loop.hpp). The loop owns what every run
// does alike: the output directory, the model's CSV (opened with its header, or a resumed run's
// rows), when samples, frames, snapshots and checkpoints fall (RunSchedule), checkpoint.bin and
// resuming, devices.csv (the model's launches over the devices), progress reports and timing.
// The model owns its physics and what it measures: stepping, a CSV row, a frame, its part of a
// checkpoint, its lines of text, its multi-device launches.
//
// Adding a model is adding one of these, and a line to the table of models in run_loop.cpp.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/scenario.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl {

// Where a run is, for a progress report (RunLoop::on_progress). `text` is the model's line
// (progress bar text, as `partcl run` shows it).
struct RunProgress {
    std::uint64_t step = 0, steps = 0;  // steps: the run's last step, 0 for a run to end_time
    double time = 0, end_time = 0;
    double wall_seconds = 0;      // since this process started the run
    double steps_per_second = 0;  // over this process's steps
    double eta_seconds = 0;       // at this process's pace so far
    double fraction = 0;          // of the whole run done, in [0, 1]
    bool done = false;            // the last report
    std::string text;
};

// What every run reports at its end. `lines` is the model's summary, as `partcl run` prints it.
struct RunSummary {
    std::uint64_t first_step = 0;  // 0, or the checkpoint's step for a resumed run
    std::uint64_t last_step = 0;
    double time = 0;
    double wall_seconds = 0;
    double steps_per_second = 0;               // over this process's steps
    std::size_t frames = 0, snapshots = 0;     // written by this process
    std::vector<std::filesystem::path> files;  // written by this process, each once
    std::vector<std::string> lines;
};

// How often the loop does a thing: every `steps` steps, or every `time` of simulated time;
// neither given: never (but see RunSchedule for the start and the end).
struct Every {
    std::uint64_t steps = 0;
    double time = 0;
    bool on() const noexcept { return steps != 0 || time > 0; }
};

// When things happen in a run. By steps, each falls on the steps that are whole multiples of
// its period. By time, samples and frames fall on whole multiples of theirs (the model lands
// its steps on them: RunModel::advance), checkpoints at the first sample at or after each
// multiple of theirs; the loop counts the periods done and keeps them in the checkpoint
// (run_state's first three values), so that a resumed run lands where the uninterrupted one
// did. Snapshots go by steps only.
struct RunSchedule {
    std::uint64_t steps = 0;  // the run's last step; 0: it runs until RunModel::finished
    double end_time = 0;      // for the progress reports of a run to an end time
    Every sample;             // a CSV row; at the start and the end too
    Every frame;              // at the start and the end too, when on
    Every snapshot;           // at the start too, when on
    // Snapshots, and samples, at these steps too, in increasing order (a run whose outputs fall
    // at given times: the cosmology's redshifts); 0 is the start.
    std::vector<std::uint64_t> snapshot_steps;
    bool snapshot_at_end = false;  // a snapshot at the end however snapshot is set
    Every checkpoint;              // at the end too
    bool progress_every_step = false;  // else a report after every sample
    bool progress_at_start = false;    // a report after the start's sample
    bool by_time() const noexcept {
        return sample.time > 0 || frame.time > 0 || checkpoint.time > 0;
    }
};

// A named array of a model's state, for programs that look at the state during a run:
// `values` in row-major order of `shape` ((N, 3) positions), in double whatever the precision.
struct StateArray {
    std::string name;
    std::vector<std::size_t> shape;
    std::vector<double> values;
};

class RunModel {
public:
    virtual ~RunModel() = default;

    virtual const Scenario& scenario() const = 0;
    virtual RunSchedule schedule() const = 0;

    virtual std::uint64_t step() const = 0;
    virtual double time() const = 0;
    virtual bool finished() const = 0;
    // Takes a step; a model whose schedule goes by time steps until `until` (landing on it) or
    // its end, whichever is first. `until` is infinite for a schedule by steps.
    virtual void advance(double until) = 0;

    // Before the start's sample (fresh) or the first step (resumed).
    virtual void begin(bool /*fresh*/) {}
    // The CSV file's name and header line (ending in '\n'), and its row for the state as it is
    // now; Error when the state is no longer finite.
    virtual std::string csv_name() const = 0;
    virtual std::string csv_header() const = 0;
    virtual std::string sample() = 0;
    virtual void write_frame(const std::filesystem::path& file) = 0;
    virtual void write_snapshot(const std::filesystem::path& /*file*/) {}
    // Files the model writes with each snapshot, named after it (the cosmology's power
    // spectrum), for the loop to list with the run's files. None by default.
    virtual std::vector<std::filesystem::path> write_with_snapshot(const std::filesystem::path& /*snapshot*/) {
        return {};
    }
    // The model's part of a checkpoint: all but scenario_toml, step, time, precision and
    // output_text (the loop's); appended to run_state after the loop's counters, if any.
    virtual void save(Checkpoint& checkpoint) const = 0;
    // The state as it is now, as arrays: every particle of every rank, in one rank's order (every
    // rank calls it alike, as for sample()).
    virtual std::vector<StateArray> state() = 0;

    // Text: the line `partcl run` starts with (after "partcl run: "; resumed_from empty for a
    // fresh run), a progress report's line, and the summary's lines (`out` as the user gave it).
    virtual std::string title(const std::string& resumed_from) const = 0;
    virtual std::string progress_text(const RunProgress& progress) const = 0;
    virtual std::vector<std::string> summary_lines(const RunSummary& summary,
                                                   const std::string& out) const = 0;

    // Its multi-device launches (sched), for the report of the split: the loop's devices.csv,
    // and the summary's lines on a context of several devices. None by default.
    virtual LaunchList launches() const { return {}; }

    // The ranks the model is spread over: every rank calls every method alike (sample, frames,
    // snapshots and save gather what they need), and only rank 0 writes files, the loop's and
    // the model's. This process alone by default.
    virtual const dist::Communicator& ranks() const { return dist::Communicator::self(); }
};

} // namespace partcl
