#pragma once
// ElectrostaticPic: periodic electrostatic particle-in-cell on the device, in 1-D, 2-D or 3-D,
// float or double, several species. The scheme of the GPU PIC patent (seeds/003), per step:
//   1. CellList: each particle's cell, sort by cell (SortByKey), each cell's start and end on
//      the device; particle data gathered into cell order
//   2. charge density at the grid nodes with cloud-in-cell weights, by atomics or by a sorted
//      per-node gather without atomics (PicDeposit)
//   3. Poisson by FFT (partcl::Fft): phi_k = rho_k / k^2, the k = 0 mode zeroed (a uniform
//      neutralising background)
//   4. E = -grad phi by the centred difference at the nodes: one inverse transform instead of D
//      (spectral ik would need one per component), and with the CIC weights of the gather it
//      is the classic momentum-conserving scheme: a particle exerts no force on itself
//   5. E gathered at the particles with the deposit's weights; leapfrog push; positions wrapped
// Units: epsilon0 = 1, so a species of number density n, charge q and mass m (per physical
// particle) has the plasma frequency omega_p^2 = n q^2 / m. A macro-particle of weight w
// carries w physical particles: charge w q, mass w m, charge-to-mass ratio q / m.
//
// On a context of several devices each device holds the particles of its own slabs of cells
// (layers along the slowest axis; ParticleSlabs, periodic, one cell of ghosts each side), cut by
// the scheduler's weights: the sort, the deposit and the push run on each device over its own
// particles; the gather deposit computes the nodes of the device's own planes from its own and
// ghost particles, written into the grid on device 0 (PartitionedOutput); the atomic deposit
// adds each device's particles into a grid of its own, the grids added in device order
// (OrderedSum). The FFT Poisson solve and the field stay on device 0, and each device receives
// the field's planes its particles reach (a Halo). The particles' order over the devices is one
// device's order and every node sums its particles in that order, so the result is bit for bit
// the one-device result with the gather deposit; the atomic deposit's sums are unordered on any
// number of devices.
//
// Over the ranks of a communicator (MPI), each rank holds a slab of the grid's planes along its
// slowest axis (z in 3-D, y in 2-D, x in 1-D; the planes cut evenly) and the particles in it,
// and drives its own devices as above. Per step, besides one rank's work: the charge of the
// ghost plane after a rank's slab is added into the next rank's first plane, the Poisson solve is
// a dist::SlabFft (an alltoallv transpose between the ranks' two transforms), the potential's
// and the field's planes next to each slab are copied from the neighbours, and the particles
// that left a rank's slab after the push move to the rank owning their plane (a
// dist::Distributor, through host memory). The answer equals one rank's within rounding: the
// distributed transform and the ghost plane's sum add in another order.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/algorithm/particle_slabs.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/rank_traffic.hpp>
#include <partcl/dist/slab_fft.hpp>
#include <partcl/models/pic/pic_deposit.hpp>
#include <partcl/models/pic/pic_particles.hpp>
#include <partcl/sched/halo.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/ordered_sum.hpp>
#include <partcl/sched/partitioned_output.hpp>

namespace partcl {

// Unsupported, naming the device, the extension and the way out, when `device` cannot run
// `deposit` in `precision`: the atomic deposit in double adds with 64-bit compare-and-swap,
// which OpenCL devices have only with cl_khr_int64_base_atomics (CUDA devices always). There is
// no silent fall-back to the gather deposit: the caller asked for atomics (the default is the
// gather), and a benchmark or a comparison of the two must not measure the other one unawares.
void require_deposit(const DeviceInfo& device, Precision precision, PicDeposit deposit);

class ElectrostaticPic {
public:
    // Loads the particles and solves the field at their positions. UsageError for a malformed
    // grid or species, mismatched or NaN particle data, species indices out of range, or
    // particles outside the box [0, nodes_k dx); Unsupported for a grid the FFT cannot take
    // (naming it) and for a deposit a device of the context cannot run (require_deposit).
    // Over several `ranks` (collective: every rank passes the same grid, species and particles,
    // and keeps those in its slab): UsageError where the slowest axis has fewer planes than
    // there are ranks.
    ElectrostaticPic(Context& context, Precision precision, const PicGrid& grid,
                     std::vector<PicSpecies> species, const PicParticles& particles,
                     PicDeposit deposit = PicDeposit::gather,
                     ProgramCache& cache = ProgramCache::global(),
                     const dist::Communicator& ranks = dist::Communicator::self());

    // One leapfrog step on the context's devices (collective over several ranks). Velocities
    // live at half steps: the first step advances them by dt / 2 from the given initial
    // velocities (v at t = 0), later steps by dt.
    void step(double dt);

    double time() const noexcept { return time_; }
    std::size_t steps() const noexcept { return steps_; }
    std::size_t size() const noexcept { return total_; }        // every rank's particles
    std::size_t local_size() const noexcept { return slabs_.size(); }  // this rank's
    const dist::Communicator& ranks() const noexcept { return *ranks_; }
    // This rank's planes along the slowest axis (all of them on one rank).
    Range planes() const { return planes_[std::size_t(ranks_->rank())]; }
    // What this rank's exchanges with the others cost so far (zero on one rank): the ghost
    // planes of the charge, the potential and the field, the particles' moves and the Poisson
    // solve's transpositions, whose time alone transpose_seconds() tells.
    dist::RankTraffic traffic() const noexcept;
    double transpose_seconds() const noexcept { return fft_.traffic().seconds; }
    const PicGrid& grid() const noexcept { return grid_; }
    Precision precision() const noexcept { return precision_; }
    PicDeposit deposit() const noexcept { return deposit_; }
    void set_deposit(PicDeposit deposit);  // require_deposit on every device first

