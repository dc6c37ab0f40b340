#include <partcl/models/pic/electrostatic_pic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace partcl {

namespace {

constexpr std::size_t group = 64;

std::string grid_text(const PicGrid& grid) {
    std::string text = std::to_string(grid.nodes[0]);
    for (int k = 1; k < grid.dimensions; ++k) text += " x " + std::to_string(grid.nodes[k]);
    return text;
}

const PicGrid& checked(const PicGrid& grid, const DeviceInfo& device, Precision precision,
                       std::size_t n) {
    if (!PicGrid::valid_dimensions(grid.dimensions))
        throw UsageError("pic: " + std::to_string(grid.dimensions) + " dimensions (1, 2 or 3)");
    if (!(grid.spacing > 0) || !std::isfinite(grid.spacing))
        throw UsageError("pic: the grid spacing must be positive and finite, not " +
                         std::to_string(grid.spacing));
    double points = 1;
    for (int k = 0; k < 3; ++k) {
        if (k < grid.dimensions && grid.nodes[k] < 2)
            throw UsageError("pic: " + std::to_string(grid.nodes[k]) + " nodes on axis " +
                             std::to_string(k) + " (at least 2)");
        if (k >= grid.dimensions && grid.nodes[k] != 1)
            throw UsageError("pic: a " + std::to_string(grid.dimensions) +
                             "-D grid has 1 node on axis " + std::to_string(k));
        points *= grid.nodes[k];
    }
    if (points * 3 > 4294967295.0) throw UsageError("pic: more than 2^32 / 3 grid points");
    // The largest buffers, the field (D reals a node) and the FFT's (2), and the particles'
    // positions (max(D, 2) reals each), each within the device's largest allocation: a clear
    // refusal naming the grid instead of an allocation failure deep in a driver.
    const double real = double(size_of(precision)), limit = double(device.max_allocation);
    const double grid_bytes = points * real * std::max(2, grid.dimensions);
    const double particle_bytes = double(n) * real * std::max(2, grid.dimensions);
    if (limit > 0 && grid_bytes > limit)
        throw Unsupported("pic: a " + grid_text(grid) + " grid in " + to_string(precision) +
                          " needs " + std::to_string(static_cast<long long>(grid_bytes / 1048576)) +
                          " MiB in one buffer, but " + device.name + " allows at most " +
                          std::to_string(device.max_allocation >> 20) + " MiB");
    if (limit > 0 && particle_bytes > limit)
        throw Unsupported("pic: " + std::to_string(n) + " particles in " + to_string(precision) +
                          " need " + std::to_string(static_cast<long long>(particle_bytes / 1048576)) +
                          " MiB in one buffer, but " + device.name + " allows at most " +
                          std::to_string(device.max_allocation >> 20) + " MiB");
    return grid;
}

std::array<std::size_t, 3> fft_shape(const PicGrid& grid) {
    return {grid.nodes[0], grid.nodes[1], grid.nodes[2]};
}

// The slowest axis's planes cut evenly between the ranks, at least one each.
Partition rank_planes(const PicGrid& grid, const dist::Communicator& ranks) {
    const std::size_t planes = grid.nodes[std::size_t(grid.dimensions - 1)];
    const std::size_t count = std::size_t(ranks.size());
    if (planes < count)
        throw UsageError("pic: " + std::to_string(planes) + " planes along axis " +
                         std::to_string(grid.dimensions - 1) + " cannot be cut between " +
                         std::to_string(count) + " ranks (one plane a rank at least)");
    return Partition::by_weight(planes, std::vector<double>(count, 1.0));
}

bool can_deposit(const DeviceInfo& device, Precision precision, PicDeposit deposit) {
    return deposit != PicDeposit::atomic || precision != Precision::float64 ||
           device.backend == Backend::cuda || device.has_extension("cl_khr_int64_base_atomics");
}

} // namespace

void require_deposit(const DeviceInfo& device, Precision precision, PicDeposit deposit) {
    if (!can_deposit(device, precision, deposit))
        throw Unsupported("pic: the atomic deposit in double needs 64-bit atomics "
                          "(cl_khr_int64_base_atomics), which " + device.name + " (" +
                          device.platform + ") lacks; use the gather deposit "
                          "(PicDeposit::gather, [plasma] deposit = \"gather\") or float");
}

