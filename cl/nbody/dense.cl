/* All-pairs gravity with Plummer softening, over structure-of-arrays buffers.
 *
 * Targets [begin, end) feel every source [0, n):
 *   a_i = G * sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
 *   phi_i = -G * sum_j m_j / (|r_j - r_i|^2 + eps^2)^(1/2)       (DENSE_POTENTIAL)
 * Pairs at exactly zero separation are skipped (the self-term, and coincident bodies), so
 * eps = 0 is allowed.
 *
 * Layout: `pos` holds x[0, n) then y then z (the first half of an N-body state vector); `acc`
 * receives a_x of target i at acc[acc_offset + (i - begin)], a_y stride elements later, a_z
 * 2 * stride later, and the potential goes to pot[i - begin]. A device computing a slice writes
 * a buffer of that slice's length (stride = slice length); one device computing everything
 * writes straight into the derivative (begin 0, offset 3n, stride n).
 *
 * Tuning macros (chosen per device by DenseGravity):
 *   DENSE_TILE       0: each work-item loops over the sources straight from global memory
 *                    (CPUs: the compiler vectorises across work-items, local memory only
 *                    costs); > 0: sources are staged through local memory in tiles of
 *                    DENSE_TILE, which must equal the work-group size (GPUs).
 *   DENSE_UNROLL     tiled form only: unroll factor of the loop over a full tile.
 *   DENSE_TARGETS    tiled form only: targets per work-item (each source fetched from local
 *                    memory then serves that many; a work-group covers DENSE_TILE *
 *                    DENSE_TARGETS targets, so launch ceil(count / DENSE_TARGETS) work-items).
 *   DENSE_POTENTIAL  1: also write the potential (`pot` must then be a buffer).
 *   DENSE_LANES      untiled form only: keep this many partial sums over sources (CPUs: the
 *                    compiler may not reorder one scalar sum without fast-math, but it packs
 *                    independent ones into vectors; the partial sums are added in a fixed
 *                    order, so results stay deterministic). 0: one sum. Written with scalars,
 *                    not real8, because Oclgrind 21.10's --uninitialized crashes on vector
 *                    arithmetic. In double it must be even: lanes l and l + DENSE_LANES / 2
 *                    share a division.
 * Any n: the last tile is masked, targets past `end` only help load tiles. */
#include "common/real.h"

#ifndef DENSE_TILE
#define DENSE_TILE 0
#endif
#ifndef DENSE_POTENTIAL
#define DENSE_POTENTIAL 0
#endif
#ifndef DENSE_LANES
#define DENSE_LANES 0
#endif
#ifndef DENSE_UNROLL
#define DENSE_UNROLL 1
#endif
#ifndef DENSE_TARGETS
#define DENSE_TARGETS 1
#endif
/* In double the untiled form pairs its lanes so that two sources share one division (see
 * DENSE_INTERACT_PAIR): double's range holds (r^2 + eps^2)^3 for separations from 1e-51 to
 * 1e51, float's would not. */
#if DENSE_TILE == 0 && DENSE_LANES && PARTCL_REAL_IS_DOUBLE
#if DENSE_LANES % 2
#error "DENSE_LANES must be even in double"
#endif
#define DENSE_SHARED_DIVIDE 1
#else
#define DENSE_SHARED_DIVIDE 0
#endif
#define DENSE_PRAGMA(x) _Pragma(#x)
#define DENSE_UNROLL_BY(n) DENSE_PRAGMA(unroll n)

#if DENSE_TILE == 0 && DENSE_LANES
inline real sum_lanes(const real* v)
{
    real sum = v[0];
    for (uint l = 1; l < DENSE_LANES; ++l) sum += v[l];
    return sum;
}
#endif

/* Source (xj, yj, zj, mj) acting on target (xi, yi, zi), added to sums (sx, sy, sz, sp). */
#define DENSE_INTERACT(xj, yj, zj, mj, xi, yi, zi, sx, sy, sz, sp)      \
    {                                                                   \
        const real dx = (xj) - (xi);                                    \
        const real dy = (yj) - (yi);                                    \
        const real dz = (zj) - (zi);                                    \
        const real r2 = dx * dx + dy * dy + dz * dz;                    \
        const real inv_r = r2 > REAL_C(0.0) ? real_rsqrt(r2 + eps2) : REAL_C(0.0); \
        const real m_inv_r = (mj) * inv_r;                              \
        const real s = m_inv_r * inv_r * inv_r;                         \
        (sx) += s * dx;                                                 \
        (sy) += s * dy;                                                 \
        (sz) += s * dz;                                                 \
        (sp) += m_inv_r;                                                \
    }

