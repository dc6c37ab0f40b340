#include <partcl/models/mps/mps_fluid.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace partcl {

namespace {

constexpr std::size_t group = 64;  // MPS_GROUP: mps_max_speed's work-group
// Cells of half the interaction radius: the rows around a particle then hold 0.58 (3-D) or
// 0.69 (2-D) times the candidates of radius-sized cells (include/partcl/algorithm/cell_list.hpp).
constexpr int cell_reach = 2;

// The cell list's radius (cells built at r serve the pairs at r* too while nobody moved more
// than max_shift), max_shift, and the cells within which collision partners lie: a pair closer
// than the collision distance at r* was closer than that plus 2 max_shift at r.
struct FluidCells {
    double radius, max_shift;
    int collide_reach;
};

FluidCells fluid_cells(const MpsParameters& p) {
    const double l0 = p.spacing, re = p.re_ratio * l0, re_lap = p.re_laplacian_ratio * l0;
    FluidCells c;
    c.radius = std::max(re_lap, re + l0);
    c.max_shift = (c.radius - re) / 2;
    const double edge = c.radius / cell_reach;  // CellGrid::covering's cells are no smaller
    const double collision = std::max(p.collision_ratio, p.wall_collision()) * l0;
    const double reach = std::ceil((collision + 2 * c.max_shift) / edge);
    c.collide_reach = int(std::min<double>(cell_reach, std::max(1.0, reach)));
    return c;
}

void check_parameters(const MpsParameters& p) {
    if (!MpsParameters::valid_dimensions(p.dimensions))
        throw UsageError("mps: " + std::to_string(p.dimensions) + " dimensions (2 or 3)");
    if (!MpsParameters::valid_spacing(p.spacing))
        throw UsageError("mps: the particle spacing must be positive");
    if (!MpsOptions::valid_re_ratio(p.re_ratio) || !MpsOptions::valid_re_ratio(p.re_laplacian_ratio))
        throw UsageError("mps: the particle spacing must be smaller than the influence radii "
                         "(re / l0 = " + std::to_string(p.re_ratio) + ", " +
                         std::to_string(p.re_laplacian_ratio) + " for the Laplacian)");
    if (!MpsOptions::valid_density(p.density) || !MpsOptions::valid_sound_speed(p.sound_speed))
        throw UsageError("mps: density and sound speed must be positive");
    if (!MpsOptions::valid_viscosity(p.viscosity))
        throw UsageError("mps: the viscosity must be non-negative");
    if (!MpsOptions::valid_courant(p.courant))
        throw UsageError("mps: the Courant number lies in (0, 1]");
    if (!MpsOptions::valid_restitution(p.restitution))
        throw UsageError("mps: the restitution coefficient lies in [0, 1]");
    if (!MpsOptions::valid_collision_ratio(p.collision_ratio, p.re_ratio) ||
        !MpsOptions::valid_collision_ratio(p.wall_collision_ratio, p.re_ratio))
        throw UsageError("mps: the collision distances (to fluid and to walls) lie in [0, re)");
    if (!MpsOptions::valid_artificial_viscosity(p.artificial_viscosity))
        throw UsageError("mps: the artificial viscosity lies in [0, 10]");
    if (!MpsOptions::valid_shifting(p.shifting))
        throw UsageError("mps: the shifting coefficient lies in [0, 1]");
    if (!MpsOptions::valid_surface_sweeps(p.surface_sweeps))
        throw UsageError("mps: the surface's pressure sweeps number 0 to 8");
    if (!MpsOptions::valid_viscosity_reconstruction(p.viscosity_reconstruction) ||
        !p.reconstruction_has_viscosity())
        throw UsageError("mps: the viscosity's reconstruction is a share in [0, 1] and needs an "
                         "artificial viscosity above 0");
    if (p.weight != MpsWeight::koshizuka && p.weight != MpsWeight::quadratic)
        throw UsageError("mps: an unknown weight function");
    if (p.gradient != MpsGradient::koshizuka && p.gradient != MpsGradient::corrected)
        throw UsageError("mps: an unknown pressure gradient");
    if (!(p.max_dt > 0)) throw UsageError("mps: max_dt must be positive");
    for (double g : p.gravity)
        if (!std::isfinite(g)) throw UsageError("mps: gravity must be finite");
}

} // namespace

