#include <partcl/run/nbody_run.hpp>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/integrate/integrator.hpp>
#include <partcl/io/csv_log.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/io/render.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>

#include "output.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace partcl {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

using detail::device_names;
using detail::numbered;

Bodies bodies_from_state(const std::vector<double>& state, const std::vector<double>& mass) {
    const std::size_t n = mass.size();
    if (state.size() != 6 * n)
        throw UsageError("checkpoint: a state of " + std::to_string(state.size()) +
                         " values for " + std::to_string(n) + " bodies");
    Bodies b;
    b.resize(n);
    std::vector<double>* fields[] = {&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz};
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(state.begin() + f * n, state.begin() + (f + 1) * n, fields[f]->begin());
    b.m = mass;
    return b;
}

// Refuses a run whose buffers cannot fit, before the bodies are even made on the host: a clear
// message instead of an allocation failure deep in a driver.
void check_device_memory(const Context& context, const Scenario& s, std::size_t n) {
    // y (6N), mass (N), the integrator's vectors (6N each), potential and scratch (4N).
    const double bytes = double(n) * double(size_of(s.precision)) *
                         double(6 * (1 + integrator_work_vectors(s.integrator)) + 5);
    for (const auto& d : context.devices()) {
        if (bytes > 0.9 * double(d.info().global_memory))
            throw Error("out of device memory: " + std::to_string(n) + " bodies in " +
                        to_string(s.precision) + " with " + s.integrator + " need about " +
                        std::to_string(static_cast<long long>(bytes / double(1 << 20))) + " MiB, but " + d.info().name +
                        " has " + std::to_string(d.info().global_memory >> 20) + " MiB");
        if (double(n) * 6 * double(size_of(s.precision)) > double(d.info().max_allocation))
            throw Error("out of device memory: the state of " + std::to_string(n) +
                        " bodies exceeds the largest buffer " + d.info().name + " allows (" +
                        std::to_string(d.info().max_allocation >> 20) + " MiB)");
    }
}

constexpr const char* csv_header =
    "step,time,kinetic,potential,total,px,py,pz,Lx,Ly,Lz,relative_drift\n";

} // namespace

struct NBodyRun::State {
    Context& context;
    Scenario scenario;
    fs::path out;
    std::unique_ptr<DeviceBodies> bodies;
    std::unique_ptr<GravityModel> gravity;
    DenseGravity* dense_gravity = nullptr;  // the model when dense (its scheduler's weights)
    std::unique_ptr<NBodySystem> system;
    std::unique_ptr<VectorOps> ops;
    std::unique_ptr<Integrator> integrator;
    std::uint64_t step = 0;
    double time = 0, dt = 0, e0 = 0, extent = 0, drift = 0;
    std::string csv_text = csv_header;  // energy.csv as the run begins it
    CsvLog energy;
    Bodies host;  // the bodies as the diagnostics last read them
    std::function<void(const RunProgress&)> progress;

    State(Context& c, Scenario s, fs::path o, const Bodies& initial, DenseOptions dense)
        : context(c), scenario(std::move(s)), out(std::move(o)) {
        const Precision p = scenario.precision;
        if (scenario.gravity_model == GravityModelKind::dense) {
            auto model = std::make_unique<DenseGravity>(context, p, scenario.gravity, dense);
            dense_gravity = model.get();
            gravity = std::move(model);
        } else {
            gravity = std::make_unique<TreeGravity>(context, p, scenario.gravity, scenario.tree);
        }
        bodies = std::make_unique<DeviceBodies>(context, p, initial);
        system = std::make_unique<NBodySystem>(context, *gravity, *bodies);
        ops = std::make_unique<VectorOps>(context, p);
        integrator = make_integrator(scenario.integrator, *ops, 6 * initial.size(),
                                     {scenario.atol, scenario.rtol});
        dt = scenario.dt;
    }

    NBodyDiagnostics diagnostics() {
        const auto potential = system->potentials();
        if (host.size() != bodies->size()) host = bodies->download(context.queue(0));
        else bodies->download_motion(context.queue(0), host);  // masses never change
        const NBodyDiagnostics d = measure(host, potential);
        if (!std::isfinite(d.total()))
            throw Error("the state is no longer finite at step " + std::to_string(step) +
                        " (t = " + std::to_string(time) +
                        "): the time step is probably too large for the softening");
        return d;
    }

