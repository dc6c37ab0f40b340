#pragma once
// CosmologyRun: a cosmological box ([scenario] model = "cosmology", table [cosmology]) turned
// into a run (the loop of run/run_loop.hpp with the cosmology model), what
// `partcl run cosmology` or a TOML file do, for programs to call.
// It starts dark-matter bodies from 2LPT or Zel'dovich initial conditions at [cosmology]
// start_redshift (models/cosmology/initial_conditions.hpp), or from a GADGET HDF5 file, and
// steps them with the comoving leapfrog (models/cosmology/comoving_leapfrog.hpp) under TreePM
// gravity (models/nbody/tree_pm_gravity.hpp) to the last of [cosmology] output_redshifts,
// landing a step on each. It writes into an output directory:
//
//   diagnostics.csv     step, a, redshift, linear_growth, power_growth, growth_error,
//                       velocity_rms: linear theory's D(a) / D(a_start); the power of the
//                       largest scales (shells below k = 0.1 h/Mpc, else the first shell) over
//                       its start value; power_growth / linear_growth^2 - 1; the rms peculiar
//                       velocity a dx/dt [km/s]. A row every [cosmology] sample_every steps,
//                       at every output and at the end
//   snapshot_NNNNNN.h5  at the start and each output redshift (NNNNNN the step): GADGET's
//                       layout (io/snapshot.hpp) with the scale factor as Time, the redshift
//                       and the cosmology in the header, comoving positions in [0, box) [Mpc/h],
//                       GADGET's velocities sqrt(a) dx/dt [km/s], masses [1e10 Msun/h]
//   power_NNNNNN.csv    with each snapshot: k [h/Mpc], power (measured, shot noise not taken
//                       off) [(Mpc/h)^3], modes, linear (the linear spectrum at that redshift),
//                       nonlinear (halofit's estimate, Takahashi et al. 2012), shot_noise
//   power_NNNNNN.png    the same as a plot
//   frame_NNNNNN.png    the projected density along z, on a log scale; every [cosmology]
//                       frame_every steps and at the end (0 = none)
//   checkpoint.bin      every [cosmology] checkpoint_every steps and at the end
//
// Every file is written atomically. A run resumed from a checkpoint ends bit for bit as the
// uninterrupted run on the same device: the mesh and the walk sum in a fixed order.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>

#include <partcl/io/scenario.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl {

struct CosmologyRunSummary : RunSummary {
    std::size_t bodies = 0;
    double body_steps_per_second = 0;
    double redshift = 0;  // where the run ended
    // At the end: linear theory's growth since the start, the measured growth of the largest
    // scales' power, and growth_error = power_growth / linear_growth^2 - 1 (diagnostics.csv's
    // last row); the largest |growth_error| over the rows.
    double linear_growth = 0, power_growth = 0, growth_error = 0, worst_growth_error = 0;
    double largest_scale_k = 0;  // [h/Mpc]: the largest k of the shells measured
    // Their modes (counting k and -k): with Gaussian amplitudes the growth of few modes
    // scatters by several percent (docs/cosmology.md, "Linear growth"); `fixed` amplitudes
    // take most of that out.
    std::size_t largest_scale_modes = 0;
};

class CosmologyRun {
public:
    // UsageError for a scenario of another model or a bad value (validate()), or a GADGET file
    // that is missing, damaged or disagrees with the scenario (box, cosmology, masses);
    // Unsupported for a mesh the FFT cannot take. Nothing is written before run().
    CosmologyRun(Context& context, Scenario scenario, std::filesystem::path out);
    // Continues the run a checkpoint holds. `length`, when given, sets [cosmology] steps (the
    // checkpoint's step must land where the run's own did); an end time is refused (the run
    // ends at its last output redshift). UsageError for a checkpoint of another model or at
    // the end.
    static CosmologyRun resume(Context& context, const std::filesystem::path& checkpoint,
                               std::filesystem::path out, RunLength length = {});

    const Scenario& scenario() const noexcept { return run_.scenario(); }
    LaunchList launches() const { return run_.launches(); }
    std::size_t bodies() const noexcept;
    std::uint64_t steps() const noexcept;       // to the last output
    std::uint64_t first_step() const noexcept;  // 0, or the checkpoint's step

    // Called after every step.
    void on_progress(std::function<void(const RunProgress&)> callback);

    // Runs to the last output redshift. Throws Error when the state stops being finite,
    // UsageError for files it cannot write.
    CosmologyRunSummary run();

private:
    explicit CosmologyRun(RunLoop run) : run_(std::move(run)) {}
    RunLoop run_;
};

} // namespace partcl
