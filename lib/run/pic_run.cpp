#include <partcl/run/pic_run.hpp>

#include <partcl/io/csv_log.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>
#include <partcl/models/pic/pic_plasma.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models.hpp"
#include "output.hpp"

namespace partcl {

namespace fs = std::filesystem;

namespace {

constexpr double pi = 3.141592653589793;
constexpr const char* pic_header = "t,field_energy,kinetic_energy,total,momentum,mode_sin,mode_cos\n";

PicGrid grid_of(const Scenario::Plasma& p) {
    PicGrid grid;
    grid.dimensions = p.dimensions;
    for (int k = 0; k < 3; ++k) grid.nodes[k] = k < p.dimensions ? std::uint32_t(p.cells) : 1;
    grid.spacing = p.length / double(p.cells);
    return grid;
}

std::array<int, 3> mode_of(const Scenario::Plasma& p) {
    return {int(p.mode[0]), int(p.mode[1]), int(p.mode[2])};
}

PicParticles particles_of(const Scenario::Plasma& p, const PicGrid& grid) {
    if (p.setup == PlasmaSetup::species) return species_particles(grid, p.species, mode_of(p), p.seed);
    const std::size_t n = std::size_t(p.cells * p.particles_per_cell);
    return p.setup == PlasmaSetup::two_stream
               ? two_stream_particles(grid, n, p.beam_speed, p.amplitude, int(p.mode[0]))
               : langmuir_particles(grid, n, p.amplitude, int(p.mode[0]));
}

std::vector<PicSpecies> species_for(const Scenario::Plasma& p, const PicGrid& grid, std::size_t n) {
    return p.setup == PlasmaSetup::species ? species_of(grid, p.species) : unit_plasma_electrons(p.length, n);
}

// Trapped two-stream particles reach about 2 v0; a Langmuir wave's speeds are amplitude
// omega_p (omega_p = 1); a species' drift and thermal spread, and its wave.
PhaseSpaceFrame phase_space_frame(const Scenario& s) {
    const Scenario::Plasma& p = s.plasma;
    PhaseSpaceFrame frame;
    frame.width = s.render.width;
    frame.length = p.length;
    if (p.setup == PlasmaSetup::two_stream) {
        frame.max_speed = 2.5 * p.beam_speed;
    } else if (p.setup == PlasmaSetup::species) {
        const double omega = cold_plasma_frequency(p.species);
        double fastest = 0;
        for (const PlasmaSpecies& sp : p.species)
            fastest = std::max(fastest, std::abs(sp.drift[0]) + 3 * sp.thermal_speed + sp.amplitude * omega);
        frame.max_speed = std::max(2.5 * fastest, 1e-12);
    } else {
        frame.max_speed = std::max(2.5 * p.amplitude, 1e-12);
    }
    return frame;
}

class PicModel final : public RunModel {
public:
    // A fresh run from the scenario's set-up, or (particles given) a resumed one, over `ranks`
    // (each a slab of the grid: ElectrostaticPic), every rank given every particle.
    PicModel(Context& c, Scenario s, const dist::Communicator& ranks,
             const PicParticles* saved = nullptr)
        : context(c), scenario_(std::move(s)), ranks_(ranks), grid(grid_of(scenario_.plasma)) {
        const Scenario::Plasma& p = scenario_.plasma;
        const PicDeposit deposit = p.deposit;
        try {
            require_deposit(context.device(0).info(), scenario_.precision, deposit);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario_.name + "': [plasma] deposit = \"" + to_string(p.deposit) +
                              "\": " + e.what());
        }
        const PicParticles particles = saved ? *saved : particles_of(p, grid);
        species = species_for(p, grid, particles.size());
        try {
            pic = std::make_unique<ElectrostaticPic>(context, scenario_.precision, grid, species,
                                                     particles, deposit, ProgramCache::global(),
                                                     ranks_);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario_.name + "': [plasma] cells = " +
                              std::to_string(p.cells) + " in " + std::to_string(p.dimensions) +
                              "-D: " + e.what());
        }
        // Every step is dt (leapfrog's half steps stay aligned): the last lands at or past
        // end_time, at it when end_time is a whole number of steps (to rounding).
        steps = std::uint64_t(std::ceil(p.end_time / p.dt - 1e-9));
        frame = phase_space_frame(scenario_);
    }

