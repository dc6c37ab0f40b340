#include <partcl/run/cosmology_run.hpp>

#include <partcl/io/checkpoint.hpp>
#include <partcl/io/plot.hpp>
#include <partcl/io/render.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/models/cosmology/comoving_leapfrog.hpp>
#include <partcl/models/cosmology/halofit.hpp>
#include <partcl/models/cosmology/initial_conditions.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/tree_pm_gravity.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/support/atomic_file.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "models.hpp"
#include "output.hpp"
#include "tree_checkpoint.hpp"

namespace partcl {

namespace fs = std::filesystem;

namespace {

constexpr const char* cosmology_header =
    "step,a,redshift,linear_growth,power_growth,growth_error,velocity_rms\n";
// The growth test's scales (issue and docs/cosmology.md): linear to a few percent at z = 0.
constexpr double largest_scales_k = 0.1;

// The scale factor after each step: the outputs' scale factors split ln a into intervals, each
// given its share of the steps (at least one), uniform in ln a within it. outputs[i] is the step
// that lands on output i.
struct StepPlan {
    std::vector<double> a;  // steps + 1 values, a[0] the start
    std::vector<std::uint64_t> outputs;
};

StepPlan plan_steps(double a_start, const std::vector<double>& redshifts, std::uint64_t steps) {
    const std::size_t count = redshifts.size();
    std::vector<double> ends(count);
    for (std::size_t i = 0; i < count; ++i) ends[i] = std::log(cosmology::scale_factor(redshifts[i]));
    const double first = std::log(a_start), total = ends.back() - first;
    StepPlan plan;
    std::uint64_t done = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t share = std::uint64_t(std::llround(double(steps) * (ends[i] - first) / total));
        const std::uint64_t at = i + 1 == count ? steps
                                                : std::clamp<std::uint64_t>(share, done + 1, steps - (count - 1 - i));
        plan.outputs.push_back(at);
        done = at;
    }
    plan.a.push_back(a_start);
    double from = first;
    std::uint64_t step = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t n = plan.outputs[i] - step;
        for (std::uint64_t j = 1; j <= n; ++j)
            plan.a.push_back(j == n ? cosmology::scale_factor(redshifts[i])
                                    : std::exp(from + (ends[i] - from) * double(j) / double(n)));
        from = ends[i];
        step = plan.outputs[i];
    }
    return plan;
}

cosmology::InitialConditions lattice_options(const Scenario::Cosmology& c) {
    cosmology::InitialConditions ic;
    ic.side = std::size_t(c.side);
    ic.box = c.box;
    ic.redshift = c.start_redshift;
    ic.seed = c.seed;
    ic.second_order = c.initial == CosmologyStart::second_order;
    ic.fixed_amplitude = c.fixed_amplitude;
    return ic;
}