ElectrostaticPic::ElectrostaticPic(Context& context, Precision precision, const PicGrid& grid,
                                   std::vector<PicSpecies> species, const PicParticles& particles,
                                   PicDeposit deposit, ProgramCache& cache,
                                   const dist::Communicator& ranks)
    : context_(context), precision_(precision),
      grid_(checked(grid, context.device(0).info(), precision, particles.size())),
      species_(std::move(species)), deposit_(deposit), ranks_(&ranks),
      planes_(rank_planes(grid_, ranks)), n_(particles.size()), total_(particles.size()),
      fft_(ranks, context, precision, fft_shape(grid_), planes_),
      program_([&] {
          for (const Device& device : context.devices()) require_precision(device.info(), precision);
          BuildOptions options;
          options.precision = precision;
          options.define("PIC_DIMENSIONS", grid_.dimensions);
          return build_program(context, Source::builtin("pic/pic.cl"), options, cache);
      }()),
      poisson_(program_, "pic_poisson"), leaving_(program_, "pic_leaving"),
      partition_(program_, "pic_partition"), deposit_launch_(context, "pic deposit"),
      field_launch_(context, "pic field"), push_launch_(context, "pic push"),
      rho_parts_(context, 1), field_parts_(context, std::size_t(grid_.dimensions)),
      position_parts_(context, std::size_t(grid_.dimensions)),
      velocity_parts_(context, std::size_t(grid_.dimensions)), grid_sum_(context, precision, cache) {
    const int d = grid_.dimensions;
    for (const Device& device : context.devices()) require_deposit(device.info(), precision, deposit_);
    bool atomics = true;
    for (const Device& device : context.devices())
        atomics = atomics && can_deposit(device.info(), precision, PicDeposit::atomic);
    for (std::size_t k = 0; k < context.size(); ++k) {
        if (atomics) deposit_atomic_.emplace_back(program_, "pic_deposit_atomic");
        deposit_gather_.emplace_back(program_, "pic_deposit_gather");
        field_kernel_.emplace_back(program_, "pic_field");
        push_.emplace_back(program_, "pic_push");
    }
    if (species_.empty()) throw UsageError("pic: no species");
    for (std::size_t s = 0; s < species_.size(); ++s) {
        const PicSpecies& p = species_[s];
        if (!PicSpecies::valid_charge(p.charge) || !PicSpecies::valid_mass(p.mass) ||
            !PicSpecies::valid_weight(p.weight))
            throw UsageError("pic: species " + std::to_string(s) +
                             " needs a finite charge and a positive, finite mass and weight");
    }
    if (particles.dimensions != d)
        throw UsageError("pic: " + std::to_string(particles.dimensions) +
                         "-D particles given to a " + std::to_string(d) + "-D grid");
    if (n_ == 0) throw UsageError("pic: no particles");
    if (n_ > 0xffffffffull / 3) throw UsageError("pic: more than 2^32 / 3 particles");
    if (particles.position.size() != d * n_ || particles.velocity.size() != d * n_)
        throw UsageError("pic: " + std::to_string(n_) + " particles need " +
                         std::to_string(d * n_) + " position and velocity components");
    for (std::size_t i = 0; i < d * n_; ++i)
        if (!std::isfinite(particles.position[i]) || !std::isfinite(particles.velocity[i]))
            throw UsageError("pic: particle " + std::to_string(i % n_) +
                             " has a position or velocity that is NaN or infinite");
    for (std::size_t i = 0; i < n_; ++i)
        if (particles.species[i] >= species_.size())
            throw UsageError("pic: particle " + std::to_string(i) + " is of species " +
                             std::to_string(particles.species[i]) + ", but there are " +
                             std::to_string(species_.size()));

    // The cell list's grid: the PIC cells (cell c's lower corner is node c) of the local grid.
    // It sorts in 2-D or 3-D only, so a 1-D run keeps a y component of zeros in its position
    // buffers.
    CellGrid cells;
    cells.dimensions = std::max(d, 2);
    cells.cell_size = grid_.spacing;
    cells.cells = grid_.nodes;
    cells.cells[std::size_t(slab_axis())] = local_planes(1);
    cells_ = std::make_unique<CellList>(context, precision, cells, cache);

    // A coordinate inside the box in double can round to its upper edge in float (x = L - 1e-9
    // becomes L): that is the periodic image 0, as the push maps it (cl/pic/pic.cl), and the
    // cell list would take it for a particle outside the box. Coordinates outside in double
    // stay, for the cell list to refuse.
    PicParticles mine = particles;
    for (int k = 0; k < d; ++k) {
        const double length = double(grid_.nodes[k]) * grid_.spacing;
        for (std::size_t i = 0; i < n_; ++i) {
            double& x = mine.position[std::size_t(k) * n_ + i];
            if (x >= 0 && x < length && cells_->cell_coordinate(x, k) >= double(grid_.nodes[k]))
                x = 0;
        }
    }
    if (several()) mine = take_slab(mine);
    n_ = mine.size();
    capacity_ = several() ? n_ + n_ / 4 + 64 : n_;

    const std::size_t components = std::size_t(std::max(d, 2));
    auto real_buffer = [&](std::size_t size) { return RealBuffer(context, precision, size); };
    r_ = real_buffer(components * capacity_), r_b_ = real_buffer(components * capacity_);
    v_ = real_buffer(d * capacity_), v_b_ = real_buffer(d * capacity_);
    work_ = real_buffer(2 * plane_points() * local_planes(2));
    field_ = real_buffer(d * plane_points() * local_planes(1));
    spectrum_ = real_buffer(std::max<std::size_t>(fft_.spectrum_reals(), 1));
    species_index_ = Buffer<std::uint32_t>(context, capacity_);
    species_index_b_ = Buffer<std::uint32_t>(context, capacity_);
    std::vector<double> density, qm;
    const double volume = std::pow(grid_.spacing, d);
    for (const PicSpecies& p : species_) {
        density.push_back(p.charge * p.weight / volume);
        qm.push_back(p.charge / p.mass);
    }
    species_density_ = real_buffer(density.size());
    species_qm_ = real_buffer(qm.size());
    auto& queue = context.queue(0);
    species_density_.write(queue, density);
    species_qm_.write(queue, qm);
    r_.fill(queue, 0);
    r_b_.fill(queue, 0);
    for (int k = 0; k < d && n_ > 0; ++k) {
        r_.write(queue, mine.position.data() + std::size_t(k) * n_, n_, std::size_t(k) * capacity_);
        v_.write(queue, mine.velocity.data() + std::size_t(k) * n_, n_, std::size_t(k) * capacity_);
    }
    if (n_ > 0) species_index_.write(queue, mine.species);
    queue.finish();
    solve_field();  // particles outside the box: UsageError from the cell list here
}

