#pragma once
// CellList: bucket (cell-list) neighbour search on the device, for any kernel that needs the
// particles within a radius: MPS's particle interactions, PIC's cell sort. A uniform grid of
// cubic cells over a box; each build gives every particle its cell, sorts the particles by cell
// (SortByKey, stable, so equal cells keep index order) and finds each cell's range of sorted
// slots on the device. Kernels then visit the cells around a particle, row by row, through
// cl/algorithm/cell_list.h, whose comment shows the loop.
//
//   CellList cells(context, precision, CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, radius));
//   cells.build(queue, positions, stride, n);      // positions[k * stride + i], k < dimensions
//   cells.grid_args(kernel, 4);                    // the kernel's CELL_LIST_GRID_PARAMS
//   kernel.arg(11, cells.cell_start()).arg(12, cells.cell_end()) ...
//
// Sorted slot s holds particle order()[s]; gather() reorders particle data into that order, so
// a kernel can read neighbours by slot directly.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

struct CellGrid {
    int dimensions = 3;                  // 2: z is ignored and there is one layer of cells
    std::array<double, 3> origin{};      // lower corner of cell 0
    double cell_size = 1;                // edge of a cell
    std::array<std::uint32_t, 3> cells{1, 1, 1};
    // Cells per axis that a pair closer than the radius can be apart. Kernels that walk the
    // rows define CELL_LIST_REACH to it. Smaller cells (reach 2: radius / 2) put fewer
    // particles that are out of range in the rows: in 3-D the rows cover (2.5 r)^3 instead of
    // (3 r)^3, 0.58 times the candidates, for 25 rows instead of 9.
    int reach = 1;

    std::size_t count() const noexcept { return std::size_t(cells[0]) * cells[1] * cells[2]; }

    // The grid of the fewest cells no smaller than `radius` / `reach` that holds every point of
    // the box [lower, upper] (bounds included): every pair closer than `radius` then lies within
    // `reach` cells along each axis. The cell edge is widened by 1e-3 so that rounding of a
    // position to its cell (relative 2^-24 per cell coordinate in float) cannot break that for
    // grids of up to about 4000 cells per axis. UsageError for a radius that is not positive and
    // finite, a box that is empty or NaN, a dimension other than 2 or 3, a reach outside [1, 8],
    // or more than 2^32 - 1 cells.
    static CellGrid covering(int dimensions, std::array<double, 3> lower,
                             std::array<double, 3> upper, double radius, int reach = 1);
};

// Where a gather reads or writes particle data: component k of slot s at
// offset + k * stride + s.
struct ParticleLayout {
    std::size_t offset = 0;
    std::size_t stride = 0;
};

class CellList {
public:
    // `home`: the device whose queue alone builds and uses this cell list, its buffers in that
    // device's memory (Memory's OnDevice; a model keeping a cell list per device); without it,
    // any queue of the context.
    CellList(Context& context, Precision precision, const CellGrid& grid,
             ProgramCache& cache = ProgramCache::global(),
             std::optional<OnDevice> home = std::nullopt);

    // Bins and sorts particles [0, n), component k of particle i at positions[k * stride + i].
    // Throws UsageError, saying how many, when particles lie outside the grid or have NaN
    // coordinates (it waits for the device to say so).
    void build(Queue& queue, const RealBuffer& positions, std::size_t stride, std::size_t n);
    // build() for particles that lie in the order the last build sorted them into (gathered
    // through order()) and have moved since: the same keys, order and ranges bit for bit, found
    // faster when few changed cell. The slots whose cell is that of the last build keep their
    // order, and only the others are sorted and merged in by (cell, slot), which is the stable
    // sort whatever the particles' order; so the order given is a matter of speed, not of
    // correctness. Where there is no last build of n particles, or more than a quarter of them
    // changed cell, it sorts them all as build() does. Its scratch, kept for the next call, is
    // 2 to 3 words a particle (the stayers, the movers and their sort's).
    void resort(Queue& queue, const RealBuffer& positions, std::size_t stride, std::size_t n);
    // build() without the cells' ranges (cell_start and cell_end are left as they were), for
    // gathers and slab_starts() alone, and without waiting for the device: check() tells of
    // particles outside the grid. A program spreading work over devices enqueues each device's
    // sort before it waits for any.
    void sort(Queue& queue, const RealBuffer& positions, std::size_t stride, std::size_t n);
    // Particles [0, n) that are already in cell order (a device's own sorted particles between
    // the ghosts of its neighbours' cells): their cells and the cells' ranges of slots, without
    // sorting; order() is the identity. With `cells`, only the ranges of those cells are found
    // (the others are left as they were): the cells a device's kernels visit. Does not wait:
    // check() tells of particles outside the grid or out of cell order.
    void index(Queue& queue, const RealBuffer& positions, std::size_t stride, std::size_t n,
               std::optional<Range> cells = std::nullopt);
    // Waits for the last sort or index and throws UsageError, as build does, for particles
    // outside the grid or NaN (saying how many, and the first), or out of cell order.
    void check(Queue& queue);
    // Coordinate x along axis k in cells from the origin, computed as the kernels compute it, in
    // the list's precision (cl/algorithm/cell_list.h): inside the grid exactly where it lies in
    // [0, cells[k]). A point just below the grid's upper edge in double may round onto it.
    double cell_coordinate(double x, int k) const;

