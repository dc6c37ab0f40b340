#pragma once
// RunLoop: a scenario of any model turned into a run, what `partcl run` does, for programs to call:
// one loop (progress, samples, frames, snapshots, checkpoints, resume, timing) driving the
// scenario's model (run/run_model.hpp). It writes into an output directory the model's CSV,
// its frames and snapshots, checkpoint.bin and devices.csv, every file atomically; a run resumed
// from a checkpoint continues bit for bit as the uninterrupted run would have on the same device.
//
// devices.csv reports how the model's multi-device launches (RunModel::launches) were spread
// over each rank's devices (the devices of this process, on one rank), rewritten with each
// checkpoint (and so at the end): one row per rank, launch and device, in rank order,
//
//   rank,launch,device,device_name,weight,share,launches,items,kernel_seconds
//
// the rank, the launch's name ("dense gravity", "vector combine"), the device's index in the
// rank's context and name, the scheduler's current weight of it, its share of the launch's items so far, and the
// launches it had a part in, their items and its kernels' profiled seconds. On a context of
// several devices the summary's lines end with each device's share and kernel time per launch.
//
// The model's own results (energy drift, front, growth rate, ...) come with the typed runs of
// run/nbody_run.hpp, run/mps_run.hpp and run/pic_run.hpp, which are this loop with their model.
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <partcl/dist/communicator.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/csv_log.hpp>
#include <partcl/io/scenario.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/run/run_model.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

// Device tuning and placement, not physics: no part of the scenario.
struct RunOptions {
    DenseOptions dense;  // N-body dense gravity's kernel shape per device
    // The ranks the run is spread over (the context is this rank's devices,
    // dist::rank_context). Rank 0 writes every file; the others compute their share.
    const dist::Communicator* ranks = &dist::Communicator::world();
};

// What the loop keeps of a resumed run's checkpoint: the file's name as given, the CSV so far
// and the counters of periods done (RunSchedule by time).
struct ResumedLoop {
    std::string source;
    std::string csv_text;
    std::array<std::uint64_t, 3> periods{};  // samples, frames, checkpoints
};

class RunLoop {
public:
    // A fresh run of the scenario's model; UsageError for a bad scenario. Nothing is written
    // before run().
    RunLoop(Context& context, Scenario scenario, std::filesystem::path out, RunOptions options = {});
    // Continues the run checkpoint `checkpoint` holds (read from `source`, which names it in
    // errors), writing into `out`; `length`, when given, replaces the scenario's (run_length.hpp).
    // UsageError for a checkpoint the model cannot continue or one already at the end.
    static RunLoop resume(Context& context, const Checkpoint& checkpoint,
                      const std::filesystem::path& source, std::filesystem::path out,
                      RunLength length = {}, RunOptions options = {});
    // The loop driving a model already set up (fresh, or restored from a checkpoint with
    // `resumed` taken from it).
    RunLoop(std::unique_ptr<RunModel> model, std::filesystem::path out,
        std::optional<ResumedLoop> resumed = std::nullopt);

    RunLoop(RunLoop&&) noexcept;
    RunLoop& operator=(RunLoop&&) noexcept;
    ~RunLoop();

    const Scenario& scenario() const noexcept { return model_->scenario(); }
    // The model's multi-device launches (devices.csv's rows).
    LaunchList launches() const { return model_->launches(); }
    RunModel& model() noexcept { return *model_; }
    const RunModel& model() const noexcept { return *model_; }
    // "galaxies, N = 16384, float, ..., resumed from FILE": what runs, on what.
    std::string title() const;

    // Called after every step or sample, as the model's schedule says.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to the end: start(), step() until it returns false, summary(). Throws Error when the
    // state stops being finite, UsageError for files it cannot write.
    RunSummary run();

    // The same run a step at a time, for programs that look at the state in between.
    // start() makes the output directory and writes the start's row, frame and snapshot (once;
    // step() and run() start a run that is not started). step() takes one step of the model (by
    // time: up to the next sample or frame time) and writes what falls on it, as run() would;
    // false, doing nothing, once the run is finished. Stepping and running may be mixed: the
    // files are those of one run().
    void start();
    bool step();
    bool finished() const { return model_->finished(); }
    // What this process has done so far, with the model's summary lines.
    RunSummary summary() const;
    // The model's CSV as written so far, header and rows (empty before start(), and on ranks
    // other than 0).
    std::string csv_text() const;

private:
    std::unique_ptr<RunModel> model_;
    std::filesystem::path out_;
    std::optional<ResumedLoop> resumed_;
    std::function<void(const RunProgress&)> progress_;
    std::unique_ptr<CsvLog> csv_;
    std::array<std::uint64_t, 3> periods_{};

    // The run so far: started at start_, by this process; the fraction done at the start.
    bool started_ = false;
    std::chrono::steady_clock::time_point start_{};
    double fraction0_ = 0;
    RunSummary summary_;

    bool writes() const;  // rank 0 writes every file
    void written(const std::filesystem::path& file);
    void append_sample();
    void frame();
    void snapshot();
    void checkpoint();  // devices.csv with it
    double wall_seconds() const;
    double fraction() const;
    void report();
};

} // namespace partcl