    // The launches spread over the devices: "pic deposit", "pic push" (the push's weights cut
    // the slabs).
    LaunchList launches() const { return {&deposit_launch_, &push_launch_}; }
    // Replaces the weights of every split launch (one per device of the context; UsageError
    // otherwise), e.g. to force an uneven split; the launches re-weight from there.
    void set_weights(const std::vector<double>& weights);

    // Continues a run saved at `steps` steps and time `time` (a checkpoint): the model built
    // from the saved particles then steps exactly as the saved one would have (steps > 0: no
    // first half step of the velocities). The particles must be the saved ones in their saved
    // (cell) order for the continuation to be bitwise the same.
    void restore_clock(double time, std::size_t steps) noexcept;
    // Device d's cell list (its own and ghost particles) and particles.
    const CellList& cells(std::size_t d = 0) const { return slabs_.cells(d); }
    Partition owners() const { return slabs_.owners(); }

    // The particles now (in the device's cell order, which changes every step; velocities at
    // the last half step). Over several ranks, every rank's in rank order (collective), which
    // is again in cell order.
    PicParticles particles() const;
    // At the current positions: the charge density at the nodes (points() values; deposited
    // anew, the step's own deposit going straight into the FFT's buffer), the field
    // (component k of node g at k * points() + g), the field energy sum E^2 / 2 dx^D. The whole
    // grid's, on every rank (collective).
    std::vector<double> charge_density();
    std::vector<double> field() const;
    double field_energy() const;
    // sum over particles of w m |v|^2 / 2 with the stored (half-step) velocities, every rank's
    // (collective).
    double kinetic_energy() const;

private:
    Context& context_;
    Precision precision_;
    PicGrid grid_;
    std::vector<PicSpecies> species_;
    PicDeposit deposit_;
    const dist::Communicator* ranks_;
    Partition planes_;  // each rank's planes along the slowest axis
    std::size_t total_ = 0;
    double time_ = 0;
    std::size_t steps_ = 0;
    dist::RankTraffic traffic_;  // the model's own exchanges; the transform's are the SlabFft's
    // Positions (max(D, 2) components: the cell list sorts in 2-D or 3-D, a 1-D run's y is 0),
    // velocities (D); the species, carried.
    ParticleSlabs slabs_;
    dist::SlabFft fft_;
    Program program_;
    // One kernel per device (a Kernel holds its arguments); deposit_atomic_ empty where
    // require_deposit refuses the atomic deposit.
    std::vector<Kernel> deposit_atomic_, deposit_gather_, push_, leaving_, partition_;
    Kernel poisson_, field_kernel_;
    MultiDeviceLaunch deposit_launch_, push_launch_;
    PartitionedOutput<RealBuffer> rho_parts_;
    OrderedSum grid_sum_;  // the atomic deposit's per-device grids
    Halo field_spread_;    // the field's planes from device 0 to the others
    RealBuffer species_density_, species_qm_, work_, spectrum_;
    Mirror<RealBuffer> species_density_on_, species_qm_on_;
    // [0]: the field (device 0's); [d]: device d's copy of its planes where memories are
    // separate.
    std::vector<RealBuffer> fields_;
    // Over several ranks, per device: which particles leave (flags, their scan), those that stay
    // and those that leave, packed.
    std::vector<Buffer<std::uint32_t>> flags_, offsets_, kept_species_, pack_species_;
    std::vector<RealBuffer> kept_r_, kept_v_, pack_;

    bool several() const noexcept { return ranks_->size() > 1; }
    int slab_axis() const noexcept { return grid_.dimensions - 1; }
    std::size_t plane_points() const noexcept;
    // Planes of the local grid along the slowest axis: the whole axis on one rank, else this
    // rank's planes and `ghosts` more (1 for the charge and the field, 2 for the potential).
    std::uint32_t local_planes(std::size_t ghosts) const;
    Kernel& grid_args(Kernel& kernel, std::uint32_t first, std::size_t ghosts = 0);
    // The local grid's nodes per slab of cells, and device d's nodes (its slabs').
    std::size_t slab_nodes() const;
    Range nodes_of(std::size_t d) const;
    const RealBuffer& field_on(std::size_t d) const;
    void deposit(RealBuffer& rho);  // step 2 into rho (2 local points, interleaved complex)
    void solve_field();             // steps 1-4 at the current positions
    void spread_field();            // each device's planes of the field

    // Over several ranks (pic_ranks.cpp): this rank's share of the particles; the charge of the
    // ghost plane into the next rank; the ghost planes of the potential and the field from the
    // neighbours; the particles that left the slab to their ranks.
    PicParticles take_slab(const PicParticles& all) const;
    void fold_charge(RealBuffer& rho);
    void fetch_potential_ghosts();
    void fetch_field_ghosts();
    void migrate();
};

} // namespace partcl
