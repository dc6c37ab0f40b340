#include <partcl/algorithm/slab_selection.hpp>

#include <algorithm>
#include <string>

#include <partcl/algorithm/scan.hpp>

#include "grid_program.hpp"

namespace partcl {

namespace {

constexpr std::size_t group = 64;


} // namespace

SlabSelection::SlabSelection(Context& context, Precision precision, const CellGrid& grid,
                             ProgramCache& cache, std::optional<OnDevice> home)
    : context_(context), home_(home), precision_(precision), grid_(grid),
      program_([&] {
          if (grid.dimensions != 2 && grid.dimensions != 3)
              throw UsageError("slab selection: " + std::to_string(grid.dimensions) +
                               " dimensions (2 or 3)");
          return detail::build_grid_program(context, precision, grid.dimensions, "algorithm/slab_selection.cl", cache);
      }()),
      flags_kernel_(program_, "slab_selection_flags"),
      copy_real_(program_, "slab_selection_copy_real"),
      copy_uint_(program_, "slab_selection_copy_uint") {}

std::size_t SlabSelection::flag(Queue& queue, const RealBuffer& positions, std::size_t stride,
                                Range slots, Range slabs, bool inside) {
    const std::size_t axis = std::size_t(grid_.dimensions - 1);
    if (positions.precision() != precision_)
        throw UsageError("slab selection: " + std::string(to_string(positions.precision())) +
                         " positions given to a " + to_string(precision_) + " selection");
    if (slots.begin > slots.end || slots.end > stride ||
        positions.size() < axis * stride + slots.end || slots.end > 0xffffffffull)
        throw UsageError("slab selection: slots [" + std::to_string(slots.begin) + ", " +
                         std::to_string(slots.end) + ") with a stride of " + std::to_string(stride) +
                         " do not fit positions of " + std::to_string(positions.size()) + " values");
    slots_ = slots;
    flagged_ = 0;
    const std::size_t n = slots.size();
    if (n == 0) return 0;
    if (flags_.size() < n) {
        const std::size_t room = n + n / 8;
        flags_ = home_ ? Buffer<std::uint32_t>(context_, room, *home_) : Buffer<std::uint32_t>(context_, room);
        offsets_ = home_ ? Buffer<std::uint32_t>(context_, room, *home_) : Buffer<std::uint32_t>(context_, room);
    }
    const std::uint32_t count = grid_.cells[axis];
    const std::uint32_t lo = std::uint32_t(std::min<std::size_t>(slabs.begin, count)),
                        hi = std::uint32_t(std::min<std::size_t>(std::max(slabs.end, slabs.begin), count));
    flags_kernel_.args(std::uint32_t(n), std::uint32_t(slots.begin), std::uint32_t(stride), positions,
                       Real{grid_.origin[axis]}, Real{1 / grid_.cell_size}, count, lo, hi,
                       std::uint32_t(inside ? 1 : 0), flags_);
    flags_kernel_.launch(queue, n, group);
    exclusive_scan(queue, flags_, offsets_, n);
    std::uint32_t last_flag = 0, last_offset = 0;
    flags_.read(queue, &last_flag, 1, n - 1);
    offsets_.read(queue, &last_offset, 1, n - 1);
    flagged_ = std::size_t(last_flag) + last_offset;
    return flagged_;
}

void SlabSelection::copy(Queue& queue, const RealBuffer& in, std::size_t stride,
                         std::size_t components, bool flagged, RealBuffer& out,
                         std::size_t out_stride, std::size_t out_first) {
    const std::size_t n = slots_.size(), count = chosen(flagged);
    if (in.precision() != precision_ || out.precision() != precision_)
        throw UsageError("slab selection: arrays of another precision than the selection's");
    if (components == 0 || slots_.end > stride || in.size() < (components - 1) * stride + slots_.end ||
        out_first + count > out_stride || out.size() < (components - 1) * out_stride + out_first + count)
        throw UsageError("slab selection: " + std::to_string(count) + " slots of " +
                         std::to_string(components) + " components do not fit (stride " +
                         std::to_string(stride) + " in, " + std::to_string(out_stride) + " out from slot " +
                         std::to_string(out_first) + ")");
    if (count == 0) return;
    copy_real_.args(std::uint32_t(n), std::uint32_t(slots_.begin), std::uint32_t(stride),
                    std::uint32_t(components), in, flags_, offsets_, std::uint32_t(flagged ? 1 : 0),
                    std::uint32_t(out_first), std::uint32_t(out_stride), out);
    copy_real_.launch(queue, n, group);
}

void SlabSelection::copy(Queue& queue, const Buffer<std::uint32_t>& in, bool flagged,
                         Buffer<std::uint32_t>& out, std::size_t out_first) {
    const std::size_t n = slots_.size(), count = chosen(flagged);
    if (in.size() < slots_.end || out.size() < out_first + count)
        throw UsageError("slab selection: " + std::to_string(count) + " slots do not fit (" +
                         std::to_string(in.size()) + " in, " + std::to_string(out.size()) +
                         " out from slot " + std::to_string(out_first) + ")");
    if (count == 0) return;
    copy_uint_.args(std::uint32_t(n), std::uint32_t(slots_.begin), in, flags_, offsets_,
                    std::uint32_t(flagged ? 1 : 0), std::uint32_t(out_first), out);
    copy_uint_.launch(queue, n, group);
}

} // namespace partcl