// A GADGET HDF5 file's bodies, in the run's units and velocities, and its scale factor. The file
// is checked against the scenario: its BoxSize must be [cosmology] box in Mpc/h or in kpc/h
// (N-GenIC's and MUSIC's usual unit), its Omega0 and OmegaLambda, when it has them, the
// scenario's, and its total mass Omega_m rho_crit box^3 to 1%.
Bodies gadget_bodies(const Scenario& s, double& a) {
    const Scenario::Cosmology& c = s.cosmology;
    const std::string file = c.initial_file.string();
    const auto bad = [&](const std::string& what) {
        throw UsageError("scenario '" + s.name + "': [cosmology] initial_file " + file + ": " + what);
    };
    Snapshot snap = read_snapshot(c.initial_file);
    const double length = std::abs(snap.box_size - c.box) <= 1e-6 * c.box            ? 1.0
                          : std::abs(snap.box_size - 1000 * c.box) <= 1e-3 * c.box ? 1e-3
                                                                                    : 0.0;
    if (length == 0)
        bad("its BoxSize " + detail::shortest(snap.box_size) + " is neither [cosmology] box " +
            detail::shortest(c.box) + " (Mpc/h) nor that in kpc/h");
    a = snap.time;
    if (!(a >= 1e-3 && a < 1)) bad("its Time (the scale factor) " + detail::shortest(a) + " is not in [0.001, 1)");
    if (!(1 / a - 1 > c.output_redshifts.front()))
        bad("it starts at z = " + detail::shortest(1 / a - 1) + ", not before the first output redshift " +
            detail::shortest(c.output_redshifts.front()));
    const SnapshotCosmology& fc = snap.cosmology;
    if (fc.comoving() && (std::abs(fc.omega_matter - c.omega_matter) > 1e-6 ||
                          std::abs(fc.omega_lambda - c.omega_lambda) > 1e-6))
        bad("its Omega0 " + detail::shortest(fc.omega_matter) + " and OmegaLambda " +
            detail::shortest(fc.omega_lambda) + " are not the scenario's " + detail::shortest(c.omega_matter) +
            " and " + detail::shortest(c.omega_lambda));
    Bodies& b = snap.bodies;
    const double velocity = std::pow(a, 1.5);  // GADGET's sqrt(a) dx/dt to u = a^2 dx/dt
    double total = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        b.x[i] = cosmology::periodic_image(b.x[i] * length, c.box);
        b.y[i] = cosmology::periodic_image(b.y[i] * length, c.box);
        b.z[i] = cosmology::periodic_image(b.z[i] * length, c.box);
        b.vx[i] *= velocity, b.vy[i] *= velocity, b.vz[i] *= velocity;
        total += b.m[i];
    }
    const double expected = c.omega_matter * cosmology::critical_density * c.box * c.box * c.box;
    if (std::abs(total / expected - 1) > 0.01)
        bad("its total mass " + detail::shortest(total) + " (1e10 Msun/h) is not Omega_m rho_crit box^3 = " +
            detail::shortest(expected) + ": its units or cosmology are not the scenario's");
    return std::move(b);
}

