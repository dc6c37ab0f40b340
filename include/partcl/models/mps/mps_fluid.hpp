#pragma once
// MpsFluid: explicit MPS (Koshizuka's moving particle semi-implicit method in its explicit,
// weakly compressible form: pressure from the particle number density's deviation), on the
// device, in 2-D or 3-D, float or double. One step (cl/mps/mps.cl):
//   1. neighbour search: CellList build, particle data gathered into cell order
//   2. viscosity (Laplacian model) and gravity -> u*, r*
//   3. collisions of particles closer than the collision distance
//   4. number density n* at r*, P = c^2 rho0 / n0 (n* - n0), kept >= 0 (dummies: 0)
//   5. pressure gradient with the local minimum pressure -> u, r
//   6. the next step from the CFL condition dt = courant * l0 / (c + max |u|)
// The weight, the gradient (plain or corrected) and an artificial viscosity are options
// (models/mps/mps_options.hpp); the defaults are the seed's.
//
// A step spreads over every device of the context. Each device holds the particles of its own
// slabs of cells (slabs: layers of cells along the slowest-varying cell axis, y in 2-D, z in
// 3-D), cut by the scheduler's weights (ParticleSlabs): at the start of a step the particles that
// moved into another device's slabs migrate to it, each device sorts its particles by cell, and
// its ghost slots are filled with the particles of the cells within the search reach beyond its
// slabs, copied from their owners; after each kernel whose results the next one reads of
// neighbours (r* and u*; r after collisions; the pressure), the ghosts are copied again. Each
// device computes its own particles in its own memory; the too-far flag is or-ed and the largest
// speed taken over the devices' partial maxima in device order. Each particle is computed the
// same way, from the same neighbours in the same order, wherever it runs, so any split gives one
// device's result bit for bit.
//
// Over the ranks of a communicator (MPI), each rank owns a range of the slabs (cut first by the
// initial particles, so that the ranks hold about as many each, then again by the ranks'
// measured work as the fluid moves: rebalance_every) and the particles in it, and
// holds as ghosts the particles of the `reach` slabs on either side of its range, sent by their
// owners at the start of each step; after each kernel whose results the next reads of
// neighbours, the owners send the ghosts' new values. The ghosts are particles of the rank's
// ParticleSlabs (the kernels compute them too, from incomplete neighbourhoods, and the owners'
// values replace those), on the whole grid's cells, in the order one rank would hold them: each
// rank's own particles arrive in the previous step's order of all ranks, the lower ranks' first.
// So every particle sums the same neighbours in the same order as on one rank, and the run over
// ranks is one rank's bit for bit. The particles stay on the devices: at a step's start each
// device picks its own particles that left the rank's slabs (SlabSelection) and keeps the
// others in place, so that only those and the particles of the slabs at the rank's ends (the
// neighbours' ghosts) move, through host memory.
//
// Wall particles (type wall) stand still and carry pressure; dummy particles behind them only
// complete the number density. n0 and lambda0 are those of the initial lattice (square in 2-D,
// cubic in 3-D) of spacing l0.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/algorithm/particle_slabs.hpp>
#include <partcl/algorithm/slab_selection.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/rank_traffic.hpp>
#include <partcl/models/mps/mps_options.hpp>
#include <partcl/models/mps/mps_particles.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl {

// Sums of the weight over a perfect lattice of unit spacing around one of its points.
struct MpsLattice {
    double n0;       // sum_j w(r_j)
    double lambda0;  // sum_j r_j^2 w(r_j) / sum_j w(r_j), in units of l0^2
};
MpsLattice mps_lattice(int dimensions, double re_ratio, MpsWeight weight = MpsWeight::koshizuka);

// Everything a step depends on: a fluid restored from it continues bit for bit as the one it
// was taken from (on the same device and precision).
struct MpsState {
    MpsParticles particles;  // in the device's particle order (it decides the next cell sort)
    double time = 0;
    double next_dt = 0;
    std::uint64_t steps = 0;
};

class MpsFluid {
public:
    // `lower` and `upper` bound the region every particle must stay in (the cell grid's box).
    // UsageError for bad parameters (re not larger than the spacing, ...), NaN or mismatched
    // particle data, or particles outside the box. Over several `ranks` (collective), every
    // rank passes every particle.
    MpsFluid(Context& context, Precision precision, const MpsParameters& parameters,
             const MpsParticles& particles, std::array<double, 3> lower,
             std::array<double, 3> upper, ProgramCache& cache = ProgramCache::global(),
             const dist::Communicator& ranks = dist::Communicator::self());

