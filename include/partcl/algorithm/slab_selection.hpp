#pragma once
// SlabSelection: on one device, the particles of a range of slots whose slab (layer of cells
// along a CellGrid's slowest axis, y in 2-D, z in 3-D, found as CellList's keys find it) lies
// inside, or outside, a range of slabs, copied out, or the others copied out, each in their
// order. A model over MPI ranks finds so which particles left its slabs (to be sent, the others
// kept in place on the device) and which lie near its ends (its neighbours' ghosts), and moves
// only those through the host.
//
//   SlabSelection select(context, precision, grid, cache, OnDevice{d});
//   const std::size_t leaving = select.flag(queue, r, stride, {0, n}, my_slabs, false);
//   select.copy(queue, r, stride, dims, true, pack, leaving, 0);       // the leavers, packed
//   select.copy(queue, r, stride, dims, false, kept, n - leaving, 0);  // the others, kept
#include <cstdint>
#include <optional>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl {

class SlabSelection {
public:
    // `home`: the device whose queue alone uses it, its scratch in that device's memory.
    SlabSelection(Context& context, Precision precision, const CellGrid& grid,
                  ProgramCache& cache = ProgramCache::global(), std::optional<OnDevice> home = std::nullopt);

    // Flags slots `slots` of `positions` (component k of slot i at k * stride + i) whose slab
    // lies in `slabs` (`inside`), or does not (particles outside the grid or NaN among these);
    // returns how many are flagged, waiting for the device. UsageError for slots past the
    // positions or in another precision.
    std::size_t flag(Queue& queue, const RealBuffer& positions, std::size_t stride, Range slots,
                     Range slabs, bool inside);
    // The last flag()'s slots of `in` (same layout as its positions, `components` of them), the
    // flagged ones or the others, in order into `out` from slot `out_first` (component k at
    // k * out_stride). UsageError where they do not fit.
    void copy(Queue& queue, const RealBuffer& in, std::size_t stride, std::size_t components,
              bool flagged, RealBuffer& out, std::size_t out_stride, std::size_t out_first);
    void copy(Queue& queue, const Buffer<std::uint32_t>& in, bool flagged,
              Buffer<std::uint32_t>& out, std::size_t out_first);

    // The last flag()'s slots and how many it flagged.
    Range slots() const noexcept { return slots_; }
    std::size_t flagged() const noexcept { return flagged_; }

private:
    std::size_t chosen(bool flagged) const noexcept { return flagged ? flagged_ : slots_.size() - flagged_; }

    Context& context_;
    std::optional<OnDevice> home_;
    Precision precision_;
    CellGrid grid_;
    Program program_;
    Kernel flags_kernel_, copy_real_, copy_uint_;
    Buffer<std::uint32_t> flags_, offsets_;
    Range slots_{};
    std::size_t flagged_ = 0;
};

} // namespace partcl
