#include <partcl/run/pic_run.hpp>

#include <partcl/io/csv_log.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>
#include <partcl/models/pic/pic_plasma.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include "output.hpp"

namespace partcl {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double pi = 3.141592653589793;
constexpr const char* csv_header = "t,field_energy,kinetic_energy,total,momentum,mode_sin,mode_cos\n";

std::string format_row(std::initializer_list<double> values) {
    std::string row;
    char text[40];
    for (double v : values) {
        std::snprintf(text, sizeof text, "%.9g", v);
        row += (row.empty() ? "" : ",") + std::string(text);
    }
    return row + "\n";
}

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

std::string device_name(const Context& context) {
    const DeviceInfo& info = context.device(0).info();
    return info.name + " (" + info.platform + ")";
}

} // namespace

struct PicRun::State {
    Context& context;
    Scenario scenario;
    fs::path out;
    PicGrid grid;
    std::vector<PicSpecies> species;
    std::unique_ptr<ElectrostaticPic> pic;
    std::uint64_t steps = 0, first_step = 0;
    std::function<void(const PicRunProgress&)> progress;

    // What the run has measured so far (a checkpoint carries it): the first sample's total
    // energy and momentum, the momentum scale and worst change, the worst energy error; the
    // seeded mode at every step; diagnostics.csv's rows.
    double energy0 = 0, momentum_scale = 0, worst_momentum = 0, energy_error = 0;
    std::array<double, 3> momentum0{};
    std::vector<double> t, mode_sin, log_mode;
    std::string csv_text = csv_header;  // diagnostics.csv as the run begins it
    CsvLog csv;
    std::uint64_t rows = 0;

    // A fresh run from the scenario's set-up, or (particles given) a resumed one.
    State(Context& c, Scenario s, fs::path o, const PicParticles* saved = nullptr)
        : context(c), scenario(std::move(s)), out(std::move(o)), grid(grid_of(scenario.plasma)) {
        const Scenario::Plasma& p = scenario.plasma;
        const PicDeposit deposit = p.deposit;
        try {
            require_deposit(context.device(0).info(), scenario.precision, deposit);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario.name + "': [plasma] deposit = \"" + to_string(p.deposit) +
                              "\": " + e.what());
        }
        const PicParticles particles = saved ? *saved : particles_of(p, grid);
        species = species_for(p, grid, particles.size());
        try {
            pic = std::make_unique<ElectrostaticPic>(context, scenario.precision, grid, species,
                                                     particles, deposit);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario.name + "': [plasma] cells = " +
                              std::to_string(p.cells) + " in " + std::to_string(p.dimensions) +
                              "-D: " + e.what());
        }
        // Every step is dt (leapfrog's half steps stay aligned): the last lands at or past
        // end_time, at it when end_time is a whole number of steps (to rounding).
        steps = std::uint64_t(std::ceil(p.end_time / p.dt - 1e-9));
    }

    Checkpoint checkpoint() const {
        Checkpoint c;
        c.scenario_toml = to_toml(scenario);
        c.step = pic->steps();
        c.time = pic->time();
        c.dt = scenario.plasma.dt;
        c.precision = to_string(scenario.precision);
        c.device = device_name(context);
        const PicParticles now = pic->particles();
        c.state = now.position;
        c.state.insert(c.state.end(), now.velocity.begin(), now.velocity.end());
        c.particle_types = now.species;
        c.initial_diagnostics = {energy0,        momentum0[0],   momentum0[1],
                                 momentum0[2],   momentum_scale, worst_momentum,
                                 energy_error,   double(rows)};
        c.series = {t, mode_sin, log_mode};
        c.output_text = csv.text();
        return c;
    }
};

PicRun::PicRun(std::unique_ptr<State> state) : state_(std::move(state)) {}

PicRun::PicRun(Context& context, Scenario scenario, fs::path out) {
    if (scenario.model != "pic")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not a PIC plasma run (run/nbody_run.hpp and run/mps_run.hpp run the others)");
    validate(scenario);
    state_ = std::make_unique<State>(context, std::move(scenario), std::move(out));
}