/* Sources ja and jb on the target, sharing one division: with c = (r^2 + eps^2)^(3/2),
 * 1/c_a = c_b / (c_a c_b) and 1/c_b = c_a / (c_a c_b). Division and square root share one
 * unpipelined unit on CPUs, so this trades a division for three multiplications. Masked
 * pairs take c = 1, so a zero separation with eps = 0 cannot poison its partner. */
#define DENSE_INTERACT_PAIR(ja, jb, sxa, sya, sza, spa, sxb, syb, szb, spb)            \
    {                                                                             \
        const real dxa = x[ja] - xi, dya = y[ja] - yi, dza = z[ja] - zi;          \
        const real dxb = x[jb] - xi, dyb = y[jb] - yi, dzb = z[jb] - zi;          \
        const real r2a = dxa * dxa + dya * dya + dza * dza;                       \
        const real r2b = dxb * dxb + dyb * dyb + dzb * dzb;                       \
        const real ea = r2a + eps2, eb = r2b + eps2;                              \
        const real ca = r2a > REAL_C(0.0) ? ea * sqrt(ea) : REAL_C(1.0);          \
        const real cb = r2b > REAL_C(0.0) ? eb * sqrt(eb) : REAL_C(1.0);          \
        const real shared = REAL_C(1.0) / (ca * cb);                              \
        const real sa = r2a > REAL_C(0.0) ? m[ja] * cb * shared : REAL_C(0.0);     \
        const real sb = r2b > REAL_C(0.0) ? m[jb] * ca * shared : REAL_C(0.0); \
        (sxa) += sa * dxa;                                                        \
        (sya) += sa * dya;                                                        \
        (sza) += sa * dza;                                                        \
        (spa) += sa * ea;                                                         \
        (sxb) += sb * dxb;                                                        \
        (syb) += sb * dyb;                                                        \
        (szb) += sb * dzb;                                                        \
        (spb) += sb * eb;                                                         \
    }

