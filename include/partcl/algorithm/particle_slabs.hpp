#pragma once
// ParticleSlabs: particles resident on the devices of a context, each device holding those in
// its own slabs of a cell grid (slabs: the layers of cells along the slowest axis, y in 2-D, z in
// 3-D), the slabs cut between the devices by weights. Each step, arrange():
//   1. sorts each device's particles by cell (cells(d), a CellList of that device), which groups
//      them by the device owning their slab;
//   2. moves every particle to the device owning its slab (a Halo as a distributor): the slabs
//      no other device sends particles into are copied as they are sorted; the runs of slabs
//      that receive some are gathered from every sender in device order and sorted again, a
//      small sort of the particles near the borders;
//   3. fills each device's ghost slots with the particles of the `width` slabs on either side of
//      its own, copied from their owners (a Halo);
// so that a kernel on device d finds every neighbour within `width` cells of its own particles
// through cells(d). Device d's slots are [ghosts below | its own | ghosts above] (with periodic
// slabs, the ghosts across the boundary go below or above by their slab's index, so the slots
// stay in cell order); arrays in that local layout (local(f, d), and a model's own through fit()
// and exchange()) hold component k of slot i at k * total(d) + i.
//
// Order: the devices' own particles, one device after another, are the particles in the order
// one device holds them (sorted by cell, stably from the previous order, which the sources'
// device order keeps), and ghosts come in their owners' order; so a kernel summing over the
// cells around a particle adds the same terms in the same order on any number of devices, and
// a step split over devices is the one-device step bit for bit.
//
// Fields: real fields (field 0 the positions, of `dimensions` components, which cells are taken
// of) and unsigned ones of one component. A model writes each step's results for its own
// particles into next(f, d) (its own slots in local order, stride own(d)); fields it does not
// write (`carried`: a type, a species) are put there by arrange().
//
//   ParticleSlabs slabs(context, precision, grid, 2, {{2}, {2}}, {{1, true}});  // r, u; type
//   slabs.upload(n, {r, u}, {type});
//   slabs.arrange(weights);
//   ... kernels on device d over own slots [below(d), below(d) + own(d)) of local(f, d),
//       results into next(f, d); exchange() between kernels that read what others wrote ...
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/sched/halo.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

// Whether the slabs wrap: periodic, the first slab's neighbour below is the last one, and the
// ghosts of a device at either end include the slabs across the boundary (with their own
// coordinates: kernels wrap as they do on one device).
enum class SlabEnds { open, periodic };

struct SlabField {
    std::size_t components = 1;
    bool carried = false;  // kept in next() by arrange(): the model does not write it
};

class ParticleSlabs {
public:
    // `reals[0]` is the positions (grid.dimensions components); `width`: the ghost slabs on
    // either side of a device's own, at least the reach of the kernels' neighbour search.
    ParticleSlabs(Context& context, Precision precision, const CellGrid& grid,
                  std::uint32_t width, std::vector<SlabField> reals, std::vector<SlabField> uints,
                  SlabEnds ends = SlabEnds::open, ProgramCache& cache = ProgramCache::global());

    // Every particle to device 0, in the given order (component k of particle i at k * n + i
    // of each field), sorted by cell there at once: UsageError for particles outside the grid.
    void upload(std::size_t n, const std::vector<std::vector<double>>& reals,
                const std::vector<std::vector<std::uint32_t>>& uints);
    // Steps 1-3 above; `weights` (one per device) cut the slabs by the particles they hold.
    void arrange(const std::vector<double>& weights);

    std::size_t size() const noexcept { return n_; }
    std::size_t devices() const noexcept { return own_.size(); }
    std::size_t own(std::size_t d) const { return own_.at(d); }
    std::size_t below(std::size_t d) const { return below_.at(d); }
    std::size_t above(std::size_t d) const { return above_.at(d); }
    std::size_t total(std::size_t d) const { return below(d) + own(d) + above(d); }
    // The devices' own particles as ranges of the one-device order.
    Partition owners() const;
    // Device d's slabs [first, end) in the last arrange().
    Range slabs(std::size_t d) const { return {first_slab_.at(d), first_slab_.at(d + 1)}; }
    // Particles that changed device in the last arrange().
    std::size_t migrated() const noexcept { return migrated_; }
    // Where each slab's particles began at the last sort, counted over every device (ghosts
    // included; slabs + 1 values, the last the total): slab s held held()[s + 1] - held()[s].
    // On one device, whose sort counts no slabs, they are counted now from its cell list (a
    // kernel and a read on its queue).
    std::vector<std::size_t> held();
    const CellGrid& grid() const noexcept { return grid_; }
    std::uint32_t width() const noexcept { return width_; }

