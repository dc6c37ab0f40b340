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
#include "algorithm/group_scan.h"

/* Bits of the status word. */
#define CELL_LIST_OUTSIDE 1u
#define CELL_LIST_NAN 2u
#define CELL_LIST_UNSORTED 4u

/* Particle i's cell; outside the grid or NaN, the cell after every real one (so that the bounds
 * never name it), reported in `status` for the host. */
INLINE uint cell_list_key_of(const uint i, const uint stride, GLOBAL const real* positions,
                             CELL_LIST_GRID_PARAMS, GLOBAL uint* status)
{
    const real x = positions[i];
    const real y = positions[stride + i];
#if CELL_LIST_DIMENSIONS == 3
    const real z = positions[2 * stride + i];
#else
    const real z = REAL_C(0.0);
#endif
    const uint cell = cell_list_cell(x, y, z, CELL_LIST_GRID);
    if (cell != CELL_LIST_NONE) return cell;
    ATOMIC_OR(status, (isnan(x) || isnan(y) || isnan(z)) ? CELL_LIST_NAN : CELL_LIST_OUTSIDE);
    return cell_nx * cell_ny * cell_nz;
}

KERNEL void cell_list_keys(const uint n, const uint stride, GLOBAL const real* positions,
                           CELL_LIST_GRID_PARAMS, GLOBAL uint* keys, GLOBAL uint* order,
                           GLOBAL uint* status)
{
    const uint i = global_id(0);
    if (i >= n) return;
    keys[i] = cell_list_key_of(i, stride, positions, CELL_LIST_GRID, status);
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

/* The re-sort (CellList::resort, when its keys still hold the last sort's): particles that lie
 * in the order the last sort put them, most still in the cell they had then. Slots whose cell is
 * unchanged (stayers) are in cell order already; the others (movers) are few. So the stayers are
 * kept in their order, the movers alone sorted, and the two merged by (cell, slot): exactly the
 * stable sort of all the cells, whatever the old keys are, as long as they are sorted.
 *   cell_list_moves      each tile's movers, counted (tiles of CELL_LIST_TILE slots)
 *   cell_list_scan_tiles each tile's first mover, and their number
 *   cell_list_partition  stayers and movers apart, each in slot order
 *   (sort_by_key of the movers' cells, their slots carried)
 *   cell_list_merge_splits, cell_list_merge   the two merged into keys and order
 * A tile is CELL_LIST_RUN slots per work-item of a group. */
#define CELL_LIST_GROUP 256u
#define CELL_LIST_RUN 4u
#define CELL_LIST_TILE (CELL_LIST_GROUP * CELL_LIST_RUN)

/* movers[tile] = the tile's slots whose cell is not keys[slot]; movers[tiles] = 0, so that the
 * scan of tiles + 1 counts ends in the total. Work-item l reads slots l, l + CELL_LIST_GROUP, ...
 * of the tile, so that a warp reads neighbouring slots. */
KERNEL WORK_GROUP_SIZE(CELL_LIST_GROUP) void cell_list_moves(
    const uint n, const uint stride, GLOBAL const real* positions, CELL_LIST_GRID_PARAMS,
    GLOBAL const uint* keys, GLOBAL uint* movers, GLOBAL uint* status)
{
    LOCAL uint sums[CELL_LIST_GROUP];
    const uint l = local_id(0), tile = group_id(0);
    uint moved = 0u;
    for (uint r = 0u; r < CELL_LIST_RUN; ++r) {
        const uint i = tile * CELL_LIST_TILE + r * CELL_LIST_GROUP + l;
        if (i < n && cell_list_key_of(i, stride, positions, CELL_LIST_GRID, status) != keys[i])
            ++moved;
    }
    uint total;
    group_exclusive_scan(moved, CELL_LIST_GROUP, sums, &total);
    if (l == 0u) movers[tile] = total;
    if (l == 0u && tile == 0u) movers[num_groups(0)] = 0u;
}

/* Stayers to stay_keys/stay_slots, movers to move_keys/move_slots, each in slot order; `first`
 * is the scan of cell_list_moves' counts. The tile's cells and whether each moved go to local
 * memory as the warps read them (neighbouring slots); work-item l then ranks its run of slots
 * [l * CELL_LIST_RUN, (l + 1) * CELL_LIST_RUN) in slot order, and the group writes them out as
 * it read them, so that neighbouring stayers go to neighbouring places. */
KERNEL WORK_GROUP_SIZE(CELL_LIST_GROUP) void cell_list_partition(
    const uint n, const uint stride, GLOBAL const real* positions, CELL_LIST_GRID_PARAMS,
    GLOBAL const uint* keys, GLOBAL const uint* first, GLOBAL uint* stay_keys,
    GLOBAL uint* stay_slots, GLOBAL uint* move_keys, GLOBAL uint* move_slots, GLOBAL uint* status)
{
    LOCAL uint sums[CELL_LIST_GROUP];
    /* Per slot t of the tile: its cell, whether it moved, where it goes. */
    LOCAL uint cells[CELL_LIST_TILE], places[CELL_LIST_TILE];
    LOCAL uchar moved[CELL_LIST_TILE];
    const uint l = local_id(0), tile = group_id(0), begin = tile * CELL_LIST_TILE;
    const uint count = n - begin < CELL_LIST_TILE ? n - begin : CELL_LIST_TILE;
    for (uint t = l; t < count; t += CELL_LIST_GROUP) {
        const uint cell = cell_list_key_of(begin + t, stride, positions, CELL_LIST_GRID, status);
        cells[t] = cell;
        moved[t] = cell != keys[begin + t];
    }
    BARRIER_LOCAL;
    const uint run = l * CELL_LIST_RUN;
    uint movers = 0u;
    for (uint r = 0u; r < CELL_LIST_RUN; ++r)
        if (run + r < count) movers += moved[run + r];
    uint total;
    uint mover = first[tile] + group_exclusive_scan(movers, CELL_LIST_GROUP, sums, &total);
    for (uint r = 0u; r < CELL_LIST_RUN; ++r) {
        const uint t = run + r;
        if (t >= count) break;
        places[t] = moved[t] ? mover++ : begin + t - mover;
    }
    BARRIER_LOCAL;
    for (uint t = l; t < count; t += CELL_LIST_GROUP) {
        if (moved[t]) {
            move_keys[places[t]] = cells[t];
            move_slots[places[t]] = begin + t;
        } else {
            stay_keys[places[t]] = cells[t];
            stay_slots[places[t]] = begin + t;
        }
    }
}

/* values[0, count) replaced by their exclusive prefix sum, by one work-group: the tiles' mover
 * counts, a few thousand; work-item l sums its run of them, the group scans the runs' sums. */
KERNEL WORK_GROUP_SIZE(CELL_LIST_GROUP) void cell_list_scan_tiles(const uint count,
                                                                   GLOBAL uint* values)
{
    LOCAL uint sums[CELL_LIST_GROUP];
    const uint l = local_id(0);
    const uint run = (count + CELL_LIST_GROUP - 1u) / CELL_LIST_GROUP;
    const uint begin = l * run < count ? l * run : count;
    const uint end = count - begin < run ? count : begin + run;
    uint sum = 0u;
    for (uint i = begin; i < end; ++i) sum += values[i];
    uint total;
    uint before = group_exclusive_scan(sum, CELL_LIST_GROUP, sums, &total);
    for (uint i = begin; i < end; ++i) {
        const uint value = values[i];
        values[i] = before;
        before += value;
    }
}

INLINE ulong cell_list_pair(const uint key, const uint slot)
{
    return ((ulong)key << 32) | slot;
}

/* How many of the first k outputs of merging a (na pairs) and b (nb) by (key, slot) come from a:
 * the least i with a[i] after b[k - 1 - i] (the merge path). From 0 rather than k - nb, the
 * pairs of b past its last counting as after every pair of a: Oclgrind 21.10 cannot run the
 * saturating subtraction LLVM makes of a clamped k - nb. */
#define CELL_LIST_MERGE_PATH(SPACE)                                                             \
    INLINE uint cell_list_merge_path_##SPACE(const uint k, SPACE const uint* a_keys,           \
                                             SPACE const uint* a_slots, const uint na,         \
                                             SPACE const uint* b_keys,                          \
                                             SPACE const uint* b_slots, const uint nb)         \
    {                                                                                           \
        uint low = 0u, high = k < na ? k : na;                                                  \
        while (low < high) {                                                                    \
            const uint middle = low + (high - low) / 2u;                                        \
            const uint j = k - 1u - middle;                                                     \
            if (j >= nb || cell_list_pair(a_keys[middle], a_slots[middle]) <                    \
                               cell_list_pair(b_keys[j], b_slots[j]))                           \
                low = middle + 1u;                                                              \
            else                                                                                \
                high = middle;                                                                  \
        }                                                                                       \
        return low;                                                                             \
    }
