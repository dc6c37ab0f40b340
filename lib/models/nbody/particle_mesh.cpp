#include <partcl/models/nbody/particle_mesh.hpp>

#include <cmath>
#include <string>

namespace partcl {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr std::size_t min_nodes = 8;
// Interlacing: the mesh's solution averaged with that of a mesh shifted by half a cell along
// every axis, whose aliased images of odd order come with the opposite sign and cancel.
constexpr int passes = 2;

MeshParameters checked(const MeshParameters& p) {
    if (!(p.box > 0) || !std::isfinite(p.box) || !(p.split > 0) || !std::isfinite(p.split) ||
        !(p.G > 0) || !std::isfinite(p.G))
        throw UsageError("particle mesh: the box, r_s and G must be positive and finite (got box " +
                         std::to_string(p.box) + ", r_s " + std::to_string(p.split) + ", G " +
                         std::to_string(p.G) + ")");
    if (p.nodes < min_nodes || p.nodes >= (std::size_t(1) << 10))
        throw UsageError("particle mesh: " + std::to_string(p.nodes) +
                         " nodes per axis; the mesh takes 8 to 1023");
    return p;
}

CellGrid mesh_cells(const MeshParameters& p) {
    CellGrid grid;
    grid.dimensions = 3;
    grid.cell_size = p.box / double(p.nodes);
    grid.cells = {std::uint32_t(p.nodes), std::uint32_t(p.nodes), std::uint32_t(p.nodes)};
    return grid;
}

Program mesh_program(Context& context, Precision precision, ProgramCache& cache) {
    BuildOptions options;
    options.precision = precision;
    return build_program(context, Source::builtin("nbody/particle_mesh.cl"), options, cache);
}

} // namespace

ParticleMesh::ParticleMesh(Context& context, Precision precision, const MeshParameters& parameters,
                           ProgramCache& cache)
    : context_(context), precision_(precision), parameters_(checked(parameters)),
      cells_(context, precision, mesh_cells(parameters_), cache),
      fft_(context, precision, {parameters_.nodes, parameters_.nodes, parameters_.nodes}),
      program_(mesh_program(context, precision, cache)), wrap_(program_, "pm_wrap"),
      deposit_layer_(program_, "pm_deposit_layer"),
      deposit_sum_(program_, "pm_deposit_sum"), fields_(program_, "pm_fields"),
      interpolate_(program_, "pm_interpolate"), power_(program_, "pm_power") {
    const std::size_t points = fft_.points();
    mesh_ = RealBuffer(context, precision, 2 * points);
    for (RealBuffer& g : field_) g = RealBuffer(context, precision, 2 * points);
}

void ParticleMesh::reserve(std::size_t n) {
    if (n <= capacity_) return;
    wrapped_ = RealBuffer(context_, precision_, 3 * n);
    for (int pass = 0; pass < passes; ++pass) {
        sorted_[pass] = RealBuffer(context_, precision_, 3 * n);
        sorted_mass_[pass] = RealBuffer(context_, precision_, n);
    }
    first_order_ = Buffer<std::uint32_t>(context_, n);
    capacity_ = n;
}

void ParticleMesh::check(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                         const RealBuffer* out, std::size_t out_offset, const RealBuffer* potential) const {
    for (const RealBuffer* b : {&positions, &mass, out, potential})
        if (b && b->precision() != precision_)
            throw UsageError("particle mesh: a " + std::string(to_string(b->precision())) +
                             " buffer given to a " + to_string(precision_) + " mesh");
    if (positions.size() < 3 * n || mass.size() < n)
        throw UsageError("particle mesh: buffers too short for " + std::to_string(n) + " bodies");
    if (out && (out->size() < out_offset + 3 * n || (potential && potential->size() < n)))
        throw UsageError("particle mesh: outputs too short for " + std::to_string(n) + " bodies");
    if (positions.size() > 0xffffffffull || (out && out->size() > 0xffffffffull))
        throw UsageError("particle mesh: more than 2^32 - 1 elements in one buffer");
}

void ParticleMesh::deposit(const RealBuffer& positions, const RealBuffer& mass, std::size_t n, int pass) {
    Queue& queue = context_.queue(0);
    const MeshParameters& p = parameters_;
    const std::uint32_t nodes = std::uint32_t(p.nodes), points = std::uint32_t(fft_.points());
    const Real inverse_h{double(p.nodes) / p.box};
    // The kernels' frame is x + h/2 (particle_mesh.cl), the second pass's a further h/2.
    wrap_.args(std::uint32_t(n), std::uint32_t(n), positions, Real{p.box}, nodes, inverse_h,
               Real{(pass + 1) * 0.5 * p.box / double(p.nodes)}, wrapped_)
        .launch(queue, n);
    cells_.build(queue, wrapped_, n, n);  // UsageError for NaN, naming how many
    cells_.gather(queue, wrapped_, sorted_[pass], 3, n);
    cells_.gather(queue, mass, ParticleLayout{0, n}, sorted_mass_[pass], ParticleLayout{0, n}, 1);
    if (pass == 0) cells_.order().copy_to(queue, first_order_, n);  // the second build replaces it
    // The field's buffers are free until pm_fields: they hold the layers' parts.
    deposit_layer_
        .args(std::uint32_t(0), points, std::uint32_t(n), sorted_[pass], sorted_mass_[pass],
              cells_.cell_start(), cells_.cell_end(), nodes, inverse_h, field_[0], field_[1], field_[2])
        .launch(queue, points);
    deposit_sum_
        .args(std::uint32_t(0), points, nodes, inverse_h, field_[0], field_[1], field_[2],
              std::uint32_t(pass), mesh_)
        .launch(queue, points);
}

