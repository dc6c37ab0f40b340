#include <partcl/run/mps_run.hpp>

#include <partcl/io/csv_log.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_tank.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "output.hpp"

namespace partcl {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

MpsTank tank_of(const Scenario::Fluid& f) {
    MpsTank t;
    t.dimensions = f.dimensions;
    t.spacing = f.spacing;
    t.dummy_layers = int(f.dummy_layers);
    if (f.dimensions == 2) {
        t.tank = {f.tank_width, f.tank_height, 0};
        t.water = {f.water_width, f.water_height, 0};
    } else {
        t.tank = {f.tank_width, f.tank_depth, f.tank_height};
        t.water = {f.water_width, f.water_depth, f.water_height};
    }
    return t;
}

MpsParameters parameters_of(const Scenario::Fluid& f) {
    MpsParameters p;
    p.dimensions = f.dimensions;
    p.spacing = f.spacing;
    p.density = f.density;
    p.viscosity = f.viscosity;
    p.gravity = {0, 0, 0};
    p.gravity[f.dimensions - 1] = -f.gravity;
    p.sound_speed = f.sound_speed;
    p.re_ratio = f.re_ratio;
    p.re_laplacian_ratio = f.re_laplacian_ratio;
    p.collision_ratio = f.collision_ratio;
    p.restitution = f.restitution;
    p.courant = f.courant;
    return p;
}

std::string format_row(std::initializer_list<double> values) {
    std::string row;
    char text[40];
    for (double v : values) {
        std::snprintf(text, sizeof text, "%.9g", v);
        row += (row.empty() ? "" : ",") + std::string(text);
    }
    return row + "\n";
}

} // namespace

struct MpsRun::State {
    Context& context;
    Scenario scenario;
    fs::path out;
    MpsScene scene;
    std::unique_ptr<MpsFluid> fluid;
    std::size_t fluid_count = 0;
    double depth = 0;  // hydrostatic: the water's depth from its volume
    std::function<void(const MpsRunProgress&)> progress;
    // What a checkpoint keeps besides the fluid (run_state, in this order): the samples, frames
    // and checkpoints done (whole periods), then hydrostatic: t, bottom pressure, rho g (h - y)
    // of every row, exactly (the summary averages those of the second half of the whole run).
    std::uint64_t sample_index = 0, frame_index = 0, checkpoint_index = 0;
    std::vector<double> pressure_rows;
    std::string csv_text;  // the CSV as the run begins it (a resumed run's from its checkpoint)
    CsvLog csv;
    bool resumed = false;

    State(Context& c, Scenario s, fs::path o)
        : context(c), scenario(std::move(s)), out(std::move(o)), scene(mps_tank(tank_of(scenario.fluid))) {
        fluid = std::make_unique<MpsFluid>(context, scenario.precision, parameters_of(scenario.fluid),
                                           scene.particles, scene.lower, scene.upper);
        fluid_count = scene.particles.count(MpsType::fluid);
        const Scenario::Fluid& f = scenario.fluid;
        const double floor_area = f.dimensions == 2 ? f.tank_width : f.tank_width * f.tank_depth;
        depth = double(fluid_count) * std::pow(f.spacing, f.dimensions) / floor_area;
    }

    Checkpoint checkpoint() const {
        const MpsState now = fluid->state();
        Checkpoint c;
        c.scenario_toml = to_toml(scenario);
        c.step = now.steps;
        c.time = now.time;
        c.dt = now.next_dt;
        c.precision = to_string(scenario.precision);
        c.device = detail::device_names(context);
        c.state = now.particles.position;
        c.state.insert(c.state.end(), now.particles.velocity.begin(), now.particles.velocity.end());
        for (MpsType t : now.particles.type) c.particle_types.push_back(std::uint32_t(t));
        c.output_text = csv.text();
        c.run_state = {double(sample_index), double(frame_index), double(checkpoint_index)};
        c.run_state.insert(c.run_state.end(), pressure_rows.begin(), pressure_rows.end());
        return c;
    }
};

MpsRun::MpsRun(std::unique_ptr<State> state) : state_(std::move(state)) {}

MpsRun::MpsRun(Context& context, Scenario scenario, fs::path out) {
    if (scenario.model != "mps")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not an MPS fluid run (run/nbody_run.hpp runs N-body scenarios)");
    validate(scenario);
    state_ = std::make_unique<State>(context, std::move(scenario), std::move(out));
}