PicRun PicRun::resume(Context& context, const fs::path& file, fs::path out, RunLength length) {
    const Checkpoint c = read_checkpoint(file);
    Scenario scenario = detail::resumed_scenario(c, file, "pic", "a PIC plasma run");
    apply_run_length(scenario, length);
    validate(scenario);
    const Scenario::Plasma& p = scenario.plasma;
    const std::size_t n = c.particle_types.size(), d = std::size_t(p.dimensions);
    if (n == 0 || c.state.size() != 2 * d * n || c.initial_diagnostics.size() != 8 || c.series.size() != 3 ||
        c.series[0].size() != c.step + 1 || c.series[1].size() != c.series[0].size() ||
        c.series[2].size() != c.series[0].size() || c.dt != p.dt ||
        c.output_text.rfind(csv_header, 0) != 0)
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
    auto state = std::make_unique<State>(context, std::move(scenario), std::move(out), &saved);
    State& s = *state;
    s.pic->restore_clock(c.time, c.step);
    s.first_step = c.step;
    const auto& diag = c.initial_diagnostics;
    s.energy0 = diag[0];
    s.momentum0 = {diag[1], diag[2], diag[3]};
    s.momentum_scale = diag[4];
    s.worst_momentum = diag[5];
    s.energy_error = diag[6];
    s.rows = std::uint64_t(diag[7]);
    s.t = c.series[0];
    s.mode_sin = c.series[1];
    s.log_mode = c.series[2];
    // diagnostics.csv as it was at the checkpoint (rows written after it, by a run that stopped
    // later, are dropped: this run writes them again), whatever the output directory holds.
    s.csv_text = c.output_text;
    return PicRun(std::move(state));
}

PicRun::PicRun(PicRun&&) noexcept = default;
PicRun::~PicRun() = default;

const Scenario& PicRun::scenario() const noexcept { return state_->scenario; }
std::size_t PicRun::particles() const noexcept { return state_->pic->size(); }
std::uint64_t PicRun::steps() const noexcept { return state_->steps; }
std::uint64_t PicRun::first_step() const noexcept { return state_->first_step; }

void PicRun::on_progress(std::function<void(const PicRunProgress&)> callback) {
    state_->progress = std::move(callback);
}