CELL_LIST_MERGE_PATH(GLOBAL)
CELL_LIST_MERGE_PATH(LOCAL_SPACE)

/* splits[t] = the stayers among the first CELL_LIST_TILE t outputs, for t <= tiles (the last
 * at n): where each tile of cell_list_merge begins on the merge path. A kernel of its own, one
 * search a work-item, so that the merge's groups do not wait on a search each. */
KERNEL void cell_list_merge_splits(const uint n, const uint m, const uint tiles,
                                   GLOBAL const uint* stay_keys, GLOBAL const uint* stay_slots,
                                   GLOBAL const uint* move_keys, GLOBAL const uint* move_slots,
                                   GLOBAL uint* splits)
{
    const uint t = global_id(0);
    if (t > tiles) return;
    const uint k = t < tiles ? t * CELL_LIST_TILE : n;
    splits[t] = cell_list_merge_path_GLOBAL(k, stay_keys, stay_slots, n - m, move_keys,
                                            move_slots, m);
}

/* keys[k], order[k] for the outputs k of tile g, [CELL_LIST_TILE g, CELL_LIST_TILE (g + 1)):
 * the merge of the stayers (n - m) and the sorted movers (m) by (cell, slot). The tile's
 * stayers and movers (as many as its outputs, from `splits`) are loaded into local memory;
 * work-item l merges its CELL_LIST_RUN outputs there (its own merge path) into a local copy
 * that the group writes out in order. */