MpsRun MpsRun::resume(Context& context, const fs::path& file, fs::path out, RunLength length) {
    const Checkpoint c = read_checkpoint(file);
    Scenario scenario = detail::resumed_scenario(
        c, file, "mps", "an MPS fluid one (run/nbody_run.hpp resumes N-body runs)");
    const std::string name = "checkpoint " + file.string();
    apply_run_length(scenario, length);
    validate(scenario);
    const Scenario::Fluid& f = scenario.fluid;
    if (f.steps > 0 ? c.step >= f.steps : c.time >= f.end_time)
        throw UsageError(name + " is at step " + std::to_string(c.step) + ", t = " +
                         std::to_string(c.time) + " s and the run ends " +
                         (f.steps > 0 ? "at step " + std::to_string(f.steps)
                                      : "at " + std::to_string(f.end_time) + " s") +
                         ": nothing to do (--end-time or --steps to run on)");
    detail::check_resume_directory(
        out, scenario.fluid.setup == FluidSetup::dambreak ? "front.csv" : "bottom_pressure.csv",
        c.output_text, file);
    const std::size_t n = c.particle_types.size();
    const int d = scenario.fluid.dimensions;
    if (n == 0 || c.state.size() != 2 * std::size_t(d) * n || c.run_state.size() < 3 ||
        c.run_state.size() % 3 != 0)
        throw UsageError(name + " does not hold a " + std::to_string(d) +
                         "-D fluid run's state (" + std::to_string(c.state.size()) + " values for " +
                         std::to_string(n) + " particles, " + std::to_string(c.run_state.size()) +
                         " run counters)");
    MpsState fluid;
    fluid.particles.dimensions = d;
    fluid.particles.position.assign(c.state.begin(), c.state.begin() + std::ptrdiff_t(d * n));
    fluid.particles.velocity.assign(c.state.begin() + std::ptrdiff_t(d * n), c.state.end());
    for (std::uint32_t t : c.particle_types) {
        if (t > 2) throw UsageError(name + " has a particle type " + std::to_string(t) + " (0, 1 or 2)");
        fluid.particles.type.push_back(MpsType(t));
    }
    fluid.time = c.time;
    fluid.next_dt = c.dt;
    fluid.steps = c.step;
    auto state = std::make_unique<State>(context, std::move(scenario), std::move(out));
    state->fluid->restore(fluid);  // UsageError: not this scenario's particles
    state->sample_index = std::uint64_t(c.run_state[0]);
    state->frame_index = std::uint64_t(c.run_state[1]);
    state->checkpoint_index = std::uint64_t(c.run_state[2]);
    state->pressure_rows.assign(c.run_state.begin() + 3, c.run_state.end());
    state->csv_text = c.output_text;
    state->resumed = true;
    return MpsRun(std::move(state));
}

MpsRun::MpsRun(MpsRun&&) noexcept = default;
MpsRun::~MpsRun() = default;

const Scenario& MpsRun::scenario() const noexcept { return state_->scenario; }
std::size_t MpsRun::particles() const noexcept { return state_->fluid->size(); }
std::size_t MpsRun::fluid_particles() const noexcept { return state_->fluid_count; }

void MpsRun::on_progress(std::function<void(const MpsRunProgress&)> callback) {
    state_->progress = std::move(callback);
}

