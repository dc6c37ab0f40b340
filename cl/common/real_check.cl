/* Exercises the precision vocabulary of real.h so tests can compare it, in float and double,
 * against a float64 computation on the host. Row k of `out` (out[k * n + i]) holds check k for
 * input i; every store is a scalar store (Oclgrind checks this kernel). Expected values:
 *   0: x * y + 0.5          1: sqrt(x)        2: rsqrt(x)       3: exp(-y)
 *   4: fma(x, y, -x)        5: dot(v, v), v = (x, y, 1)          6: length((x, y, x, y))
 *   7: REAL_EPSILON         8: x / y
 * Inputs: x > 0, y != 0. */
#include "real.h"

#define REAL_CHECK_ROWS 9

KERNEL void real_check(const uint n, GLOBAL const real* RESTRICT xs,
                       GLOBAL const real* RESTRICT ys, GLOBAL real* RESTRICT out)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const real x = xs[i];
    const real y = ys[i];
    const real3 v = REAL3(x, y, REAL_C(1.0));
    const real4 w = REAL4(x, y, x, y);
    out[0 * n + i] = x * y + REAL_C(0.5);
    out[1 * n + i] = sqrt(x);
    out[2 * n + i] = rsqrt(x);
    out[3 * n + i] = exp(-y);
    out[4 * n + i] = fma(x, y, -x);
    out[5 * n + i] = dot(v, v);
    out[6 * n + i] = length(w);
    out[7 * n + i] = REAL_EPSILON;
    out[8 * n + i] = x / y;
}