void ParticleMesh::density_spectrum(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) {
    reserve(n);
    for (int pass = 0; pass < passes; ++pass) deposit(positions, mass, n, pass);
    fft_.forward(mesh_);
}

void ParticleMesh::add(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset, RealBuffer* potential) {
    if (n == 0) return;
    check(positions, mass, n, &out, out_offset, potential);
    Queue& queue = context_.queue(0);
    const MeshParameters& p = parameters_;
    const std::uint32_t nodes = std::uint32_t(p.nodes), points = std::uint32_t(fft_.points());
    const Real inverse_h{double(p.nodes) / p.box};
    density_spectrum(positions, mass, n);
    if (potential && potential_.size() == 0) potential_ = RealBuffer(context_, precision_, 2 * fft_.points());
    RealBuffer& phi = potential ? potential_ : mesh_;  // mesh_ only stands in: nothing is written
    fields_.args(points, nodes, inverse_h, Real{p.split * p.split}, Real{-4 * pi * p.G / double(points)},
                 mesh_, field_[0], field_[1], field_[2], phi, std::uint32_t(potential ? 1 : 0))
        .launch(queue, points);
    for (RealBuffer& f : field_) fft_.inverse(f);
    if (potential) fft_.inverse(potential_);
    // The six components, two to a buffer as pm_fields packed them: mesh 0's x, y, z, then mesh 1's.
    const std::uint32_t buffer_of[2][3] = {{0, 0, 1}, {1, 2, 2}}, part_of[2][3] = {{0, 1, 0}, {1, 0, 1}};
    RealBuffer no_potential;
    for (int pass = 0; pass < passes; ++pass) {
        const std::uint32_t* b = buffer_of[pass];
        const std::uint32_t* c = part_of[pass];
        interpolate_
            .args(std::uint32_t(n), std::uint32_t(n), sorted_[pass], sorted_mass_[pass],
                  pass == 0 ? first_order_ : cells_.order(), nodes, inverse_h, field_[b[0]], field_[b[1]],
                  field_[b[2]], phi, c[0], c[1], c[2], std::uint32_t(pass), out, std::uint32_t(out_offset),
                  std::uint32_t(n), potential ? *potential : no_potential, std::uint32_t(potential ? 1 : 0),
                  Real{p.G / (std::sqrt(pi) * p.split)}, Real{1.0 / passes})
            .launch(queue, n);
    }
}

PowerSpectrum ParticleMesh::power_spectrum(const RealBuffer& positions, const RealBuffer& mass,
                                           std::size_t n) {
    if (n == 0) throw UsageError("particle mesh: a power spectrum of no bodies");
    check(positions, mass, n);
    Queue& queue = context_.queue(0);
    std::vector<double> m(n);
    mass.read(queue, m.data(), n);
    double total = 0, squares = 0;
    for (double x : m) total += x, squares += x * x;
    if (!(total > 0)) throw UsageError("particle mesh: a power spectrum of bodies of total mass 0");
    const std::size_t nodes = parameters_.nodes, points = fft_.points();
    density_spectrum(positions, mass, n);
    power_.args(std::uint32_t(points), std::uint32_t(nodes), mesh_, field_[0]).launch(queue, points);
    std::vector<double> raw(points);
    field_[0].read(queue, raw.data(), points);

    // delta_k (continuous normalisation) = h^3 DFT(rho) / rho_mean: P = V |DFT(rho)|^2 /
    // (rho_mean^2 N^2), N the mesh's points.
    const double volume = parameters_.box * parameters_.box * parameters_.box;
    const double mean = total / volume, scale = volume / (mean * mean * double(points) * double(points));
    const double fundamental = 2 * pi / parameters_.box;
    const std::size_t shells = nodes / 2;
    std::vector<double> power(shells + 1, 0), k_sum(shells + 1, 0);
    std::vector<std::size_t> modes(shells + 1, 0);
    auto signed_index = [nodes](std::size_t i) { return double(i) - (2 * i > nodes ? double(nodes) : 0.0); };
    for (std::size_t g = 0; g < points; ++g) {
        const double mx = signed_index(g % nodes), my = signed_index(g / nodes % nodes),
                     mz = signed_index(g / (nodes * nodes));
        const double length = std::sqrt(mx * mx + my * my + mz * mz);
        const std::size_t shell = std::size_t(std::floor(length + 0.5));
        if (shell == 0 || shell > shells) continue;
        power[shell] += raw[g] * scale;
        k_sum[shell] += length * fundamental;
        ++modes[shell];
    }
    PowerSpectrum out;
    out.shot_noise = volume * squares / (total * total);
    for (std::size_t s = 1; s <= shells; ++s)
        if (modes[s] > 0)
            out.bins.push_back({s, k_sum[s] / double(modes[s]), power[s] / double(modes[s]), modes[s]});
    return out;
}

} // namespace partcl