class CosmologyModel final : public RunModel {
public:
    // A fresh run (saved null) or one resumed from a checkpoint's bodies at its step.
    CosmologyModel(Context& c, Scenario s, const Checkpoint* saved = nullptr)
        : context(c), scenario_(std::move(s)), background(scenario_.cosmology), linear(scenario_.cosmology) {
        const Scenario::Cosmology& cs = scenario_.cosmology;
        Bodies initial;
        double a_start = cosmology::scale_factor(cs.start_redshift);
        if (saved) {
            a_start = saved->initial_diagnostics[2];  // a GADGET file's, or the lattice's
        } else if (cs.initial == CosmologyStart::gadget) {
            initial = gadget_bodies(scenario_, a_start);
        } else {
            try {
                initial = cosmology::make_initial_conditions(context, cs, lattice_options(cs));
            } catch (const Unsupported& e) {
                throw Unsupported("scenario '" + scenario_.name + "': [cosmology] side = " +
                                  std::to_string(cs.side) + ": " + e.what());
            }
        }
        plan = plan_steps(a_start, cs.output_redshifts, cs.steps);
        if (saved) {
            initial = detail::bodies_from_state(saved->state, saved->mass);
            step_ = saved->step;
        }
        n = initial.size();
        const double spacing = cs.box / std::cbrt(double(n));
        TreePmOptions options;
        options.box = cs.box;
        options.mesh = cs.mesh ? std::size_t(cs.mesh)
                               : std::max<std::size_t>(8, 2 * std::size_t(std::llround(std::cbrt(double(n)))));
        options.split_cells = cs.split_cells;
        options.cut_splits = cs.cut_splits;
        options.tree.theta = cs.theta;
        options.tree.rebuild_every = cs.rebuild_every;
        options.tree.rebuild_growth = cs.rebuild_growth;
        options.tree.relative_accuracy = cs.relative_accuracy;
        try {
            gravity = std::make_unique<TreePmGravity>(
                context, scenario_.precision,
                GravityParameters{cosmology::gravitational_constant, cs.softening * spacing}, options);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario_.name + "': a mesh of " + std::to_string(options.mesh) +
                              "^3 ([cosmology] mesh): " + e.what());
        } catch (const UsageError& e) {
            throw UsageError("scenario '" + scenario_.name + "': [cosmology] mesh, split_cells, cut_splits or theta: " +
                             e.what());
        }
        bodies = std::make_unique<DeviceBodies>(context, scenario_.precision, initial);
        leapfrog = std::make_unique<cosmology::ComovingLeapfrog>(context, background, *gravity, *bodies,
                                                                 plan.a[step_]);
    }

    const Scenario& scenario() const override { return scenario_; }
    RunSchedule schedule() const override {
        const Scenario::Cosmology& c = scenario_.cosmology;
        RunSchedule r;
        r.steps = c.steps;
        r.sample.steps = c.sample_every;
        r.frame.steps = c.frame_every;
        r.checkpoint.steps = c.checkpoint_every;
        r.snapshot_steps = plan.outputs;
        r.snapshot_steps.insert(r.snapshot_steps.begin(), 0);
        r.progress_every_step = true;
        return r;
    }
    std::uint64_t step() const override { return step_; }
    double time() const override { return plan.a[step_]; }
    bool finished() const override { return step_ >= scenario_.cosmology.steps; }
    void advance(double) override {
        leapfrog->step(plan.a[step_ + 1]);
        ++step_;
    }

    std::string csv_name() const override { return "diagnostics.csv"; }
    std::string csv_header() const override { return cosmology_header; }
    std::string sample() override {
        const double a = time();
        const Bodies& now = observe();
        double v2 = 0;
        for (std::size_t i = 0; i < n; ++i)
            v2 += now.vx[i] * now.vx[i] + now.vy[i] * now.vy[i] + now.vz[i] * now.vz[i];
        const double velocity_rms = std::sqrt(v2 / double(n)) / a;  // u / a = a dx/dt
        if (!std::isfinite(velocity_rms))
            throw Error("the bodies are no longer finite at step " + std::to_string(step_) + " (z = " +
                        std::to_string(1 / a - 1) + ")");
        const double power = largest_scales_power(spectrum());
        if (power0 == 0) power0 = power;
        const double g = background.growth(a) / background.growth(plan.a[0]);
        power_growth = power / power0;
        linear_growth = g;
        growth_error = power_growth / (g * g) - 1;
        worst_growth_error = std::max(worst_growth_error, std::abs(growth_error));
        return detail::format("%llu,%.9g,%.9g,%.9g,%.9g,%.6e,%.9g\n", static_cast<unsigned long long>(step_), a,
                              1 / a - 1, g, power_growth, growth_error, velocity_rms);
    }
    void write_frame(const fs::path& file) override {
        const double box = scenario_.cosmology.box;
        Bodies centred = observe();
        for (std::size_t i = 0; i < n; ++i) centred.x[i] -= box / 2, centred.y[i] -= box / 2;
        RenderSettings r = scenario_.render;
        r.height = r.width;
        r.extent = box / 2;
        render_density(file, centred, r);
    }
    void write_snapshot(const fs::path& file) override {
        const double a = time();
        Bodies out = observe();
        const double velocity = 1 / std::pow(a, 1.5);  // GADGET's sqrt(a) dx/dt
        for (std::size_t i = 0; i < n; ++i) out.vx[i] *= velocity, out.vy[i] *= velocity, out.vz[i] *= velocity;
        const Scenario::Cosmology& c = scenario_.cosmology;
        partcl::write_snapshot(file, out, a, c.box, unit_system_from("1 Mpc", "1e10 Msun", "1 km/s"),
                               {1 / a - 1, c.omega_matter, c.omega_lambda, c.h});
    }
    std::vector<fs::path> write_with_snapshot(const fs::path& snapshot) override;
    std::vector<StateArray> state() override { return detail::body_state(observe()); }
    void save(Checkpoint& c) const override {
        c.device = detail::device_names(context);
        c.state = bodies->state.read(context.queue(0));
        c.mass = bodies->mass.read(context.queue(0));
        c.initial_diagnostics = {power0, worst_growth_error, plan.a[0]};
        detail::put_tree_order(gravity->short_range().order(), c);
    }
    void restore(const Checkpoint& c) {
        // Version 2 checkpoints hold no order: the tree is built anew, as it then was each step.
        gravity->short_range().restore(detail::tree_order_of(c, n, "a cosmological run"));
        first_step = c.step;
        power0 = c.initial_diagnostics[0];
        worst_growth_error = c.initial_diagnostics[1];
    }

    std::string title(const std::string& resumed_from) const override;
    std::string progress_text(const RunProgress& p) const override {
        return detail::format("z %.3f  %llu/%llu steps  growth error %+.2f%%  %.2f steps/s  ETA %s",
                              1 / p.time - 1, static_cast<unsigned long long>(p.step),
                              static_cast<unsigned long long>(p.steps), 100 * growth_error, p.steps_per_second,
                              detail::clock_text(p.eta_seconds).c_str());
    }
    CosmologyRunSummary results(const RunSummary& loop) const {
        CosmologyRunSummary r;
        static_cast<RunSummary&>(r) = loop;
        r.bodies = n;
        r.body_steps_per_second =
            r.wall_seconds > 0 ? double(r.last_step - first_step) * double(n) / r.wall_seconds : 0;
        r.redshift = 1 / time() - 1;
        r.linear_growth = linear_growth;
        r.power_growth = power_growth;
        r.growth_error = growth_error;
        r.worst_growth_error = worst_growth_error;
        r.largest_scale_k = largest_k;
        r.largest_scale_modes = largest_modes;
        return r;
    }
    std::vector<std::string> summary_lines(const RunSummary& loop, const std::string& out) const override;
    LaunchList launches() const override { return gravity->launches(); }

    std::size_t size() const { return n; }
    std::uint64_t last_step() const { return scenario_.cosmology.steps; }
    std::uint64_t resumed_at() const { return first_step; }
    // The scale factor the plan gives `step`, for checking a checkpoint against it.
    double planned_a(std::uint64_t step) const { return plan.a[std::min<std::size_t>(step, plan.a.size() - 1)]; }

