// partcl run: the main job. A scenario (built-in name or TOML file) becomes an N-body run on the
// selected devices, or an MPS fluid run on the first one, with a progress bar while it runs and
// a summary at the end; the library's NBodyRun and MpsRun do the work and write the files.
#include "commands.hpp"
#include "text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <unistd.h>

#include <partcl/partcl.hpp>
#include <partcl/run/mps_run.hpp>
#include <partcl/run/pic_run.hpp>
#include <partcl/run/nbody_run.hpp>

namespace partcl::cli {

namespace {
// Unsigned options see the text the user typed: "-5" would otherwise wrap to 2^64 - 5 and be
// reported so.
const CLI::Validator whole_number(
    [](std::string& text) {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? std::string() : "'" + text + "' is not a whole number (0, 1, 2, ...)";
    },
    "N");
} // namespace

CLI::App* add_run(CLI::App& app, RunRequest& request) {
    auto* command = app.add_subcommand(
        "run", "Run a scenario (default: galaxies, 16384 bodies, float) and write its outputs");
    command->add_option("scenario", request.scenario,
                        "Built-in scenario (galaxies, plummer, kepler, cube; MPS fluid: dambreak, "
                        "dambreak3d, hydrostatic; PIC plasma: langmuir, two-stream, pair-plasma) "
                        "or a TOML file")
        ->type_name("SCENARIO");
    command->add_option("--steps", request.steps,
                        "Number of steps to run (N-body: [run] steps; MPS fluid: [fluid] steps; "
                        "PIC plasma: steps of [plasma] dt)")
        ->check(whole_number)
        ->type_name("N");
    command->add_option("--n", request.n, "Number of bodies (overrides [bodies] n)")
        ->check(whole_number)
        ->type_name("N");
    command->add_option("--out", request.out, "Output directory (default: out)")->type_name("DIR");
    command->add_option("--precision", request.precision, "float or double")
        ->type_name("float|double");
    command->add_option("--integrator", request.integrator,
                        "euler, leapfrog, rk4, dopri5 or ab5")
        ->type_name("NAME");
    command->add_option("--gravity", request.gravity,
                        "dense (all pairs) or tree (Barnes-Hut kd-tree; overrides [gravity] model)")
        ->type_name("dense|tree");
    command->add_option("--theta", request.theta,
                        "Tree opening angle in [0, 1]; 0 = direct sum (overrides [gravity] theta)")
        ->type_name("X");
    command->add_option("--leaf-size", request.leaf_size,
                        "Tree: most bodies in a leaf (overrides [gravity] leaf_size)")
        ->check(whole_number)
        ->type_name("N");
    command->add_option("--traversal", request.traversal,
                        "Tree walk: stackless or nested (overrides [gravity] traversal)")
        ->type_name("NAME");
    command->add_option("--group-size", request.group_size,
                        "Tree: most bodies walking the tree together; 1 = per body "
                        "(overrides [gravity] group_size)")
        ->check(whole_number)
        ->type_name("N");
    command->add_option("--snapshot-every", request.snapshot_every,
                        "Write an HDF5 snapshot every M steps (0: at the end only)")
        ->check(whole_number)
        ->type_name("M");
    command->add_option("--frame-every", request.frame_every,
                        "Write a PNG frame every M steps (0: none)")
        ->check(whole_number)
        ->type_name("M");
    command->add_option("--resume", request.resume,
                        "Continue from a checkpoint (its scenario; --steps or --end-time may "
                        "extend it)")
        ->type_name("CHECKPOINT");
    command->add_flag("--autotune", request.autotune,
                      "Time the dense kernel's candidate shapes on each device first and keep "
                      "the fastest (remembered in the program cache)");
    command->add_option("--end-time", request.end_time,
                        "Simulated time to run to (N-body: [run] end_time; MPS fluid: [fluid] "
                        "end_time; PIC plasma: [plasma] end_time)")
        ->type_name("T");
    command->add_flag("--quiet", request.quiet, "No progress bar");
    command->footer(
        "Writes into DIR: energy.csv, snapshot_NNNNNN.h5 (GADGET HDF5 layout), frame_NNNNNN.png,\n"
        "checkpoint.bin; MPS fluid: front.csv (dambreak) or bottom_pressure.csv (hydrostatic)\n"
        "and frame_NNNNNN.png coloured by pressure; PIC plasma: diagnostics.csv, phase-space\n"
        "frame_NNNNNN.png and checkpoint.bin. Scenario keys: docs/scenarios.md.");
    return command;
}

namespace {

std::string clock_text(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    return text;
}

// One bar redrawn in place on a terminal; on a pipe or file, a line every tenth of the run.
class ProgressBar {
public:
    explicit ProgressBar(bool quiet) : quiet_(quiet), terminal_(isatty(STDERR_FILENO)) {}