    const Scenario& scenario() const override { return scenario_; }
    const dist::Communicator& ranks() const override { return ranks_; }
    RunSchedule schedule() const override {
        const Scenario::Plasma& p = scenario_.plasma;
        RunSchedule r;
        r.steps = steps;
        r.end_time = p.end_time;
        r.sample.steps = p.sample_every;
        r.frame.steps = p.frame_every;
        r.checkpoint.steps = p.checkpoint_every;
        r.progress_at_start = true;
        return r;
    }
    std::uint64_t step() const override { return pic->steps(); }
    double time() const override { return pic->time(); }
    bool finished() const override { return pic->steps() >= steps; }
    void advance(double) override {
        pic->step(scenario_.plasma.dt);
        record_mode();
    }

    void begin(bool fresh) override {
        if (fresh) record_mode();
    }
    std::string csv_name() const override { return "diagnostics.csv"; }
    std::string csv_header() const override { return pic_header; }
    std::string sample() override {
        const int d = scenario_.plasma.dimensions;
        const bool first = rows == 0;
        const PicParticles& now = observe();
        const std::size_t n = now.size();
        std::array<double, 3> momentum{}, scale{};
        for (std::size_t i = 0; i < n; ++i) {
            const PicSpecies& sp = species[now.species[i]];
            for (int k = 0; k < d; ++k) {
                momentum[k] += sp.weight * sp.mass * now.velocity[k * n + i];
                scale[k] += sp.weight * sp.mass * std::abs(now.velocity[k * n + i]);
            }
        }
        const double field = pic->field_energy(), kinetic = pic->kinetic_energy();
        const double total = field + kinetic;
        if (!std::isfinite(total) || !std::isfinite(momentum[0] + momentum[1] + momentum[2]))
            throw Error("the plasma is no longer finite at t = " + std::to_string(pic->time()) +
                        " (step " + std::to_string(pic->steps()) + ")");
        if (first) {
            energy0 = total;
            momentum0 = momentum;
        }
        for (int k = 0; k < d; ++k) {
            momentum_scale = std::max(momentum_scale, scale[k]);
            worst_momentum = std::max(worst_momentum, std::abs(momentum[k] - momentum0[k]));
        }
        if (energy0 != 0) energy_error = std::max(energy_error, std::abs(total / energy0 - 1));
        ++rows;
        field_energy = field;
        total_energy = total;
        return detail::format_row({pic->time(), field, kinetic, total, momentum[0], mode.sine, mode.cosine});
    }
    void write_frame(const fs::path& file) override { render_phase_space(file, observe(), frame); }
    std::vector<StateArray> state() override {
        const PicParticles& p = observe();
        const std::size_t n = p.size(), d = std::size_t(p.dimensions);
        StateArray species{"species", {n}, std::vector<double>(p.species.begin(), p.species.end())};
        return {detail::state_array("position", p.position, n, d),
                detail::state_array("velocity", p.velocity, n, d), std::move(species)};
    }
    void save(Checkpoint& c) const override {
        const DeviceInfo& info = context.device(0).info();
        c.dt = scenario_.plasma.dt;
        c.device = info.name + " (" + info.platform + ")";
        const PicParticles now = pic->particles();
        c.state = now.position;
        c.state.insert(c.state.end(), now.velocity.begin(), now.velocity.end());
        c.particle_types = now.species;
        c.initial_diagnostics = {energy0,        momentum0[0],   momentum0[1],
                                 momentum0[2],   momentum_scale, worst_momentum,
                                 energy_error,   double(rows)};
        c.series = {t, mode_sin, log_mode};
    }
    void restore(const Checkpoint& c) {
        pic->restore_clock(c.time, c.step);
        first_step = c.step;
        const auto& diag = c.initial_diagnostics;
        energy0 = diag[0];
        momentum0 = {diag[1], diag[2], diag[3]};
        momentum_scale = diag[4];
        worst_momentum = diag[5];
        energy_error = diag[6];
        rows = std::uint64_t(diag[7]);
        t = c.series[0];
        mode_sin = c.series[1];
        log_mode = c.series[2];
    }

