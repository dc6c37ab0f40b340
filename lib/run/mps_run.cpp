#include <partcl/run/mps_run.hpp>

#include <partcl/io/csv_log.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_tank.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "models.hpp"
#include "output.hpp"

namespace partcl {

namespace fs = std::filesystem;

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
    // A column at rest starts in its hydrostatic equilibrium rather than dropping and ringing;
    // the dam break's column is released from the lattice, as its measured fronts were.
    if (f.setup == FluidSetup::hydrostatic) t.hydrostatic_strain = f.gravity / (f.sound_speed * f.sound_speed);
    return t;
}

MpsParameters parameters_of(const Scenario::Fluid& f) {
    MpsParameters p;
    static_cast<MpsOptions&>(p) = f;  // [fluid]'s constants are the model's options
    p.dimensions = f.dimensions;
    p.spacing = f.spacing;
    p.gravity = {0, 0, 0};
    p.gravity[f.dimensions - 1] = -f.gravity;
    return p;
}

class MpsModel final : public RunModel {
public:
    // Over `ranks`, each a range of the slabs (MpsFluid), every rank given every particle.
    MpsModel(Context& c, Scenario s, const dist::Communicator& ranks)
        : context(c), scenario_(std::move(s)), ranks_(ranks),
          scene(mps_tank(tank_of(scenario_.fluid))) {
        const Scenario::Fluid& f = scenario_.fluid;
        fluid = std::make_unique<MpsFluid>(context, scenario_.precision, parameters_of(f),
                                           scene.particles, scene.lower, scene.upper,
                                           ProgramCache::global(), ranks_);
        fluid_count = scene.particles.count(MpsType::fluid);
        const double floor_area = f.dimensions == 2 ? f.tank_width : f.tank_width * f.tank_depth;
        depth = double(fluid_count) * std::pow(f.spacing, f.dimensions) / floor_area;
        const int up = f.dimensions - 1;
        frame.width = scenario_.render.width;
        frame.lower = {scene.lower[0], scene.lower[up]};
        frame.upper = {scene.upper[0], f.tank_height + f.spacing};
        frame.max_pressure = f.density * f.gravity * f.water_height;
        if (!(frame.max_pressure > 0)) frame.max_pressure = f.density * 9.81 * f.water_height;
    }

    const Scenario& scenario() const override { return scenario_; }
    const dist::Communicator& ranks() const override { return ranks_; }
    // Samples, frames and the end fall at whole multiples of their periods: the step before
    // each is shortened to land on it (MpsFluid::advance_to), like the physics tests' sampling.
    // A run of [fluid] steps ends where its last step lands, sampled and drawn there as a run
    // to end_time is at end_time.
    RunSchedule schedule() const override {
        const Scenario::Fluid& f = scenario_.fluid;
        RunSchedule r;
        r.steps = f.steps;
        r.end_time = f.end_time;
        r.sample.time = f.sample_every;
        r.frame.time = f.frame_every;
        r.checkpoint.time = f.checkpoint_every;
        return r;
    }
    std::uint64_t step() const override { return fluid->steps(); }
    double time() const override { return fluid->time(); }
    bool finished() const override {
        const Scenario::Fluid& f = scenario_.fluid;
        return f.steps > 0 ? fluid->steps() >= f.steps : fluid->time() >= f.end_time;
    }
    void advance(double until) override { fluid->advance_to(until, std::size_t(scenario_.fluid.steps)); }

