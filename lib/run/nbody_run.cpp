#include <partcl/run/nbody_run.hpp>

#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/integrate/integrator.hpp>
#include <partcl/io/csv_log.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/dist/allgather.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/distributed_dense_gravity.hpp>
#include <partcl/models/nbody/distributed_tree_gravity.hpp>
#include <partcl/models/nbody/essential_tree_gravity.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>

#include "models.hpp"
#include "nbody_ranks.hpp"
#include "output.hpp"
#include "tree_checkpoint.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <optional>

namespace partcl {

namespace fs = std::filesystem;

namespace {

using detail::bodies_from_state;
using detail::device_names;
using detail::slice;
using detail::state_block;

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

constexpr const char* energy_header =
    "step,time,kinetic,potential,total,px,py,pz,Lx,Ly,Lz,relative_drift\n";

// A run to [run] end_time by a fixed-step integrator is end_time / dt steps (check_end_time
// made it whole); an adaptive one goes by time and `steps` plays no part.
void resolve_length(Scenario& s) {
    if (s.end_time > 0 && !integrator_adapts_step(s.integrator))
        s.steps = std::uint64_t(std::llround(s.end_time / s.dt));
}

std::string format_tree(const Scenario& s) {
    std::string text = detail::format("%g, leaves of %llu, %s, groups of %llu", s.tree.theta,
                                      static_cast<unsigned long long>(s.tree.leaf_size), to_string(s.tree.traversal),
                                      static_cast<unsigned long long>(s.tree.group_size));
    if (s.tree.relative_accuracy > 0) text += detail::format(", relative %g", s.tree.relative_accuracy);
    if (s.tree.rebuild_every > 1)
        text += detail::format(", built every %llu", static_cast<unsigned long long>(s.tree.rebuild_every)) +
                (s.tree.rebuild_growth > 0 ? detail::format(" or at %g%% growth", 100 * s.tree.rebuild_growth) : "");
    return text;
}


class NBodyModel final : public RunModel {
public:
    // `initial`: every body; this rank keeps its block.
    NBodyModel(Context& c, Scenario s, const Bodies& initial, const RunOptions& options)
        : context(c), scenario_(std::move(s)), ranks_(*options.ranks),
          blocks(detail::rank_blocks(initial.size(), ranks_)), everyone(ranks_, own_block().size()) {
        const Precision p = scenario_.precision;
        if (scenario_.gravity_model == GravityModelKind::dense) {
            auto model = std::make_unique<DenseGravity>(context, p, scenario_.gravity, options.dense);
            dense_gravity = model.get();
            gravity = std::move(model);
            if (ranks_.size() > 1) {
                local_gravity = std::move(gravity);
                gravity = std::make_unique<DistributedDenseGravity>(ranks_, *dense_gravity);
            }
        } else {
            auto model = std::make_unique<TreeGravity>(context, p, scenario_.gravity, scenario_.tree);
            TreeGravity& tree = *model;
            // A tree refitted between builds, or opened by the |a| of the step before, depends
            // on the evaluations before: its order goes into checkpoints.
            if (scenario_.tree.rebuild_every > 1 || scenario_.tree.relative_accuracy > 0) {
                if (integrator_iterates(scenario_.integrator))
                    throw UsageError("[gravity] rebuild_every > 1 or relative_accuracy > 0 make each tree evaluation "
                                     "depend on the ones before, and the implicit integrator '" +
                                     scenario_.integrator + "' iterates to a fixed point that such forces "
                                     "do not have: take an explicit method, or rebuild_every = 1 and "
                                     "relative_accuracy = 0");
                tree_gravity = &tree;
            }
            gravity = std::move(model);
            if (ranks_.size() > 1) {
                local_gravity = std::move(gravity);
                std::unique_ptr<TreeOverRanks> spread;
                if (scenario_.tree_ranks == TreeRanks::essential)
                    spread = std::make_unique<EssentialTreeGravity>(ranks_, tree);
                else
                    spread = std::make_unique<DistributedTreeGravity>(ranks_, tree);
                tree_over_ranks = spread.get();
                gravity = std::move(spread);
            }
        }
        const Range block = own_block();
        ids.resize(block.size());
        for (std::size_t i = 0; i < block.size(); ++i) ids[i] = std::uint32_t(block.begin + i);
        bodies = std::make_unique<DeviceBodies>(context, p, ranks_.size() > 1 ? slice(initial, block) : initial);
        system = std::make_unique<NBodySystem>(context, *gravity, *bodies);
        ops = std::make_unique<VectorOps>(context, p, ranks_);
        integrator = make_integrator(scenario_.integrator, *ops, 6 * bodies->size(),
                                     {scenario_.atol, scenario_.rtol});
        dt = scenario_.dt;
        // An adaptive run to an end time shortens its last step to land on it (to rounding).
        by_time = integrator->adaptive() && scenario_.end_time > 0;
        derivative = system->derivative();
        render = scenario_.render;
    }

