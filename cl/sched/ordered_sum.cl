/* One step of an ordered sum, i in [0, n): into[into_at + i] = part[i] for the first part,
 * into[into_at + i] + part[i] for each later one. OrderedSum launches it once per device in
 * device order, so each element's rounding is fixed. The first part is stored, not added to a
 * zero, so that a sum of one part is that part bit for bit (-0 + 0 would be +0). */
#include "common/real.h"

KERNEL void ordered_sum_add(const uint n, GLOBAL real* into, const uint into_at,
                            GLOBAL const real* part, const uint first) {
    const uint i = global_id(0);
    if (i >= n) return;
    if (first)
        into[into_at + i] = part[i];
    else
        into[into_at + i] = into[into_at + i] + part[i];
}
