/* Linear combinations of state vectors, the one operation explicit integrators need:
 *   out[out_at + i] = base[base_at + i] + sum_k c_k * t_k[t_k_at + i],   i in [0, n)
 * with COMBINE_TERMS (1 to 8) terms, fixed per build so the loop has no branches. Any buffer may
 * alias another (y = y + h k is the common case), so nothing is `restrict`. */
#include "common/real.h"

#ifndef COMBINE_TERMS
#define COMBINE_TERMS 1
#endif
#if COMBINE_TERMS < 1 || COMBINE_TERMS > 8
#error "COMBINE_TERMS must lie in 1..8"
#endif

#define TERM_PARAMS(k) , const real c##k, GLOBAL const real* t##k, const uint t##k##_at
#define TERM(k) + c##k * t##k[t##k##_at + i]

KERNEL void combine(const uint n, GLOBAL real* out, const uint out_at, GLOBAL const real* base,
                    const uint base_at
                    TERM_PARAMS(0)
#if COMBINE_TERMS > 1
                    TERM_PARAMS(1)
#endif
#if COMBINE_TERMS > 2
                    TERM_PARAMS(2)
#endif
#if COMBINE_TERMS > 3
                    TERM_PARAMS(3)
#endif
#if COMBINE_TERMS > 4
                    TERM_PARAMS(4)
#endif
#if COMBINE_TERMS > 5
                    TERM_PARAMS(5)
#endif
#if COMBINE_TERMS > 6
                    TERM_PARAMS(6)
#endif
#if COMBINE_TERMS > 7
                    TERM_PARAMS(7)
#endif
                    )
{
    const uint i = global_id(0);
    if (i >= n) return;
    real sum = base[base_at + i] TERM(0)
#if COMBINE_TERMS > 1
        TERM(1)
#endif
#if COMBINE_TERMS > 2
        TERM(2)
#endif
#if COMBINE_TERMS > 3
        TERM(3)
#endif
#if COMBINE_TERMS > 4
        TERM(4)
#endif
#if COMBINE_TERMS > 5
        TERM(5)
#endif
#if COMBINE_TERMS > 6
        TERM(6)
#endif
#if COMBINE_TERMS > 7
        TERM(7)
#endif
        ;
    out[out_at + i] = sum;
}

/* Dormand-Prince error measure: per element |e_i| / (atol + rtol * max(|y_i|, |y_new_i|)),
 * e = y_new - y_hat given as a combination the host already formed, for the n elements from
 * `at` (one device's range), into out[0, n). The host reduces the result (max norm); a NaN
 * becomes REAL_MAX so the step is rejected, not accepted. */
KERNEL void scaled_error(const uint n, const uint at, GLOBAL const real* err, GLOBAL const real* y,
                         GLOBAL const real* y_new, const real atol, const real rtol,
                         GLOBAL real* out)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const uint k = at + i;
    const real scale = atol + rtol * fmax(fabs(y[k]), fabs(y_new[k]));
    const real e = fabs(err[k]) / scale;
    out[i] = isnan(e) ? REAL_MAX : e;
}
