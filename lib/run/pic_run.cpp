#include <partcl/run/pic_run.hpp>

#include <partcl/io/atomic_file.hpp>
#include <partcl/io/render.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>
#include <partcl/models/pic/pic_plasma.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "output.hpp"

namespace partcl {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double pi = 3.141592653589793;

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
    grid.dimensions = 1;
    grid.nodes = {std::uint32_t(p.cells), 1, 1};
    grid.spacing = p.length / double(p.cells);
    return grid;
}

PicParticles particles_of(const Scenario::Plasma& p, const PicGrid& grid) {
    const std::size_t n = std::size_t(p.cells * p.particles_per_cell);
    return p.setup == "two-stream"
               ? two_stream_particles(grid, n, p.beam_speed, p.amplitude, int(p.mode))
               : langmuir_particles(grid, n, p.amplitude, int(p.mode));
}

} // namespace

struct PicRun::State {
    Context& context;
    Scenario scenario;
    fs::path out;
    PicGrid grid;
    std::vector<PicSpecies> species;
    std::unique_ptr<ElectrostaticPic> pic;
    std::uint64_t steps = 0;
    std::function<void(const PicRunProgress&)> progress;

    State(Context& c, Scenario s, fs::path o)
        : context(c), scenario(std::move(s)), out(std::move(o)), grid(grid_of(scenario.plasma)) {
        const Scenario::Plasma& p = scenario.plasma;
        const PicParticles particles = particles_of(p, grid);
        species = unit_plasma_electrons(p.length, particles.size());
        try {
            pic = std::make_unique<ElectrostaticPic>(
                context, scenario.precision, grid, species, particles,
                p.deposit == "atomic" ? PicDeposit::atomic : PicDeposit::gather);
        } catch (const Unsupported& e) {
            throw Unsupported("scenario '" + scenario.name + "': [plasma] cells = " +
                              std::to_string(p.cells) + ": " + e.what());
        }
        // Every step is dt (leapfrog's half steps stay aligned): the last lands at or past
        // end_time, at it when end_time is a whole number of steps (to rounding).
        steps = std::uint64_t(std::ceil(p.end_time / p.dt - 1e-9));
    }
};

PicRun::PicRun(Context& context, Scenario scenario, fs::path out) {
    if (scenario.model != "pic")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not a PIC plasma run (run/nbody_run.hpp and run/mps_run.hpp run the others)");
    validate(scenario);
    state_ = std::make_unique<State>(context, std::move(scenario), std::move(out));
}

PicRun::PicRun(PicRun&&) noexcept = default;
PicRun::~PicRun() = default;

const Scenario& PicRun::scenario() const noexcept { return state_->scenario; }
std::size_t PicRun::particles() const noexcept { return state_->pic->size(); }
std::uint64_t PicRun::steps() const noexcept { return state_->steps; }

void PicRun::on_progress(std::function<void(const PicRunProgress&)> callback) {
    state_->progress = std::move(callback);
}

PicRunSummary PicRun::run() {
    State& s = *state_;
    const Scenario::Plasma& p = s.scenario.plasma;
    ElectrostaticPic& pic = *s.pic;
    const bool two_stream = p.setup == "two-stream";
    PicRunSummary summary;
    summary.particles = pic.size();
    detail::create_output_directory(s.out);

    PhaseSpaceFrame frame;
    frame.width = s.scenario.render.width;
    frame.length = p.length;
    // Trapped two-stream particles reach about 2 v0; a Langmuir wave's speeds are amplitude
    // omega_p (omega_p = 1).
    frame.max_speed = two_stream ? 2.5 * p.beam_speed : std::max(2.5 * p.amplitude, 1e-12);

    const fs::path csv = s.out / "diagnostics.csv";
    std::string text = "t,field_energy,kinetic_energy,total,momentum,mode_sin,mode_cos\n";
    double energy0 = 0, momentum0 = 0, momentum_scale = 0, worst_momentum = 0;
    std::vector<double> t, mode_sin, log_mode;

    const auto start = Clock::now();
    auto write_frame = [&](const PicParticles& now) {
        const fs::path png = s.out / detail::numbered("frame", pic.steps(), "png");
        render_phase_space(png, now, frame);
        summary.files.push_back(png);
    };
    auto record_mode = [&] {
        const FieldMode m = field_mode(pic.field(), s.grid, int(p.mode));
        t.push_back(pic.time());
        mode_sin.push_back(m.sine);
        log_mode.push_back(std::log(std::hypot(m.sine, m.cosine)));
        return m;
    };
    auto sample = [&](const FieldMode& m, bool first) {
        const PicParticles now = pic.particles();
        double momentum = 0, scale = 0;
        for (std::size_t i = 0; i < now.size(); ++i) {
            const PicSpecies& sp = s.species[now.species[i]];
            momentum += sp.weight * sp.mass * now.velocity[i];
            scale += sp.weight * sp.mass * std::abs(now.velocity[i]);
        }
        const double field = pic.field_energy(), kinetic = pic.kinetic_energy();
        const double total = field + kinetic;
        if (!std::isfinite(total) || !std::isfinite(momentum))
            throw Error("the plasma is no longer finite at t = " + std::to_string(pic.time()) +
                        " (step " + std::to_string(pic.steps()) + ")");
        if (first) {
            energy0 = total;
            momentum0 = momentum;
        }
        momentum_scale = std::max(momentum_scale, scale);
        worst_momentum = std::max(worst_momentum, std::abs(momentum - momentum0));
        if (energy0 != 0) summary.energy_error = std::max(summary.energy_error, std::abs(total / energy0 - 1));
        text += format_row({pic.time(), field, kinetic, total, momentum, m.sine, m.cosine});
        write_file_atomically(csv, text);
        if (s.progress) {
            PicRunProgress progress;
            progress.step = pic.steps();
            progress.steps = s.steps;
            progress.time = pic.time();
            progress.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
            progress.steps_per_second =
                progress.wall_seconds > 0 ? double(pic.steps()) / progress.wall_seconds : 0;
            progress.field_energy = field;
            progress.total_energy = total;
            s.progress(progress);
        }
        return now;
    };

    {
        const FieldMode m = record_mode();
        const PicParticles now = sample(m, true);
        summary.files.push_back(csv);
        if (p.frame_every > 0) write_frame(now);
    }
    for (std::uint64_t step = 1; step <= s.steps; ++step) {
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
    }
    summary.steps = pic.steps();
    summary.time = pic.time();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary.particle_steps_per_second =
        summary.wall_seconds > 0 ? double(summary.steps) * double(pic.size()) / summary.wall_seconds : 0;
    summary.momentum_error = momentum_scale > 0 ? worst_momentum / momentum_scale : 0;
    if (two_stream) {
        const GrowthFit fit = linear_growth_rate(t, log_mode);
        summary.growth_rate = fit.rate;
        summary.fit_from = fit.from;
        summary.fit_to = fit.to;
        summary.growth_theory = two_stream_growth_rate(2 * pi * double(p.mode) / p.length * p.beam_speed);
    } else {
        summary.frequency = zero_crossing_frequency(t, mode_sin, &summary.crossings);
        summary.plasma_frequency = 1;
    }
    return summary;
}

} // namespace partcl