PicRunSummary PicRun::run() {
    State& s = *state_;
    const Scenario::Plasma& p = s.scenario.plasma;
    ElectrostaticPic& pic = *s.pic;
    const int d = p.dimensions;
    PicRunSummary summary;
    summary.particles = pic.size();
    detail::create_output_directory(s.out);

    PhaseSpaceFrame frame;
    frame.width = s.scenario.render.width;
    frame.length = p.length;
    // Trapped two-stream particles reach about 2 v0; a Langmuir wave's speeds are amplitude
    // omega_p (omega_p = 1); a species' drift and thermal spread, and its wave.
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

    const fs::path csv = s.out / "diagnostics.csv";
    s.csv.open(csv, s.csv_text);
    const auto start = Clock::now();
    auto write_frame = [&](const PicParticles& now) {
        const fs::path png = s.out / detail::numbered("frame", pic.steps(), "png");
        render_phase_space(png, now, frame);
        summary.files.push_back(png);
    };
    auto record_mode = [&] {
        const FieldMode m = field_mode(pic.field(), s.grid, mode_of(p));
        s.t.push_back(pic.time());
        s.mode_sin.push_back(m.sine);
        s.log_mode.push_back(std::log(std::hypot(m.sine, m.cosine)));
        return m;
    };
    auto sample = [&](const FieldMode& m, bool first) {
        const PicParticles now = pic.particles();
        const std::size_t n = now.size();
        std::array<double, 3> momentum{}, scale{};
        for (std::size_t i = 0; i < n; ++i) {
            const PicSpecies& sp = s.species[now.species[i]];
            for (int k = 0; k < d; ++k) {
                momentum[k] += sp.weight * sp.mass * now.velocity[k * n + i];
                scale[k] += sp.weight * sp.mass * std::abs(now.velocity[k * n + i]);
            }
        }
        const double field = pic.field_energy(), kinetic = pic.kinetic_energy();
        const double total = field + kinetic;
        if (!std::isfinite(total) || !std::isfinite(momentum[0] + momentum[1] + momentum[2]))
            throw Error("the plasma is no longer finite at t = " + std::to_string(pic.time()) +
                        " (step " + std::to_string(pic.steps()) + ")");
        if (first) {
            s.energy0 = total;
            s.momentum0 = momentum;
        }
        for (int k = 0; k < d; ++k) {
            s.momentum_scale = std::max(s.momentum_scale, scale[k]);
            s.worst_momentum = std::max(s.worst_momentum, std::abs(momentum[k] - s.momentum0[k]));
        }
        if (s.energy0 != 0) s.energy_error = std::max(s.energy_error, std::abs(total / s.energy0 - 1));
        s.csv.append(format_row({pic.time(), field, kinetic, total, momentum[0], m.sine, m.cosine}));
        ++s.rows;
        if (s.progress) {
            PicRunProgress progress;
            progress.step = pic.steps();
            progress.steps = s.steps;
            progress.time = pic.time();
            progress.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
            progress.steps_per_second =
                progress.wall_seconds > 0 ? double(pic.steps() - s.first_step) / progress.wall_seconds : 0;
            progress.field_energy = field;
            progress.total_energy = total;
            s.progress(progress);
        }
        return now;
    };
    auto checkpoint = [&] {
        s.csv.sync();
        write_checkpoint(s.out / "checkpoint.bin", s.checkpoint());
        summary.files.push_back(s.out / "checkpoint.bin");
    };

    if (pic.steps() == 0) {
        const FieldMode m = record_mode();
        const PicParticles now = sample(m, true);
        summary.files.push_back(csv);
        if (p.frame_every > 0) write_frame(now);
    }
    for (std::uint64_t step = pic.steps() + 1; step <= s.steps; ++step) {
        pic.step(p.dt);
        const FieldMode m = record_mode();
        const bool last = step == s.steps;
        const bool at_sample = last || step % p.sample_every == 0;
        const bool at_frame = p.frame_every > 0 && (last || step % p.frame_every == 0);
        if (at_sample) {
            const PicParticles now = sample(m, false);
            if (at_frame) write_frame(now);
        } else if (at_frame) {
            write_frame(pic.particles());
        }
        if (last || (p.checkpoint_every > 0 && step % p.checkpoint_every == 0)) checkpoint();
    }
    summary.steps = pic.steps();
    summary.time = pic.time();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary.particle_steps_per_second =
        summary.wall_seconds > 0
            ? double(summary.steps - s.first_step) * double(pic.size()) / summary.wall_seconds
            : 0;
    summary.momentum_error = s.momentum_scale > 0 ? s.worst_momentum / s.momentum_scale : 0;
    summary.energy_error = s.energy_error;
    if (p.setup != PlasmaSetup::langmuir) {
        const GrowthFit fit = linear_growth_rate(s.t, s.log_mode);
        summary.growth_rate = fit.rate;
        summary.fit_from = fit.from;
        summary.fit_to = fit.to;
        if (p.setup == PlasmaSetup::two_stream)
            summary.growth_theory =
                two_stream_growth_rate(2 * pi * double(p.mode[0]) / p.length * p.beam_speed);
    }
    if (p.setup != PlasmaSetup::two_stream) {
        summary.frequency = zero_crossing_frequency(s.t, s.mode_sin, &summary.crossings);
        summary.plasma_frequency = p.setup == PlasmaSetup::species ? cold_plasma_frequency(p.species) : 1.0;
    }
    return summary;
}

} // namespace partcl