#if DENSE_TILE > 0
__attribute__((reqd_work_group_size(DENSE_TILE, 1, 1)))
#endif
KERNEL void dense_gravity(const uint begin, const uint end, const uint n, const real eps2,
                          const real G, GLOBAL const real* RESTRICT pos,
                          GLOBAL const real* RESTRICT m, GLOBAL real* RESTRICT acc,
                          const uint acc_offset, const uint stride, GLOBAL real* RESTRICT pot)
{
    GLOBAL const real* RESTRICT x = pos;
    GLOBAL const real* RESTRICT y = pos + n;
    GLOBAL const real* RESTRICT z = pos + 2 * n;
#if DENSE_TILE > 0
    LOCAL real tx[DENSE_TILE];
    LOCAL real ty[DENSE_TILE];
    LOCAL real tz[DENSE_TILE];
    LOCAL real tm[DENSE_TILE];
    const uint lane = local_id(0);
    /* Work-group g owns targets begin + g * DENSE_TILE * DENSE_TARGETS + [0, DENSE_TILE *
     * DENSE_TARGETS); work-item `lane` takes every DENSE_TILE-th of them, so neighbouring
     * work-items touch neighbouring bodies, and each source read from local memory serves
     * DENSE_TARGETS targets. */
    const uint first = begin + group_id(0) * (DENSE_TILE * DENSE_TARGETS) + lane;
    real xi[DENSE_TARGETS], yi[DENSE_TARGETS], zi[DENSE_TARGETS];
    real sx[DENSE_TARGETS], sy[DENSE_TARGETS], sz[DENSE_TARGETS], sp[DENSE_TARGETS];
    DENSE_PRAGMA(unroll)
    for (uint t = 0; t < DENSE_TARGETS; ++t) {
        const uint i = first + t * DENSE_TILE;
        const int active = i < end;
        xi[t] = active ? x[i] : REAL_C(0.0);
        yi[t] = active ? y[i] : REAL_C(0.0);
        zi[t] = active ? z[i] : REAL_C(0.0);
        sx[t] = sy[t] = sz[t] = sp[t] = REAL_C(0.0);
    }
    for (uint tile = 0; tile < n; tile += DENSE_TILE) {
        const uint j = tile + lane;
        if (j < n) {
            tx[lane] = x[j];
            ty[lane] = y[j];
            tz[lane] = z[j];
            tm[lane] = m[j];
        }
        BARRIER_LOCAL;
        const uint count = min((uint)DENSE_TILE, n - tile);
        if (count == DENSE_TILE) {
            /* A full tile: a trip count the compiler knows, so it can unroll. */
            DENSE_UNROLL_BY(DENSE_UNROLL)
            for (uint k = 0; k < DENSE_TILE; ++k) {
                const real xj = tx[k], yj = ty[k], zj = tz[k], mj = tm[k];
                DENSE_PRAGMA(unroll)
                for (uint t = 0; t < DENSE_TARGETS; ++t)
                    DENSE_INTERACT(xj, yj, zj, mj, xi[t], yi[t], zi[t], sx[t], sy[t], sz[t], sp[t]);
            }
        } else {
            for (uint k = 0; k < count; ++k) {
                const real xj = tx[k], yj = ty[k], zj = tz[k], mj = tm[k];
                DENSE_PRAGMA(unroll)
                for (uint t = 0; t < DENSE_TARGETS; ++t)
                    DENSE_INTERACT(xj, yj, zj, mj, xi[t], yi[t], zi[t], sx[t], sy[t], sz[t], sp[t]);
            }
        }
        BARRIER_LOCAL;
    }
    DENSE_PRAGMA(unroll)
    for (uint t = 0; t < DENSE_TARGETS; ++t) {
        const uint i = first + t * DENSE_TILE;
        if (i >= end) continue;
        const uint k = acc_offset + (i - begin);
        acc[k] = G * sx[t];
        acc[k + stride] = G * sy[t];
        acc[k + 2 * stride] = G * sz[t];
#if DENSE_POTENTIAL
        pot[i - begin] = -G * sp[t];
#endif
    }
#else
    const uint i = begin + global_id(0);
    if (i >= end) return;
    real sx = REAL_C(0.0), sy = REAL_C(0.0), sz = REAL_C(0.0), sp = REAL_C(0.0);
    const real xi = x[i];
    const real yi = y[i];
    const real zi = z[i];
    uint j = 0;
#if DENSE_LANES
    {
        /* Independent partial sums over sources j = DENSE_LANES k + l, written as scalars so
         * Oclgrind can check them; the CPU compiler packs the lanes into vectors. */
        real px[DENSE_LANES], py[DENSE_LANES], pz[DENSE_LANES], pp[DENSE_LANES];
        for (uint l = 0; l < DENSE_LANES; ++l) px[l] = py[l] = pz[l] = pp[l] = REAL_C(0.0);
        for (; j + DENSE_LANES <= n; j += DENSE_LANES) {
#if DENSE_SHARED_DIVIDE
            for (uint l = 0; l < DENSE_LANES / 2; ++l)
                DENSE_INTERACT_PAIR(j + l, j + l + DENSE_LANES / 2, px[l], py[l], pz[l], pp[l],
                                    px[l + DENSE_LANES / 2], py[l + DENSE_LANES / 2],
                                    pz[l + DENSE_LANES / 2], pp[l + DENSE_LANES / 2]);
#else
            for (uint l = 0; l < DENSE_LANES; ++l)
                DENSE_INTERACT(x[j + l], y[j + l], z[j + l], m[j + l], xi, yi, zi, px[l], py[l],
                               pz[l], pp[l]);
#endif
        }
        sx = sum_lanes(px);
        sy = sum_lanes(py);
        sz = sum_lanes(pz);
        sp = sum_lanes(pp);
    }
#endif
    for (; j < n; ++j) DENSE_INTERACT(x[j], y[j], z[j], m[j], xi, yi, zi, sx, sy, sz, sp);
    const uint k = acc_offset + (i - begin);
    acc[k] = G * sx;
    acc[k + stride] = G * sy;
    acc[k + 2 * stride] = G * sz;
#if DENSE_POTENTIAL
    pot[i - begin] = -G * sp;
#endif
#endif /* DENSE_TILE */
}