MpsLattice mps_lattice(int dimensions, double re_ratio, MpsWeight kind) {
    const int reach = int(std::ceil(re_ratio));
    double sum = 0, moment = 0;
    for (int x = -reach; x <= reach; ++x)
        for (int y = -reach; y <= reach; ++y)
            for (int z = (dimensions == 3 ? -reach : 0); z <= (dimensions == 3 ? reach : 0); ++z) {
                const double r = std::sqrt(double(x * x + y * y + z * z));
                const double w = mps_weight(kind, r, re_ratio);
                sum += w;
                moment += r * r * w;
            }
    return {sum, moment / sum};
}

std::size_t MpsParticles::count(MpsType t) const {
    return std::size_t(std::count(type.begin(), type.end(), t));
}

MpsFluid::MpsFluid(Context& context, Precision precision, const MpsParameters& parameters,
                   const MpsParticles& particles, std::array<double, 3> lower,
                   std::array<double, 3> upper, ProgramCache& cache,
                   const dist::Communicator& ranks)
    : context_(context), precision_(precision), parameters_(parameters), ranks_(&ranks),
      n_(particles.size()), total_(particles.size()),
      program_([&] {
          check_parameters(parameters);
          for (std::size_t d = 0; d < context.size(); ++d)
              require_precision(context.device(d).info(), precision);
          BuildOptions options;
          options.precision = precision;
          options.define("MPS_DIMENSIONS", parameters.dimensions);
          options.define("MPS_GROUP", (long long)group);
          options.define("CELL_LIST_REACH", cell_reach);
          options.define("MPS_COLLIDE_REACH", fluid_cells(parameters).collide_reach);
          options.define("MPS_WEIGHT", int(parameters.weight));
          options.define("MPS_GRADIENT", int(parameters.gradient));
          options.define("MPS_RECONSTRUCT", int(parameters.reconstructs()));
          return build_program(context, Source::builtin("mps/mps.cl"), options, cache);
      }()),
      slabs_(context, precision,
             CellGrid::covering(parameters.dimensions, lower, upper, fluid_cells(parameters).radius,
                                cell_reach),
             cell_reach,
             {SlabField{std::size_t(parameters.dimensions)},
              SlabField{std::size_t(parameters.dimensions)}},
             {SlabField{1, true}}, SlabEnds::open, cache),
      predict_launch_(context, "mps predict"), collide_launch_(context, "mps collide"),
      pressure_launch_(context, "mps pressure"), surface_launch_(context, "mps surface pressure"),
      gradient_launch_(context, "mps velocity gradient"), correct_launch_(context, "mps correct"),
      max_speed_launch_(context, "mps max speed") {
    const int d = parameters.dimensions;
    if (particles.dimensions != d)
        throw UsageError("mps: " + std::to_string(particles.dimensions) +
                         "-D particles given to a " + std::to_string(d) + "-D model");
    if (n_ == 0) throw UsageError("mps: no particles");
    // Slots index components up to d^2 (the velocity gradient) or 3 times the particle count.
    if (n_ > 0xffffffffull / (parameters.reconstructs() ? std::size_t(d * d) : 3))
        throw UsageError("mps: too many particles");
    if (particles.position.size() != d * n_ || particles.velocity.size() != d * n_)
        throw UsageError("mps: " + std::to_string(n_) + " particles need " +
                         std::to_string(d * n_) + " position and velocity components");
    for (std::size_t i = 0; i < d * n_; ++i)
        if (!std::isfinite(particles.position[i]) || !std::isfinite(particles.velocity[i]))
            throw UsageError("mps: particle " + std::to_string(i % n_) +
                             " has a position or velocity that is NaN or infinite");
    for (MpsType t : particles.type)
        if (std::uint32_t(t) > 2) throw UsageError("mps: a particle type other than fluid, wall, dummy");

    const double l0 = parameters.spacing;
    const MpsLattice density = mps_lattice(d, parameters.re_ratio, parameters.weight);
    const MpsLattice laplacian = mps_lattice(d, parameters.re_laplacian_ratio, parameters.weight);
    n0_ = density.n0;
    n0_lap_ = laplacian.n0;
    lambda0_ = laplacian.lambda0 * l0 * l0;
    const FluidCells geometry = fluid_cells(parameters);
    max_shift_ = geometry.max_shift;
    for (std::size_t k = 0; k < context.size(); ++k) {
        kernels_.push_back({Kernel(program_, "mps_predict"), Kernel(program_, "mps_collide"),
                            Kernel(program_, "mps_pressure"), Kernel(program_, "mps_surface_pressure"),
                            Kernel(program_, "mps_velocity_gradient"), Kernel(program_, "mps_correct"),
                            Kernel(program_, "mps_max_speed")});
        status_.emplace_back(context, 1, OnDevice{k});
        partial_.emplace_back();
    }
    for (std::uint32_t t = 0; t <= 2; ++t) type_counts_[t] = particles.count(MpsType(t));
    if (several()) {
        for (std::size_t k = 0; k < context.size(); ++k)
            select_.push_back(std::make_unique<SlabSelection>(context, precision, slabs_.grid(), cache, OnDevice{k}));
        scratch_.resize(context.size());
    }
    upload(particles);  // particles outside the box: UsageError now
    dt_ = std::min(parameters.max_dt, parameters.courant * l0 / (parameters.sound_speed + max_speed_));
}