    // One step over every device of the context; returns its dt. Throws Error when a particle
    // moved further in one step than the neighbour search allows (the flow outran the CFL
    // limit).
    double step();
    // Steps until time() >= t (the last step is shortened to land on t), or until steps()
    // reaches step_limit when that is not 0.
    void advance_to(double t, std::size_t step_limit = 0);

    double time() const noexcept { return time_; }
    std::size_t steps() const noexcept { return steps_; }
    std::size_t size() const noexcept { return total_; }  // every rank's particles
    const dist::Communicator& ranks() const noexcept { return *ranks_; }
    double next_dt() const noexcept { return dt_; }
    double max_speed() const noexcept { return max_speed_; }
    const MpsParameters& parameters() const noexcept { return parameters_; }
    // n0 (number density radius), n0 and lambda0 of the Laplacian (lambda0 in m^2).
    double n0() const noexcept { return n0_; }
    double n0_laplacian() const noexcept { return n0_lap_; }
    double lambda0() const noexcept { return lambda0_; }
    Precision precision() const noexcept { return precision_; }
    const CellGrid& grid() const noexcept { return slabs_.grid(); }
    // Device d's cell list of the last step, over its ghosts and own particles (on one device:
    // every particle, and order() maps each slot to the particle's slot of the step before).
    const CellList& cells(std::size_t device = 0) const { return slabs_.cells(device); }

    // The weights that cut each step's particles into slabs per device: mps predict's, re-weighted
    // from its profiled times each step (the kernels walk the same neighbour rows, so one stands
    // for all); assign it to force a split.
    Scheduler& scheduler() noexcept { return predict_launch_.scheduler(); }
    // The last step's particles of each device, as ranges of particles()' order (all on device
    // 0 before the first step).
    Partition slabs() const { return slabs_.owners(); }
    // Particles that moved to another device at the start of the last step.
    std::size_t migrated() const noexcept { return slabs_.migrated(); }
    // What this rank's exchanges with the others cost so far (zero on one rank): particles at
    // the steps' starts, ghosts' values after the kernels; particles_sent counts those that
    // moved to another rank.
    const dist::RankTraffic& traffic() const noexcept { return traffic_; }
    // Over several ranks: each rank's slabs (the grid's slabs cut into ranges in rank order);
    // every `steps` steps (0: never; 20 unless set) the ranks cut them again when the most
    // loaded rank's share of the work exceeds the mean by more than `tolerance` (a collective,
    // the same on every rank): each slab weighs its particles, times its rank's measured
    // seconds a particle of the last steps with RankWork::measured (the default), or alone with
    // RankWork::particles (cuts that do not depend on timings: the same on every run), and the
    // particles move to their new ranks at the next step's start. Any cut gives the same fluid
    // bit for bit. rebalances() counts the cuts made.
    enum class RankWork { measured, particles };
    const Partition& rank_slabs() const noexcept { return rank_slabs_; }
    void rebalance_every(std::size_t steps, double tolerance = 0.05, RankWork work = RankWork::measured);
    std::size_t rebalances() const noexcept { return rebalances_; }
    // Each particle's cell at the last step's sort, in particles()' order.
    std::vector<std::uint32_t> cell_keys() const { return slabs_.cell_keys(); }
    // The step's launches, in the order a step makes them (the velocity gradient and the
    // surface's sweeps where it makes them, each sweep a launch).
    LaunchList launches() const {
        LaunchList list{&predict_launch_, &collide_launch_};
        if (parameters_.reconstructs()) list.push_back(&gradient_launch_);
        list.push_back(&pressure_launch_);
        if (parameters_.surface_sweeps > 0) list.push_back(&surface_launch_);
        list.push_back(&correct_launch_);
        list.push_back(&max_speed_launch_);
        return list;
    }

    // The particles as they are now (in the device's cell order, which changes every step) and
    // the pressure of the last step (0 before the first); over several ranks every rank's, in
    // rank order, which is one rank's order (collective).
    MpsParticles particles() const;
    std::vector<double> pressure() const;

