/* Stable LSD radix sort of keys that carry uint values, 4 bits of the keys a pass (RadixSort,
 * lib/algorithm/radix_sort.cpp, runs the passes). One pass over bits [shift, shift + 4):
 *
 *   radix_count       each tile of RADIX_TILE keys counts its keys of each digit, into
 *                     counts[digit * tiles + tile]
 *   radix_scan_reduce, radix_scan_totals, radix_scan_blocks
 *                     the exclusive prefix sum of those counts in that order: where in the
 *                     output the keys of each digit of each tile begin
 *   radix_scatter     each tile ranks its keys stably (work-item l takes the tile's keys
 *                     [l * RADIX_ITEMS, (l + 1) * RADIX_ITEMS), and a prefix sum of the
 *                     work-items' digit counts taken digit by digit gives each key its place),
 *                     sorts them in local memory, and writes them out in runs of one digit, so
 *                     that neighbouring work-items write neighbouring slots
 *
 * Keys are uint, or `real` with RADIX_REAL_KEYS=1: their bit patterns become unsigned words
 * that order as the numbers do (-0 as +0, so equal numbers keep their order; NaN keys go
 * somewhere unspecified). Build macros: RADIX_GROUP (work-group size, a power of two >= 16),
 * RADIX_ITEMS (keys a work-item ranks), RADIX_REAL_KEYS. */
#include "common/real.h"

#define RADIX_DIGITS 16u
#define RADIX_TILE (RADIX_GROUP * RADIX_ITEMS)

#if RADIX_REAL_KEYS
typedef real radix_key;
#if PARTCL_REAL_IS_DOUBLE
typedef ulong radix_word;
INLINE radix_word radix_ordered(double x) {
#ifdef PARTCL_CUDA
    ulong u = (ulong)__double_as_longlong(x);
#else
    ulong u = as_ulong(x);
#endif
    if (u == 0x8000000000000000ul) u = 0ul;
    return (u >> 63) ? ~u : (u | 0x8000000000000000ul);
}
#else
typedef uint radix_word;
INLINE radix_word radix_ordered(float x) {
#ifdef PARTCL_CUDA
    uint u = __float_as_uint(x);
#else
    uint u = as_uint(x);
#endif
    if (u == 0x80000000u) u = 0u;
    return (u >> 31) ? ~u : (u | 0x80000000u);
}
#endif
#else
typedef uint radix_key;
typedef uint radix_word;
INLINE radix_word radix_ordered(uint x) { return x; }
#endif

INLINE uint radix_digit(radix_key key, uint shift) {
    return (uint)(radix_ordered(key) >> shift) & (RADIX_DIGITS - 1u);
}

/* The exclusive prefix sum over the work-group of each work-item's `value`, and the group's
 * total; every work-item calls it, and `sums` (RADIX_GROUP entries) is free again on return. */
INLINE uint radix_group_scan(uint value, LOCAL_SPACE uint* sums, PRIVATE uint* total) {
    const uint l = local_id(0);
    sums[l] = value;
    BARRIER_LOCAL;
    for (uint step = 1u; step < RADIX_GROUP; step <<= 1) {
        const uint add = l >= step ? sums[l - step] : 0u;
        BARRIER_LOCAL;
        sums[l] += add;
        BARRIER_LOCAL;
    }
    const uint inclusive = sums[l];
    *total = sums[RADIX_GROUP - 1u];
    BARRIER_LOCAL;
    return inclusive - value;
}

/* The keys of a tile, [begin, begin + count): a tile holds RADIX_TILE, the last one fewer. */
INLINE uint radix_tile_count(uint n, uint begin) {
    return n - begin < RADIX_TILE ? n - begin : RADIX_TILE;
}

KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_count(const uint n, const uint shift,
                                                     GLOBAL const radix_key* keys,
                                                     GLOBAL uint* counts) {
    /* column[d * RADIX_GROUP + l]: work-item l's keys of digit d, which only l touches. */
    LOCAL uint column[RADIX_DIGITS * RADIX_GROUP];
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0), tile = group_id(0), tiles = num_groups(0);
    const uint begin = tile * RADIX_TILE, count = radix_tile_count(n, begin);
    for (uint d = 0u; d < RADIX_DIGITS; ++d) column[d * RADIX_GROUP + l] = 0u;
    for (uint j = l; j < count; j += RADIX_GROUP)
        column[radix_digit(keys[begin + j], shift) * RADIX_GROUP + l] += 1u;
    BARRIER_LOCAL;
    /* A digit's row in pieces of 16 columns, then the pieces of each row. */
    const uint per_row = RADIX_GROUP / RADIX_DIGITS;
    uint piece = 0u;
    for (uint k = 0u; k < RADIX_DIGITS; ++k) piece += column[l * RADIX_DIGITS + k];
    sums[l] = piece;
    BARRIER_LOCAL;
    if (l < RADIX_DIGITS) {
        uint total = 0u;
        for (uint k = 0u; k < per_row; ++k) total += sums[l * per_row + k];
        counts[l * tiles + tile] = total;
    }
}

