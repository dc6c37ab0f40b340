#pragma once
// PicRun: a plasma scenario ([scenario] model = "pic", table [plasma]) turned into a run (the
// loop of run/run_loop.hpp with the PIC model), what `partcl run langmuir`, `two-stream`,
// `pair-plasma` or a TOML file do, for programs to call.
// It loads the set-up (models/pic/pic_plasma.hpp), steps ElectrostaticPic to [plasma] end_time
// on device 0 of a Context, and writes into an output directory:
//
//   diagnostics.csv    t, field_energy, kinetic_energy, total, momentum, mode_sin, mode_cos:
//                      energies as ElectrostaticPic reports them (kinetic from the half-step
//                      velocities), momentum sum w m v_x, the field's projections along the
//                      seeded wave on sin and cos of k . x (field_mode); a row every [plasma]
//                      sample_every steps and at the end
//   frame_NNNNNN.png   phase space x against v_x (render_phase_space), NNNNNN the step; every
//                      [plasma] frame_every steps and at the end (0 = none)
//   checkpoint.bin     the latest checkpoint (io/checkpoint.hpp): every [plasma]
//                      checkpoint_every steps and at the end
//
// and measures, from the seeded mode at every step: langmuir and species, its angular
// frequency from the zero crossings (against omega_p = 1, or the species' cold-plasma
// frequency); two-stream and species, the growth rate of log |E_k| over the linear phase
// (two-stream: against cold-beam theory). Every file is written atomically. A run resumed from
// a checkpoint ends bit for bit as the uninterrupted run on the same device with the gather
// deposit (the atomic deposit's sums vary in the last bits from run to run anyway).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>

#include <partcl/io/scenario.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

// RunProgress comes after every sampled row, the first included.
struct PicRunSummary : RunSummary {
    std::size_t particles = 0;
    double particle_steps_per_second = 0;
    // Over the sampled rows: the largest |E / E(0) - 1| of the total energy, and the largest
    // |P_k - P_k(0)| of a component over the largest sum w m |v_k| (the momentum scale; 0 when
    // nothing moves).
    double energy_error = 0, momentum_error = 0;
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    // langmuir and species: the measured angular frequency (NaN with fewer than two zero
    // crossings) and the cold-plasma frequency (1 for langmuir; cold_plasma_frequency of the
    // species); crossings counted.
    double frequency = nan, plasma_frequency = nan;
    std::size_t crossings = 0;
    // two-stream and species: the fitted growth rate (NaN when the run ends before a linear
    // phase of three steps), its window, and (two-stream) linear theory at the seeded k v0.
    double growth_rate = nan, growth_theory = nan, fit_from = nan, fit_to = nan;
};

class PicRun {
public:
    // UsageError for a scenario of another model or a bad value (validate()); Unsupported
    // naming [plasma] cells for a grid the FFT cannot take. Nothing is written before run().
    PicRun(Context& context, Scenario scenario, std::filesystem::path out);
    // Continues the run a checkpoint holds (its scenario, precision and particles). `length`,
    // when given, replaces [plasma] end_time (to run on past the original end: run_length.hpp).
    // Keeps the diagnostics.csv rows of the steps done when `out` holds them. UsageError for a
    // checkpoint of another model or at or past the end.
    static PicRun resume(Context& context, const std::filesystem::path& checkpoint,
                         std::filesystem::path out, RunLength length = {});

    const Scenario& scenario() const noexcept { return run_.scenario(); }
    // Its multi-device launches, as devices.csv reports them (run_loop.hpp).
    LaunchList launches() const { return run_.launches(); }
    std::size_t particles() const noexcept;
    std::uint64_t steps() const noexcept;  // ceil(end_time / dt), the last step landing on it
    std::uint64_t first_step() const noexcept;  // 0, or the checkpoint's step

    // Called after every sampled row.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to [plasma] end_time. Throws Error when the energies stop being finite (with the
    // time), UsageError for files it cannot write.
    PicRunSummary run();

private:
    explicit PicRun(RunLoop run) : run_(std::move(run)) {}
    RunLoop run_;
};

} // namespace partcl