    std::string title(const std::string& resumed_from) const override {
        const Scenario& s = scenario_;
        const Scenario::Plasma& p = s.plasma;
        const DeviceInfo& device = context.device(0).info();
        std::string cells = std::to_string(p.cells);
        if (p.dimensions > 1) cells += "^" + std::to_string(p.dimensions);
        return s.name + ", PIC " + std::string(to_string(p.setup)) + " " + std::to_string(p.dimensions) + "-D, " +
               std::to_string(pic->size()) + " particles" +
               (p.setup == PlasmaSetup::species ? " of " + std::to_string(p.species.size()) + " species" : std::string()) +
               " on " + cells + " cells, " + to_string(p.deposit) + " deposit, " + to_string(s.precision) + ", " +
               std::to_string(steps) + " steps of dt = " + detail::shortest(p.dt) + " on " +
               device.name + " (" + device.platform + ")" +
               (resumed_from.empty() ? "" : ", resumed from " + resumed_from + " at step " +
                                                std::to_string(first_step));
    }
    std::string progress_text(const RunProgress& p) const override {
        return detail::format("t %.2f  %llu/%llu steps  field energy %.3e  total %.6e  %.0f steps/s  ETA %s",
                              p.time, static_cast<unsigned long long>(p.step),
                              static_cast<unsigned long long>(p.steps), field_energy, total_energy,
                              p.steps_per_second, detail::clock_text(p.eta_seconds).c_str());
    }
    PicRunSummary results(const RunSummary& loop) const {
        const Scenario::Plasma& p = scenario_.plasma;
        PicRunSummary r;
        static_cast<RunSummary&>(r) = loop;
        r.particles = pic->size();
        r.particle_steps_per_second =
            r.wall_seconds > 0 ? double(r.last_step - first_step) * double(r.particles) / r.wall_seconds : 0;
        r.momentum_error = momentum_scale > 0 ? worst_momentum / momentum_scale : 0;
        r.energy_error = energy_error;
        if (p.setup != PlasmaSetup::langmuir) {
            const GrowthFit fit = linear_growth_rate(t, log_mode);
            r.growth_rate = fit.rate;
            r.fit_from = fit.from;
            r.fit_to = fit.to;
            if (p.setup == PlasmaSetup::two_stream)
                r.growth_theory = two_stream_growth_rate(2 * pi * double(p.mode[0]) / p.length * p.beam_speed);
        }
        if (p.setup != PlasmaSetup::two_stream) {
            r.frequency = zero_crossing_frequency(t, mode_sin, &r.crossings);
            r.plasma_frequency = p.setup == PlasmaSetup::species ? cold_plasma_frequency(p.species) : 1.0;
        }
        return r;
    }
    LaunchList launches() const override { return pic ? pic->launches() : LaunchList{}; }
    std::vector<std::string> summary_lines(const RunSummary& loop, const std::string& out) const override;

    std::size_t particles() const { return pic->size(); }
    std::uint64_t last_step() const { return steps; }
    std::uint64_t resumed_at() const { return first_step; }

private:
    // The seeded mode, measured at every step.
    void record_mode() {
        mode = field_mode(pic->field(), grid, mode_of(scenario_.plasma));
        t.push_back(pic->time());
        mode_sin.push_back(mode.sine);
        log_mode.push_back(std::log(std::hypot(mode.sine, mode.cosine)));
    }
    // The particles at this step, read once for its sample and frame.
    const PicParticles& observe() {
        if (observed_step != pic->steps() || observed.size() == 0) {
            observed = pic->particles();
            observed_step = pic->steps();
        }
        return observed;
    }

    Context& context;
    Scenario scenario_;
    const dist::Communicator& ranks_;
    PicGrid grid;
    std::vector<PicSpecies> species;
    std::unique_ptr<ElectrostaticPic> pic;
    PhaseSpaceFrame frame;
    std::uint64_t steps = 0, first_step = 0;
    PicParticles observed;
    std::uint64_t observed_step = 0;
    FieldMode mode{};

    // What the run has measured so far (a checkpoint carries it): the first sample's total
    // energy and momentum, the momentum scale and worst change, the worst energy error, the
    // rows written; the seeded mode at every step; the latest row's energies.
    double energy0 = 0, momentum_scale = 0, worst_momentum = 0, energy_error = 0;
    std::array<double, 3> momentum0{};
    std::uint64_t rows = 0;
    std::vector<double> t, mode_sin, log_mode;
    double field_energy = 0, total_energy = 0;
};

std::vector<std::string> PicModel::summary_lines(const RunSummary& loop, const std::string& out) const {
    const Scenario::Plasma& p = scenario_.plasma;
    const PicRunSummary r = results(loop);
    std::vector<std::string> lines = {
        detail::format("t = %.6g in %llu steps, wall %.2f s, %.3e particle-steps/s", r.time,
                       static_cast<unsigned long long>(r.last_step), r.wall_seconds, r.particle_steps_per_second),
        detail::format("total energy within %.2e, momentum within %.2e (relative)", r.energy_error,
                       r.momentum_error)};
    if (p.setup != PlasmaSetup::two_stream) {
        const char* theory = p.setup == PlasmaSetup::species ? "the cold-plasma frequency" : "the plasma frequency";
        if (std::isnan(r.frequency))
            lines.push_back(detail::format("frequency: not measured (%zu zero crossings of the mode; run longer)",
                                           r.crossings));
        else
            lines.push_back(detail::format("frequency %.5f against %s %.5f (%+.2f%%), from %zu zero crossings",
                                           r.frequency, theory, r.plasma_frequency,
                                           100 * (r.frequency / r.plasma_frequency - 1), r.crossings));
    }
    if (p.setup == PlasmaSetup::two_stream) {
        if (std::isnan(r.growth_rate))
            lines.push_back(detail::format(
                "growth rate: not measured (no linear phase of three steps; run longer); theory %.5f",
                r.growth_theory));
        else
            lines.push_back(detail::format(
                "growth rate %.5f against linear theory %.5f (%+.1f%%), fitted over t = %.1f..%.1f",
                r.growth_rate, r.growth_theory, 100 * (r.growth_rate / r.growth_theory - 1), r.fit_from,
                r.fit_to));
    } else if (p.setup == PlasmaSetup::species && !std::isnan(r.growth_rate)) {
        lines.push_back(detail::format("growth rate %.5f of the mode, fitted over t = %.1f..%.1f", r.growth_rate,
                                       r.fit_from, r.fit_to));
    }
    lines.push_back(detail::format("wrote diagnostics.csv, %zu frames and checkpoint.bin in %s", r.frames,
                                   out.c_str()));
    return lines;
}

} // namespace