    void record(const NBodyDiagnostics& d) {
        drift = e0 != 0 ? std::abs(d.total() - e0) / std::abs(e0) : 0.0;
        char row[512];
        std::snprintf(row, sizeof row,
                      "%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.6e\n",
                      static_cast<unsigned long long>(step), time, d.kinetic, d.potential,
                      d.total(), d.momentum[0], d.momentum[1], d.momentum[2],
                      d.angular_momentum[0], d.angular_momentum[1], d.angular_momentum[2], drift);
        energy.append(row);
    }

    Checkpoint checkpoint() const {
        Checkpoint c;
        c.scenario_toml = to_toml(scenario);
        c.step = step;
        c.time = time;
        c.dt = dt;
        c.precision = to_string(scenario.precision);
        c.device = device_names(context);
        c.state = bodies->state.read(context.queue(0));
        c.mass = bodies->mass.read(context.queue(0));
        c.integrator = integrator->save();
        if (dense_gravity) c.scheduler_weights = dense_gravity->scheduler().weights();
        c.initial_diagnostics = {e0, extent};
        c.output_text = energy.text();
        return c;
    }
};

namespace {
// A run to [run] end_time by a fixed-step integrator is end_time / dt steps (check_end_time
// made it whole); an adaptive one goes by time and `steps` plays no part.
void resolve_length(Scenario& s) {
    if (s.end_time > 0 && !integrator_adapts_step(s.integrator))
        s.steps = std::uint64_t(std::llround(s.end_time / s.dt));
}
} // namespace

NBodyRun::NBodyRun(std::unique_ptr<State> state) : state_(std::move(state)) {}
NBodyRun::NBodyRun(NBodyRun&&) noexcept = default;
NBodyRun::~NBodyRun() = default;

NBodyRun::NBodyRun(Context& context, Scenario scenario, fs::path out, DenseOptions dense) {
    if (scenario.model != "nbody")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not an N-body run (run/mps_run.hpp and run/pic_run.hpp run model = \"mps\" and \"pic\")");
    validate(scenario);
    resolve_length(scenario);
    if (scenario.initial != InitialConditions::snapshot) check_device_memory(context, scenario, scenario.n);
    const Bodies initial = make_bodies(scenario);
    check_device_memory(context, scenario, initial.size());
    state_ = std::make_unique<State>(context, std::move(scenario), std::move(out), initial, dense);
    RenderSettings render = state_->scenario.render;
    state_->extent = render.extent > 0 ? render.extent : auto_extent(initial);
}

NBodyRun NBodyRun::resume(Context& context, const fs::path& file, fs::path out,
                          RunLength length, DenseOptions dense) {
    const Checkpoint c = read_checkpoint(file);
    Scenario scenario = detail::resumed_scenario(
        c, file, "nbody", "an N-body run (PicRun and MpsRun resume plasma and fluid runs)");
    apply_run_length(scenario, length);
    validate(scenario);
    resolve_length(scenario);
    const bool by_time = scenario.end_time > 0 && integrator_adapts_step(scenario.integrator);
    if (by_time ? !(c.time < scenario.end_time) : scenario.steps <= c.step)
        throw UsageError("checkpoint " + file.string() + " is at step " + std::to_string(c.step) +
                         " (t = " + std::to_string(c.time) + ") and the run ends " +
                         (by_time ? "at t = " + std::to_string(scenario.end_time)
                                  : "at step " + std::to_string(scenario.steps)) +
                         ": nothing to do (ask for more steps or a later end time)");
    if (c.initial_diagnostics.size() != 2)
        throw UsageError("checkpoint " + file.string() + " lacks the run's initial energy");
    check_device_memory(context, scenario, c.mass.size());
    auto state = std::make_unique<State>(context, std::move(scenario), std::move(out),
                                         bodies_from_state(c.state, c.mass), dense);
    state->integrator->restore(c.integrator);
    state->step = c.step;
    state->time = c.time;
    state->dt = c.dt;
    state->e0 = c.initial_diagnostics[0];
    state->extent = c.initial_diagnostics[1];
    // energy.csv as it was at the checkpoint (rows written after it, by a run that stopped
    // later, are written again by this one).
    if (c.output_text.rfind(csv_header, 0) == 0) {
        detail::check_resume_directory(state->out, "energy.csv", c.output_text, file);
        state->csv_text = c.output_text;
    } else if (c.output_text.empty()) {
        // Checkpoints of partcl 0.1 hold no rows: those of the output directory's energy.csv up
        // to the checkpoint stand in.
        std::ifstream csv(state->out / "energy.csv");
        std::string line;
        if (csv && std::getline(csv, line) && line + "\n" == csv_header) {
            while (std::getline(csv, line) && !line.empty() &&
                   std::stoull(line.substr(0, line.find(','))) <= c.step)
                state->csv_text += line + "\n";
        }
    } else {
        throw UsageError("checkpoint " + file.string() + " holds no energy.csv of an N-body run");
    }
    return NBodyRun(std::move(state));
}