    const dist::Communicator& ranks() const override { return ranks_; }
    const Scenario& scenario() const override { return scenario_; }
    RunSchedule schedule() const override {
        const Scenario& s = scenario_;
        RunSchedule r;
        r.steps = by_time ? 0 : s.steps;
        r.end_time = s.end_time;
        r.sample.steps = s.diagnostics_every;
        r.frame.steps = s.frame_every;
        r.snapshot.steps = s.snapshot_every;  // 0: at the end only
        r.snapshot_at_end = true;
        r.checkpoint.steps = s.checkpoint_every;
        r.progress_every_step = true;
        return r;
    }
    std::uint64_t step() const override { return step_; }
    double time() const override { return time_; }
    bool finished() const override {
        return by_time ? !(scenario_.end_time - time_ > 1e-12 * scenario_.end_time)
                       : step_ >= scenario_.steps;
    }
    void advance(double) override {
        const Scenario& s = scenario_;
        const double taken = integrator->step(derivative, time_, bodies->state,
                                              by_time ? std::min(dt, s.end_time - time_) : dt);
        time_ += taken;
        sweeps_ += integrator->iterations();
        dt = integrator->adaptive() ? integrator->next_dt() : s.dt;
        if (s.damping != 1.0) {
            const std::size_t n = bodies->size();
            ops->combine(3 * n, bodies->state, 3 * n, bodies->state, 3 * n,
                         {{s.damping - 1.0, &bodies->state, 3 * n}});
        }
        ++step_;
        if (tree_over_ranks) follow_walks();
    }

