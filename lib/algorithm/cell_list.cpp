#include <partcl/algorithm/cell_list.hpp>

#include <algorithm>
#include <cmath>

#include "grid_program.hpp"

namespace partcl {

namespace {

// Bits of the status word of cell_list_keys and cell_list_sorted (cl/algorithm/cell_list.cl).
constexpr std::uint32_t nan_bit = 2;  // 1: outside the grid
constexpr std::uint32_t unsorted_bit = 4;
// Cells per block of the bounds' two-level search (cell_list_block_bounds): 2^8.
constexpr std::size_t block_shift = 8;
// The re-sort's work-groups and the slots each takes (CELL_LIST_GROUP, CELL_LIST_TILE in
// cl/algorithm/cell_list.cl).
constexpr std::size_t resort_group = 256, resort_tile = 1024;

} // namespace

CellGrid CellGrid::covering(int dimensions, std::array<double, 3> lower,
                            std::array<double, 3> upper, double radius, int reach) {
    if (dimensions != 2 && dimensions != 3)
        throw UsageError("cell grid: " + std::to_string(dimensions) + " dimensions (2 or 3)");
    if (!(radius > 0) || !std::isfinite(radius))
        throw UsageError("cell grid: the radius must be positive and finite, not " +
                         std::to_string(radius));
    CellGrid grid;
    grid.dimensions = dimensions;
    if (reach < 1 || reach > 8)
        throw UsageError("cell grid: a reach of " + std::to_string(reach) + " cells (1 to 8)");
    grid.reach = reach;
    grid.cell_size = radius / reach * (1 + 1e-3);
    double count = 1;
    for (int k = 0; k < dimensions; ++k) {
        if (!(upper[k] >= lower[k]) || !std::isfinite(upper[k] - lower[k]))
            throw UsageError("cell grid: the box's axis " + std::to_string(k) + " is [" +
                             std::to_string(lower[k]) + ", " + std::to_string(upper[k]) + "]");
        const double cells = std::floor((upper[k] - lower[k]) / grid.cell_size) + 1;
        count *= cells;
        if (count > 4294967294.0) throw UsageError("cell grid: more than 2^32 - 2 cells");
        grid.cells[k] = std::uint32_t(cells);
        grid.origin[k] = lower[k];
    }
    return grid;
}

CellList::CellList(Context& context, Precision precision, const CellGrid& grid,
                   ProgramCache& cache, std::optional<OnDevice> home)
    : context_(context), home_(home), precision_(precision), grid_(grid),
      program_(detail::build_grid_program(context, precision, grid.dimensions, "algorithm/cell_list.cl", cache)),
      keys_kernel_(program_, "cell_list_keys"), block_bounds_kernel_(program_, "cell_list_block_bounds"),
      bounds_kernel_(program_, "cell_list_bounds"),
      sorted_kernel_(program_, "cell_list_sorted"),
      slab_starts_kernel_(program_, "cell_list_slab_starts"),
      gather_real_(program_, "cell_list_gather_real"),
      gather_uint_(program_, "cell_list_gather_uint"), moves_kernel_(program_, "cell_list_moves"),
      scan_kernel_(program_, "cell_list_scan_tiles"),
      partition_kernel_(program_, "cell_list_partition"),
      splits_kernel_(program_, "cell_list_merge_splits"), merge_kernel_(program_, "cell_list_merge"),
      sort_(context, cache, home) {
    if (grid.dimensions != 2 && grid.dimensions != 3)
        throw UsageError("cell list: " + std::to_string(grid.dimensions) + " dimensions (2 or 3)");
    if (!(grid.cell_size > 0) || !std::isfinite(grid.cell_size) || grid.count() == 0 ||
        grid.count() > 0xfffffffeull || (grid.dimensions == 2 && grid.cells[2] != 1))
        throw UsageError("cell list: a malformed grid (use CellGrid::covering)");
    start_ = buffer(grid.count());
    end_ = buffer(grid.count());
    status_ = buffer(1);
    slab_starts_ = buffer(std::size_t(slabs()) + 1);
}

std::vector<std::uint32_t> CellList::slab_starts(Queue& queue) {
    const std::uint32_t slabs = this->slabs();
    const std::uint32_t plane = grid_.dimensions == 3 ? grid_.cells[0] * grid_.cells[1] : grid_.cells[0];
    std::vector<std::uint32_t> starts(std::size_t(slabs) + 1, 0u);
    if (size_ == 0) return starts;
    slab_starts_kernel_.args(slabs, plane, std::uint32_t(size_), keys_, slab_starts_);
    slab_starts_kernel_.launch(queue, std::size_t(slabs) + 1);
    slab_starts_.read(queue, starts.data(), starts.size());
    return starts;
}

Buffer<std::uint32_t> CellList::buffer(std::size_t size) const {
    return home_ ? Buffer<std::uint32_t>(context_, size, *home_)
                 : Buffer<std::uint32_t>(context_, size);
}

Kernel& CellList::grid_args(Kernel& kernel, std::uint32_t first) const {
    return kernel.arg(first, Real{grid_.origin[0]})
        .arg(first + 1, Real{grid_.origin[1]})
        .arg(first + 2, Real{grid_.origin[2]})
        .arg(first + 3, Real{1 / grid_.cell_size})
        .arg(first + 4, std::uint32_t(grid_.cells[0]))
        .arg(first + 5, std::uint32_t(grid_.cells[1]))
        .arg(first + 6, std::uint32_t(grid_.cells[2]));
}

void CellList::check_layout(const RealBuffer& positions, std::size_t stride,
                            std::size_t n) const {
    if (positions.precision() != precision_)
        throw UsageError("cell list: " + std::string(to_string(positions.precision())) +
                         " positions given to a " + to_string(precision_) + " cell list");
    if (stride < n || positions.size() < (grid_.dimensions - 1) * stride + n)
        throw UsageError("cell list: positions of " + std::to_string(positions.size()) +
                         " elements, too few for " + std::to_string(n) + " particles at stride " +
                         std::to_string(stride));
    if (n > 0xffffffffull || positions.size() > 0xffffffffull)
        throw UsageError("cell list: more than 2^32 - 1 particles or elements");
}

void CellList::compute_keys(Queue& queue, const RealBuffer& positions, std::size_t stride,
                            std::size_t n) {
    check_layout(positions, stride, n);
    sorted_ = false;
    if (keys_.size() < n) {
        keys_ = buffer(n);
        order_ = buffer(n);
    }
    size_ = n;
    if (n == 0) return;
    status_.fill(queue, 0u);
    keys_kernel_.args(std::uint32_t(n), std::uint32_t(stride), positions);
    grid_args(keys_kernel_, 3);
    keys_kernel_.arg(10, keys_).arg(11, order_).arg(12, status_);
    keys_kernel_.launch(queue, n, 64);
    checked_ = positions;
    checked_stride_ = stride;
}

bool CellList::sort_movers(Queue& queue, const RealBuffer& positions, std::size_t stride) {
    const std::size_t n = size_, tiles = (n + resort_tile - 1) / resort_tile;
    if (movers_.size() < tiles + 1) {
        movers_ = buffer(tiles + 1);
        splits_ = buffer(tiles + 1);
    }
    status_.fill(queue, 0u);
    moves_kernel_.args(std::uint32_t(n), std::uint32_t(stride), positions);
    grid_args(moves_kernel_, 3);
    moves_kernel_.arg(10, keys_).arg(11, movers_).arg(12, status_);
    moves_kernel_.launch(queue, tiles * resort_group, resort_group);
    scan_kernel_.args(std::uint32_t(tiles + 1), movers_).launch(queue, resort_group, resort_group);
    std::uint32_t m = 0;
    movers_.read(queue, &m, 1, tiles);
    // Past a quarter the movers' sort and the passes around it near a whole sort's cost
    // (docs/performance.md, "Re-sorting only the particles that changed cell").
    if (m > n / 4) return false;
    if (stay_keys_.size() < n) {
        stay_keys_ = buffer(n);
        stay_slots_ = buffer(n);
    }
    if (move_keys_.size() < std::max<std::size_t>(m, 1)) {
        move_keys_ = buffer(std::max<std::size_t>({m, n / 16, 1}));
        move_slots_ = buffer(move_keys_.size());
    }
    partition_kernel_.args(std::uint32_t(n), std::uint32_t(stride), positions);
    grid_args(partition_kernel_, 3);
    partition_kernel_.arg(10, keys_).arg(11, movers_).arg(12, stay_keys_).arg(13, stay_slots_)
        .arg(14, move_keys_).arg(15, move_slots_).arg(16, status_);
    partition_kernel_.launch(queue, tiles * resort_group, resort_group);
    if (m > 0) sort_(queue, move_keys_, move_slots_, m, bits_for(grid_.count() + 1));
    splits_kernel_.args(std::uint32_t(n), std::uint32_t(m), std::uint32_t(tiles), stay_keys_,
                        stay_slots_, move_keys_, move_slots_, splits_);
    splits_kernel_.launch(queue, tiles + 1, 64);
    merge_kernel_.args(std::uint32_t(n), splits_, stay_keys_, stay_slots_, move_keys_, move_slots_,
                       keys_, order_);
    merge_kernel_.launch(queue, tiles * resort_group, resort_group);
    checked_ = positions;
    checked_stride_ = stride;
    return true;
}

double CellList::cell_coordinate(double x, int k) const {
    // As grid_args passes them: the origin and the inverse cell size rounded to `real`.
    const double inverse = 1 / grid_.cell_size;
    if (precision_ == Precision::float32)
        return double((float(x) - float(grid_.origin[k])) * float(inverse));
    return (x - grid_.origin[k]) * inverse;
}

void CellList::check(Queue& queue) {
    const std::size_t n = size_, stride = checked_stride_;
    if (n == 0 || checked_.empty()) return;
    std::uint32_t status = 0;
    status_.read(queue, &status, 1);
    const RealBuffer positions = checked_;
    checked_ = RealBuffer();
    if (status & unsorted_bit)
        throw UsageError("cell list: " + std::to_string(n) +
                         " particles given in cell order are not (CellList::index)");
    if (status) {
        // Rare: count them on the host to say how many and give one example.
        std::vector<double> p(positions.size());
        positions.read(queue, p.data(), p.size());
        std::size_t bad = 0, first = 0;
        // In the kernel's arithmetic, so that a coordinate at the box's edge counts as the
        // kernel counted it.
        for (std::size_t i = 0; i < n; ++i) {
            bool out = false;
            for (int k = 0; k < grid_.dimensions; ++k) {
                const double t = cell_coordinate(p[k * stride + i], k);
                out = out || !(t >= 0 && t < double(grid_.cells[k]));
            }
            if (out && bad++ == 0) first = i;
        }
        std::string where = "(";
        for (int k = 0; k < grid_.dimensions; ++k)
            where += (k ? ", " : "") + std::to_string(p[k * stride + first]);
        throw UsageError(std::string("cell list: ") + std::to_string(bad) + " of " +
                         std::to_string(n) + " particles " +
                         ((status & nan_bit) ? "have NaN coordinates or " : "") +
                         "lie outside the grid's box; the first is particle " +
                         std::to_string(first) + " at " + where + ")");
    }
}

void CellList::find_bounds(Queue& queue, std::size_t first, std::size_t end) {
    if (end <= first) return;
    // Block b's first slot for b up to `blocks`, the block after the last boundary's.
    const std::size_t blocks = ((end - first) >> block_shift) + 1;
    if (block_start_.size() < blocks + 1) block_start_ = buffer(blocks + 1);
    block_bounds_kernel_.args(std::uint32_t(size_), std::uint32_t(first), std::uint32_t(block_shift),
                              std::uint32_t(blocks), keys_, block_start_);
    block_bounds_kernel_.launch(queue, blocks + 1, 64);
    bounds_kernel_.args(std::uint32_t(first), std::uint32_t(end), std::uint32_t(block_shift), block_start_, keys_,
                        start_, end_);
    bounds_kernel_.launch(queue, end - first + 1, 64);
}

void CellList::sort(Queue& queue, const RealBuffer& positions, std::size_t stride,
                    std::size_t n) {
    compute_keys(queue, positions, stride, n);
    if (n > 0) sort_(queue, keys_, order_, n, bits_for(grid_.count() + 1));  // keys <= count()
    sorted_ = true;
}

void CellList::finish_build(Queue& queue) {
    if (size_ == 0) {
        start_.fill(queue, 0u);
        end_.fill(queue, 0u);
        return;
    }
    find_bounds(queue, 0, grid_.count());
    check(queue);
}

void CellList::build(Queue& queue, const RealBuffer& positions, std::size_t stride,
                     std::size_t n) {
    sort(queue, positions, stride, n);
    finish_build(queue);
}

void CellList::resort(Queue& queue, const RealBuffer& positions, std::size_t stride,
                      std::size_t n) {
    check_layout(positions, stride, n);
    if (!(sorted_ && n == size_ && n > 0 && sort_movers(queue, positions, stride)))
        sort(queue, positions, stride, n);
    finish_build(queue);
}

void CellList::index(Queue& queue, const RealBuffer& positions, std::size_t stride,
                     std::size_t n, std::optional<Range> cells) {
    if (cells && (cells->end > grid_.count() || cells->end < cells->begin))
        throw UsageError("cell list: cells [" + std::to_string(cells->begin) + ", " +
                         std::to_string(cells->end) + ") of a grid of " +
                         std::to_string(grid_.count()));
    compute_keys(queue, positions, stride, n);
    if (n > 1) sorted_kernel_.args(std::uint32_t(n), keys_, status_).launch(queue, n - 1, 64);
    const Range range = cells ? *cells : Range{0, grid_.count()};
    if (n == 0) {  // every range empty
        if (!range.empty()) {
            start_.fill(queue, 0u, range.begin, range.size());
            end_.fill(queue, 0u, range.begin, range.size());
        }
        return;
    }
    find_bounds(queue, range.begin, range.end);
}

void CellList::gather(Queue& queue, const RealBuffer& in, RealBuffer& out,
                      std::size_t components, std::size_t stride) {
    if (&in == &out) throw UsageError("cell list gather: `in` and `out` must differ");
    gather(queue, in, {0, stride}, out, {0, stride}, components);
}

void CellList::gather(Queue& queue, const RealBuffer& in, ParticleLayout from, RealBuffer& out,
                      ParticleLayout to, std::size_t components) {
    if (size_ == 0) return;
    if (in.precision() != precision_ || out.precision() != precision_)
        throw UsageError("cell list gather: buffers of another precision than the cell list's");
    auto fits = [&](const RealBuffer& b, ParticleLayout l) {
        const std::size_t span = (components ? components - 1 : 0) * l.stride + size_;
        return l.stride >= size_ && l.offset <= b.size() && span <= b.size() - l.offset;
    };
    if (!fits(in, from) || !fits(out, to))
        throw UsageError("cell list gather: buffers too short for " + std::to_string(size_) +
                         " particles of " + std::to_string(components) + " components");
    if (&in == &out) throw UsageError("cell list gather: `in` and `out` must differ");
    gather_real_.args(std::uint32_t(size_), std::uint32_t(from.offset), std::uint32_t(from.stride),
                      std::uint32_t(to.offset), std::uint32_t(to.stride),
                      std::uint32_t(components), order_, in, out);
    gather_real_.launch(queue, size_, 64);
}

void CellList::gather(Queue& queue, const Buffer<std::uint32_t>& in, Buffer<std::uint32_t>& out) {
    gather(queue, in, 0, out, 0);
}

void CellList::gather(Queue& queue, const Buffer<std::uint32_t>& in, std::size_t from,
                      Buffer<std::uint32_t>& out, std::size_t to) {
    if (size_ == 0) return;
    if (from > in.size() || in.size() - from < size_ || to > out.size() ||
        out.size() - to < size_)
        throw UsageError("cell list gather: buffers too short for " + std::to_string(size_) +
                         " particles");
    if (&in == &out) throw UsageError("cell list gather: `in` and `out` must differ");
    gather_uint_.args(std::uint32_t(size_), std::uint32_t(from), std::uint32_t(to), order_, in,
                      out);
    gather_uint_.launch(queue, size_, 64);
}

} // namespace partcl