std::size_t ElectrostaticPic::plane_points() const noexcept { return fft_.plane_points(); }

std::uint32_t ElectrostaticPic::local_planes(std::size_t ghosts) const {
    if (!several()) return grid_.nodes[std::size_t(slab_axis())];
    return std::uint32_t(planes().size() + ghosts);
}

Kernel& ElectrostaticPic::grid_args(Kernel& kernel, std::uint32_t first, std::size_t ghosts) {
    std::array<std::uint32_t, 3> nodes = grid_.nodes;
    nodes[std::size_t(slab_axis())] = local_planes(ghosts);
    return kernel.arg(first, nodes[0])
        .arg(first + 1, nodes[1])
        .arg(first + 2, nodes[2])
        .arg(first + 3, Real{1 / grid_.spacing});
}

void ElectrostaticPic::set_deposit(PicDeposit deposit) {
    for (const Device& device : context_.devices())
        require_deposit(device.info(), precision_, deposit);
    deposit_ = deposit;
}

void ElectrostaticPic::set_weights(const std::vector<double>& weights) {
    if (weights.size() != context_.size())
        throw UsageError("pic: " + std::to_string(weights.size()) + " weights for a context of " +
                         std::to_string(context_.size()) + " devices");
    for (MultiDeviceLaunch* launch : {&deposit_launch_, &field_launch_, &push_launch_})
        launch->scheduler() = Scheduler(weights);
}

void ElectrostaticPic::restore_clock(double time, std::size_t steps) noexcept {
    time_ = time;
    steps_ = steps;
}