MpsRunSummary MpsRun::run() {
    State& s = *state_;
    const Scenario::Fluid& f = s.scenario.fluid;
    MpsFluid& fluid = *s.fluid;
    const bool dambreak = f.setup == FluidSetup::dambreak;
    const int up = f.dimensions - 1;
    MpsRunSummary summary;
    summary.first_step = fluid.steps();
    summary.particles = fluid.size();
    summary.fluid_particles = s.fluid_count;
    detail::create_output_directory(s.out);

    PressureFrame frame;
    frame.width = s.scenario.render.width;
    frame.lower = {s.scene.lower[0], s.scene.lower[up]};
    frame.upper = {s.scene.upper[0], f.tank_height + f.spacing};
    frame.max_pressure = f.density * f.gravity * f.water_height;
    if (!(frame.max_pressure > 0)) frame.max_pressure = f.density * 9.81 * f.water_height;

    const fs::path csv = s.out / (dambreak ? "front.csv" : "bottom_pressure.csv");
    if (!s.resumed) s.csv_text = dambreak ? "t,T,x,Z\n" : "t,bottom_pressure,rho_g_h\n";
    s.csv.open(csv, s.csv_text);
    const double per_time_unit = std::sqrt(2 * f.gravity / f.water_width);  // T = t sqrt(2g/a)

    const auto start = Clock::now();
    auto write_frame = [&](const MpsParticles& now, const std::vector<double>& pressure) {
        const fs::path p = s.out / detail::numbered("frame", fluid.steps(), "png");
        render_pressure(p, now, pressure, f.spacing, frame);
        summary.files.push_back(p);
    };
    // One row of the CSV (and the summary's numbers) from the particles as they are now.
    auto sample = [&](const MpsParticles& now, const std::vector<double>& pressure,
                      MpsRunProgress& p) {
        const std::size_t n = now.size();
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < f.dimensions; ++k)
                if (!std::isfinite(now.position[k * n + i]))
                    throw Error("the fluid is no longer finite at t = " + std::to_string(fluid.time()) +
                                " s (step " + std::to_string(fluid.steps()) + ")");
        if (now.count(MpsType::fluid) != s.fluid_count)
            throw Error("the run lost fluid particles at t = " + std::to_string(fluid.time()) + " s");
        const double t = fluid.time();
        if (dambreak) {
            const double x = mps_front(now, f.spacing);
            s.csv.append(format_row({t, t * per_time_unit, x, x / f.water_width}));
            p.front = x;
            summary.front = x;
            summary.front_z = x / f.water_width;
        } else {
            double sum = 0, expected = 0;
            std::size_t count = 0;
            for (std::size_t i = 0; i < n; ++i)
                if (now.type[i] == MpsType::fluid && now.position[up * n + i] < f.spacing) {
                    sum += pressure[i];
                    expected += f.density * f.gravity * (s.depth - now.position[up * n + i]);
                    ++count;
                }
            const double mean = count ? sum / double(count) : 0.0;
            const double mean_expected = count ? expected / double(count) : 0.0;
            s.csv.append(format_row({t, mean, mean_expected}));
            p.bottom_pressure = mean;
            if (count) s.pressure_rows.insert(s.pressure_rows.end(), {t, mean, mean_expected});
        }
    };
    const fs::path checkpoint_file = s.out / "checkpoint.bin";
    auto checkpoint = [&] {
        s.csv.sync();
        write_checkpoint(checkpoint_file, s.checkpoint());
        if (std::find(summary.files.begin(), summary.files.end(), checkpoint_file) == summary.files.end())
            summary.files.push_back(checkpoint_file);
    };

    MpsRunProgress progress;
    progress.end_time = f.end_time;
    progress.steps = f.steps;
    summary.files.push_back(csv);
    if (!s.resumed) {
        const MpsParticles now = fluid.particles();
        const std::vector<double> pressure = fluid.pressure();
        sample(now, pressure, progress);
        if (f.frame_every > 0) write_frame(now, pressure);
    }
    // Samples, frames and the end fall at whole multiples of their periods: the step before each
    // is shortened to land on it (MpsFluid::advance_to), like the physics tests' sampling. The
    // indices count whole periods (an end between two is no period), so that a resumed run keeps
    // the uninterrupted run's step sequence.
    // A run of [fluid] steps ends where its last step lands, sampled and drawn there as a run
    // to end_time is at end_time.
    const bool by_steps = f.steps > 0;
    const double end = by_steps ? std::numeric_limits<double>::infinity() : f.end_time;
    const auto finished = [&] { return by_steps ? fluid.steps() >= f.steps : fluid.time() >= end; };
    while (!finished()) {
        const double grid_sample = double(s.sample_index + 1) * f.sample_every;
        const double grid_frame = f.frame_every > 0 ? double(s.frame_index + 1) * f.frame_every : end;
        const double next_sample = std::min(end, grid_sample);
        const double next_frame = std::min(end, grid_frame);
        fluid.advance_to(std::min(next_sample, next_frame), by_steps ? std::size_t(f.steps) : 0);
        const bool at_end = finished();
        const bool at_sample = fluid.time() >= next_sample || at_end,
                   at_frame = f.frame_every > 0 && (fluid.time() >= next_frame || at_end);
        if (!at_sample && !at_frame) continue;
        const MpsParticles now = fluid.particles();
        const std::vector<double> pressure = fluid.pressure();
        if (at_sample) {
            if (fluid.time() >= grid_sample) ++s.sample_index;
            sample(now, pressure, progress);
        }
        if (at_frame) {
            if (fluid.time() >= grid_frame) ++s.frame_index;
            write_frame(now, pressure);
        }
        if (at_sample) {
            const bool last = at_end;
            bool due = false;
            while (f.checkpoint_every > 0 && fluid.time() >= double(s.checkpoint_index + 1) * f.checkpoint_every) {
                ++s.checkpoint_index;
                due = true;
            }
            if (due || last) checkpoint();
        }
        if (at_sample && s.progress) {
            progress.step = fluid.steps();
            progress.time = fluid.time();
            progress.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
            progress.steps_per_second =
                progress.wall_seconds > 0 ? double(fluid.steps() - summary.first_step) / progress.wall_seconds : 0;
            s.progress(progress);
        }
    }
    summary.steps = fluid.steps();
    summary.time = fluid.time();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary.particle_steps_per_second =
        summary.wall_seconds > 0
            ? double(summary.steps - summary.first_step) * double(fluid.size()) / summary.wall_seconds
            : 0;
    double average_sum = 0, expected_sum = 0;
    std::size_t averaged = 0;
    for (std::size_t i = 0; i + 2 < s.pressure_rows.size(); i += 3)
        if (s.pressure_rows[i] >= 0.5 * (by_steps ? fluid.time() : f.end_time)) {
            average_sum += s.pressure_rows[i + 1];
            expected_sum += s.pressure_rows[i + 2];
            ++averaged;
        }
    if (!dambreak && averaged) {
        summary.bottom_pressure = average_sum / double(averaged);
        summary.hydrostatic_pressure = expected_sum / double(averaged);
    }
    return summary;
}

} // namespace partcl
