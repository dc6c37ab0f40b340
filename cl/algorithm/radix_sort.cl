/* Stable LSD radix sort of keys that carry uint values, 4 bits of the keys a pass (RadixSort,
 * lib/algorithm/radix_sort.cpp, runs the passes). One pass over bits [shift, shift + 4):
 *
 *   radix_count       each tile of RADIX_TILE keys counts its keys of each digit, into
 *                     counts[digit * tiles + tile]
 *   radix_scan_rows   where in the output each tile's keys of each digit begin,
 *                     offsets[digit * tiles + tile]: the exclusive prefix sum of the counts
 *                     (the keys of lower digits, then the digit's keys of earlier tiles)
 *   radix_scatter     each tile ranks its keys stably (work-item l takes the tile's keys
 *                     [l * RADIX_ITEMS, (l + 1) * RADIX_ITEMS), and a prefix sum of the
 *                     work-items' digit counts taken digit by digit gives each key its place),
 *                     sorts them in local memory, and writes them out in runs of one digit, so
 *                     that neighbouring work-items write neighbouring slots
 *
 * Keys are uint, or `real` with RADIX_REAL_KEYS=1: their bit patterns become unsigned words
 * that order as the numbers do (-0 as +0, so equal numbers keep their order; NaN keys go
 * somewhere unspecified). Build macros: RADIX_GROUP (work-group size, a power of two >= 16),
 * RADIX_ITEMS (keys a work-item ranks), RADIX_REAL_KEYS, RADIX_PADDED. */
#include "algorithm/group_scan.h"
#include "common/real.h"

/* Defaults (RadixSort sets all four from the device's limits). */
#ifndef RADIX_GROUP
#define RADIX_GROUP 256u
#endif
#ifndef RADIX_ITEMS
#define RADIX_ITEMS 8u
#endif
#ifndef RADIX_REAL_KEYS
#define RADIX_REAL_KEYS 0
#endif
#ifndef RADIX_PADDED
#define RADIX_PADDED 1
#endif

#define RADIX_DIGITS 16u
#define RADIX_TILE (RADIX_GROUP * RADIX_ITEMS)
/* With RADIX_PADDED (GPUs), local arrays have a spare slot every 16 (the digit counts) or 32
 * (the tile's keys): a work-item reads its 16 counts or its RADIX_ITEMS keys in a row, and
 * without the padding the work-items of a warp would hit the same few banks at each step. CPUs
 * have no banks, and the padding's arithmetic would only cost there. */
#if RADIX_PADDED
#define RADIX_COLUMN(i) ((i) + ((i) >> 4))
#define RADIX_SLOT(j) ((j) + ((j) >> 5))
#else
#define RADIX_COLUMN(i) (i)
#define RADIX_SLOT(j) (j)
#endif
#define RADIX_COLUMNS RADIX_COLUMN(RADIX_DIGITS * RADIX_GROUP)
#define RADIX_SLOTS RADIX_SLOT(RADIX_TILE)

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

/* The keys of a tile, [begin, begin + count): a tile holds RADIX_TILE, the last one fewer. */
INLINE uint radix_tile_count(uint n, uint begin) {
    return n - begin < RADIX_TILE ? n - begin : RADIX_TILE;
}

KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_count(const uint n, const uint shift,
                                                     GLOBAL const radix_key* keys,
                                                     GLOBAL uint* counts) {
    /* column[RADIX_COLUMN(d * RADIX_GROUP + l)]: work-item l's keys of digit d, which only l
     * touches. */
    LOCAL uint column[RADIX_COLUMNS];
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0), tile = group_id(0), tiles = num_groups(0);
    const uint begin = tile * RADIX_TILE, count = radix_tile_count(n, begin);
    for (uint d = 0u; d < RADIX_DIGITS; ++d) column[RADIX_COLUMN(d * RADIX_GROUP + l)] = 0u;
    for (uint j = l; j < count; j += RADIX_GROUP)
        column[RADIX_COLUMN(radix_digit(keys[begin + j], shift) * RADIX_GROUP + l)] += 1u;
    BARRIER_LOCAL;
    /* A digit's row in pieces of 16 columns, then the pieces of each row. */
    const uint per_row = RADIX_GROUP / RADIX_DIGITS;
    uint piece = 0u;
    for (uint k = 0u; k < RADIX_DIGITS; ++k) piece += column[RADIX_COLUMN(l * RADIX_DIGITS + k)];
    sums[l] = piece;
    BARRIER_LOCAL;
    if (l < RADIX_DIGITS) {
        uint total = 0u;
        for (uint k = 0u; k < per_row; ++k) total += sums[l * per_row + k];
        counts[l * tiles + tile] = total;
    }
}