    void operator()(const RunProgress& p) {
        char text[160];
        if (p.steps == 0) {  // an adaptive run to an end time
            const double fraction = std::min(1.0, p.time / p.end_time);
            const double eta = fraction > 0 ? p.wall_seconds * (1 - fraction) / fraction : 0;
            std::snprintf(text, sizeof text, "t %.4g/%.4g  %llu steps  %.2f steps/s  ETA %s  dE/E %.2e",
                          p.time, p.end_time, static_cast<unsigned long long>(p.step),
                          p.steps_per_second, clock_text(eta).c_str(), p.energy_drift);
            draw(fraction, fraction >= 1, p.wall_seconds, text);
            return;
        }
        const double fraction = double(p.step) / double(p.steps);
        const double eta =
            p.steps_per_second > 0 ? double(p.steps - p.step) / p.steps_per_second : 0;
        std::snprintf(text, sizeof text, "%llu/%llu steps  %.2f steps/s  ETA %s  dE/E %.2e",
                      static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(p.steps),
                      p.steps_per_second, clock_text(eta).c_str(), p.energy_drift);
        draw(fraction, p.step == p.steps, p.wall_seconds, text);
    }

    void operator()(const MpsRunProgress& p, const Scenario::Fluid& f) {
        const double fraction = p.steps ? std::min(1.0, double(p.step) / double(p.steps))
                                        : std::min(1.0, p.time / p.end_time);
        const bool done = p.steps ? p.step >= p.steps : p.time >= p.end_time;
        const double eta = fraction > 0 ? p.wall_seconds * (1 - fraction) / fraction : 0;
        char text[200];
        if (f.setup == FluidSetup::dambreak)
            std::snprintf(text, sizeof text, "t %.4f/%.4g s  T %.2f  front Z %.3f  %llu steps  %.0f steps/s  ETA %s",
                          p.time, p.steps ? p.time : p.end_time, p.time * std::sqrt(2 * f.gravity / f.water_width),
                          p.front / f.water_width, static_cast<unsigned long long>(p.step),
                          p.steps_per_second, clock_text(eta).c_str());
        else
            std::snprintf(text, sizeof text, "t %.4f/%.4g s  bottom pressure %.1f Pa  %llu steps  %.0f steps/s  ETA %s",
                          p.time, p.steps ? p.time : p.end_time, p.bottom_pressure, static_cast<unsigned long long>(p.step),
                          p.steps_per_second, clock_text(eta).c_str());
        draw(fraction, done, p.wall_seconds, text);
    }

    void operator()(const PicRunProgress& p) {
        const double fraction = p.steps ? std::min(1.0, double(p.step) / double(p.steps)) : 1.0;
        const bool done = p.step >= p.steps;
        const double eta = fraction > 0 ? p.wall_seconds * (1 - fraction) / fraction : 0;
        char text[200];
        std::snprintf(text, sizeof text, "t %.2f  %llu/%llu steps  field energy %.3e  total %.6e  %.0f steps/s  ETA %s",
                      p.time, static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(p.steps),
                      p.field_energy, p.total_energy, p.steps_per_second, clock_text(eta).c_str());
        draw(fraction, done, p.wall_seconds, text);
    }

private:
    void draw(double fraction, bool done, double wall_seconds, const char* text) {
        if (quiet_) return;
        if (terminal_) {
            if (!done && wall_seconds - last_ < 0.1) return;
        } else {
            const int decile = static_cast<int>(fraction * 10);
            if (decile == decile_ && !done) return;
            decile_ = decile;
        }
        last_ = wall_seconds;
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        char line[300];
        std::snprintf(line, sizeof line, "%s[%.*s%.*s] %s", terminal_ ? "\r" : "", filled,
                      "##############################", width - filled,
                      "..............................", text);
        std::cerr << line << (terminal_ ? "" : "\n") << std::flush;
        if (terminal_ && done) std::cerr << '\n';
    }