    std::string csv_name() const override { return dambreak() ? "front.csv" : "bottom_pressure.csv"; }
    std::string csv_header() const override { return dambreak() ? "t,T,x,Z\n" : "t,bottom_pressure,rho_g_h\n"; }
    // A row from the particles as they are now.
    std::string sample() override {
        const Scenario::Fluid& f = scenario_.fluid;
        const Observed& o = observe();
        const MpsParticles& now = o.particles;
        const std::size_t n = now.size();
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < f.dimensions; ++k)
                if (!std::isfinite(now.position[k * n + i]))
                    throw Error("the fluid is no longer finite at t = " + std::to_string(fluid->time()) +
                                " s (step " + std::to_string(fluid->steps()) + ")");
        if (now.count(MpsType::fluid) != fluid_count)
            throw Error("the run lost fluid particles at t = " + std::to_string(fluid->time()) + " s");
        const double t = fluid->time();
        if (dambreak()) {
            front = mps_front(now, f.spacing);
            return detail::format_row({t, t * per_time_unit(), front, front / f.water_width});
        }
        const int up = f.dimensions - 1;
        double sum = 0, expected = 0;
        std::size_t count = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (now.type[i] == MpsType::fluid && now.position[up * n + i] < f.spacing) {
                sum += o.pressure[i];
                expected += f.density * f.gravity * (depth - now.position[up * n + i]);
                ++count;
            }
        const double mean = count ? sum / double(count) : 0.0;
        const double mean_expected = count ? expected / double(count) : 0.0;
        bottom_pressure = mean;
        if (count) pressure_rows.insert(pressure_rows.end(), {t, mean, mean_expected});
        return detail::format_row({t, mean, mean_expected});
    }
    void write_frame(const fs::path& file) override {
        const Observed& o = observe();
        render_pressure(file, o.particles, o.pressure, scenario_.fluid.spacing, frame);
    }
    std::vector<StateArray> state() override {
        const Observed& o = observe();
        const MpsParticles& p = o.particles;
        const std::size_t n = p.size(), d = std::size_t(p.dimensions);
        StateArray type{"type", {n}, {}};  // 0 fluid, 1 wall, 2 dummy
        for (MpsType t : p.type) type.values.push_back(double(t));
        return {detail::state_array("position", p.position, n, d),
                detail::state_array("velocity", p.velocity, n, d), std::move(type),
                {"pressure", {n}, o.pressure}};
    }
    // What a checkpoint keeps besides the fluid, after the loop's counters: hydrostatic: t,
    // bottom pressure, rho g (h - y) of every row, exactly (the summary averages those of the
    // second half of the whole run).
    void save(Checkpoint& c) const override {
        const MpsState now = fluid->state();
        c.dt = now.next_dt;
        c.device = detail::device_names(context);
        c.state = now.particles.position;
        c.state.insert(c.state.end(), now.particles.velocity.begin(), now.particles.velocity.end());
        for (MpsType t : now.particles.type) c.particle_types.push_back(std::uint32_t(t));
        c.run_state.insert(c.run_state.end(), pressure_rows.begin(), pressure_rows.end());
    }
    void restore(const MpsState& state, std::vector<double> rows) {
        fluid->restore(state);  // UsageError: not this scenario's particles
        pressure_rows = std::move(rows);
    }

    std::string title(const std::string& resumed_from) const override {
        const Scenario& s = scenario_;
        const Scenario::Fluid& f = s.fluid;
        const DeviceInfo& device = context.device(0).info();
        return s.name + ", MPS " + std::string(to_string(f.setup)) + " " + std::to_string(f.dimensions) + "-D, " +
               std::to_string(fluid->size()) + " particles (" + std::to_string(fluid_count) +
               " water), l0 = " + detail::shortest(f.spacing) + " m, " + to_string(s.precision) + ", " +
               (f.steps ? std::to_string(f.steps) + " steps" : "to t = " + detail::shortest(f.end_time) + " s") +
               " on " + device.name + " (" + device.platform + ")" +
               (resumed_from.empty() ? "" : ", resumed from " + resumed_from);
    }
    std::string progress_text(const RunProgress& p) const override {
        const Scenario::Fluid& f = scenario_.fluid;
        const auto step = static_cast<unsigned long long>(p.step);
        const std::string eta = detail::clock_text(p.eta_seconds);
        if (dambreak())
            return detail::format("t %.4f/%.4g s  T %.2f  front Z %.3f  %llu steps  %.0f steps/s  ETA %s",
                                  p.time, p.steps ? p.time : p.end_time, p.time * per_time_unit(),
                                  front / f.water_width, step, p.steps_per_second, eta.c_str());
        return detail::format("t %.4f/%.4g s  bottom pressure %.1f Pa  %llu steps  %.0f steps/s  ETA %s",
                              p.time, p.steps ? p.time : p.end_time, bottom_pressure, step,
                              p.steps_per_second, eta.c_str());
    }
    MpsRunSummary results(const RunSummary& loop) const {
        const Scenario::Fluid& f = scenario_.fluid;
        MpsRunSummary r;
        static_cast<RunSummary&>(r) = loop;
        r.particles = fluid->size();
        r.fluid_particles = fluid_count;
        r.particle_steps_per_second =
            r.wall_seconds > 0 ? double(r.last_step - r.first_step) * double(r.particles) / r.wall_seconds : 0;
        if (dambreak()) {
            r.front = front;
            r.front_z = front / f.water_width;
            return r;
        }
        std::vector<double> averaged;  // the bottom pressures of the rows in the second half
        double expected_sum = 0;
        const double from = 0.5 * (f.steps > 0 ? fluid->time() : f.end_time);
        for (std::size_t i = 0; i + 2 < pressure_rows.size(); i += 3)
            if (pressure_rows[i] >= from) {
                averaged.push_back(pressure_rows[i + 1]);
                expected_sum += pressure_rows[i + 2];
            }
        if (!averaged.empty()) {
            const double count = double(averaged.size());
            double sum = 0, square_sum = 0;
            for (double p : averaged) sum += p;
            r.bottom_pressure = sum / count;
            r.hydrostatic_pressure = expected_sum / count;
            for (double p : averaged) square_sum += (p - r.bottom_pressure) * (p - r.bottom_pressure);
            r.bottom_pressure_sd = std::sqrt(square_sum / count);
        }
        return r;
    }
    LaunchList launches() const override { return fluid ? fluid->launches() : LaunchList{}; }
    std::vector<std::string> summary_lines(const RunSummary& loop, const std::string& out) const override {
        const Scenario::Fluid& f = scenario_.fluid;
        const MpsRunSummary r = results(loop);
        std::vector<std::string> lines = {detail::format(
            "t = %.6g s in %llu steps%s, wall %.2f s, %.3e particle-steps/s", r.time,
            static_cast<unsigned long long>(r.last_step),
            r.first_step ? (" (" + std::to_string(r.first_step) + " before the checkpoint)").c_str() : "",
            r.wall_seconds, r.particle_steps_per_second)};
        if (dambreak()) {
            lines.push_back(detail::format("front x = %.4f m, Z = x/a = %.3f at T = t sqrt(2g/a) = %.3f",
                                           r.front, r.front_z, r.time * per_time_unit()));
            lines.push_back(detail::format("wrote front.csv, checkpoint.bin and %zu frames in %s", r.frames,
                                           out.c_str()));
        } else {
            lines.push_back(detail::format(
                "bottom pressure %.1f Pa against rho g h %.1f Pa (%+.1f%%), s.d. %.1f%% of rho g h, "
                "averaged over t >= %.4g s",
                r.bottom_pressure, r.hydrostatic_pressure,
                100 * (r.bottom_pressure / r.hydrostatic_pressure - 1),
                100 * r.bottom_pressure_sd / r.hydrostatic_pressure, 0.5 * (f.steps ? r.time : f.end_time)));
            lines.push_back(detail::format("wrote bottom_pressure.csv, checkpoint.bin and %zu frames in %s",
                                           r.frames, out.c_str()));
        }
        return lines;
    }

    std::size_t fluid_particles() const { return fluid_count; }
    std::size_t particles() const { return fluid->size(); }