void ElectrostaticPic::deposit(RealBuffer& rho) {
    const std::size_t points = plane_points() * local_planes(1);
    if (deposit_ == PicDeposit::atomic) {
        // Each device adds its particles into a grid of its own (concurrent atomics from
        // several devices on one buffer are undefined); the grids are added in device order.
        grid_sum_.resize(2 * points);  // on first use: the gather deposit needs none
        const Partition particles = deposit_launch_.split(n_, group);
        deposit_launch_.run(particles, [&](std::size_t k, Range r) {
            Queue& queue = context_.queue(k);
            RealBuffer& part = grid_sum_.part(k);
            part.fill(queue, 0);
            Kernel& kernel = deposit_atomic_.at(k);
            kernel.args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(capacity_), r_,
                        species_index_, species_density_);
            grid_args(kernel, 6, 1).arg(10, part);
            return kernel.launch(queue, r.size(), group);
        });
        grid_sum_.sum_into(rho, particles);
        if (several()) fold_charge(rho);
        return;
    }
    // Nodes split; the output's items are the interleaved array's reals, two per node.
    const Partition nodes = deposit_launch_.split(points, group);
    std::vector<std::size_t> reals = nodes.offsets();
    for (std::size_t& offset : reals) offset *= 2;
    rho_parts_.assign(Partition(std::move(reals)), rho, {0, 2 * points});
    deposit_launch_.run(nodes, [&](std::size_t k, Range r) {
        const OutputPart<RealBuffer> out = rho_parts_.part(k);
        Kernel& kernel = deposit_gather_[k];
        kernel.args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(capacity_), r_,
                    species_index_, species_density_, cells_->cell_start(), cells_->cell_end());
        grid_args(kernel, 8, 1).arg(12, out.buffer).arg(13, std::uint32_t(out.offset));
        return kernel.launch(context_.queue(k), r.size(), group);
    });
    rho_parts_.gather();
    if (several()) fold_charge(rho);
}

void ElectrostaticPic::solve_field() {
    const int d = grid_.dimensions;
    auto& queue = context_.queue(0);

    cells_->build(queue, r_, capacity_, n_);
    cells_->gather(queue, r_, r_b_, d, capacity_);
    cells_->gather(queue, v_, v_b_, d, capacity_);
    cells_->gather(queue, species_index_, species_index_b_);
    std::swap(r_, r_b_);
    std::swap(v_, v_b_);
    std::swap(species_index_, species_index_b_);

    deposit(work_);  // rho: this rank's planes, transformed into the spectrum and back
    fft_.forward(work_, spectrum_);
    const Range columns = fft_.columns()[std::size_t(ranks_->rank())];
    const std::size_t count = fft_.spectrum_reals() / 2;
    if (count > 0) {
        // The whole grid's sizes: the spectrum has every plane.
        poisson_.args(std::uint32_t(count), std::uint32_t(columns.begin),
                      std::uint32_t(columns.size()), grid_.nodes[0], grid_.nodes[1],
                      grid_.nodes[2], Real{1 / grid_.spacing}, spectrum_);
        poisson_.launch(queue, count, group);
    }
    fft_.inverse(spectrum_, work_);
    if (several()) fetch_potential_ghosts();

    const std::size_t points = plane_points() * planes().size();
    const std::size_t stride = plane_points() * local_planes(1);
    const Partition nodes = field_launch_.split(points, group);
    field_parts_.assign(nodes, field_, {0, stride});
    field_launch_.run(nodes, [&](std::size_t k, Range r) {
        const OutputPart<RealBuffer> out = field_parts_.part(k);
        Kernel& kernel = field_kernel_[k];
        kernel.args(std::uint32_t(r.begin), std::uint32_t(r.end), work_);
        grid_args(kernel, 3, 2)
            .arg(7, out.buffer)
            .arg(8, std::uint32_t(out.offset))
            .arg(9, std::uint32_t(out.stride));
        return kernel.launch(context_.queue(k), r.size(), group);
    });
    field_parts_.gather();
    if (several()) fetch_field_ghosts();
}