    bool quiet_, terminal_;
    double last_ = -1;
    int decile_ = -1;
};

std::string format_tree(const Scenario& s) {
    char text[128];
    std::snprintf(text, sizeof text, "%g, leaves of %llu, %s, groups of %llu", s.tree.theta,
                  static_cast<unsigned long long>(s.tree.leaf_size), to_string(s.tree.traversal),
                  static_cast<unsigned long long>(s.tree.group_size));
    return text;
}

// As an ostream prints a double by default (6 significant digits).
std::string shortest(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

RunLength length_of(const RunRequest& request) {
    return {request.steps.value_or(0), request.end_time.value_or(0)};
}

// The first N-body-only option given, or null: fluid and plasma runs refuse them by name.
const char* nbody_only_option(const RunRequest& request) {
    return request.n ? "--n"
           : !request.integrator.empty() ? "--integrator"
           : !request.gravity.empty() ? "--gravity"
           : request.theta ? "--theta"
           : request.leaf_size ? "--leaf-size"
           : !request.traversal.empty() ? "--traversal"
           : request.group_size ? "--group-size"
           : request.snapshot_every ? "--snapshot-every"
           : request.frame_every ? "--frame-every"
           : request.autotune ? "--autotune"
                              : nullptr;
}

// An MPS fluid scenario: the N-body options do not apply to it.
int run_mps(const RunRequest& request, const GlobalOptions& global, Scenario scenario) {
    const char* not_for_mps = nbody_only_option(request);
    if (not_for_mps)
        throw UsageError(std::string(not_for_mps) + " is for N-body scenarios; '" + scenario.name +
                         "' is an MPS fluid scenario (its frames: [fluid] frame_every)");
    const bool resume = !request.resume.empty();
    if (!resume) {
        if (!request.precision.empty()) scenario.precision = parse_precision(request.precision);
        apply_run_length(scenario, length_of(request));
        validate(scenario);
    }

    Context context = Context::from_filter(global.filter());
    MpsRun run = resume ? MpsRun::resume(context, request.resume, request.out, length_of(request))
                        : MpsRun(context, scenario, request.out);
    const Scenario& s = run.scenario();
    const Scenario::Fluid& f = s.fluid;
    std::cerr << "partcl run: " << s.name << ", MPS " << to_string(f.setup) << " " << f.dimensions << "-D, "
              << run.particles() << " particles (" << run.fluid_particles() << " water), l0 = "
              << f.spacing << " m, " << to_string(s.precision) << ", "
              << (f.steps ? std::to_string(f.steps) + " steps" : "to t = " + shortest(f.end_time) + " s")
              << " on " << context.device(0).info().name << " ("
              << context.device(0).info().platform << ")"
              << (resume ? ", resumed from " + request.resume : std::string()) << "\n";
    ProgressBar bar(request.quiet);
    run.on_progress([&bar, &f](const MpsRunProgress& p) { bar(p, f); });
    const MpsRunSummary summary = run.run();

    std::size_t frames = 0;
    for (const auto& file : summary.files) frames += file.extension() == ".png";
    std::printf("t = %.6g s in %llu steps%s, wall %.2f s, %.3e particle-steps/s\n", summary.time,
                static_cast<unsigned long long>(summary.steps),
                summary.first_step ? (" (" + std::to_string(summary.first_step) + " before the checkpoint)").c_str() : "",
                summary.wall_seconds, summary.particle_steps_per_second);
    if (f.setup == FluidSetup::dambreak)
        std::printf("front x = %.4f m, Z = x/a = %.3f at T = t sqrt(2g/a) = %.3f\n"
                    "wrote front.csv, checkpoint.bin and %zu frames in %s\n",
                    summary.front, summary.front_z, summary.time * std::sqrt(2 * f.gravity / f.water_width),
                    frames, request.out.c_str());
    else
        std::printf("bottom pressure %.1f Pa against rho g h %.1f Pa (%+.1f%%), averaged over t >= %.4g s\n"
                    "wrote bottom_pressure.csv, checkpoint.bin and %zu frames in %s\n",
                    summary.bottom_pressure, summary.hydrostatic_pressure,
                    100 * (summary.bottom_pressure / summary.hydrostatic_pressure - 1),
                    0.5 * (f.steps ? summary.time : f.end_time),
                    frames, request.out.c_str());
    return 0;
}

// A PIC plasma scenario, fresh or (request.resume) from a checkpoint: the N-body options do not
// apply to it.
int run_pic(const RunRequest& request, const GlobalOptions& global, Scenario scenario) {
    const char* not_for_pic = nbody_only_option(request);
    if (not_for_pic)
        throw UsageError(std::string(not_for_pic) + " is for N-body scenarios; '" + scenario.name +
                         "' is a PIC plasma scenario (its frames: [plasma] frame_every)");
    if (request.resume.empty()) {
        if (!request.precision.empty()) scenario.precision = parse_precision(request.precision);
        apply_run_length(scenario, length_of(request));
        validate(scenario);
    }

    Context context = Context::from_filter(global.filter());
    PicRun run = request.resume.empty()
                     ? PicRun(context, scenario, request.out)
                     : PicRun::resume(context, request.resume, request.out, length_of(request));
    const Scenario& s = run.scenario();
    const Scenario::Plasma& p = s.plasma;
    std::string cells = std::to_string(p.cells);
    if (p.dimensions > 1) cells += "^" + std::to_string(p.dimensions);
    std::cerr << "partcl run: " << s.name << ", PIC " << to_string(p.setup) << " " << p.dimensions << "-D, "
              << run.particles() << " particles"
              << (p.setup == PlasmaSetup::species ? " of " + std::to_string(p.species.size()) + " species" : std::string())
              << " on " << cells << " cells, " << to_string(p.deposit) << " deposit, "
              << to_string(s.precision) << ", " << run.steps() << " steps of dt = " << p.dt
              << " on " << context.device(0).info().name << " ("
              << context.device(0).info().platform << ")"
              << (request.resume.empty() ? "" : ", resumed from " + request.resume + " at step " +
                                                    std::to_string(run.first_step()))
              << "\n";
    ProgressBar bar(request.quiet);
    run.on_progress([&bar](const PicRunProgress& progress) { bar(progress); });
    const PicRunSummary summary = run.run();

    std::size_t frames = 0;
    for (const auto& file : summary.files) frames += file.extension() == ".png";
    std::printf("t = %.6g in %llu steps, wall %.2f s, %.3e particle-steps/s\n"
                "total energy within %.2e, momentum within %.2e (relative)\n",
                summary.time, static_cast<unsigned long long>(summary.steps), summary.wall_seconds,
                summary.particle_steps_per_second, summary.energy_error, summary.momentum_error);
    if (p.setup != PlasmaSetup::two_stream) {
        const char* theory = p.setup == PlasmaSetup::species ? "the cold-plasma frequency" : "the plasma frequency";
        if (std::isnan(summary.frequency))
            std::printf("frequency: not measured (%zu zero crossings of the mode; run longer)\n",
                        summary.crossings);
        else
            std::printf("frequency %.5f against %s %.5f (%+.2f%%), from %zu zero crossings\n",
                        summary.frequency, theory, summary.plasma_frequency,
                        100 * (summary.frequency / summary.plasma_frequency - 1), summary.crossings);
    }
    if (p.setup == PlasmaSetup::two_stream) {
        if (std::isnan(summary.growth_rate))
            std::printf("growth rate: not measured (no linear phase of three steps; run longer); theory %.5f\n",
                        summary.growth_theory);
        else
            std::printf("growth rate %.5f against linear theory %.5f (%+.1f%%), fitted over t = %.1f..%.1f\n",
                        summary.growth_rate, summary.growth_theory,
                        100 * (summary.growth_rate / summary.growth_theory - 1), summary.fit_from,
                        summary.fit_to);
    } else if (p.setup == PlasmaSetup::species && !std::isnan(summary.growth_rate)) {
        std::printf("growth rate %.5f of the mode, fitted over t = %.1f..%.1f\n", summary.growth_rate,
                    summary.fit_from, summary.fit_to);
    }
    std::printf("wrote diagnostics.csv, %zu frames and checkpoint.bin in %s\n", frames, request.out.c_str());
    return 0;
}

} // namespace

int run_run(const RunRequest& request, const GlobalOptions& global) {
    const bool overrides = request.n || !request.precision.empty() || !request.integrator.empty() ||
                           request.snapshot_every || request.frame_every || !request.scenario.empty() ||
                           !request.gravity.empty() || request.theta || request.leaf_size ||
                           !request.traversal.empty() || request.group_size;
    if (!request.resume.empty() && overrides)
        throw UsageError("--resume continues the checkpoint's own scenario: only --steps or "
                         "--end-time, --out and --device may be given with it");
    if (request.steps && request.end_time)
        throw UsageError("give --steps or --end-time, not both");

    // Everything the user typed is checked before a device is touched or a file written.
    Scenario scenario;
    if (!request.resume.empty()) {
        const Scenario saved = parse_scenario(read_checkpoint(request.resume).scenario_toml, request.resume);
        if (saved.model == "pic") return run_pic(request, global, saved);
        if (saved.model == "mps") return run_mps(request, global, saved);
    } else {
        scenario = find_scenario(request.scenario.empty() ? "galaxies" : request.scenario);
        if (scenario.model == "mps") return run_mps(request, global, scenario);
        if (scenario.model == "pic") return run_pic(request, global, scenario);
        apply_run_length(scenario, length_of(request));
        if (request.n) scenario.n = *request.n;
        if (!request.precision.empty()) scenario.precision = parse_precision(request.precision);
        if (!request.integrator.empty()) scenario.integrator = request.integrator;
        if (request.snapshot_every) scenario.snapshot_every = *request.snapshot_every;
        if (request.frame_every) scenario.frame_every = *request.frame_every;
        UnknownNames unknown;
        if (!request.gravity.empty()) set_by_name(scenario, "gravity.model", request.gravity, unknown);
        if (request.theta) scenario.tree.theta = *request.theta;
        if (request.leaf_size) scenario.tree.leaf_size = *request.leaf_size;
        if (!request.traversal.empty())
            set_by_name(scenario, "gravity.traversal", request.traversal, unknown);
        if (request.group_size) scenario.tree.group_size = *request.group_size;
        validate(scenario, unknown);
    }

    Context context = Context::from_filter(global.filter());
    DenseOptions dense;
    dense.autotune = request.autotune;
    NBodyRun run = request.resume.empty()
                       ? NBodyRun(context, scenario, request.out, dense)
                       : NBodyRun::resume(context, request.resume, request.out,
                                          length_of(request), dense);
    const Scenario& s = run.scenario();
    std::string devices;
    for (const auto& d : context.devices()) devices += (devices.empty() ? "" : " + ") + d.info().name;
    std::cerr << "partcl run: " << s.name << ", N = " << run.bodies() << ", "
              << to_string(s.precision) << ", " << to_string(s.gravity_model)
              << (s.gravity_model == GravityModelKind::tree ? " (theta " + format_tree(s) + ")" : std::string())
              << ", " << s.integrator << ", "
              << (s.end_time > 0 && integrator_adapts_step(s.integrator)
                      ? "to t = " + shortest(s.end_time)
                      : std::to_string(s.steps) + " steps")
              << " on " << devices << " (" << context.device(0).info().platform << ")"
              << (request.resume.empty() ? "" : ", resumed from " + request.resume) << "\n";
    ProgressBar bar(request.quiet);
    run.on_progress([&bar](const RunProgress& p) { bar(p); });
    const RunSummary summary = run.run();

    std::size_t snapshots = 0, frames = 0;
    for (const auto& f : summary.files) {
        snapshots += f.extension() == ".h5";
        frames += f.extension() == ".png";
    }
    std::printf("steps %llu..%llu, t = %.6g, wall %.2f s, %.2f steps/s\n"
                "relative energy drift %.3e\n"
                "%.3e interactions/s (%s)\n"
                "wrote %zu snapshots, %zu frames, energy.csv and checkpoint.bin in %s\n",
                static_cast<unsigned long long>(summary.first_step),
                static_cast<unsigned long long>(summary.last_step), summary.time,
                summary.wall_seconds, summary.steps_per_second, summary.energy_drift,
                summary.interactions_per_second,
                s.gravity_model == GravityModelKind::tree ? "N^2 per force evaluation over wall time: the direct-sum equivalent"
                                          : "force evaluations over wall time",
                snapshots, frames, request.out.c_str());
    return 0;
}

} // namespace partcl::cli