private:
    // The particles and pressure at one step, read once for its sample and frame.
    struct Observed {
        std::size_t step = 0;
        MpsParticles particles;
        std::vector<double> pressure;
    };
    const Observed& observe() {
        if (!observed || observed->step != fluid->steps())
            observed = Observed{fluid->steps(), fluid->particles(), fluid->pressure()};
        return *observed;
    }
    bool dambreak() const { return scenario_.fluid.setup == FluidSetup::dambreak; }
    double per_time_unit() const {  // T = t sqrt(2g/a)
        return std::sqrt(2 * scenario_.fluid.gravity / scenario_.fluid.water_width);
    }

    Context& context;
    Scenario scenario_;
    const dist::Communicator& ranks_;
    MpsScene scene;
    std::unique_ptr<MpsFluid> fluid;
    std::size_t fluid_count = 0;
    double depth = 0;  // hydrostatic: the water's depth from its volume
    PressureFrame frame;
    std::optional<Observed> observed;
    // The latest sample's front (dambreak) or bottom pressure (hydrostatic); hydrostatic: t,
    // bottom pressure, rho g (h - y) of every row.
    double front = std::numeric_limits<double>::quiet_NaN();
    double bottom_pressure = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> pressure_rows;
};

} // namespace

namespace detail {

RunLoop mps_run(Context& context, Scenario scenario, fs::path out, const RunOptions& options) {
    if (scenario.model != "mps")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not an MPS fluid run (run/nbody_run.hpp runs N-body scenarios)");
    validate(scenario);
    return RunLoop(std::make_unique<MpsModel>(context, std::move(scenario), ranks_of(options)),
                   std::move(out));
}

RunLoop resumed_mps_run(Context& context, const Checkpoint& c, const fs::path& file, fs::path out,
                    RunLength length, const RunOptions& options) {
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
    auto model = std::make_unique<MpsModel>(context, std::move(scenario), ranks_of(options));
    model->restore(fluid, std::vector<double>(c.run_state.begin() + 3, c.run_state.end()));
    ResumedLoop loop{file.string(), c.output_text,
                     {std::uint64_t(c.run_state[0]), std::uint64_t(c.run_state[1]),
                      std::uint64_t(c.run_state[2])}};
    return RunLoop(std::move(model), std::move(out), std::move(loop));
}

} // namespace detail

MpsRun::MpsRun(Context& context, Scenario scenario, fs::path out)
    : run_(detail::mps_run(context, std::move(scenario), std::move(out), {})) {}

MpsRun MpsRun::resume(Context& context, const fs::path& file, fs::path out, RunLength length) {
    return MpsRun(detail::resumed_mps_run(context, read_checkpoint(file), file, std::move(out), length, {}));
}

std::size_t MpsRun::particles() const noexcept {
    return static_cast<const MpsModel&>(run_.model()).particles();
}
std::size_t MpsRun::fluid_particles() const noexcept {
    return static_cast<const MpsModel&>(run_.model()).fluid_particles();
}

void MpsRun::on_progress(std::function<void(const RunProgress&)> callback) {
    run_.on_progress(std::move(callback));
}

MpsRunSummary MpsRun::run() {
    const RunSummary loop = run_.run();
    return static_cast<const MpsModel&>(run_.model()).results(loop);
}

} // namespace partcl
