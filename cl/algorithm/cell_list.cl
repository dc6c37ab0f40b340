/* partcl::CellList's device steps (include/partcl/algorithm/cell_list.hpp; the grid helpers
 * are in cell_list.h):
 *   cell_list_keys     each particle's cell, and a report of particles outside the grid or NaN
 *   (sort_by_key on the host side: cells ascending, particle indices carried along, stable)
 *   cell_list_block_bounds, cell_list_bounds   each cell's first and one-past-last sorted slot
 *                      (of a range of cells)
 *   cell_list_sorted   a report of keys out of order (particles given as already sorted)
 *   cell_list_slab_starts   where each slab (layer of cells) begins among the sorted slots
 *   cell_list_gather_real / _uint   reorder particle data into the sorted order
 * Positions and gathered data are structure-of-arrays: component k of particle i at
 * k * stride + i. */
#include "algorithm/cell_list.h"

/* Bits of the status word. */
#define CELL_LIST_OUTSIDE 1u
#define CELL_LIST_NAN 2u
#define CELL_LIST_UNSORTED 4u

KERNEL void cell_list_keys(const uint n, const uint stride, GLOBAL const real* positions,
                           CELL_LIST_GRID_PARAMS, GLOBAL uint* keys, GLOBAL uint* order,
                           GLOBAL uint* status)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const real x = positions[i];
    const real y = positions[stride + i];
#if CELL_LIST_DIMENSIONS == 3
    const real z = positions[2 * stride + i];
#else
    const real z = REAL_C(0.0);
#endif
    uint cell = cell_list_cell(x, y, z, CELL_LIST_GRID);
    if (cell == CELL_LIST_NONE) {
        /* Sorted after every real cell, so the bounds never name it; the host reports it. */
        cell = cell_nx * cell_ny * cell_nz;
        ATOMIC_OR(status, (isnan(x) || isnan(y) || isnan(z)) ? CELL_LIST_NAN : CELL_LIST_OUTSIDE);
    }
    keys[i] = cell;
    order[i] = i;
}

/* keys sorted. Cell c's first slot is the first whose key is not below c, its end the first
 * whose key is above c, found by binary search, so an empty cell's range is empty and sits
 * where its particles would: a row of cells is one range of slots (cell_list.h). The first
 * slot in [low, high) whose key is not below `key`, given that it lies there. */
INLINE uint cell_list_lower_bound(GLOBAL const uint* keys, uint low, uint high, const uint key)
{
    while (low < high) {
        const uint middle = low + (high - low) / 2u;
        if (keys[middle] < key) low = middle + 1u;
        else high = middle;
    }
    return low;
}

/* The first slots of every 2^block_shift-th cell from first_cell, block b = item b, for b up
 * to blocks: cell_list_bounds then searches each cell between its block's two. A search of the
 * whole keys per cell made as many dependent reads as the keys have halvings (24 for 16M
 * particles); within a block of 256 cells a few. */
KERNEL void cell_list_block_bounds(const uint n, const uint first_cell, const uint block_shift,
                                   const uint blocks, GLOBAL const uint* keys,
                                   GLOBAL uint* block_start)
{
    const uint b = global_id(0);
    if (b > blocks) return;
    block_start[b] = cell_list_lower_bound(keys, 0u, n, first_cell + (b << block_shift));
}

/* The ranges of cells [first_cell, end_cell), from end_cell - first_cell + 1 work-items: item i
 * searches cell c = first_cell + i, whose first slot is also the end of cell c - 1, so one
 * search serves two bounds; it lies between the first slots of the blocks (of 2^block_shift
 * cells, cell_list_block_bounds) that begin at or before c and after it. */
KERNEL void cell_list_bounds(const uint first_cell, const uint end_cell, const uint block_shift, GLOBAL const uint* block_start,
                             GLOBAL const uint* keys, GLOBAL uint* cell_start,
                             GLOBAL uint* cell_end)
{
    const uint i = global_id(0), c = first_cell + i;
    if (c > end_cell) return;
    const uint b = i >> block_shift;
    const uint bound = cell_list_lower_bound(keys, block_start[b], block_start[b + 1u], c);
    if (c < end_cell) cell_start[c] = bound;
    if (c > first_cell) cell_end[c - 1u] = bound;
}

/* starts[s] = the first sorted slot of slab s, the cells [s * plane, (s + 1) * plane) (one value
 * of the slowest-varying cell coordinate), for s < slabs; starts[slabs] = n. */
KERNEL void cell_list_slab_starts(const uint slabs, const uint plane, const uint n,
                                  GLOBAL const uint* keys, GLOBAL uint* starts)
{
    const uint s = global_id(0);
    if (s > slabs) return;
    starts[s] = s < slabs ? cell_list_lower_bound(keys, 0u, n, s * plane) : n;
}

KERNEL void cell_list_sorted(const uint n, GLOBAL const uint* keys, GLOBAL uint* status)
{
    const uint i = global_id(0) + 1u;
    if (i < n && keys[i - 1u] > keys[i]) ATOMIC_OR(status, CELL_LIST_UNSORTED);
}

/* out[to + k * to_stride + s] = in[from + k * from_stride + order[s]] for the components
 * k < components. */
KERNEL void cell_list_gather_real(const uint n, const uint from, const uint from_stride,
                                  const uint to, const uint to_stride, const uint components,
                                  GLOBAL const uint* order, GLOBAL const real* in,
                                  GLOBAL real* out)
{
    const uint s = global_id(0);
    if (s >= n) return;
    const uint i = order[s];
    for (uint k = 0; k < components; ++k) out[to + k * to_stride + s] = in[from + k * from_stride + i];
}

KERNEL void cell_list_gather_uint(const uint n, const uint from, const uint to,
                                  GLOBAL const uint* order, GLOBAL const uint* in,
                                  GLOBAL uint* out)
{
    const uint s = global_id(0);
    if (s >= n) return;
    out[to + s] = in[from + order[s]];
}