/* Each block of RADIX_TILE counts: its sum, into totals[block]. */
KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scan_reduce(const uint m, GLOBAL const uint* counts,
                                                           GLOBAL uint* totals) {
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0), block = group_id(0);
    const uint begin = block * RADIX_TILE, count = radix_tile_count(m, begin);
    uint sum = 0u;
    for (uint j = l; j < count; j += RADIX_GROUP) sum += counts[begin + j];
    uint total;
    radix_group_scan(sum, sums, &total);
    if (l == 0u) totals[block] = total;
}

/* The blocks' totals, in place, into their exclusive prefix sum (one work-group). */
KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scan_totals(const uint blocks, GLOBAL uint* totals) {
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0);
    uint carry = 0u;
    for (uint first = 0u; first < blocks; first += RADIX_GROUP) {
        const uint i = first + l;
        const uint value = i < blocks ? totals[i] : 0u;
        uint total;
        const uint prefix = radix_group_scan(value, sums, &total);
        if (i < blocks) totals[i] = carry + prefix;
        carry += total;
    }
}

/* Each block of counts, in place, into the exclusive prefix sum of all counts. */
KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scan_blocks(const uint m, GLOBAL uint* counts,
                                                           GLOBAL const uint* totals) {
    LOCAL uint block_counts[RADIX_TILE];
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0), block = group_id(0);
    const uint begin = block * RADIX_TILE, count = radix_tile_count(m, begin);
    for (uint j = l; j < count; j += RADIX_GROUP) block_counts[j] = counts[begin + j];
    BARRIER_LOCAL;
    const uint first = l * RADIX_ITEMS;
    uint run = 0u;
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) run += block_counts[first + k];
    uint total;
    uint prefix = totals[block] + radix_group_scan(run, sums, &total);
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) {
            const uint c = block_counts[first + k];
            block_counts[first + k] = prefix;
            prefix += c;
        }
    BARRIER_LOCAL;
    for (uint j = l; j < count; j += RADIX_GROUP) counts[begin + j] = block_counts[j];
}

KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scatter(const uint n, const uint shift,
                                                       GLOBAL const radix_key* keys,
                                                       GLOBAL const uint* values,
                                                       GLOBAL const uint* offsets,
                                                       GLOBAL radix_key* keys_out,
                                                       GLOBAL uint* values_out) {
    LOCAL uint column[RADIX_DIGITS * RADIX_GROUP];
    LOCAL uint sums[RADIX_GROUP];
    LOCAL radix_key tile_keys[RADIX_TILE];
    LOCAL uint tile_values[RADIX_TILE];
    LOCAL uint base[RADIX_DIGITS];
    const uint l = local_id(0), tile = group_id(0), tiles = num_groups(0);
    const uint begin = tile * RADIX_TILE, count = radix_tile_count(n, begin);
    for (uint j = l; j < count; j += RADIX_GROUP) {
        tile_keys[j] = keys[begin + j];
        tile_values[j] = values[begin + j];
    }
    for (uint d = 0u; d < RADIX_DIGITS; ++d) column[d * RADIX_GROUP + l] = 0u;
    BARRIER_LOCAL;

    const uint first = l * RADIX_ITEMS;
    radix_key mine[RADIX_ITEMS];
    uint mine_values[RADIX_ITEMS], digit[RADIX_ITEMS];
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) {
            mine[k] = tile_keys[first + k];
            mine_values[k] = tile_values[first + k];
            digit[k] = radix_digit(mine[k], shift);
            column[digit[k] * RADIX_GROUP + l] += 1u;
        }
    BARRIER_LOCAL;

    /* Digit-major prefix sums of the columns: work-item l takes entries [16 l, 16 l + 16). */
    uint run = 0u;
    for (uint k = 0u; k < RADIX_DIGITS; ++k) run += column[l * RADIX_DIGITS + k];
    uint total;
    uint prefix = radix_group_scan(run, sums, &total);
    for (uint k = 0u; k < RADIX_DIGITS; ++k) {
        const uint c = column[l * RADIX_DIGITS + k];
        column[l * RADIX_DIGITS + k] = prefix;
        prefix += c;
    }
    BARRIER_LOCAL;
    /* Where this tile's keys of digit l begin in the output, less where they begin in the tile. */
    if (l < RADIX_DIGITS) base[l] = offsets[l * tiles + tile] - column[l * RADIX_GROUP];
    BARRIER_LOCAL;

    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) {
            const uint slot = column[digit[k] * RADIX_GROUP + l];
            column[digit[k] * RADIX_GROUP + l] = slot + 1u;
            tile_keys[slot] = mine[k];
            tile_values[slot] = mine_values[k];
        }
    BARRIER_LOCAL;
    for (uint j = l; j < count; j += RADIX_GROUP) {
        const radix_key key = tile_keys[j];
        const uint at = base[radix_digit(key, shift)] + j;
        keys_out[at] = key;
        values_out[at] = tile_values[j];
    }
}