    // out[k * stride + s] = in[k * stride + order()[s]] for k < components, s < size().
    void gather(Queue& queue, const RealBuffer& in, RealBuffer& out, std::size_t components,
                std::size_t stride);
    void gather(Queue& queue, const Buffer<std::uint32_t>& in, Buffer<std::uint32_t>& out);
    // The same between layouts of their own: out at `to` (slot s) from in at `from` (slot
    // order()[s]), UsageError where either does not fit its buffer.
    void gather(Queue& queue, const RealBuffer& in, ParticleLayout from, RealBuffer& out,
                ParticleLayout to, std::size_t components);
    void gather(Queue& queue, const Buffer<std::uint32_t>& in, std::size_t from,
                Buffer<std::uint32_t>& out, std::size_t to);

    // Slabs: the layers of cells along the grid's slowest axis (y in 2-D, z in 3-D), where a
    // model cuts its particles between devices. Slab s of the last build or index holds sorted
    // slots [starts[s], starts[s + 1]), with starts[slabs()] = size(); read back (waits).
    std::uint32_t slabs() const noexcept { return grid_.cells[std::size_t(grid_.dimensions - 1)]; }
    std::vector<std::uint32_t> slab_starts(Queue& queue);

    // Sets the seven arguments of CELL_LIST_GRID_PARAMS, from index `first` on.
    Kernel& grid_args(Kernel& kernel, std::uint32_t first) const;

    const CellGrid& grid() const noexcept { return grid_; }
    Precision precision() const noexcept { return precision_; }
    std::size_t size() const noexcept { return size_; }  // particles of the last build
    // Sorted slot -> particle index; the sorted cells; per cell, its first and one-past-last
    // slot (equal for an empty cell).
    const Buffer<std::uint32_t>& order() const noexcept { return order_; }
    const Buffer<std::uint32_t>& keys() const noexcept { return keys_; }
    const Buffer<std::uint32_t>& cell_start() const noexcept { return start_; }
    const Buffer<std::uint32_t>& cell_end() const noexcept { return end_; }

private:
    // Cells of particles [0, n) into keys_ (order_ the identity); UsageError, counted on the
    // host, for particles outside the grid or NaN.
    void compute_keys(Queue& queue, const RealBuffer& positions, std::size_t stride,
                      std::size_t n);
    // UsageError for positions that do not fit n particles at `stride`.
    void check_layout(const RealBuffer& positions, std::size_t stride, std::size_t n) const;
    // resort()'s partial sort into keys_ and order_, or false (nothing changed) where more than
    // a quarter of the particles changed cell.
    bool sort_movers(Queue& queue, const RealBuffer& positions, std::size_t stride);
    // Checks, then the cells' ranges (build()'s end).
    void finish_build(Queue& queue);
    // The ranges of cells [first, end) from the sorted keys.
    void find_bounds(Queue& queue, std::size_t first, std::size_t end);
    Buffer<std::uint32_t> buffer(std::size_t size) const;

    Context& context_;
    std::optional<OnDevice> home_;
    Precision precision_;
    CellGrid grid_;
    Program program_;
    Kernel keys_kernel_, block_bounds_kernel_, bounds_kernel_, sorted_kernel_, slab_starts_kernel_, gather_real_,
        gather_uint_, moves_kernel_, scan_kernel_, partition_kernel_, splits_kernel_, merge_kernel_;
    SortByKey sort_;
    Buffer<std::uint32_t> keys_, order_, start_, end_, status_, slab_starts_;
    Buffer<std::uint32_t> block_start_;  // find_bounds(): every block's first slot
    // sort_movers(): each tile's movers (then its first mover's place); the stayers' and the
    // movers' cells and slots; the stayers before each tile of the merge.
    Buffer<std::uint32_t> movers_, stay_keys_, stay_slots_, move_keys_, move_slots_, splits_;
    bool sorted_ = false;  // keys_ holds the sorted cells of size_ particles
    RealBuffer checked_;  // the positions of the last sort or index, until check()
    std::size_t checked_stride_ = 0;
    std::size_t size_ = 0;
};

} // namespace partcl
