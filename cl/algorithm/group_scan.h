#ifndef PARTCL_ALGORITHM_GROUP_SCAN_H
#define PARTCL_ALGORITHM_GROUP_SCAN_H
/* A work-group's exclusive prefix sum in local memory, for the kernels that rank a tile's
 * elements (the radix sort's scatter, the cell list's re-sort). */
#include "common/real.h"

/* The exclusive prefix sum over the work-group (`size` work-items, a power of two, the group's
 * size) of each work-item's `value`, and the group's total; every work-item calls it, and `sums`
 * (`size` entries) is free again on return. */
INLINE uint group_exclusive_scan(const uint value, const uint size, LOCAL_SPACE uint* sums,
                                 PRIVATE uint* total)
{
    const uint l = local_id(0);
    sums[l] = value;
    BARRIER_LOCAL;
    for (uint step = 1u; step < size; step <<= 1) {
        const uint add = l >= step ? sums[l - step] : 0u;
        BARRIER_LOCAL;
        sums[l] += add;
        BARRIER_LOCAL;
    }
    const uint inclusive = sums[l];
    *total = sums[size - 1u];
    BARRIER_LOCAL;
    return inclusive - value;
}

#endif
