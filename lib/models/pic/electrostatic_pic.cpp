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

// The cell list's grid: the PIC cells (cell c's lower corner is node c) of the local grid, in
// 2-D or 3-D (it sorts in those only: a 1-D run has one layer of cells along y).
CellGrid cell_grid(const PicGrid& grid, std::uint32_t slab_cells) {
    CellGrid cells;
    cells.dimensions = std::max(grid.dimensions, 2);
    cells.cell_size = grid.spacing;
    cells.cells = grid.nodes;
    cells.cells[std::size_t(grid.dimensions - 1)] = slab_cells;
    return cells;
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
      planes_(rank_planes(grid_, ranks)), total_(particles.size()),
      // One cell of ghosts: a node's charge comes from the cells on either side of it.
      slabs_(context, precision, cell_grid(grid_, local_planes(1)), 1,
             {SlabField{std::size_t(std::max(grid_.dimensions, 2))},
              SlabField{std::size_t(grid_.dimensions)}},
             {SlabField{1, true}}, SlabEnds::periodic, cache),
      fft_(ranks, context, precision, fft_shape(grid_), planes_),
      program_([&] {
          for (const Device& device : context.devices()) require_precision(device.info(), precision);
          BuildOptions options;
          options.precision = precision;
          options.define("PIC_DIMENSIONS", grid_.dimensions);
          return build_program(context, Source::builtin("pic/pic.cl"), options, cache);
      }()),
      poisson_(program_, "pic_poisson"), field_kernel_(program_, "pic_field"),
      deposit_launch_(context, "pic deposit"), push_launch_(context, "pic push"),
      rho_parts_(context, 1), grid_sum_(context, precision, cache), field_spread_(context),
      species_density_on_(context), species_qm_on_(context), fields_(context.size()),
      flags_(context.size()), offsets_(context.size()), kept_species_(context.size()),
      pack_species_(context.size()), kept_r_(context.size()), kept_v_(context.size()),
      pack_(context.size()) {
    const int d = grid_.dimensions;
    for (const Device& device : context.devices()) require_deposit(device.info(), precision, deposit_);
    bool atomics = true;
    for (const Device& device : context.devices())
        atomics = atomics && can_deposit(device.info(), precision, PicDeposit::atomic);
    for (std::size_t k = 0; k < context.size(); ++k) {
        if (atomics) deposit_atomic_.emplace_back(program_, "pic_deposit_atomic");
        deposit_gather_.emplace_back(program_, "pic_deposit_gather");
        push_.emplace_back(program_, "pic_push");
        leaving_.emplace_back(program_, "pic_leaving");
        partition_.emplace_back(program_, "pic_partition");
    }
    if (species_.empty()) throw UsageError("pic: no species");
    for (std::size_t s = 0; s < species_.size(); ++s) {
        const PicSpecies& p = species_[s];
        if (!PicSpecies::valid_charge(p.charge) || !PicSpecies::valid_mass(p.mass) ||
            !PicSpecies::valid_weight(p.weight))
            throw UsageError("pic: species " + std::to_string(s) +
                             " needs a finite charge and a positive, finite mass and weight");
    }
    const std::size_t n = particles.size();
    if (particles.dimensions != d)
        throw UsageError("pic: " + std::to_string(particles.dimensions) +
                         "-D particles given to a " + std::to_string(d) + "-D grid");
    if (n == 0) throw UsageError("pic: no particles");
    if (n > 0xffffffffull / 3) throw UsageError("pic: more than 2^32 / 3 particles");
    if (particles.position.size() != d * n || particles.velocity.size() != d * n)
        throw UsageError("pic: " + std::to_string(n) + " particles need " +
                         std::to_string(d * n) + " position and velocity components");
    for (std::size_t i = 0; i < d * n; ++i)
        if (!std::isfinite(particles.position[i]) || !std::isfinite(particles.velocity[i]))
            throw UsageError("pic: particle " + std::to_string(i % n) +
                             " has a position or velocity that is NaN or infinite");
    for (std::size_t i = 0; i < n; ++i)
        if (particles.species[i] >= species_.size())
            throw UsageError("pic: particle " + std::to_string(i) + " is of species " +
                             std::to_string(particles.species[i]) + ", but there are " +
                             std::to_string(species_.size()));

    // A coordinate inside the box in double can round to its upper edge in float (x = L - 1e-9
    // becomes L): that is the periodic image 0, as the push maps it (cl/pic/pic.cl), and the
    // cell list would take it for a particle outside the box. Coordinates outside in double
    // stay, for the cell list to refuse.
    PicParticles mine = particles;
    for (int k = 0; k < d; ++k) {
        const double length = double(grid_.nodes[k]) * grid_.spacing;
        for (std::size_t i = 0; i < n; ++i) {
            double& x = mine.position[std::size_t(k) * n + i];
            if (x >= 0 && x < length && slabs_.cells(0).cell_coordinate(x, k) >= double(grid_.nodes[k]))
                x = 0;
        }
    }
    if (several()) mine = take_slab(mine);
    const std::size_t m = mine.size();
    std::vector<double> position = mine.position;
    position.resize(std::size_t(std::max(d, 2)) * m, 0.0);  // a 1-D run's y components: 0

    auto real_buffer = [&](std::size_t size) { return RealBuffer(context, precision, size); };
    work_ = real_buffer(2 * plane_points() * local_planes(2));
    fields_[0] = real_buffer(d * plane_points() * local_planes(1));
    spectrum_ = real_buffer(std::max<std::size_t>(fft_.spectrum_reals(), 1));
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
    species_density_on_.update(species_density_, density.size());
    species_qm_on_.update(species_qm_, qm.size());
    slabs_.upload(m, {position, mine.velocity}, {mine.species});  // outside the box: UsageError
    solve_field();
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

std::size_t ElectrostaticPic::slab_nodes() const {
    const CellGrid& cells = slabs_.grid();
    return cells.count() / cells.cells[std::size_t(cells.dimensions - 1)];
}

Range ElectrostaticPic::nodes_of(std::size_t d) const {
    const Range slabs = slabs_.slabs(d);
    return {slabs.begin * slab_nodes(), slabs.end * slab_nodes()};
}

const RealBuffer& ElectrostaticPic::field_on(std::size_t d) const {
    return context_.shares_memory() ? fields_[0] : fields_[d];
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
    for (MultiDeviceLaunch* launch : {&deposit_launch_, &push_launch_})
        launch->scheduler() = Scheduler(weights);
}

void ElectrostaticPic::restore_clock(double time, std::size_t steps) noexcept {
    time_ = time;
    steps_ = steps;
}

void ElectrostaticPic::deposit(RealBuffer& rho) {
    const std::size_t points = plane_points() * local_planes(1);
    const Partition owners = slabs_.owners();
    if (deposit_ == PicDeposit::atomic) {
        // Each device adds its particles into a grid of its own (concurrent atomics from
        // several devices on one buffer are undefined); the grids are added in device order.
        grid_sum_.resize(2 * points);  // on first use: the gather deposit needs none
        deposit_launch_.run(owners, [&](std::size_t k, Range) {
            Queue& queue = context_.queue(k);
            RealBuffer& part = grid_sum_.part(k);
            part.fill(queue, 0);
            Kernel& kernel = deposit_atomic_.at(k);
            const std::size_t below = slabs_.below(k), own = slabs_.own(k);
            kernel.args(std::uint32_t(below), std::uint32_t(below + own),
                        std::uint32_t(slabs_.total(k)), slabs_.local(0, k), slabs_.local_uint(0, k),
                        species_density_on_.on(k));
            grid_args(kernel, 6, 1).arg(10, part);
            return kernel.launch(queue, own, group);
        });
        grid_sum_.sum_into(rho, owners);
        if (several()) fold_charge(rho);
        return;
    }
    // Each device the nodes of its slabs; the output's items are the interleaved array's
    // reals, two per node.
    std::vector<std::size_t> node_ends{0}, real_ends{0};
    for (std::size_t k = 0; k < context_.size(); ++k) {
        node_ends.push_back(nodes_of(k).end);
        real_ends.push_back(2 * nodes_of(k).end);
    }
    const Partition nodes(std::move(node_ends));
    rho_parts_.assign(Partition(std::move(real_ends)), rho, {0, 2 * points});
    deposit_launch_.run(nodes, [&](std::size_t k, Range r) {
        const OutputPart<RealBuffer> out = rho_parts_.part(k);
        const CellList& cells = slabs_.cells(k);
        Kernel& kernel = deposit_gather_[k];
        kernel.args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(slabs_.total(k)),
                    slabs_.local(0, k), slabs_.local_uint(0, k), species_density_on_.on(k),
                    cells.cell_start(), cells.cell_end());
        grid_args(kernel, 8, 1).arg(12, out.buffer).arg(13, std::uint32_t(out.offset));
        return kernel.launch(context_.queue(k), r.size(), group);
    });
    rho_parts_.gather();
    if (several()) fold_charge(rho);
}

void ElectrostaticPic::solve_field() {
    auto& queue = context_.queue(0);
    slabs_.arrange(push_launch_.scheduler().weights());  // particles outside the box: UsageError

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

    // The field of the rank's own planes, on device 0: a light kernel, whose output every
    // device reads in parts.
    const std::size_t points = plane_points() * planes().size();
    const std::size_t stride = plane_points() * local_planes(1);
    field_kernel_.args(std::uint32_t(0), std::uint32_t(points), work_);
    grid_args(field_kernel_, 3, 2)
        .arg(7, fields_[0])
        .arg(8, std::uint32_t(0))
        .arg(9, std::uint32_t(stride));
    field_kernel_.launch(queue, points, group);
    if (several()) fetch_field_ghosts();
    spread_field();
}

void ElectrostaticPic::spread_field() {
    if (context_.size() == 1 || context_.shares_memory()) return;
    // Device d's particles lie in its slabs' cells and reach the nodes of those planes and of
    // the plane above (the first one, across the periodic boundary).
    const std::size_t d = std::size_t(grid_.dimensions), per_slab = slab_nodes();
    const std::size_t slabs = slabs_.grid().cells[std::size_t(slabs_.grid().dimensions - 1)];
    const std::size_t size = d * plane_points() * local_planes(1);
    std::vector<SlotCopy> pieces;
    for (std::size_t k = 1; k < context_.size(); ++k) {
        const Range own = slabs_.slabs(k);
        if (slabs_.own(k) == 0) continue;
        if (fields_[k].size() < size || fields_[k].precision() != precision_)
            fields_[k] = RealBuffer(context_, precision_, size, OnDevice{k});
        const std::size_t end = std::min(own.end + 1, slabs);
        pieces.push_back({0, own.begin * per_slab, k, own.begin * per_slab, (end - own.begin) * per_slab});
        if (own.end + 1 > slabs && own.begin > 0) pieces.push_back({0, 0, k, 0, per_slab});
    }
    field_spread_.plan(std::move(pieces));
    field_spread_.exchange(fields_, std::vector<std::size_t>(context_.size(), size / d), d);
}

void ElectrostaticPic::step(double dt) {
    if (!std::isfinite(dt)) throw UsageError("pic: the time step must be finite");
    const Real dt_v{steps_ == 0 ? dt / 2 : dt}, dt_x{dt};
    // Over several ranks the slab axis is not wrapped: particles leaving the slab migrate.
    const std::uint32_t wrap = several() ? (1u << slab_axis()) - 1u : 7u;
    // Each device its own particles, into its next arrays (the species carried there).
    push_launch_.run(slabs_.owners(), [&](std::size_t k, Range) {
        const std::size_t below = slabs_.below(k), own = slabs_.own(k);
        Kernel& kernel = push_[k];
        kernel.args(std::uint32_t(below), std::uint32_t(below + own),
                    std::uint32_t(slabs_.total(k)), slabs_.local(0, k), slabs_.local(1, k),
                    slabs_.local_uint(0, k), species_qm_on_.on(k), field_on(k));
        grid_args(kernel, 8, 1)
            .arg(12, dt_v)
            .arg(13, dt_x)
            .arg(14, slabs_.next(0, k))
            .arg(15, slabs_.next(1, k))
            .arg(16, std::uint32_t(0))
            .arg(17, std::uint32_t(own))
            .arg(18, wrap);
        return kernel.launch(context_.queue(k), own, group);
    });
    if (several()) migrate();
    solve_field();  // a NaN position: UsageError from the cell list
    time_ += dt;
    ++steps_;
}

PicParticles ElectrostaticPic::particles() const {
    const int d = grid_.dimensions;
    const std::size_t n = slabs_.size();
    PicParticles p;
    p.dimensions = d;
    p.position = slabs_.read_local(0);
    p.position.resize(std::size_t(d) * n);  // a 1-D run's y components dropped
    p.velocity = slabs_.read_local(1);
    p.species = slabs_.read_local_uint(0);
    if (!several()) return p;
    const double shift = double(planes().begin) * grid_.spacing;
    for (std::size_t i = 0; i < n; ++i) p.position[std::size_t(slab_axis()) * n + i] += shift;
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
    if (!several()) return fields_[0].read(context_.queue(0));
    const std::size_t d = std::size_t(grid_.dimensions), plane = plane_points();
    const std::size_t own = plane * planes().size(), stride = plane * local_planes(1);
    std::vector<double> mine(d * own);
    for (std::size_t k = 0; k < d; ++k)
        fields_[0].read(context_.queue(0), mine.data() + k * own, own, k * stride);
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
