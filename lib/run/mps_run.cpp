#include <partcl/run/mps_run.hpp>

#include <partcl/io/atomic_file.hpp>
#include <partcl/io/render.hpp>
#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_tank.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
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

    State(Context& c, Scenario s, fs::path o)
        : context(c), scenario(std::move(s)), out(std::move(o)), scene(mps_tank(tank_of(scenario.fluid))) {
        fluid = std::make_unique<MpsFluid>(context, scenario.precision, parameters_of(scenario.fluid),
                                           scene.particles, scene.lower, scene.upper);
        fluid_count = scene.particles.count(MpsType::fluid);
        const Scenario::Fluid& f = scenario.fluid;
        const double floor_area = f.dimensions == 2 ? f.tank_width : f.tank_width * f.tank_depth;
        depth = double(fluid_count) * std::pow(f.spacing, f.dimensions) / floor_area;
    }
};

MpsRun::MpsRun(Context& context, Scenario scenario, fs::path out) {
    if (scenario.model != "mps")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not an MPS fluid run (run/nbody_run.hpp runs N-body scenarios)");
    validate(scenario);
    state_ = std::make_unique<State>(context, std::move(scenario), std::move(out));
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
    const bool dambreak = f.setup == "dambreak";
    const int up = f.dimensions - 1;
    MpsRunSummary summary;
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
    std::string text = dambreak ? "t,T,x,Z\n" : "t,bottom_pressure,rho_g_h\n";
    const double per_time_unit = std::sqrt(2 * f.gravity / f.water_width);  // T = t sqrt(2g/a)
    double average_sum = 0, expected_sum = 0;
    std::size_t averaged = 0;

    const auto start = Clock::now();
    std::uint64_t frames_written = 0;
    auto write_frame = [&](const MpsParticles& now, const std::vector<double>& pressure) {
        const fs::path p = s.out / detail::numbered("frame", fluid.steps(), "png");
        render_pressure(p, now, pressure, f.spacing, frame);
        summary.files.push_back(p);
        ++frames_written;
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
            text += format_row({t, t * per_time_unit, x, x / f.water_width});
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
            text += format_row({t, mean, mean_expected});
            p.bottom_pressure = mean;
            if (t >= 0.5 * f.end_time && count) {
                average_sum += mean;
                expected_sum += mean_expected;
                ++averaged;
            }
        }
        write_file_atomically(csv, text);
    };

    MpsRunProgress progress;
    progress.end_time = f.end_time;
    {
        const MpsParticles now = fluid.particles();
        const std::vector<double> pressure = fluid.pressure();
        sample(now, pressure, progress);
        summary.files.push_back(csv);
        if (f.frame_every > 0) write_frame(now, pressure);
    }
    // Samples and frames fall at whole multiples of their periods: the step before each is
    // shortened to land on it (MpsFluid::advance_to), like the physics tests' sampling.
    std::uint64_t sample_index = 0, frame_index = 0;
    while (fluid.time() < f.end_time) {
        const double next_sample = std::min(f.end_time, double(sample_index + 1) * f.sample_every);
        const double next_frame =
            f.frame_every > 0 ? std::min(f.end_time, double(frame_index + 1) * f.frame_every) : f.end_time;
        const double target = std::min(next_sample, next_frame);
        fluid.advance_to(target);
        const bool at_sample = fluid.time() >= next_sample, at_frame = f.frame_every > 0 && fluid.time() >= next_frame;
        if (!at_sample && !at_frame) continue;
        const MpsParticles now = fluid.particles();
        const std::vector<double> pressure = fluid.pressure();
        if (at_sample) {
            ++sample_index;
            sample(now, pressure, progress);
        }
        if (at_frame) {
            ++frame_index;
            write_frame(now, pressure);
        }
        if (at_sample && s.progress) {
            progress.step = fluid.steps();
            progress.time = fluid.time();
            progress.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
            progress.steps_per_second =
                progress.wall_seconds > 0 ? double(fluid.steps()) / progress.wall_seconds : 0;
            s.progress(progress);
        }
    }
    summary.steps = fluid.steps();
    summary.time = fluid.time();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary.particle_steps_per_second =
        summary.wall_seconds > 0 ? double(summary.steps) * double(fluid.size()) / summary.wall_seconds : 0;
    if (!dambreak && averaged) {
        summary.bottom_pressure = average_sum / double(averaged);
        summary.hydrostatic_pressure = expected_sum / double(averaged);
    }
    return summary;
}

} // namespace partcl