const Scenario& NBodyRun::scenario() const noexcept { return state_->scenario; }
std::size_t NBodyRun::bodies() const noexcept { return state_->bodies->size(); }

void NBodyRun::on_progress(std::function<void(const RunProgress&)> callback) {
    state_->progress = std::move(callback);
}

RunSummary NBodyRun::run() {
    State& s = *state_;
    const Scenario& sc = s.scenario;
    RunSummary summary;
    summary.first_step = s.step;
    detail::create_output_directory(s.out);

    RenderSettings render = sc.render;
    render.extent = s.extent;
    auto written = [&](const fs::path& p) { summary.files.push_back(p); };
    auto frame = [&] {
        const fs::path p = s.out / numbered("frame", s.step, "png");
        render_density(p, s.bodies->download(s.context.queue(0)), render);
        written(p);
    };
    const UnitSystem units = unit_system(s.scenario);
    auto snapshot = [&] {
        const fs::path p = s.out / numbered("snapshot", s.step, "h5");
        write_snapshot(p, s.bodies->download(s.context.queue(0)), s.time, 0.0, units);
        written(p);
    };
    auto checkpoint = [&] {
        s.energy.sync();
        write_checkpoint(s.out / "checkpoint.bin", s.checkpoint());
        written(s.out / "checkpoint.bin");
    };
    auto every = [&](std::uint64_t period) { return period && s.step % period == 0; };

    const double interactions0 = s.gravity->interactions();
    const auto start = Clock::now();
    s.energy.open(s.out / "energy.csv", s.csv_text);
    written(s.out / "energy.csv");
    if (s.step == 0) {
        const NBodyDiagnostics d = s.diagnostics();
        s.e0 = d.total();
        s.record(d);
        if (sc.frame_every) frame();
        if (sc.snapshot_every) snapshot();  // 0: at the end only
    }
    const Derivative f = s.system->derivative();
    const bool adaptive = s.integrator->adaptive();
    // An adaptive run to an end time shortens its last step to land on it (to rounding).
    const bool by_time = adaptive && sc.end_time > 0;
    const auto remaining = [&] { return sc.end_time - s.time; };
    const auto reached = [&] { return !(remaining() > 1e-12 * sc.end_time); };
    while (by_time ? !reached() : s.step < sc.steps) {
        const double dt = by_time ? std::min(s.dt, remaining()) : s.dt;
        const double taken = s.integrator->step(f, s.time, s.bodies->state, dt);
        s.time += taken;
        s.dt = adaptive ? s.integrator->next_dt() : sc.dt;
        if (sc.damping != 1.0) {
            const std::size_t n = s.bodies->size();
            s.ops->combine(3 * n, s.bodies->state, 3 * n, s.bodies->state, 3 * n,
                           {{sc.damping - 1.0, &s.bodies->state, 3 * n}});
        }
        ++s.step;
        const bool last = by_time ? reached() : s.step == sc.steps;
        if (last || every(sc.diagnostics_every)) s.record(s.diagnostics());
        if (every(sc.frame_every) || (last && sc.frame_every)) frame();
        if (last || every(sc.snapshot_every)) snapshot();
        if (last || every(sc.checkpoint_every)) checkpoint();
        if (s.progress) {
            RunProgress p;
            p.step = s.step;
            p.steps = by_time ? 0 : sc.steps;
            p.end_time = sc.end_time;
            p.time = s.time;
            p.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
            p.steps_per_second = double(s.step - summary.first_step) / p.wall_seconds;
            p.energy_drift = s.drift;
            s.progress(p);
        }
    }
    summary.last_step = s.step;
    summary.time = s.time;
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary.energy_drift = s.drift;
    summary.interactions_per_second =
        (s.gravity->interactions() - interactions0) / summary.wall_seconds;
    summary.steps_per_second = double(s.step - summary.first_step) / summary.wall_seconds;
    return summary;
}

} // namespace partcl