/* The output slots where the tiles' keys of each digit begin, offsets[d * tiles + tile]: the keys
 * of digits below d, then the digit's keys of the earlier tiles, which is the exclusive prefix
 * sum of the counts in their digit-major order (`entries` = 16 tiles of them). Work-group g
 * takes entries [g * RADIX_TILE, (g + 1) * RADIX_TILE): it sums every count before them (all
 * its work-items, four counts a step), then scans its own, RADIX_ITEMS a work-item. So every
 * group works at once, where a group a digit left most of a GPU idle on a long row. */
KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scan_rows(const uint entries,
                                                         GLOBAL const uint* counts,
                                                         GLOBAL uint* offsets) {
    LOCAL uint sums[RADIX_GROUP];
    const uint l = local_id(0), first = group_id(0) * RADIX_TILE;
    /* first is a multiple of 4, so a step's four counts all lie before it. */
    uint below = 0u;
    for (uint j = 4u * l; j < first; j += 4u * RADIX_GROUP)
        below += counts[j] + counts[j + 1u] + counts[j + 2u] + counts[j + 3u];
    uint carry;
    group_exclusive_scan(below, RADIX_GROUP, sums, &carry);
    const uint mine = first + l * RADIX_ITEMS;
    uint run = 0u;
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (mine + k < entries) run += counts[mine + k];
    uint total;
    uint prefix = carry + group_exclusive_scan(run, RADIX_GROUP, sums, &total);
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (mine + k < entries) {
            offsets[mine + k] = prefix;
            prefix += counts[mine + k];
        }
}

KERNEL WORK_GROUP_SIZE(RADIX_GROUP) void radix_scatter(const uint n, const uint shift,
                                                       GLOBAL const radix_key* keys,
                                                       GLOBAL const uint* values,
                                                       GLOBAL const uint* offsets,
                                                       GLOBAL radix_key* keys_out,
                                                       GLOBAL uint* values_out) {
    LOCAL uint column[RADIX_COLUMNS];
    LOCAL uint sums[RADIX_GROUP];
    LOCAL radix_key tile_keys[RADIX_SLOTS];
    LOCAL uint tile_values[RADIX_SLOTS];
    LOCAL uint base[RADIX_DIGITS];
    const uint l = local_id(0), tile = group_id(0), tiles = num_groups(0);
    const uint begin = tile * RADIX_TILE, count = radix_tile_count(n, begin);
    for (uint j = l; j < count; j += RADIX_GROUP) {
        tile_keys[RADIX_SLOT(j)] = keys[begin + j];
        tile_values[RADIX_SLOT(j)] = values[begin + j];
    }
    for (uint d = 0u; d < RADIX_DIGITS; ++d) column[RADIX_COLUMN(d * RADIX_GROUP + l)] = 0u;
    BARRIER_LOCAL;

    const uint first = l * RADIX_ITEMS;
    radix_key mine[RADIX_ITEMS];
    uint mine_values[RADIX_ITEMS], digit[RADIX_ITEMS];
    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) {
            mine[k] = tile_keys[RADIX_SLOT(first + k)];
            mine_values[k] = tile_values[RADIX_SLOT(first + k)];
            digit[k] = radix_digit(mine[k], shift);
            column[RADIX_COLUMN(digit[k] * RADIX_GROUP + l)] += 1u;
        }
    BARRIER_LOCAL;

    /* Digit-major prefix sums of the columns: work-item l takes entries [16 l, 16 l + 16). */
    uint run = 0u;
    for (uint k = 0u; k < RADIX_DIGITS; ++k) run += column[RADIX_COLUMN(l * RADIX_DIGITS + k)];
    uint total;
    uint prefix = group_exclusive_scan(run, RADIX_GROUP, sums, &total);
    for (uint k = 0u; k < RADIX_DIGITS; ++k) {
        const uint c = column[RADIX_COLUMN(l * RADIX_DIGITS + k)];
        column[RADIX_COLUMN(l * RADIX_DIGITS + k)] = prefix;
        prefix += c;
    }
    BARRIER_LOCAL;
    /* Where this tile's keys of digit l begin in the output, less where they begin in the tile. */
    if (l < RADIX_DIGITS)
        base[l] = offsets[l * tiles + tile] - column[RADIX_COLUMN(l * RADIX_GROUP)];
    BARRIER_LOCAL;

    for (uint k = 0u; k < RADIX_ITEMS; ++k)
        if (first + k < count) {
            const uint at = RADIX_COLUMN(digit[k] * RADIX_GROUP + l);
            const uint slot = column[at];
            column[at] = slot + 1u;
            tile_keys[RADIX_SLOT(slot)] = mine[k];
            tile_values[RADIX_SLOT(slot)] = mine_values[k];
        }
    BARRIER_LOCAL;
    for (uint j = l; j < count; j += RADIX_GROUP) {
        const radix_key key = tile_keys[RADIX_SLOT(j)];
        const uint at = base[radix_digit(key, shift)] + j;
        keys_out[at] = key;
        values_out[at] = tile_values[RADIX_SLOT(j)];
    }
}
