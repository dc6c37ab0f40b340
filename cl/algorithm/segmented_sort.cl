/* SegmentedSort's portable path (lib/algorithm/segmented_sort.cpp): segment ids, and gathers
 * by a permutation. */
#include "common/real.h"

/* ids[i] = the segment holding i (the last s with offsets[s] <= i; offsets[segments] = n),
 * index[i] = i. */
KERNEL void segmented_sort_ids(const uint n, const uint segments, GLOBAL const uint* RESTRICT offsets,
                               GLOBAL uint* RESTRICT ids, GLOBAL uint* RESTRICT index)
{
    const uint i = global_id(0);
    if (i >= n) return;
    uint low = 1, high = segments;  /* the first s in [1, segments] with offsets[s] > i */
    while (low < high) {
        const uint middle = low + (high - low) / 2;
        if (offsets[middle] <= i) low = middle + 1;
        else high = middle;
    }
    ids[i] = low - 1;
    index[i] = i;
}

KERNEL void segmented_sort_gather_real(const uint n, GLOBAL const uint* RESTRICT index,
                                       GLOBAL const real* RESTRICT in, GLOBAL real* RESTRICT out)
{
    const uint i = global_id(0);
    if (i < n) out[i] = in[index[i]];
}

KERNEL void segmented_sort_gather_uint(const uint n, GLOBAL const uint* RESTRICT index,
                                       GLOBAL const uint* RESTRICT in, GLOBAL uint* RESTRICT out)
{
    const uint i = global_id(0);
    if (i < n) out[i] = in[index[i]];
}
