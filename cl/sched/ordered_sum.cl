/* One step of an ordered sum: into[into_at + i] += part[i], i in [0, n). OrderedSum adds the
 * devices' parts one launch at a time in device order, so each element's rounding is fixed. */
#include "common/real.h"

KERNEL void ordered_sum_add(const uint n, GLOBAL real* into, const uint into_at,
                            GLOBAL const real* part) {
    const uint i = global_id(0);
    if (i >= n) return;
    into[into_at + i] = into[into_at + i] + part[i];
}