void MpsFluid::upload(const MpsParticles& p) {
    const int d = parameters_.dimensions;
    const std::size_t n = p.size();
    double speed = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (p.type[i] != MpsType::fluid) continue;
        double s2 = 0;
        for (int k = 0; k < d; ++k) s2 += p.velocity[k * n + i] * p.velocity[k * n + i];
        speed = std::max(speed, std::sqrt(s2));
    }
    if (several()) {
        if (rank_slabs_.parts() != std::size_t(ranks_->size())) rank_slabs_ = cut_slabs(p);
        // This rank's own particles, in the given order; the ghosts come from their owners.
        const std::vector<std::uint32_t> slab = slabs_of(p);
        const Range mine = rank_slabs_[std::size_t(ranks_->rank())];
        MpsParticles own;
        own.dimensions = d;
        std::vector<std::size_t> kept;
        for (std::size_t i = 0; i < n; ++i)
            if (slab[i] >= mine.begin && slab[i] < mine.end) kept.push_back(i);
        for (int k = 0; k < d; ++k)
            for (std::size_t i : kept) {
                own.position.push_back(p.position[std::size_t(k) * n + i]);
                own.velocity.push_back(p.velocity[std::size_t(k) * n + i]);
            }
        for (std::size_t i : kept) own.type.push_back(p.type[i]);
        place(own);
    } else {
        std::vector<std::uint32_t> types(n);
        for (std::size_t i = 0; i < n; ++i) types[i] = std::uint32_t(p.type[i]);
        slabs_.upload(n, {p.position, p.velocity}, {types});
    }
    stepped_ = false;
    max_speed_ = speed;
}

void MpsFluid::set_cell_args(Kernel& kernel, std::size_t d) const {
    const CellList& cells = slabs_.cells(d);
    kernel.arg(0, std::uint32_t(slabs_.total(d)));
    cells.grid_args(kernel, 1);
    kernel.arg(8, cells.keys()).arg(9, cells.cell_start()).arg(10, cells.cell_end());
}

double MpsFluid::step() { return step(dt_); }

void MpsFluid::rebalance_every(std::size_t steps, double tolerance, RankWork work) {
    if (!(tolerance >= 0) || !std::isfinite(tolerance))
        throw UsageError("mps: the ranks' imbalance tolerance must be finite and not negative");
    if (work != RankWork::measured && work != RankWork::particles)
        throw UsageError("mps: an unknown measure of the ranks' work");
    rebalance_every_ = steps;
    rebalance_tolerance_ = tolerance;
    rank_work_ = work;
}

void MpsFluid::advance_to(double t, std::size_t step_limit) {
    while (time_ < t && (step_limit == 0 || steps_ < step_limit)) step(std::min(dt_, t - time_));
}

