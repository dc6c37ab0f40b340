/* partcl::SlabSelection's device steps (include/partcl/algorithm/slab_selection.hpp):
 *   slab_selection_flags        flags[i] = 1 for the slots first + i whose slab (cell along the
 *                               grid's slowest axis, found as cell_list_keys finds it) lies in
 *                               [lo, hi), or outside it (`inside` 0), else 0
 *   (exclusive_scan on the host side: offsets[i] = flags[0] + ... + flags[i - 1])
 *   slab_selection_copy_real / _uint   the flagged slots (or the others) copied out in order
 * Arrays are structure-of-arrays: component k of slot i at k * stride + i. */
#include "algorithm/cell_list.h"

#define SLAB_AXIS (CELL_LIST_DIMENSIONS - 1)

/* A slot outside the grid or NaN is in no range: flagged only when asked for those outside (a
 * caller moving particles on moves those, and the cell list it hands them to names them). */
KERNEL void slab_selection_flags(const uint n, const uint first, const uint stride,
                                 GLOBAL const real* positions, const real origin,
                                 const real inverse_size, const uint slabs, const uint lo,
                                 const uint hi, const uint inside, GLOBAL uint* flags)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const int s = cell_list_axis(positions[SLAB_AXIS * stride + first + i], origin, inverse_size,
                                 slabs);
    const uint in_range = (s >= 0 && (uint)s >= lo && (uint)s < hi) ? 1u : 0u;
    flags[i] = inside ? in_range : 1u - in_range;
}

/* Slot first + i of `in` to slot out_first + offsets[i] (the flagged, `flagged` 1) or
 * out_first + i - offsets[i] (the others) of `out`. */
KERNEL void slab_selection_copy_real(const uint n, const uint first, const uint stride,
                                     const uint components, GLOBAL const real* in,
                                     GLOBAL const uint* flags, GLOBAL const uint* offsets,
                                     const uint flagged, const uint out_first,
                                     const uint out_stride, GLOBAL real* out)
{
    const uint i = global_id(0);
    if (i >= n || (flags[i] != 0u) != (flagged != 0u)) return;
    const uint at = out_first + (flagged ? offsets[i] : i - offsets[i]);
    for (uint k = 0; k < components; ++k) out[k * out_stride + at] = in[k * stride + first + i];
}

KERNEL void slab_selection_copy_uint(const uint n, const uint first, GLOBAL const uint* in,
                                     GLOBAL const uint* flags, GLOBAL const uint* offsets,
                                     const uint flagged, const uint out_first, GLOBAL uint* out)
{
    const uint i = global_id(0);
    if (i >= n || (flags[i] != 0u) != (flagged != 0u)) return;
    out[out_first + (flagged ? offsets[i] : i - offsets[i])] = in[first + i];
}
