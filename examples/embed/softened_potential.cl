/* The example's own kernel: the softened gravitational potential of every particle,
 *
 *     phi_i = -G * sum_{j != i} m_j / sqrt(|r_j - r_i|^2 + SOFTENING^2)
 *
 * written once in partcl's precision vocabulary (`real`, REAL_C, real_rsqrt from
 * common/real.h; KERNEL, GLOBAL, RESTRICT, global_id from common/portable.h), so the host picks
 * float or double per build. SOFTENING is a build-time define (-D SOFTENING=...), G a run-time
 * argument of type real. Particles are a structure of arrays; any n works (bounds-checked).
 *
 * One launch computes targets [begin, end) of the n particles, as one device's part of a
 * multi-device launch: work-item k takes target begin + k (the range's start is an argument, so
 * no global offset is needed) and writes phi[phi_offset + k]: phi is the whole output on the
 * device that writes in place, or the device's own slice. */
#include "common/real.h"

#ifndef SOFTENING
#error "build with -D SOFTENING=<length>"
#endif

KERNEL void softened_potential(const uint begin, const uint end, const uint n, const real G,
                               GLOBAL const real* RESTRICT x, GLOBAL const real* RESTRICT y,
                               GLOBAL const real* RESTRICT z, GLOBAL const real* RESTRICT m,
                               GLOBAL real* RESTRICT phi, const uint phi_offset)
{
    const uint i = begin + global_id(0);
    if (i >= end) return;
    const real eps2 = (real)(SOFTENING) * (real)(SOFTENING);
    const real xi = x[i];
    const real yi = y[i];
    const real zi = z[i];
    real sum = REAL_C(0.0);
    for (uint j = 0; j < n; ++j) {
        if (j == i) continue;
        const real dx = x[j] - xi;
        const real dy = y[j] - yi;
        const real dz = z[j] - zi;
        sum += m[j] * real_rsqrt(dx * dx + dy * dy + dz * dz + eps2);
    }
    phi[phi_offset + (i - begin)] = -G * sum;
}
