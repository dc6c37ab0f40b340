#pragma once
// MpsRun: a fluid scenario ([scenario] model = "mps", table [fluid]) turned into a run (the loop
// of run/run_loop.hpp with the MPS model), what `partcl run dambreak` and `partcl run hydrostatic`
// do, for programs to call. It builds the tank (models/mps/mps_tank.hpp), advances MpsFluid to
// [fluid] end_time on device 0 of a Context, and writes into an output directory:
//
//   front.csv             dambreak: t, T = t sqrt(2 g / a), x, Z = x / a of the surge front
//                         (mps_front), a the water's width; a row every [fluid] sample_every
//   bottom_pressure.csv   hydrostatic: t, the mean pressure of the bottom row of water and
//                         the mean rho g (h - y) over the same particles, h the depth from the
//                         water's volume; a row every sample_every
//   frame_NNNNNN.png      pressure frames (render_pressure, side view in 3-D), NNNNNN the step;
//                         every [fluid] frame_every seconds and at the end (0 = none)
//   checkpoint.bin        the latest checkpoint (io/checkpoint.hpp, its fluid fields): at the
//                         first sample after every [fluid] checkpoint_every seconds, and at the end
//
// Every file is written atomically. A run resumed from a checkpoint continues bit for bit as the
// uninterrupted run would have on the same device: checkpoints fall on sample times, which every
// run of the scenario lands its steps on (a run's end is one when end_time is a multiple of
// sample_every and of frame_every, or frames are off).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>

#include <partcl/io/scenario.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

// RunProgress comes after every sample (every [fluid] sample_every seconds of simulated time).
struct MpsRunSummary : RunSummary {
    std::size_t particles = 0, fluid_particles = 0;
    double particle_steps_per_second = 0;  // all particles (walls and dummies too) x steps / wall
    // dambreak: the front at the end [m] and Z = x / a.
    double front = std::numeric_limits<double>::quiet_NaN();
    double front_z = std::numeric_limits<double>::quiet_NaN();
    // hydrostatic: the rows with t >= end_time / 2 averaged: bottom pressure and rho g (h - y);
    // the bottom pressure's standard deviation over those rows (its noise) [Pa].
    double bottom_pressure = std::numeric_limits<double>::quiet_NaN();
    double hydrostatic_pressure = std::numeric_limits<double>::quiet_NaN();
    double bottom_pressure_sd = std::numeric_limits<double>::quiet_NaN();
};

class MpsRun {
public:
    // UsageError for a scenario of another model or a bad value (validate()); nothing is
    // written before run().
    MpsRun(Context& context, Scenario scenario, std::filesystem::path out);
    // Continues the run a checkpoint holds (its scenario and precision), writing into `out`
    // (front.csv or bottom_pressure.csv start with the checkpoint's rows). `length`, when given,
    // replaces the scenario's (to run on past the original end: run_length.hpp). UsageError
    // for a checkpoint that is not of an MPS run, or one already at the end.
    static MpsRun resume(Context& context, const std::filesystem::path& checkpoint,
                         std::filesystem::path out, RunLength length = {});

    const Scenario& scenario() const noexcept { return run_.scenario(); }
    // Its multi-device launches, as devices.csv reports them (run_loop.hpp).
    LaunchList launches() const { return run_.launches(); }
    std::size_t particles() const noexcept;
    std::size_t fluid_particles() const noexcept;

    // Called after every sample.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to [fluid] end_time. Throws Error when the flow outruns the neighbour search or
    // stops being finite (with the time), UsageError for files it cannot write.
    MpsRunSummary run();

private:
    explicit MpsRun(RunLoop run) : run_(std::move(run)) {}
    RunLoop run_;
};

} // namespace partcl