KERNEL WORK_GROUP_SIZE(CELL_LIST_GROUP) void cell_list_merge(
    const uint n, GLOBAL const uint* splits, GLOBAL const uint* stay_keys,
    GLOBAL const uint* stay_slots, GLOBAL const uint* move_keys, GLOBAL const uint* move_slots,
    GLOBAL uint* keys, GLOBAL uint* order)
{
    LOCAL uint in_keys[CELL_LIST_TILE], in_slots[CELL_LIST_TILE];
    LOCAL uint out_keys[CELL_LIST_TILE], out_slots[CELL_LIST_TILE];
    const uint l = local_id(0), tile = group_id(0), first = tile * CELL_LIST_TILE;
    const uint count = n - first < CELL_LIST_TILE ? n - first : CELL_LIST_TILE;
    /* The tile's stayers [i0, splits[tile + 1]) at in[0, na), its movers [first - i0, ...)
     * after them. */
    const uint i0 = splits[tile], na = splits[tile + 1u] - i0, j0 = first - i0;
    for (uint t = l; t < count; t += CELL_LIST_GROUP) {
        in_keys[t] = t < na ? stay_keys[i0 + t] : move_keys[j0 + t - na];
        in_slots[t] = t < na ? stay_slots[i0 + t] : move_slots[j0 + t - na];
    }
    BARRIER_LOCAL;
    const uint k = l * CELL_LIST_RUN;
    if (k < count) {
        const uint nb = count - na;
        uint i = cell_list_merge_path_LOCAL_SPACE(k, in_keys, in_slots, na, in_keys + na,
                                                  in_slots + na, nb);
        uint j = na + k - i;
        const uint end = count - k < CELL_LIST_RUN ? count : k + CELL_LIST_RUN;
        for (uint out = k; out < end; ++out) {
            const int take_stayer =
                j >= count || (i < na && cell_list_pair(in_keys[i], in_slots[i]) <
                                             cell_list_pair(in_keys[j], in_slots[j]));
            const uint from = take_stayer ? i : j;
            out_keys[out] = in_keys[from];
            out_slots[out] = in_slots[from];
            if (take_stayer) ++i;
            else ++j;
        }
    }
    BARRIER_LOCAL;
    for (uint t = l; t < count; t += CELL_LIST_GROUP) {
        keys[first + t] = out_keys[t];
        order[first + t] = out_slots[t];
    }
}
