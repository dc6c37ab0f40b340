#pragma once
// NBodyRun: a scenario turned into a run, everything `partcl run` does, for programs to call.
// It builds the initial conditions, advances them with the scenario's model and integrator on a
// Context, and writes into an output directory:
//
//   energy.csv              step, time, kinetic, potential, total, momentum, angular momentum,
//                           relative energy drift; a row every [run] diagnostics_every steps
//   snapshot_NNNNNN.h5      GADGET-layout HDF5 snapshots (io/snapshot.hpp)
//   frame_NNNNNN.png        log projected density frames (io/render.hpp)
//   checkpoint.bin          the latest checkpoint (io/checkpoint.hpp)
//
// Every file is written atomically. A run resumed from a checkpoint continues bit for bit as the
// uninterrupted run would have on the same device.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <partcl/io/checkpoint.hpp>
#include <partcl/io/scenario.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

struct RunProgress {
    std::uint64_t step = 0, steps = 0;  // steps 0: a run to end_time by an adaptive integrator
    double end_time = 0;
    double time = 0;
    double wall_seconds = 0;      // since this process started the run
    double steps_per_second = 0;  // over this process's steps
    double energy_drift = 0;      // relative, at the latest diagnostics
};

struct RunSummary {
    std::uint64_t first_step = 0, last_step = 0;
    double time = 0;
    double wall_seconds = 0;
    double energy_drift = 0;  // |E - E0| / |E0| at the end
    double interactions_per_second = 0;
    double steps_per_second = 0;
    std::vector<std::filesystem::path> files;  // written by this process
};

class NBodyRun {
public:
    // A fresh run; nothing is written before run(). `dense` tunes the kernel's shape per device
    // (device tuning, not physics: it is no part of the scenario).
    NBodyRun(Context& context, Scenario scenario, std::filesystem::path out,
             DenseOptions dense = {});
    // Continues the run a checkpoint holds (its scenario, precision and integrator). `length`,
    // when given, replaces the scenario's (to run on past the original end: run_length.hpp).
    static NBodyRun resume(Context& context, const std::filesystem::path& checkpoint,
                           std::filesystem::path out, RunLength length = {},
                           DenseOptions dense = {});

    NBodyRun(NBodyRun&&) noexcept;
    ~NBodyRun();

    const Scenario& scenario() const noexcept;
    std::size_t bodies() const noexcept;

    // Called after every step.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to the scenario's last step. Throws Error when the state stops being finite (with
    // the step), UsageError for files it cannot write.
    RunSummary run();

private:
    struct State;
    explicit NBodyRun(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

} // namespace partcl