    void begin(bool) override { interactions0 = gravity->interactions(); }
    std::string csv_name() const override { return "energy.csv"; }
    std::string csv_header() const override { return energy_header; }
    std::string sample() override {
        // The diagnostics' evaluation leaves the tree as the steps left it, so that how often
        // a run samples changes nothing of its bodies.
        std::optional<TreeGravity::Order> before;
        if (tree_gravity) before = tree_gravity->continuation();
        std::vector<double> potential = system->potentials();
        if (before) tree_gravity->restore(*before);
        if (host.size() != bodies->size()) host = bodies->download(context.queue(0));
        else bodies->download_motion(context.queue(0), host);  // masses never change
        // Over several ranks every rank measures every body, in one rank's order: the same
        // sums, so the same bits, on every rank and as on one rank.
        const Bodies all = ranks_.size() > 1 ? gather_bodies(host, &potential) : Bodies();
        const NBodyDiagnostics d = measure(ranks_.size() > 1 ? all : host, potential);
        if (!std::isfinite(d.total()))
            throw Error("the state is no longer finite at step " + std::to_string(step_) +
                        " (t = " + std::to_string(time_) +
                        "): the time step is probably too large for the softening");
        if (!have_e0) e0 = d.total();
        have_e0 = true;
        drift = e0 != 0 ? std::abs(d.total() - e0) / std::abs(e0) : 0.0;
        return detail::format(
            "%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.6e\n",
            static_cast<unsigned long long>(step_), time_, d.kinetic, d.potential, d.total(),
            d.momentum[0], d.momentum[1], d.momentum[2], d.angular_momentum[0],
            d.angular_momentum[1], d.angular_momentum[2], drift);
    }
    void write_frame(const fs::path& file) override {
        const Bodies all = every_body();
        if (ranks_.root()) render_density(file, all, render);
    }
    // Over several ranks, each writes its own bodies as a piece of the snapshot and rank 0 the
    // file that joins them: no rank holds every body for it.
    void write_snapshot(const fs::path& file) override {
        Bodies mine = bodies->download(context.queue(0));
        if (ranks_.size() == 1) return partcl::write_snapshot(file, mine, time_, 0.0, unit_system(scenario_));
        // Each rank writes its block of the global order, wherever the bodies are now.
        if (directory && !directory->in_order()) mine = detail::bodies_of_block(ranks_, blocks, mine, ids);
        SnapshotPieces pieces;
        for (std::size_t r = 0; r < blocks.parts(); ++r) pieces.counts.push_back(blocks[r].size());
        pieces.largest_coordinate = ranks_.max(largest_coordinate(mine));
        write_snapshot_piece(file, std::size_t(ranks_.rank()), pieces, mine, time_, 0.0,
                             unit_system(scenario_));
        ranks_.barrier();  // every piece is on disk
        if (ranks_.root()) write_snapshot_of_pieces(file, pieces, time_, 0.0, unit_system(scenario_));
    }
    std::vector<StateArray> state() override { return detail::body_state(every_body()); }
    // One rank's checkpoint, whatever the ranks: every state-shaped vector whole, in one rank's
    // order, so a run resumes on any number of ranks.
    void save(Checkpoint& c) const override {
        c.dt = dt;
        c.device = device_names(context);
        c.state = whole(bodies->state.read(context.queue(0)));
        c.mass = whole(bodies->mass.read(context.queue(0)), 1);
        c.integrator = integrator->save();
        for (std::vector<double>& v : c.integrator.vectors) v = whole(v);
        if (dense_gravity) c.scheduler_weights = dense_gravity->scheduler().weights();
        c.initial_diagnostics = {e0, render.extent};
        if (tree_gravity) {
            // Every rank's tree is the one of all bodies, the same on each.
            detail::put_tree_order(tree_gravity->continuation(), c);
        }
    }