private:
    // The bodies at this step, wrapped into the box, read once for its row, frame and snapshot.
    const Bodies& observe() {
        if (observed_step != step_ || observed.size() == 0) {
            observed = bodies->download(context.queue(0));
            const double box = scenario_.cosmology.box;
            for (std::size_t i = 0; i < n; ++i) {
                observed.x[i] = cosmology::periodic_image(observed.x[i], box);
                observed.y[i] = cosmology::periodic_image(observed.y[i], box);
                observed.z[i] = cosmology::periodic_image(observed.z[i], box);
            }
            observed_step = step_;
        }
        return observed;
    }
    const PowerSpectrum& spectrum() {
        if (spectrum_step != step_ || spectrum_.bins.empty()) {
            spectrum_ = gravity->long_range().power_spectrum(bodies->state, bodies->mass, n);
            spectrum_step = step_;
        }
        return spectrum_;
    }
    // The mode-weighted power of the shells below largest_scales_k (the first shell when none
    // is): the same modes at every step, so its growth is free of the realisation's scatter.
    double largest_scales_power(const PowerSpectrum& p) {
        double sum = 0, modes = 0;
        for (const PowerBin& b : p.bins)
            if (b.k < largest_scales_k || modes == 0) {
                sum += b.power * double(b.modes);
                modes += double(b.modes);
                largest_k = b.k;
            }
        largest_modes = std::size_t(modes);
        return sum / modes;
    }

    Context& context;
    Scenario scenario_;
    cosmology::Background background;
    cosmology::LinearPower linear;
    StepPlan plan;
    std::size_t n = 0;
    std::unique_ptr<TreePmGravity> gravity;
    std::unique_ptr<DeviceBodies> bodies;
    std::unique_ptr<cosmology::ComovingLeapfrog> leapfrog;
    std::uint64_t step_ = 0, first_step = 0;
    Bodies observed;
    std::uint64_t observed_step = 0;
    PowerSpectrum spectrum_;
    std::uint64_t spectrum_step = 0;

    // What the run has measured (a checkpoint carries the first two): the largest scales' power
    // at the start, the worst growth error over the rows; the latest row's growths.
    double power0 = 0, worst_growth_error = 0;
    double linear_growth = 1, power_growth = 1, growth_error = 0, largest_k = 0;
    std::size_t largest_modes = 0;
};