namespace detail {

RunLoop pic_run(Context& context, Scenario scenario, fs::path out, const RunOptions& options) {
    if (scenario.model != "pic")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not a PIC plasma run (run/nbody_run.hpp and run/mps_run.hpp run the others)");
    validate(scenario);
    return RunLoop(std::make_unique<PicModel>(context, std::move(scenario), ranks_of(options)),
                   std::move(out));
}

RunLoop resumed_pic_run(Context& context, const Checkpoint& c, const fs::path& file, fs::path out,
                    RunLength length, const RunOptions& options) {
    Scenario scenario = detail::resumed_scenario(c, file, "pic", "a PIC plasma run");
    apply_run_length(scenario, length);
    validate(scenario);
    const Scenario::Plasma& p = scenario.plasma;
    const std::size_t n = c.particle_types.size(), d = std::size_t(p.dimensions);
    if (n == 0 || c.state.size() != 2 * d * n || c.initial_diagnostics.size() != 8 || c.series.size() != 3 ||
        c.series[0].size() != c.step + 1 || c.series[1].size() != c.series[0].size() ||
        c.series[2].size() != c.series[0].size() || c.dt != p.dt ||
        c.output_text.rfind(pic_header, 0) != 0)
        throw UsageError("checkpoint " + file.string() + " does not hold a PIC run of its scenario "
                         "(particles, measurements or dt do not match)");
    detail::check_resume_directory(out, "diagnostics.csv", c.output_text, file);
    const std::uint64_t steps = std::uint64_t(std::ceil(p.end_time / p.dt - 1e-9));
    if (steps <= c.step)
        throw UsageError("checkpoint " + file.string() + " is at step " + std::to_string(c.step) +
                         " (t = " + std::to_string(c.time) + ") and the run ends at step " +
                         std::to_string(steps) + ": nothing to do (ask for more --steps or a later --end-time)");

    PicParticles saved;
    saved.dimensions = p.dimensions;
    saved.position.assign(c.state.begin(), c.state.begin() + std::ptrdiff_t(d * n));
    saved.velocity.assign(c.state.begin() + std::ptrdiff_t(d * n), c.state.end());
    saved.species = c.particle_types;
    auto model = std::make_unique<PicModel>(context, std::move(scenario), ranks_of(options), &saved);
    model->restore(c);
    // diagnostics.csv as it was at the checkpoint (rows written after it, by a run that stopped
    // later, are dropped: this run writes them again), whatever the output directory holds.
    return RunLoop(std::move(model), std::move(out), ResumedLoop{file.string(), c.output_text, {}});
}

} // namespace detail

PicRun::PicRun(Context& context, Scenario scenario, fs::path out)
    : run_(detail::pic_run(context, std::move(scenario), std::move(out), {})) {}

PicRun PicRun::resume(Context& context, const fs::path& file, fs::path out, RunLength length) {
    return PicRun(detail::resumed_pic_run(context, read_checkpoint(file), file, std::move(out), length, {}));
}

std::size_t PicRun::particles() const noexcept { return static_cast<const PicModel&>(run_.model()).particles(); }
std::uint64_t PicRun::steps() const noexcept { return static_cast<const PicModel&>(run_.model()).last_step(); }
std::uint64_t PicRun::first_step() const noexcept {
    return static_cast<const PicModel&>(run_.model()).resumed_at();
}

void PicRun::on_progress(std::function<void(const RunProgress&)> callback) {
    run_.on_progress(std::move(callback));
}

PicRunSummary PicRun::run() {
    const RunSummary loop = run_.run();
    return static_cast<const PicModel&>(run_.model()).results(loop);
}

} // namespace partcl