    std::string title(const std::string& resumed_from) const override {
        const Scenario& s = scenario_;
        std::string devices;
        for (const auto& d : context.devices()) devices += (devices.empty() ? "" : " + ") + d.info().name;
        return s.name + ", N = " + std::to_string(everyone.total()) + ", " + to_string(s.precision) +
               ", " + to_string(s.gravity_model) +
               (s.gravity_model == GravityModelKind::tree ? " (theta " + format_tree(s) + ")" : std::string()) +
               ", " + s.integrator + ", " +
               (by_time ? "to t = " + detail::shortest(s.end_time) : std::to_string(s.steps) + " steps") +
               " on " + devices + " (" + context.device(0).info().platform + ")" +
               (ranks_.size() > 1 ? " on each of " + std::to_string(ranks_.size()) + " MPI ranks" : "") +
               (resumed_from.empty() ? "" : ", resumed from " + resumed_from);
    }
    std::string progress_text(const RunProgress& p) const override {
        if (p.steps == 0)
            return detail::format("t %.4g/%.4g  %llu steps  %.2f steps/s  ETA %s  dE/E %.2e", p.time,
                                  p.end_time, static_cast<unsigned long long>(p.step), p.steps_per_second,
                                  detail::clock_text(p.eta_seconds).c_str(), drift);
        return detail::format("%llu/%llu steps  %.2f steps/s  ETA %s  dE/E %.2e",
                              static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(p.steps),
                              p.steps_per_second, detail::clock_text(p.eta_seconds).c_str(), drift);
    }
    NBodyRunSummary results(const RunSummary& loop) const {
        NBodyRunSummary r;
        static_cast<RunSummary&>(r) = loop;
        r.energy_drift = drift;
        // Every rank's interactions (a collective: every rank asks for the results alike).
        double interactions = gravity->interactions() - interactions0;
        if (ranks_.size() > 1) {
            const std::vector<double> each = ranks_.allgather(interactions);
            interactions = std::accumulate(each.begin(), each.end(), 0.0);
        }
        r.interactions_per_second = interactions / loop.wall_seconds;
        return r;
    }
    std::vector<std::string> summary_lines(const RunSummary& loop, const std::string& out) const override {
        const NBodyRunSummary r = results(loop);
        std::vector<std::string> lines = {detail::format("steps %llu..%llu, t = %.6g, wall %.2f s, %.2f steps/s",
                               static_cast<unsigned long long>(r.first_step),
                               static_cast<unsigned long long>(r.last_step), r.time, r.wall_seconds,
                               r.steps_per_second),
                detail::format("relative energy drift %.3e", r.energy_drift),
                detail::format("%.3e interactions/s (%s)", r.interactions_per_second,
                               scenario_.gravity_model == GravityModelKind::tree
                                   ? "N^2 per force evaluation over wall time: the direct-sum equivalent"
                                   : "force evaluations over wall time"),
                detail::format("wrote %zu snapshots, %zu frames, energy.csv and checkpoint.bin in %s",
                               r.snapshots, r.frames, out.c_str())};
        if (tree_over_ranks)
            lines.push_back(detail::format("bodies moved to the ranks that walk them %zu times (%zu of this rank's)",
                                           migrations, moved_bodies));
        // Implicit methods: how hard their fixed-point iteration worked.
        if (sweeps_ > 0 && r.last_step > r.first_step)
            lines.insert(lines.begin() + 1,
                         detail::format("%s: %.2f fixed-point sweeps a step (to atol %g, rtol %g)",
                                        scenario_.integrator.c_str(),
                                        double(sweeps_) / double(r.last_step - r.first_step),
                                        scenario_.atol, scenario_.rtol));
        return lines;
    }

    // The gravity model's, then the integrator's vector operations'.
    LaunchList launches() const override {
        LaunchList list = gravity->launches();
        for (const MultiDeviceLaunch* launch : ops->launches()) list.push_back(launch);
        return list;
    }

    std::size_t size() const { return everyone.total(); }

    // Where a resumed run starts (the checkpoint's vectors whole: this rank takes its block).
    void restore(const Checkpoint& c) {
        IntegratorState state = c.integrator;
        if (ranks_.size() > 1)
            for (std::vector<double>& v : state.vectors) v = state_block(v, own_block(), everyone.total());
        integrator->restore(state);
        // A checkpoint without the tree's order (written without refits and the relative
        // criterion) builds anew.
        if (tree_gravity) tree_gravity->restore(detail::tree_order_of(c, everyone.total(), "an N-body run"));
        step_ = c.step;
        time_ = c.time;
        dt = c.dt;
        e0 = c.initial_diagnostics[0];
        have_e0 = true;
        render.extent = c.initial_diagnostics[1];
    }
    void set_extent(double extent) { render.extent = extent; }

private:
    // A vector of `components` values of each of this rank's bodies (SoA; 6: state-shaped),
    // whole: every rank's block in rank order.
    std::vector<double> whole(const std::vector<double>& mine, std::size_t components = 6) const {
        if (ranks_.size() == 1) return mine;
        const std::vector<double> all = everyone.gather(mine, bodies->size(), components);
        return directory ? directory->to_global(all, components) : all;
    }
    // Every rank's bodies, in one rank's order (a collective).
    Bodies every_body() const {
        Bodies mine = bodies->download(context.queue(0));
        if (ranks_.size() == 1) return mine;
        return gather_bodies(mine, nullptr);
    }
    // Every rank's bodies from this rank's `mine`, and `potential`, when given, made whole.
    Bodies gather_bodies(const Bodies& mine, std::vector<double>* potential) const {
        const std::size_t n = mine.size(), total = everyone.total();
        std::vector<double> fields;
        for (const auto* f : {&mine.x, &mine.y, &mine.z, &mine.vx, &mine.vy, &mine.vz, &mine.m})
            fields.insert(fields.end(), f->begin(), f->end());
        if (potential) fields.insert(fields.end(), potential->begin(), potential->end());
        const std::size_t components = potential ? 8 : 7;
        std::vector<double> all = everyone.gather(fields, n, components);
        if (directory) all = directory->to_global(all, components);
        Bodies b;
        b.resize(total);
        std::vector<double>* into[] = {&b.x, &b.y, &b.z, &b.vx, &b.vy, &b.vz, &b.m};
        for (std::size_t c = 0; c < 7; ++c)
            std::copy_n(all.begin() + std::ptrdiff_t(c * total), total, into[c]->begin());
        if (potential) potential->assign(all.begin() + std::ptrdiff_t(7 * total), all.end());
        return b;
    }

