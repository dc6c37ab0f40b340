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
 *   DENSE_SOFTENED   1: eps^2 is at least REAL_MIN, so no interaction divides by zero and
 *                    only the potential has to skip pairs at zero separation (fewer
 *                    instructions per interaction); 0: eps^2 may be 0.
 *   DENSE_LANES      untiled form only: keep this many partial sums over sources (CPUs: the
 *                    compiler may not reorder one scalar sum without fast-math, but it packs
 *                    independent ones into vectors; the partial sums are added in a fixed
 *                    order, so results stay deterministic). 0: one sum. Written with scalars,
 *                    not real8, because Oclgrind 21.10's --uninitialized crashes on vector
 *                    arithmetic. In double it must be even: lanes l and l + DENSE_LANES / 2
 *                    share a division.
 * Any n: the last tile is masked, targets past `end` only help load tiles.
 *
 * Source parts (tiled form): a launch of `blocks` x P work-groups splits the sources into P
 * parts of `chunk` (a multiple of DENSE_TILE): work-group g takes targets of block g % blocks
 * and sources [p chunk, (p + 1) chunk) with p = g / blocks, and writes its partial sums where
 * part 0 would, 3 * stride elements further per part (the potential stride further per part).
 * dense_sum_parts then adds the parts in order. A launch may take parts first_part on (the
 * launch's p-th group of blocks is part first_part + p): the parts whose sources are there
 * first go first (DistributedDenseGravity, while the others' blocks arrive). Few targets then still fill a GPU: 16384
 * bodies are 64 work-groups of 256, half an H100's multiprocessors, and 1M bodies with 4
 * targets per work-item 1.55 waves of work-groups; parts give every multiprocessor work to the
 * end (docs/performance.md). P = 1 (chunk >= n) is the plain launch. */
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
#ifndef DENSE_SOFTENED
#define DENSE_SOFTENED 0
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
INLINE real sum_lanes(const real* v)
{
    real sum = v[0];
    for (uint l = 1; l < DENSE_LANES; ++l) sum += v[l];
    return sum;
}
#endif

/* Pairs at zero separation are skipped. Softened (DENSE_SOFTENED: eps^2 is a normal number),
 * such a pair's force term is exactly zero anyway (dx = dy = dz = 0) and only the potential
 * needs the test; unsoftened, eps^2 = 0 and r2e below is r^2, tested before the division. */
#if DENSE_SOFTENED
#define DENSE_IF_APART(r2e, value, otherwise) (value)
#else
#define DENSE_IF_APART(r2e, value, otherwise) ((r2e) > REAL_C(0.0) ? (value) : (otherwise))
#endif
#if DENSE_POTENTIAL
#define DENSE_ADD_POTENTIAL(sum, dx, dy, dz, value) \
    (sum) += (dx) * (dx) + (dy) * (dy) + (dz) * (dz) > REAL_C(0.0) ? (value) : REAL_C(0.0)
#else
#define DENSE_ADD_POTENTIAL(sum, dx, dy, dz, value)
#endif

/* 1/sqrt(r2e): softened, r2e >= eps^2 is a normal number, so the reciprocal square root needs
 * no handling of denormals (fewer instructions per interaction; docs/performance.md). */
#if DENSE_SOFTENED
#define dense_rsqrt(x) real_rsqrt_normal(x)
#else
#define dense_rsqrt(x) real_rsqrt(x)
#endif

/* On NVIDIA GPUs in double, softened, tiled, without the potential: m / r2e^(3/2) from the
 * special-function unit's estimate y of 1/sqrt(r2e) (MUFU.RSQ64H, good to about 2^-20) by the
 * series m (1 - e)^(-3/2) = m (1 + 3/2 e + 15/8 e^2 + O(e^3)), e = 1 - r2e y^2, times y^3;
 * the e^3 term, 35/16 e^3 < 2^-55, is below double's rounding. rsqrt() would refine y by the
 * same kind of series, then multiply by m and twice by 1/r: 15 FP64 instructions per interaction
 * instead of 17, and no range check (r2e >= eps^2 is a normal number). The coefficients 3/2 m
 * and 15/8 m are computed once per source as the tile is loaded (docs/performance.md). */
#if defined(PARTCL_PTX) && PARTCL_REAL_IS_DOUBLE && DENSE_SOFTENED && !DENSE_POTENTIAL && DENSE_TILE > 0
#define DENSE_CUBE_SERIES 1
INLINE double dense_rsqrt_estimate(double x) {
    double y;
    PTX_ASM("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}
#else
#define DENSE_CUBE_SERIES 0
#endif

/* Source (xj, yj, zj, mj) acting on target (xi, yi, zi), added to sums (sx, sy, sz, sp).
 * eps^2 first, so r2e is three fused multiply-adds. */
#define DENSE_INTERACT(xj, yj, zj, mj, xi, yi, zi, sx, sy, sz, sp)                    \
    {                                                                                 \
        const real dx = (xj) - (xi);                                                  \
        const real dy = (yj) - (yi);                                                  \
        const real dz = (zj) - (zi);                                                  \
        const real r2e = eps2 + dx * dx + dy * dy + dz * dz;                          \
        const real inv_r = DENSE_IF_APART(r2e, dense_rsqrt(r2e), REAL_C(0.0));        \
        const real m_inv_r = (mj) * inv_r;                                            \
        const real s = m_inv_r * inv_r * inv_r;                                       \
        (sx) += s * dx;                                                               \
        (sy) += s * dy;                                                               \
        (sz) += s * dz;                                                               \
        DENSE_ADD_POTENTIAL(sp, dx, dy, dz, m_inv_r);                                 \
    }

/* Sources ja and jb on the target, sharing one division: with c = (r^2 + eps^2)^(3/2),
 * 1/c_a = c_b / (c_a c_b) and 1/c_b = c_a / (c_a c_b). Division and square root share one
 * unpipelined unit on CPUs, so this trades a division for three multiplications. Unsoftened,
 * a pair at zero separation takes c = 1, so it cannot poison its partner. */
#define DENSE_INTERACT_PAIR(ja, jb, sxa, sya, sza, spa, sxb, syb, szb, spb)             \
    {                                                                                   \
        const real dxa = x[ja] - xi, dya = y[ja] - yi, dza = z[ja] - zi;                \
        const real dxb = x[jb] - xi, dyb = y[jb] - yi, dzb = z[jb] - zi;                \
        const real ea = eps2 + dxa * dxa + dya * dya + dza * dza;                       \
        const real eb = eps2 + dxb * dxb + dyb * dyb + dzb * dzb;                       \
        const real ca = DENSE_IF_APART(ea, ea * sqrt(ea), REAL_C(1.0));                 \
        const real cb = DENSE_IF_APART(eb, eb * sqrt(eb), REAL_C(1.0));                 \
        const real shared = REAL_C(1.0) / (ca * cb);                                    \
        const real sa = DENSE_IF_APART(ea, m[ja] * cb * shared, REAL_C(0.0));           \
        const real sb = DENSE_IF_APART(eb, m[jb] * ca * shared, REAL_C(0.0));           \
        (sxa) += sa * dxa;                                                              \
        (sya) += sa * dya;                                                              \
        (sza) += sa * dza;                                                              \
        DENSE_ADD_POTENTIAL(spa, dxa, dya, dza, sa * ea);                               \
        (sxb) += sb * dxb;                                                              \
        (syb) += sb * dyb;                                                              \
        (szb) += sb * dzb;                                                              \
        DENSE_ADD_POTENTIAL(spb, dxb, dyb, dzb, sb * eb);                               \
    }

/* DENSE_INTERACT by the series above: (a1, a2) = (3/2 m, 15/8 m) of the source. */
#define DENSE_INTERACT_SERIES(xj, yj, zj, mj, a1, a2, xi, yi, zi, sx, sy, sz)          \
    {                                                                                 \
        const real dx = (xj) - (xi);                                                  \
        const real dy = (yj) - (yi);                                                  \
        const real dz = (zj) - (zi);                                                  \
        const real r2e = eps2 + dx * dx + dy * dy + dz * dz;                          \
        const real y = dense_rsqrt_estimate(r2e);                                     \
        const real y2 = y * y;                                                        \
        const real e = fma(-r2e, y2, REAL_C(1.0));                                    \
        const real s = (y * y2) * fma(fma((a2), e, (a1)), e, (mj));                   \
        (sx) += s * dx;                                                               \
        (sy) += s * dy;                                                               \
        (sz) += s * dz;                                                               \
    }

/* Tiled form: source k of the tile in local memory acting on this work-item's targets. */
#if DENSE_CUBE_SERIES
#define DENSE_TILE_SOURCE(k)                                                            \
    {                                                                                   \
        const real4 source = sources[k];                                                \
        const real2 terms = mass_terms[k];                                              \
        DENSE_PRAGMA(unroll)                                                            \
        for (uint t = 0; t < DENSE_TARGETS; ++t)                                        \
            DENSE_INTERACT_SERIES(source.x, source.y, source.z, source.w, terms.x,      \
                                  terms.y, xi[t], yi[t], zi[t], sx[t], sy[t], sz[t]);   \
    }
#else
#define DENSE_TILE_SOURCE(k)                                                            \
    {                                                                                   \
        const real4 source = sources[k];                                                \
        DENSE_PRAGMA(unroll)                                                            \
        for (uint t = 0; t < DENSE_TARGETS; ++t)                                        \
            DENSE_INTERACT(source.x, source.y, source.z, source.w, xi[t], yi[t], zi[t], \
                           sx[t], sy[t], sz[t], sp[t]);                                 \
    }
#endif

#if DENSE_TILE > 0
#define DENSE_WORK_GROUP WORK_GROUP_SIZE(DENSE_TILE)
#else
#define DENSE_WORK_GROUP
#endif
KERNEL DENSE_WORK_GROUP void dense_gravity(const uint begin, const uint end, const uint n, const real eps2,
                          const real G, GLOBAL const real* RESTRICT pos,
                          GLOBAL const real* RESTRICT m, GLOBAL real* RESTRICT acc,
                          const uint acc_offset, const uint stride, GLOBAL real* RESTRICT pot,
                          const uint blocks, const uint chunk, const uint first_part)
{
    GLOBAL const real* RESTRICT x = pos;
    GLOBAL const real* RESTRICT y = pos + n;
    GLOBAL const real* RESTRICT z = pos + 2 * n;
#if DENSE_TILE > 0
    /* (x, y, z, m) of a source side by side, so one wide local load fetches a source. */
    LOCAL real4 sources[DENSE_TILE];
#if DENSE_CUBE_SERIES
    LOCAL real2 mass_terms[DENSE_TILE];
#endif
    const uint lane = local_id(0);
    /* Block b owns targets begin + b * DENSE_TILE * DENSE_TARGETS + [0, DENSE_TILE *
     * DENSE_TARGETS); work-item `lane` takes every DENSE_TILE-th of them, so neighbouring
     * work-items touch neighbouring bodies, and each source read from local memory serves
     * DENSE_TARGETS targets. */
    const uint launched = group_id(0) / blocks, part = first_part + launched;
    const uint first = begin + (group_id(0) - launched * blocks) * (DENSE_TILE * DENSE_TARGETS) + lane;
    const uint sources_begin = part * chunk;
    const uint sources_end = min(n, sources_begin + chunk);
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
    for (uint tile = sources_begin; tile < sources_end; tile += DENSE_TILE) {
        const uint j = tile + lane;
        if (j < sources_end) {
            /* Scalar stores: Oclgrind 21.10 misreports stores of vector literals. */
            LOCAL_SPACE real* source = (LOCAL_SPACE real*)(sources + lane);
            source[0] = x[j];
            source[1] = y[j];
            source[2] = z[j];
            source[3] = m[j];
#if DENSE_CUBE_SERIES
            LOCAL_SPACE real* terms = (LOCAL_SPACE real*)(mass_terms + lane);
            terms[0] = REAL_C(1.5) * m[j];
            terms[1] = REAL_C(1.875) * m[j];
#endif
        }
        BARRIER_LOCAL;
        const uint count = min((uint)DENSE_TILE, sources_end - tile);
        if (count == DENSE_TILE) {
            /* A full tile: a trip count the compiler knows, so it can unroll. */
            DENSE_UNROLL_BY(DENSE_UNROLL)
            for (uint k = 0; k < DENSE_TILE; ++k) DENSE_TILE_SOURCE(k);
        } else {
            for (uint k = 0; k < count; ++k) DENSE_TILE_SOURCE(k);
        }
        BARRIER_LOCAL;
    }
    DENSE_PRAGMA(unroll)
    for (uint t = 0; t < DENSE_TARGETS; ++t) {
        const uint i = first + t * DENSE_TILE;
        if (i >= end) continue;
        const uint k = acc_offset + part * 3 * stride + (i - begin);
        acc[k] = G * sx[t];
        acc[k + stride] = G * sy[t];
        acc[k + 2 * stride] = G * sz[t];
#if DENSE_POTENTIAL
        pot[part * stride + (i - begin)] = -G * sp[t];
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

/* The sum of `parts` partial results of dense_gravity's source parts, in part order (so the
 * result does not depend on timing): acc part p, axis a, target i at partial[(3 p + a) count +
 * i], into out[out_offset + a * out_stride + i]; the potentials from pot_partial[p count + i]
 * into pot[i]. */
KERNEL void dense_sum_parts(const uint count, const uint parts, GLOBAL const real* RESTRICT partial,
                            GLOBAL real* RESTRICT out, const uint out_offset,
                            const uint out_stride, GLOBAL const real* RESTRICT pot_partial,
                            GLOBAL real* RESTRICT pot)
{
    const uint i = global_id(0);
    if (i >= count) return;
    real sx = partial[i], sy = partial[count + i], sz = partial[2 * count + i];
    for (uint p = 1; p < parts; ++p) {
        sx += partial[3 * p * count + i];
        sy += partial[(3 * p + 1) * count + i];
        sz += partial[(3 * p + 2) * count + i];
    }
    out[out_offset + i] = sx;
    out[out_offset + out_stride + i] = sy;
    out[out_offset + 2 * out_stride + i] = sz;
#if DENSE_POTENTIAL
    real sum = pot_partial[i];
    for (uint p = 1; p < parts; ++p) sum += pot_partial[p * count + i];
    pot[i] = sum;
#endif
}
