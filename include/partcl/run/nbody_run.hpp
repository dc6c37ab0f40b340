#pragma once
// NBodyRun: an N-body scenario turned into a run (run/run_loop.hpp's loop with the N-body model),
// everything `partcl run` does, for programs to call. It builds the initial conditions,
// advances them with the scenario's model and integrator on a Context, and writes into an
// output directory:
//
//   energy.csv              step, time, kinetic, potential, total, momentum, angular momentum,
//                           relative energy drift; a row every [run] diagnostics_every steps
//   snapshot_NNNNNN.h5      GADGET-layout HDF5 snapshots (io/snapshot.hpp)
//   frame_NNNNNN.png        log projected density frames (io/render.hpp)
//   checkpoint.bin          the latest checkpoint (io/checkpoint.hpp)
//   devices.csv             each device's share of the gravity's and the integrator's launches
//                           (run_loop.hpp)
//
// Every file is written atomically. A run resumed from a checkpoint continues bit for bit as the
// uninterrupted run would have on the same device.
#include <cstdint>
#include <filesystem>
#include <functional>

#include <partcl/io/scenario.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

// RunProgress comes after every step; its steps is 0 for a run to end_time by an adaptive
// integrator.
struct NBodyRunSummary : RunSummary {
    double energy_drift = 0;  // |E - E0| / |E0| at the end
    double interactions_per_second = 0;
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

    const Scenario& scenario() const noexcept { return run_.scenario(); }
    // Its multi-device launches, as devices.csv reports them (run_loop.hpp).
    LaunchList launches() const { return run_.launches(); }
    std::size_t bodies() const noexcept;

    // Called after every step.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to the scenario's last step. Throws Error when the state stops being finite (with
    // the step), UsageError for files it cannot write.
    NBodyRunSummary run();

private:
    explicit NBodyRun(RunLoop run) : run_(std::move(run)) {}
    RunLoop run_;
};

} // namespace partcl