    // With the tree over ranks: each body moves to the rank that walked it, where more than 1%
    // of some rank's bodies were walked by another (the walk's ranges of groups are pieces of
    // space), so that their results stay where they are computed. Every rank decides alike.
    void follow_walks() {
        const std::vector<int>& walkers = tree_over_ranks->walkers();
        const std::size_t n = bodies->size();
        if (walkers.size() != n) return;  // no evaluation of these bodies yet
        std::size_t elsewhere = 0;
        for (int w : walkers) elsewhere += w != ranks_.rank();
        if (!(ranks_.max(double(elsewhere) / double(std::max<std::size_t>(n, 1))) > 0.01)) return;
        // A rank may walk none of the bodies (its share of the groups follows measured speed);
        // it keeps its own then, as a rank must hold some.
        std::vector<std::size_t> sent(std::size_t(ranks_.size()), 0);
        for (int w : walkers) ++sent[std::size_t(w)];
        std::size_t after = 0;  // this rank's bodies after the move
        for (std::size_t count : ranks_.alltoall(sent)) after += count;
        if (ranks_.max(after == 0 ? 1.0 : 0.0) > 0) return;
        Queue& queue = context.queue(0);
        TravellingBodies mine{bodies->download(queue), ids, {}};
        IntegratorState state = integrator->save();
        mine.vectors = std::move(state.vectors);
        TravellingBodies moved = move_bodies(ranks_, walkers, mine);
        const Precision p = scenario_.precision;
        bodies = std::make_unique<DeviceBodies>(context, p, moved.bodies);
        system = std::make_unique<NBodySystem>(context, *gravity, *bodies);
        derivative = system->derivative();
        integrator = make_integrator(scenario_.integrator, *ops, 6 * bodies->size(),
                                     {scenario_.atol, scenario_.rtol});
        state.vectors = std::move(moved.vectors);
        integrator->restore(state);
        ids = std::move(moved.ids);
        everyone = dist::Allgather(ranks_, ids.size());
        directory = std::make_unique<dist::IndexDirectory>(ranks_, ids);
        tree_over_ranks->set_directory(directory.get());
        host = Bodies();  // the diagnostics' copy holds the old order's masses
        ++migrations;
        moved_bodies += elsewhere;
    }

