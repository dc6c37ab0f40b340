#pragma once
// PicRun: a plasma scenario ([scenario] model = "pic", table [plasma]) turned into a run, what
// `partcl run langmuir` and `partcl run two-stream` do, for programs to call. It loads the
// set-up (models/pic/pic_plasma.hpp), steps ElectrostaticPic to [plasma] end_time on device 0 of
// a Context, and writes into an output directory:
//
//   diagnostics.csv    t, field_energy, kinetic_energy, total, momentum, mode_sin, mode_cos:
//                      energies as ElectrostaticPic reports them (kinetic from the half-step
//                      velocities), momentum sum w m v, the field's projections on sin and cos
//                      of the seeded mode; a row every [plasma] sample_every steps and at the end
//   frame_NNNNNN.png   phase space x against v (render_phase_space), NNNNNN the step; every
//                      [plasma] frame_every steps and at the end (0 = none)
//
// and measures, from the seeded mode at every step: langmuir, its angular frequency from the
// zero crossings (against omega_p = 1); two-stream, the growth rate of log |E_k| over the linear
// phase (against cold-beam theory). Every file is written atomically.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <partcl/io/scenario.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

struct PicRunProgress {
    std::uint64_t step = 0, steps = 0;
    double time = 0;
    double wall_seconds = 0;
    double steps_per_second = 0;
    double field_energy = 0, total_energy = 0;
};

struct PicRunSummary {
    std::uint64_t steps = 0;
    std::size_t particles = 0;
    double time = 0, wall_seconds = 0;
    double particle_steps_per_second = 0;
    // Over the sampled rows: the largest |E / E(0) - 1| of the total energy, and the largest
    // |P - P(0)| over the largest sum w m |v| (the momentum scale; 0 when nothing moves).
    double energy_error = 0, momentum_error = 0;
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    // langmuir: the measured angular frequency (NaN with fewer than two zero crossings) and
    // the plasma frequency, 1 in the set-up's units; crossings counted.
    double frequency = nan, plasma_frequency = nan;
    std::size_t crossings = 0;
    // two-stream: the fitted growth rate (NaN when the run ends before a linear phase of three
    // steps), its window, and linear theory at the seeded k v0.
    double growth_rate = nan, growth_theory = nan, fit_from = nan, fit_to = nan;
    std::vector<std::filesystem::path> files;  // written by this run
};

class PicRun {
public:
    // UsageError for a scenario of another model or a bad value (validate()); Unsupported
    // naming [plasma] cells for a grid the FFT cannot take. Nothing is written before run().
    PicRun(Context& context, Scenario scenario, std::filesystem::path out);
    PicRun(PicRun&&) noexcept;
    ~PicRun();

    const Scenario& scenario() const noexcept;
    std::size_t particles() const noexcept;
    std::uint64_t steps() const noexcept;  // ceil(end_time / dt), the last step landing on it

    // Called after every sampled row.
    void on_progress(std::function<void(const PicRunProgress&)> callback);

    // Runs to [plasma] end_time. Throws Error when the energies stop being finite (with the
    // time), UsageError for files it cannot write.
    PicRunSummary run();

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace partcl