double MpsFluid::step(double dt) {
    const MpsParameters& p = parameters_;
    const int d = p.dimensions;
    const std::size_t dims = std::size_t(d);
    const double l0 = p.spacing, re = p.re_ratio * l0, re_lap = p.re_laplacian_ratio * l0;

    const auto started = std::chrono::steady_clock::now();
    const double exchanged = traffic_.seconds;
    if (several() && !arranged_) {
        if (rebalance_every_ > 0 && steps_ > 0 && steps_ % rebalance_every_ == 0) rebalance();
        rearrange();
    }
    arranged_ = false;
    slabs_.arrange(scheduler().weights());
    const Partition owners = slabs_.owners();
    for (auto* arrays : {&r_star_, &u_star_, &r_collided_, &u_collided_})
        slabs_.fit(*arrays, dims);
    slabs_.fit(density_, 1);
    slabs_.fit(pressure_, 1);
    if (p.surface_sweeps > 0) slabs_.fit(swept_, 1);
    if (p.reconstructs()) slabs_.fit(velocity_gradient_, dims * dims);

    // Device `device`'s own particles, [below, below + own) of its local slots; outputs into
    // the local layout, or (`next`) into its own slots of the next step.
    auto launch = [&](Kernel& kernel, std::uint32_t index, std::size_t device, bool next) {
        const std::size_t below = slabs_.below(device), own = slabs_.own(device);
        kernel.arg(index, std::uint32_t(below)).arg(index + 1, std::uint32_t(below + own))
            .arg(index + 2, std::uint32_t(next ? 0 : below))
            .arg(index + 3, std::uint32_t(next ? own : slabs_.total(device)));
        return kernel.launch(context_.queue(device), own, group);
    };
    auto r = [&](std::size_t device) -> RealBuffer& { return slabs_.local(0, device); };
    auto u = [&](std::size_t device) -> RealBuffer& { return slabs_.local(1, device); };
    auto type = [&](std::size_t device) -> Buffer<std::uint32_t>& {
        return slabs_.local_uint(0, device);
    };

    predict_launch_.run(owners, [&](std::size_t device, Range) {
        Kernel& k = kernels_[device].predict;
        set_cell_args(k, device);
        k.arg(11, type(device)).arg(12, r(device)).arg(13, u(device))
            .arg(14, r_star_[device]).arg(15, u_star_[device]);
        k.arg(16, Real{dt}).arg(17, Real{re_lap})
            .arg(18, Real{p.viscosity * 2 * d / (lambda0_ * n0_lap_)})
            .arg(19, Real{p.gravity[0]}).arg(20, Real{p.gravity[1]}).arg(21, Real{p.gravity[2]});
        return launch(k, 22, device, false);
    });
    if (several()) {  // the ranks' ghosts first: the devices' exchange copies them on
        update_ghosts(r_star_, dims);
        update_ghosts(u_star_, dims);
    }
    slabs_.exchange(r_star_, dims);  // collisions read both of neighbours
    slabs_.exchange(u_star_, dims);

    collide_launch_.run(owners, [&](std::size_t device, Range) {
        Kernel& k = kernels_[device].collide;
        set_cell_args(k, device);
        k.arg(11, type(device)).arg(12, r_star_[device]).arg(13, u_star_[device])
            .arg(14, r_collided_[device]).arg(15, u_collided_[device]);
        k.arg(16, Real{dt}).arg(17, Real{p.collision_ratio * l0})
            .arg(18, Real{p.wall_collision() * l0}).arg(19, Real{p.restitution});
        return launch(k, 20, device, false);
    });
    if (several()) {
        update_ghosts(r_collided_, dims);
        if (p.artificial_viscosity > 0) update_ghosts(u_collided_, dims);
    }
    slabs_.exchange(r_collided_, dims);  // the number density and the gradient read positions
    if (p.artificial_viscosity > 0) slabs_.exchange(u_collided_, dims);  // and velocities
    if (p.reconstructs()) {  // and, for the viscosity's reconstruction, velocity gradients
        gradient_launch_.run(owners, [&](std::size_t device, Range) {
            Kernel& k = kernels_[device].velocity_gradient;
            set_cell_args(k, device);
            k.arg(11, type(device)).arg(12, r_collided_[device]).arg(13, u_collided_[device])
                .arg(14, velocity_gradient_[device]).arg(15, Real{re});
            return launch(k, 16, device, false);
        });
        if (several()) update_ghosts(velocity_gradient_, dims * dims);
        slabs_.exchange(velocity_gradient_, dims * dims);
    }

    pressure_launch_.run(owners, [&](std::size_t device, Range) {
        Kernel& k = kernels_[device].pressure;
        status_[device].fill(context_.queue(device), 0u);
        set_cell_args(k, device);
        k.arg(11, type(device)).arg(12, r(device)).arg(13, r_collided_[device])
            .arg(14, density_[device]).arg(15, pressure_[device]);
        k.arg(16, Real{re}).arg(17, Real{n0_})
            .arg(18, Real{p.sound_speed * p.sound_speed * p.density / n0_})
            .arg(19, Real{max_shift_}).arg(20, status_[device]);
        return launch(k, 21, device, false);
    });
    if (several()) update_ghosts(pressure_, 1);
    slabs_.exchange(pressure_, 1);  // the gradient reads neighbours' pressures
    for (int sweep = 0; sweep < p.surface_sweeps; ++sweep) {  // and so does each sweep
        surface_launch_.run(owners, [&](std::size_t device, Range) {
            Kernel& k = kernels_[device].surface;
            set_cell_args(k, device);
            k.arg(11, type(device)).arg(12, r_collided_[device]).arg(13, pressure_[device])
                .arg(14, swept_[device]);
            k.arg(15, Real{re}).arg(16, Real{p.density * p.gravity[0]})
                .arg(17, Real{p.density * p.gravity[1]}).arg(18, Real{p.density * p.gravity[2]});
            return launch(k, 19, device, false);
        });
        std::swap(pressure_, swept_);
        if (several()) update_ghosts(pressure_, 1);
        slabs_.exchange(pressure_, 1);
    }

    correct_launch_.run(owners, [&](std::size_t device, Range) {
        Kernel& k = kernels_[device].correct;
        set_cell_args(k, device);
        k.arg(11, type(device)).arg(12, r_collided_[device]).arg(13, u_collided_[device])
            .arg(14, pressure_[device])
            // without the reconstruction the kernel reads no gradient: any buffer stands in
            .arg(15, p.reconstructs() ? velocity_gradient_[device] : pressure_[device])
            .arg(16, Real{p.viscosity_reconstruction})
            .arg(17, slabs_.next(0, device)).arg(18, slabs_.next(1, device));
        k.arg(19, Real{dt}).arg(20, Real{re}).arg(21, Real{d / n0_ / p.density * dt})
            .arg(22, Real{n0_ / d})
            .arg(23, Real{p.artificial_viscosity * p.density * p.sound_speed * l0})
            .arg(24, Real{0.01 * l0 * l0}).arg(25, Real{p.shifting * p.sound_speed * dt})
            .arg(26, Real{l0});
        return launch(k, 27, device, true);
    });
    stepped_ = true;

    // The rank's own particles of each device (over several ranks its ghosts are not its to
    // measure): device d's slots [first[d], first[d] + part) of its next() arrays.
    std::vector<std::size_t> counted{0}, first(context_.size(), 0);
    for (std::size_t device = 0; device < context_.size(); ++device) {
        const Range slots = owners[device];
        const std::size_t begin = std::max(slots.begin, ghosts_.below);
        const std::size_t end = several() ? std::min(slots.end, ghosts_.below + ghosts_.own) : slots.end;
        first[device] = begin < end ? begin - slots.begin : 0;
        counted.push_back(counted.back() + (begin < end ? end - begin : 0));
    }
    const Partition measured(std::move(counted));
    max_speed_launch_.run(measured, [&](std::size_t device, Range range) {
        Kernel& k = kernels_[device].max_speed;
        const std::size_t groups = (range.size() + group - 1) / group;
        if (partial_[device].size() < groups)
            partial_[device] = RealBuffer(context_, precision_, groups, OnDevice{device});
        k.args(std::uint32_t(slabs_.own(device)), slabs_.next_uint(0, device), slabs_.next(1, device),
               partial_[device], std::uint32_t(first[device]),
               std::uint32_t(first[device] + range.size()));
        return k.launch(context_.queue(device), range.size(), group);
    });
    // Per device in device order: the flag or-ed, the maxima's maximum (exact in any order).
    std::uint32_t status = 0;
    max_speed_ = 0;
    for (std::size_t device = 0; device < context_.size(); ++device) {
        const Range range = measured[device];
        if (range.empty() && owners[device].empty()) continue;
        auto& device_queue = context_.queue(device);
        std::uint32_t flag = 0;
        status_[device].read(device_queue, &flag, 1);
        status |= flag;
        std::vector<double> partial((range.size() + group - 1) / group);
        if (!partial.empty()) partial_[device].read(device_queue, partial.data(), partial.size());
        for (double s : partial) max_speed_ = std::max(max_speed_, s);
    }
    if (several()) {  // every rank's: the largest is exact in any order
        status = ranks_->max(double(status)) > 0 ? 1u : 0u;
        max_speed_ = ranks_->max(max_speed_);
    }
    if (status)
        throw Error("mps: a particle moved more than " + std::to_string(max_shift_) +
                    " m in one step at t = " + std::to_string(time_) +
                    " s (the flow outran the CFL limit; lower the Courant number or max_dt)");
    if (!std::isfinite(max_speed_))
        throw Error("mps: the velocity became NaN or infinite at t = " + std::to_string(time_));
    if (several() && ghosts_.own > 0) {
        // What this rank's own work took (its exchanges, waits for the others included, not).
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
            (traffic_.seconds - exchanged);
        const double per_particle = std::max(seconds, 0.0) / double(ghosts_.own);
        seconds_per_particle_ = seconds_per_particle_ > 0 ? 0.5 * (seconds_per_particle_ + per_particle)
                                                         : per_particle;
    }
    time_ += dt;
    ++steps_;
    dt_ = std::min(p.max_dt, p.courant * l0 / (p.sound_speed + max_speed_));
    return dt;
}