    // Device d's cell list over its local slots (after arrange(); on one device its order()
    // maps each slot to the particle's slot of the step before).
    const CellList& cells(std::size_t d) const { return *cells_.at(d); }
    RealBuffer& local(std::size_t field, std::size_t d) { return reals_.at(field).local.at(d); }
    Buffer<std::uint32_t>& local_uint(std::size_t field, std::size_t d) {
        return uints_.at(field).local.at(d);
    }
    RealBuffer& next(std::size_t field, std::size_t d) { return reals_.at(field).next.at(d); }
    Buffer<std::uint32_t>& next_uint(std::size_t field, std::size_t d) {
        return uints_.at(field).next.at(d);
    }
    // Device d's next() holds `n` particles from now on (component k of particle i at k * n + i),
    // which the model writes there before the next arrange(): for a model that removes some
    // particles and adds others between arrange()s (MPI ranks exchanging those that left their
    // slabs). Its next() arrays grown, their contents undefined; local() and the counts of
    // ghosts stale until the next arrange().
    void set_own(std::size_t d, std::size_t n);
    // Per device, grows a model's array to `components` times total(d), in the device's own
    // memory where memories are separate (contents undefined).
    void fit(std::vector<RealBuffer>& arrays, std::size_t components) const;
    // The ghost slots of local-layout arrays from their owners' slots (the last arrange()'s
    // plan), after everything enqueued so far on the owners' queues.
    void exchange(std::vector<RealBuffer>& arrays, std::size_t components);

    // Host copies in the one-device order: a field of next(); the own slots of local-layout
    // arrays; each particle's cell at the last sort.
    std::vector<double> read_next(std::size_t field) const;
    std::vector<std::uint32_t> read_next_uint(std::size_t field) const;
    // Host copies of a field's own slots of local(), in the one-device order: the particles as
    // the last arrange() sorted them.
    std::vector<double> read_local(std::size_t field) const;
    std::vector<std::uint32_t> read_local_uint(std::size_t field) const;
    std::vector<double> read_own(const std::vector<RealBuffer>& arrays,
                                 std::size_t components) const;
    std::vector<std::uint32_t> cell_keys() const;
    // The own slots of local-layout arrays holding the particles of `ranges` of the one-device
    // order, as bytes of the arrays' precision: range after range, component k of a range's
    // particle i at k * range.size() + i - range.begin. Packed on each device and read back in
    // one read a device, or written from such bytes in one write a device and unpacked there:
    // a model's MPI ranks exchange ghosts so.
    std::vector<std::byte> pack_own(const std::vector<RealBuffer>& arrays, std::size_t components,
                                    const std::vector<Range>& ranges);
    void unpack_own(std::vector<RealBuffer>& arrays, std::size_t components,
                    const std::vector<Range>& ranges, const std::vector<std::byte>& bytes);

private:
    template <class B>
    struct Field {
        SlabField spec;
        // [d]: a model's results (own slots, stride own), the senders' sorted particles, the
        // runs of slabs a device receives particles into (as gathered and as sorted), the local
        // layout.
        std::vector<B> next, grouped, runs, sorted_runs, local;
    };
    template <class B>
    B make(const B& like, std::size_t size, std::size_t d) const;
    template <class B>
    void grow(B& buffer, std::size_t size, std::size_t d) const;
    // Step 1 on every device: the particles of next() sorted into grouped, and where each slab
    // begins among them.
    std::vector<std::vector<std::uint32_t>> sort_own();
    // The ghost slabs of a device owning slabs [first, end) of `slabs`, ascending.
    std::vector<std::uint32_t> ghost_slabs(std::uint32_t first, std::uint32_t end,
                                           std::uint32_t slabs) const;
    // held() as the last arrange() on several devices counted it.
    std::vector<std::size_t> counted_starts() const;
    // Steps 2 and 3 from those starts, and the cells of the local slots.
    void place(const std::vector<std::vector<std::uint32_t>>& starts);
    // One device: the sort straight into the local layout.
    void sort_alone();
    // Particles `range` of the one-device order from every device's own slots of `arrays`
    // (local layout, or next()'s), component after component.
    template <class T, class B>
    std::vector<T> read(const std::vector<B>& arrays, std::size_t components, bool local,
                        Range range) const;
    // What of `ranges` device d owns: where each piece lies in pack_own()'s bytes, among the
    // device's own slots and in its staging (elements).
    struct Piece {
        std::size_t message, range_size, slot, count, staged;
    };
    std::vector<std::vector<Piece>> pieces(const std::vector<RealBuffer>& arrays,
                                           std::size_t components, const std::vector<Range>& ranges,
                                           const char* who) const;

    Context& context_;
    Precision precision_;
    CellGrid grid_;
    std::uint32_t width_;
    SlabEnds ends_;
    std::size_t n_ = 0;
    std::vector<Field<RealBuffer>> reals_;
    std::vector<Field<Buffer<std::uint32_t>>> uints_;
    std::vector<std::unique_ptr<CellList>> cells_;
    std::vector<std::size_t> own_, below_, above_;
    std::vector<std::uint32_t> first_slab_;                // devices + 1 slab bounds
    std::vector<std::vector<std::uint32_t>> slab_starts_;  // [d]: own slots per slab, cumulative
    std::size_t migrated_ = 0;
    std::vector<RealBuffer> staging_;  // [d]: pack_own()'s and unpack_own()'s
    // Sorted slabs into place; senders' particles into the runs; sorted runs into place; the
    // ghosts; the carried fields' own slots into next().
    Halo direct_, into_runs_, runs_home_, ghosts_, carried_;
};

} // namespace partcl
