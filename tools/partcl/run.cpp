// partcl run: the main job. A scenario (built-in name or TOML file) or a checkpoint becomes a run
// (N-body on the selected devices, MPS fluid or PIC plasma on the first one), with a progress
// bar while it runs and a summary at the end; the library's RunLoop does the work, writes the files
// and words the text.
#include "commands.hpp"
#include "text.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <unistd.h>

#include <partcl/partcl.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/scenario.hpp>

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
// Every integrator with its order and kind, from the library's catalog (docs/integrators.md).
std::string integrator_list() {
    std::string text = "Integrators (--integrator NAME, [integrator] name), by order and kind:\n";
    for (const IntegratorInfo& m : integrator_catalog()) {
        char line[200];
        std::snprintf(line, sizeof line, "  %-10s %d  %s\n", m.name.c_str(), m.order,
                      m.alias_of.empty() ? m.kind.c_str() : ("the same as " + m.alias_of).c_str());
        text += line;
    }
    return text;
}

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
                        "The method (overrides [integrator] name; the list below)")
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
                        "end_time; PIC plasma: [plasma] end_time; cosmology: none, it ends at its last output)")
        ->type_name("T");
    command->add_flag("--quiet", request.quiet, "No progress bar");
    command->add_flag("--profile", request.profile,
                      "Record every command's device time (kernels, copies, library calls): the "
                      "longest printed at the end, all in DIR/profile.csv");
    command->footer(
        "Writes into DIR: energy.csv, snapshot_NNNNNN.h5 (GADGET HDF5 layout), frame_NNNNNN.png,\n"
        "checkpoint.bin; MPS fluid: front.csv (dambreak) or bottom_pressure.csv (hydrostatic)\n"
        "and frame_NNNNNN.png coloured by pressure; PIC plasma: diagnostics.csv, phase-space\n"
        "frame_NNNNNN.png and checkpoint.bin; cosmology: diagnostics.csv, snapshots and\n"
        "power_NNNNNN.csv/.png at each output redshift, density frames, checkpoint.bin. Every\n"
        "run: devices.csv, each device's share of the\n"
        "work and kernel time per launch (docs/nbody.md); with --profile, profile.csv, every\n"
        "command's count and device seconds by rank, device and name. Scenario keys:\n"
        "docs/scenarios.md.\n\n" +
        integrator_list());
    return command;
}

namespace {

// One bar redrawn in place on a terminal; on a pipe or file, a line every tenth of the run.
class ProgressBar {
public:
    explicit ProgressBar(bool quiet) : quiet_(quiet), terminal_(isatty(STDERR_FILENO)) {}

    void operator()(const RunProgress& p) {
        if (quiet_) return;
        const double fraction = p.fraction, wall_seconds = p.wall_seconds;
        const bool done = p.done;
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
                      "..............................", p.text.c_str());
        std::cerr << line << (terminal_ ? "" : "\n") << std::flush;
        if (terminal_ && done) std::cerr << '\n';
    }

private:
    bool quiet_, terminal_;
    double last_ = -1;
    int decile_ = -1;
};

// profile.csv from every rank's entries (rank 0 writes it), and the longest of rank 0's printed.
void report_profile(Profile& profile, const std::string& out, const dist::Communicator& ranks) {
    const std::vector<Profile::Entry> entries = profile.entries();
    std::string rows;
    char line[512];
    // Names are kernels' identifiers or partcl's own ("sort_by_key (library)"): no commas.
    for (const Profile::Entry& e : entries) {
        std::snprintf(line, sizeof line, "%d,%zu,%s,%zu,%.9g\n", ranks.rank(), e.device,
                      e.name.c_str(), e.count, e.seconds);
        rows += line;
    }
    const std::vector<char> all = ranks.allgatherv(std::vector<char>(rows.begin(), rows.end()));
    if (!ranks.root()) return;
    write_file_atomically(std::filesystem::path(out) / "profile.csv",
                          "rank,device,name,count,seconds\n" + std::string(all.begin(), all.end()));
    double total = 0;
    for (const Profile::Entry& e : entries) total += e.seconds;
    std::printf("device time by command%s (all in %s/profile.csv):\n",
                ranks.size() > 1 ? " on rank 0" : "", out.c_str());
    for (std::size_t i = 0; i < entries.size() && i < 12; ++i) {
        const Profile::Entry& e = entries[i];
        std::printf("  %-30s device %zu %9zu x %12.3f ms %6.1f%%\n", e.name.c_str(), e.device,
                    e.count, 1e3 * e.seconds, total > 0 ? 100 * e.seconds / total : 0.0);
    }
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

    // Everything the user typed is checked before a device is touched or a file written; the
    // checkpoint is read once, and the run made from what was read.
    std::optional<Checkpoint> checkpoint;
    Scenario scenario;
    UnknownNames unknown;
    if (!request.resume.empty()) {
        checkpoint = read_checkpoint(request.resume);
    } else {
        scenario = find_scenario(request.scenario.empty() ? "galaxies" : request.scenario);
        if (scenario.model != "nbody") {
            if (const char* option = nbody_only_option(request))
                throw UsageError(std::string(option) + " is for N-body scenarios; '" + scenario.name +
                                 (scenario.model == "mps"   ? "' is an MPS fluid scenario (its frames: [fluid] frame_every)"
                                  : scenario.model == "pic" ? "' is a PIC plasma scenario (its frames: [plasma] frame_every)"
                                                            : "' is a cosmological scenario (its frames: [cosmology] frame_every)"));
            if (!request.precision.empty()) scenario.precision = parse_precision(request.precision);
            apply_run_length(scenario, length_of(request));
        } else {
            apply_run_length(scenario, length_of(request));
            if (request.n) scenario.n = *request.n;
            if (!request.precision.empty()) scenario.precision = parse_precision(request.precision);
            if (!request.integrator.empty()) scenario.integrator = request.integrator;
            if (request.snapshot_every) scenario.snapshot_every = *request.snapshot_every;
            if (request.frame_every) scenario.frame_every = *request.frame_every;
            if (!request.gravity.empty())
                set_by_name(scenario, "gravity.model", request.gravity, unknown);
            if (request.theta) scenario.tree.theta = *request.theta;
            if (request.leaf_size) scenario.tree.leaf_size = *request.leaf_size;
            if (!request.traversal.empty())
                set_by_name(scenario, "gravity.traversal", request.traversal, unknown);
            if (request.group_size) scenario.tree.group_size = *request.group_size;
        }
        validate(scenario, unknown);
    }

    // Under mpirun each rank takes its share of the machine's selected devices, and rank 0
    // speaks for the run.
    const dist::Communicator& ranks = dist::Communicator::world();
    Context context = dist::rank_context(global.filter(), ranks);
    RunOptions options;
    options.dense.autotune = request.autotune;
    options.ranks = &ranks;
    RunLoop run = checkpoint ? RunLoop::resume(context, *checkpoint, request.resume, request.out,
                                       length_of(request), options)
                         : RunLoop(context, std::move(scenario), request.out, options);
    if (ranks.root()) std::cerr << "partcl run: " << run.title() << "\n";
    ProgressBar bar(request.quiet || !ranks.root());
    run.on_progress([&bar](const RunProgress& p) { bar(p); });
    std::optional<Profile> profile;
    if (request.profile) profile.emplace();
    const RunSummary summary = run.run();
    if (ranks.root())
        for (const std::string& line : summary.lines) std::printf("%s\n", line.c_str());
    if (profile) report_profile(*profile, request.out, ranks);
    return 0;
}

} // namespace partcl::cli