MpsParticles MpsFluid::particles() const {
    const std::size_t d = std::size_t(parameters_.dimensions);
    MpsParticles out;
    out.dimensions = parameters_.dimensions;
    out.position = gather_own(slabs_.read_next(0), d);
    out.velocity = gather_own(slabs_.read_next(1), d);
    const std::vector<std::uint32_t> types = gather_own(slabs_.read_next_uint(0), 1);
    out.type.resize(total_);
    for (std::size_t i = 0; i < total_; ++i) out.type[i] = MpsType(types[i]);
    return out;
}

std::vector<double> MpsFluid::pressure() const {
    if (!stepped_) return std::vector<double>(total_, 0.0);
    return gather_own(slabs_.read_own(pressure_, 1), 1);
}

MpsState MpsFluid::state() const {
    MpsState s;
    s.particles = particles();
    s.time = time_;
    s.next_dt = dt_;
    s.steps = steps_;
    return s;
}

void MpsFluid::restore(const MpsState& state) {
    const MpsParticles& p = state.particles;
    const int d = parameters_.dimensions;
    const std::size_t n = total_;
    if (p.dimensions != d || p.size() != n || p.position.size() != d * n ||
        p.velocity.size() != d * n)
        throw UsageError("mps restore: " + std::to_string(p.size()) + " " +
                         std::to_string(p.dimensions) + "-D particles for a fluid of " +
                         std::to_string(n) + " " + std::to_string(d) + "-D ones");
    for (std::uint32_t t = 0; t <= 2; ++t)
        if (p.count(MpsType(t)) != type_counts_[t])
            throw UsageError("mps restore: the particles are not this fluid's (another number of "
                             "fluid, wall or dummy particles)");
    for (std::size_t i = 0; i < d * n; ++i)
        if (!std::isfinite(p.position[i]) || !std::isfinite(p.velocity[i]))
            throw UsageError("mps restore: particle " + std::to_string(i % n) +
                             " has a position or velocity that is NaN or infinite");
    if (!(state.time >= 0) || !std::isfinite(state.time) || !(state.next_dt > 0) ||
        !std::isfinite(state.next_dt))
        throw UsageError("mps restore: the time must be finite and not negative, the next step positive");
    upload(p);  // particles outside the box: UsageError now
    time_ = state.time;
    dt_ = state.next_dt;
    steps_ = std::size_t(state.steps);
}

} // namespace partcl