    Context& context;
    Scenario scenario_;
    const dist::Communicator& ranks_;
    Partition blocks;         // every rank's first bodies (and its piece of each snapshot)
    Range own_block() const { return blocks[std::size_t(ranks_.rank())]; }
    dist::Allgather everyone;  // every rank's block, for diagnostics, outputs and checkpoints
    std::unique_ptr<GravityModel> local_gravity;  // over several ranks: the rank's own model
    std::unique_ptr<GravityModel> gravity;
    DenseGravity* dense_gravity = nullptr;  // the model when dense (its scheduler's weights)
    TreeGravity* tree_gravity = nullptr;    // the tree when its order goes into checkpoints
    TreeOverRanks* tree_over_ranks = nullptr;  // the tree over several ranks, either way (TreeRanks)
    // This rank's bodies' global indices, and where every rank's are once they have moved.
    std::vector<std::uint32_t> ids;
    std::unique_ptr<dist::IndexDirectory> directory;
    std::size_t migrations = 0, moved_bodies = 0;  // moves, and this rank's bodies moved
    std::uint64_t sweeps_ = 0;  // implicit methods' fixed-point sweeps in this run
    std::unique_ptr<DeviceBodies> bodies;
    std::unique_ptr<NBodySystem> system;
    std::unique_ptr<VectorOps> ops;
    std::unique_ptr<Integrator> integrator;
    Derivative derivative;
    RenderSettings render;  // its extent the run's, fixed at the start
    bool by_time = false;
    std::uint64_t step_ = 0;
    double time_ = 0, dt = 0, e0 = 0, drift = 0, interactions0 = 0;
    bool have_e0 = false;
    Bodies host;  // the bodies as the diagnostics last read them
};

} // namespace

namespace detail {

RunLoop nbody_run(Context& context, Scenario scenario, fs::path out, const RunOptions& options) {
    if (scenario.model != "nbody")
        throw UsageError("scenario '" + scenario.name + "' is of model \"" + scenario.model +
                         "\", not an N-body run (run/mps_run.hpp and run/pic_run.hpp run model = \"mps\" and \"pic\")");
    validate(scenario);
    resolve_length(scenario);
    if (scenario.initial != InitialConditions::snapshot) check_device_memory(context, scenario, scenario.n);
    const Bodies initial = make_bodies(scenario);
    check_device_memory(context, scenario, initial.size());
    const double extent = scenario.render.extent > 0 ? scenario.render.extent : auto_extent(initial);
    auto model = std::make_unique<NBodyModel>(context, std::move(scenario), initial, options);
    model->set_extent(extent);
    return RunLoop(std::move(model), std::move(out));
}

RunLoop resumed_nbody_run(Context& context, const Checkpoint& c, const fs::path& file, fs::path out,
                      RunLength length, const RunOptions& options) {
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
    auto model = std::make_unique<NBodyModel>(context, std::move(scenario),
                                              bodies_from_state(c.state, c.mass), options);
    model->restore(c);
    // energy.csv as it was at the checkpoint (rows written after it, by a run that stopped
    // later, are written again by this one).
    ResumedLoop loop{file.string(), energy_header, {}};
    if (c.output_text.rfind(energy_header, 0) == 0) {
        detail::check_resume_directory(out, "energy.csv", c.output_text, file);
        loop.csv_text = c.output_text;
    } else if (c.output_text.empty()) {
        // Checkpoints of partcl 0.1 hold no rows: those of the output directory's energy.csv up
        // to the checkpoint stand in.
        std::ifstream csv(out / "energy.csv");
        std::string line;
        if (csv && std::getline(csv, line) && line + "\n" == energy_header) {
            while (std::getline(csv, line) && !line.empty() &&
                   std::stoull(line.substr(0, line.find(','))) <= c.step)
                loop.csv_text += line + "\n";
        }
    } else {
        throw UsageError("checkpoint " + file.string() + " holds no energy.csv of an N-body run");
    }
    return RunLoop(std::move(model), std::move(out), std::move(loop));
}

} // namespace detail

NBodyRun::NBodyRun(Context& context, Scenario scenario, fs::path out, DenseOptions dense)
    : run_(detail::nbody_run(context, std::move(scenario), std::move(out), RunOptions{dense})) {}

NBodyRun NBodyRun::resume(Context& context, const fs::path& file, fs::path out,
                          RunLength length, DenseOptions dense) {
    return NBodyRun(detail::resumed_nbody_run(context, read_checkpoint(file), file, std::move(out),
                                              length, RunOptions{dense}));
}

std::size_t NBodyRun::bodies() const noexcept {
    return static_cast<const NBodyModel&>(run_.model()).size();
}

void NBodyRun::on_progress(std::function<void(const RunProgress&)> callback) {
    run_.on_progress(std::move(callback));
}

NBodyRunSummary NBodyRun::run() {
    const RunSummary loop = run_.run();
    return static_cast<const NBodyModel&>(run_.model()).results(loop);
}

} // namespace partcl