    // The state to continue from (checkpoints), and continuing from one: UsageError when its
    // particles are not this fluid's (number, dimensions, how many of each type), not finite, or
    // its time or step size is not. pressure() is 0 again until the next step; max_speed() is
    // that of the restored velocities.
    MpsState state() const;
    void restore(const MpsState& state);

private:
    Context& context_;
    Precision precision_;
    MpsParameters parameters_;
    const dist::Communicator* ranks_;
    std::size_t n_ = 0;      // the particles this rank's devices hold: own and ghosts
    std::size_t total_ = 0;  // every rank's own
    // Over several ranks: each rank's slabs, and this rank's ghosts and whom it sends its own
    // particles' values to (mps_ranks.cpp).
    Partition rank_slabs_;
    std::size_t rebalance_every_ = 20, rebalances_ = 0;
    double rebalance_tolerance_ = 0.05;
    RankWork rank_work_ = RankWork::measured;
    double seconds_per_particle_ = 0;  // this rank's step without its exchanges, smoothed
    struct RankGhosts {
        std::size_t below = 0, own = 0, above = 0;  // one-device order: [below | own | above]
        // [rank]: the slots whose values go to that rank as its ghosts below and above its
        // slabs, and the ghost slots its values fill here.
        std::vector<Range> sent_below, sent_above, received_below, received_above;
    } ghosts_;
    bool arranged_ = false;  // the particles were put on the ranks since the last step
    // [d], over several ranks: what picks device d's particles by slab, and its arrays for the
    // particles it keeps (`kept` of them) and for those it packs for the host.
    std::vector<std::unique_ptr<SlabSelection>> select_;
    struct RankScratch {
        RealBuffer kept_r, kept_u, pack_r, pack_u;
        Buffer<std::uint32_t> kept_type, pack_type;
        std::size_t kept = 0;
    };
    std::vector<RankScratch> scratch_;
    dist::RankTraffic traffic_;
    std::array<std::size_t, 3> type_counts_{};  // every rank's fluid, wall and dummy particles
    double n0_ = 0, n0_lap_ = 0, lambda0_ = 0, max_shift_ = 0;
    double time_ = 0, dt_ = 0, max_speed_ = 0;
    std::size_t steps_ = 0;
    bool stepped_ = false;  // pressure() holds a step's pressure
    Program program_;
    // The particles: positions r and velocities u (written by mps_correct), types (carried).
    ParticleSlabs slabs_;
    // A Kernel holds its arguments: one of each per device.
    struct DeviceKernels {
        Kernel predict, collide, pressure, surface, velocity_gradient, correct, max_speed;
    };
    std::vector<DeviceKernels> kernels_;  // [d]
    MultiDeviceLaunch predict_launch_, collide_launch_, pressure_launch_, surface_launch_,
        gradient_launch_, correct_launch_, max_speed_launch_;
    // [d], in device d's local layout (ParticleSlabs): r* and u* of mps_predict, r and u after
    // collisions, the number density and the pressure (with the surface's sweeps, `swept_` takes
    // each sweep's and then swaps with it); with the viscosity's reconstruction, the fluid's
    // velocity gradients (d^2 components).
    std::vector<RealBuffer> r_star_, u_star_, r_collided_, u_collided_, density_, pressure_, swept_,
        velocity_gradient_;
    std::vector<Buffer<std::uint32_t>> status_;  // [d]: the too-far flag of device d's particles
    std::vector<RealBuffer> partial_;            // [d]: device d's partial maxima of the speed

    // The kernel's particle count (its stride), grid and cell list on device d.
    void set_cell_args(Kernel& kernel, std::size_t d) const;
    // Positions, velocities and types to the devices, the fluid's fastest speed taken (the
    // constructor and restore(); over several ranks, every rank's particles given).
    void upload(const MpsParticles& p);
    double step(double dt);

    bool several() const noexcept { return ranks_->size() > 1; }
    // Over several ranks (mps_ranks.cpp): the rank's slabs cut by the particles' slabs; the
    // slab of each particle (component k of particle i at k * stride + i); this rank's own
    // particles from the host, with the ghosts from their owners, to its devices; each device's
    // own particles whose slab lies in `slabs` (or not: `inside` false) read back, from its
    // next() slots `slots` with the others kept on the device (`keep_others`), or from those
    // kept; the particles that left this rank's slabs sent to their ranks, the others kept; the
    // devices' particles from those kept on each device and those arrived from lower and higher
    // ranks, with the ghosts exchanged; the ghosts' values of local-layout arrays from their
    // owners; the own particles of every rank (rank order) of a field.
    struct Traveller;
    Partition cut_slabs(const MpsParticles& all) const;
    Partition cut_slabs(const std::vector<double>& weights) const;  // Partition::balanced, K parts
    void rebalance();
    std::vector<std::uint32_t> slabs_of(const double* position, std::size_t stride, std::size_t n) const;
    std::vector<std::uint32_t> slabs_of(const MpsParticles& p) const;
    std::vector<std::uint32_t> slabs_of(const std::vector<Traveller>& t) const;
    void place(const MpsParticles& own);
    std::vector<Traveller> take_out(std::size_t device, Range slots, Range slabs, bool inside,
                                    bool keep_others);
    void rearrange();
    void settle(const std::vector<std::size_t>& kept, std::vector<Traveller> lower,
                std::vector<Traveller> higher);
    void update_ghosts(std::vector<RealBuffer>& arrays, std::size_t components);
    template <class T>
    std::vector<T> gather_own(const std::vector<T>& local, std::size_t components) const;
};

} // namespace partcl