void ElectrostaticPic::step(double dt) {
    if (!std::isfinite(dt)) throw UsageError("pic: the time step must be finite");
    // Out of place, into the second buffers: several devices may not write one buffer. Their
    // y components (1-D runs keep zeros there for the cell list) are never written.
    const Partition particles = push_launch_.split(n_, group);
    position_parts_.assign(particles, r_b_, {0, capacity_});
    velocity_parts_.assign(particles, v_b_, {0, capacity_});
    const Real dt_v{steps_ == 0 ? dt / 2 : dt}, dt_x{dt};
    // Over several ranks the slab axis is not wrapped: particles leaving the slab migrate.
    const std::uint32_t wrap = several() ? (1u << slab_axis()) - 1u : 7u;
    push_launch_.run(particles, [&](std::size_t k, Range r) {
        const OutputPart<RealBuffer> x = position_parts_.part(k), v = velocity_parts_.part(k);
        Kernel& kernel = push_[k];
        kernel.args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(capacity_), r_, v_,
                    species_index_, species_qm_, field_);
        grid_args(kernel, 8, 1)
            .arg(12, dt_v)
            .arg(13, dt_x)
            .arg(14, x.buffer)
            .arg(15, v.buffer)
            .arg(16, std::uint32_t(x.offset))
            .arg(17, std::uint32_t(x.stride))
            .arg(18, wrap);
        return kernel.launch(context_.queue(k), r.size(), group);
    });
    position_parts_.gather();
    velocity_parts_.gather();
    std::swap(r_, r_b_);
    std::swap(v_, v_b_);
    if (several()) migrate();
    solve_field();  // a NaN position: UsageError from the cell list
    time_ += dt;
    ++steps_;
}

PicParticles ElectrostaticPic::particles() const {
    const int d = grid_.dimensions;
    auto& queue = context_.queue(0);
    PicParticles p;
    p.dimensions = d;
    p.position.resize(d * n_);
    p.velocity.resize(d * n_);
    for (int k = 0; k < d && n_ > 0; ++k) {
        r_.read(queue, p.position.data() + std::size_t(k) * n_, n_, std::size_t(k) * capacity_);
        v_.read(queue, p.velocity.data() + std::size_t(k) * n_, n_, std::size_t(k) * capacity_);
    }
    p.species = species_index_.read(queue);
    p.species.resize(n_);
    if (!several()) return p;
    const double shift = double(planes().begin) * grid_.spacing;
    for (std::size_t i = 0; i < n_; ++i) p.position[std::size_t(slab_axis()) * n_ + i] += shift;
    PicParticles all;
    all.dimensions = d;
    all.position = ranks_->allgatherv_components(p.position, std::size_t(d));
    all.velocity = ranks_->allgatherv_components(p.velocity, std::size_t(d));
    all.species = ranks_->allgatherv(p.species);
    return all;
}

std::vector<double> ElectrostaticPic::charge_density() {
    const std::size_t plane = plane_points(), own = plane * planes().size();
    RealBuffer interleaved(context_, precision_, 2 * plane * local_planes(1));
    deposit(interleaved);
    std::vector<double> complex(2 * own);
    interleaved.read(context_.queue(0), complex.data(), complex.size());
    std::vector<double> rho(own);
    for (std::size_t g = 0; g < own; ++g) rho[g] = complex[2 * g];
    return several() ? ranks_->allgatherv_components(rho, 1) : rho;
}

std::vector<double> ElectrostaticPic::field() const {
    if (!several()) return field_.read(context_.queue(0));
    const std::size_t d = std::size_t(grid_.dimensions), plane = plane_points();
    const std::size_t own = plane * planes().size(), stride = plane * local_planes(1);
    std::vector<double> mine(d * own);
    for (std::size_t k = 0; k < d; ++k)
        field_.read(context_.queue(0), mine.data() + k * own, own, k * stride);
    return ranks_->allgatherv_components(mine, d);
}

double ElectrostaticPic::field_energy() const {
    double sum = 0;
    for (double e : field()) sum += e * e;
    return 0.5 * sum * std::pow(grid_.spacing, grid_.dimensions);
}

double ElectrostaticPic::kinetic_energy() const {
    const PicParticles p = particles();
    const std::size_t n = p.size();
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const PicSpecies& s = species_[p.species[i]];
        double v2 = 0;
        for (int k = 0; k < grid_.dimensions; ++k) v2 += p.velocity[k * n + i] * p.velocity[k * n + i];
        sum += 0.5 * s.weight * s.mass * v2;
    }
    return sum;
}

} // namespace partcl