std::vector<fs::path> CosmologyModel::write_with_snapshot(const fs::path& snapshot) {
    const double a = time(), z = 1 / a - 1;
    const PowerSpectrum& p = spectrum();
    const cosmology::Halofit halofit(background, linear, a);
    const double g = background.growth(a);
    std::string csv = "k,power,modes,linear,nonlinear,shot_noise\n";
    LogLogPlot plot;
    plot.title = detail::format("%s: P(k) at z = %.3g", scenario_.name.c_str(), z);
    plot.x_label = "k [h/Mpc]";
    plot.y_label = "P(k) [(Mpc/h)^3]";
    PlotSeries measured{"measured", {}, {}, {0, 0, 0}, true};
    PlotSeries lin{"linear", {}, {}, {31, 119, 180}};
    PlotSeries nonlin{"halofit", {}, {}, {214, 39, 40}};
    PlotSeries noise{"shot noise", {}, {}, {127, 127, 127}, false, true};
    for (const PowerBin& b : p.bins) {
        const double pl = linear(b.k) * g * g, pn = halofit(b.k);
        csv += detail::format("%.9g,%.9g,%zu,%.9g,%.9g,%.9g\n", b.k, b.power, b.modes, pl, pn, p.shot_noise);
        measured.x.push_back(b.k), measured.y.push_back(b.power);
        lin.x.push_back(b.k), lin.y.push_back(pl);
        nonlin.x.push_back(b.k), nonlin.y.push_back(pn);
        noise.x.push_back(b.k), noise.y.push_back(p.shot_noise);
    }
    plot.series = {lin, nonlin, noise, measured};
    const std::string stem = "power" + snapshot.stem().string().substr(std::string("snapshot").size());
    const fs::path csv_file = snapshot.parent_path() / (stem + ".csv");
    const fs::path png_file = snapshot.parent_path() / (stem + ".png");
    write_file_atomically(csv_file, csv);
    render_plot(png_file, plot);
    return {csv_file, png_file};
}

std::string CosmologyModel::title(const std::string& resumed_from) const {
    const Scenario::Cosmology& c = scenario_.cosmology;
    const std::size_t side = std::size_t(std::llround(std::cbrt(double(n))));
    const std::string start =
        c.initial == CosmologyStart::gadget
            ? "from " + c.initial_file.filename().string() + " at z = " + detail::format("%.4g", 1 / plan.a[0] - 1)
            : std::string(c.initial == CosmologyStart::second_order ? "2LPT" : "Zel'dovich") + " from z = " +
                  detail::shortest(c.start_redshift);
    return scenario_.name + ", " + (side * side * side == n ? std::to_string(side) + "^3" : std::to_string(n)) +
           " bodies in a " + detail::shortest(c.box) + " Mpc/h box, " + start + " to z = " +
           detail::shortest(c.output_redshifts.back()) + " in " + std::to_string(c.steps) + " steps, TreePM on a " +
           std::to_string(gravity->options().mesh) + "^3 mesh, " + to_string(scenario_.precision) + " on " +
           detail::device_names(context) +
           (resumed_from.empty() ? "" : ", resumed from " + resumed_from + " at step " + std::to_string(first_step));
}

std::vector<std::string> CosmologyModel::summary_lines(const RunSummary& loop, const std::string& out) const {
    const CosmologyRunSummary r = results(loop);
    return {detail::format("z = %.4g in %llu steps, wall %.2f s, %.3e body-steps/s", r.redshift,
                           static_cast<unsigned long long>(r.last_step), r.wall_seconds, r.body_steps_per_second),
            detail::format("largest scales (k <= %.3g h/Mpc, %zu modes): power grew %.4g times, linear theory "
                           "D^2 %.4g (%+.2f%%; worst %.2f%% over the rows)",
                           r.largest_scale_k, r.largest_scale_modes, r.power_growth, r.linear_growth * r.linear_growth,
                           100 * r.growth_error, 100 * r.worst_growth_error),
            detail::format("wrote diagnostics.csv, %zu snapshots with power spectra, %zu frames and "
                           "checkpoint.bin in %s",
                           r.snapshots, r.frames, out.c_str())};
}

} // namespace

namespace detail {

RunLoop cosmology_run(Context& context, Scenario scenario, fs::path out, const RunOptions&) {
    if (scenario.model != "cosmology")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not a cosmological run");
    validate(scenario);
    return RunLoop(std::make_unique<CosmologyModel>(context, std::move(scenario)), std::move(out));
}

RunLoop resumed_cosmology_run(Context& context, const Checkpoint& c, const fs::path& file, fs::path out,
                              RunLength length, const RunOptions&) {
    Scenario scenario = detail::resumed_scenario(c, file, "cosmology", "a cosmological run");
    if (length.end_time != 0)
        throw UsageError("a cosmological run ends at its last output redshift ([cosmology] output_redshifts), "
                         "not at an end time");
    apply_run_length(scenario, length);
    validate(scenario);
    const std::size_t n = c.mass.size();
    if (n == 0 || c.state.size() != 6 * n || c.initial_diagnostics.size() != 3 ||
        c.output_text.rfind(cosmology_header, 0) != 0)
        throw UsageError("checkpoint " + file.string() + " does not hold a cosmological run of its scenario");
    if (c.step >= scenario.cosmology.steps)
        throw UsageError("checkpoint " + file.string() + " is at step " + std::to_string(c.step) +
                         ", the run's last: nothing to do (ask for more --steps)");
    detail::check_resume_directory(out, "diagnostics.csv", c.output_text, file);
    auto model = std::make_unique<CosmologyModel>(context, std::move(scenario), &c);
    if (model->planned_a(c.step) != c.time)
        throw UsageError("checkpoint " + file.string() + " is at a = " + std::to_string(c.time) +
                         ", where step " + std::to_string(c.step) + " of " +
                         std::to_string(model->last_step()) +
                         " steps does not land: resume with the run's own [cosmology] steps");
    model->restore(c);
    return RunLoop(std::move(model), std::move(out), ResumedLoop{file.string(), c.output_text, {}});
}

} // namespace detail

CosmologyRun::CosmologyRun(Context& context, Scenario scenario, fs::path out)
    : run_(detail::cosmology_run(context, std::move(scenario), std::move(out), {})) {}

CosmologyRun CosmologyRun::resume(Context& context, const fs::path& file, fs::path out, RunLength length) {
    return CosmologyRun(detail::resumed_cosmology_run(context, read_checkpoint(file), file, std::move(out), length, {}));
}

std::size_t CosmologyRun::bodies() const noexcept {
    return static_cast<const CosmologyModel&>(run_.model()).size();
}
std::uint64_t CosmologyRun::steps() const noexcept {
    return static_cast<const CosmologyModel&>(run_.model()).last_step();
}
std::uint64_t CosmologyRun::first_step() const noexcept {
    return static_cast<const CosmologyModel&>(run_.model()).resumed_at();
}

void CosmologyRun::on_progress(std::function<void(const RunProgress&)> callback) {
    run_.on_progress(std::move(callback));
}

CosmologyRunSummary CosmologyRun::run() {
    const RunSummary loop = run_.run();
    return static_cast<const CosmologyModel&>(run_.model()).results(loop);
}

} // namespace partcl
