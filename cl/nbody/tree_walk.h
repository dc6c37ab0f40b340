#ifndef PARTCL_NBODY_TREE_WALK_H
#define PARTCL_NBODY_TREE_WALK_H
/* What tree_force.cl's walk adds and decides per source, apart from the walk itself: the
 * softened (or short-range) terms of a body and of a node taken whole, the opening tests, the
 * visit of a node, and the partial sums of TREE_LANES. Included by tree_force.cl after its
 * options (TREE_POTENTIAL, TREE_SHORT_RANGE, TREE_LANES, tree_rsqrt) are set; the macros
 * name the walk's variables (tx, ty, tz, sx, sy, sz, sp, eps2, the node arrays). */

#if TREE_POTENTIAL
#define TREE_ADD_POTENTIAL(sum, value) sum += (value)
#else
#define TREE_ADD_POTENTIAL(sum, value)
#endif

#if TREE_SHORT_RANGE
/* The separation d's nearest image in the periodic box. */
#define TREE_IMAGE(d) ((d) - box * rint((d) * inverse_box))
/* The short-range kernel f(R) = erfc(u) / R, u = R / (2 r_s), differentiated as 1 / R is: with
 * E = exp(-u^2), f'/R = -A / R^3, (f'/R)'/R = 3 B / R^5, ((f'/R)'/R)'/R = -15 C / R^7 for
 *   A = erfc(u) + 2 u E / sqrt(pi),  B = A + 4 u^3 E / (3 sqrt(pi)),  C = B + 8 u^5 E / (15 sqrt(pi))
 * (all 1 for r_s -> infinity: Newton's kernel), so the monopole and quadrupole below take them
 * as factors of their 1 / R^3, 3 / R^5 and 15 / R^7 terms. R includes the softening, as for the
 * plain sum (the long range is unsoftened: it is smooth where softening matters). */
#define TREE_SPLIT_FACTORS(R)                                                  \
    const real u = (R) * half_inverse_split, u2 = u * u;                       \
    const real e = REAL_C(1.1283791670955126) * u * exp(-u2);                  \
    const real erfc_u = erfc(u);                                               \
    const real fa = erfc_u + e;                                                \
    const real fb = fa + REAL_C(0.6666666666666667) * u2 * e;                  \
    const real fc = fb + REAL_C(0.26666666666666666) * u2 * u2 * e
#define TREE_WITHIN_CUT(r2) ((r2) < cut2)
#else
#define TREE_IMAGE(d) (d)
#define TREE_SPLIT_FACTORS(R)                                                  \
    const real erfc_u = REAL_C(1.0), fa = REAL_C(1.0), fb = REAL_C(1.0), fc = REAL_C(1.0)
#define TREE_WITHIN_CUT(r2) 1
#endif

/* Source (xj, yj, zj, mj) on the target; `apart` says the separation is not zero. */
#define TREE_INTERACT(xj, yj, zj, mj, apart)                                   \
    {                                                                          \
        const real dx = TREE_IMAGE((xj) - tx), dy = TREE_IMAGE((yj) - ty);     \
        const real dz = TREE_IMAGE((zj) - tz);                                 \
        const real r2 = dx * dx + dy * dy + dz * dz;                           \
        if ((apart) && TREE_WITHIN_CUT(r2)) {                                  \
            const real inv_r = tree_rsqrt(r2 + eps2);                          \
            TREE_SPLIT_FACTORS((r2 + eps2) * inv_r);                           \
            const real m_inv_r = (mj) * inv_r;                                 \
            const real s = m_inv_r * inv_r * inv_r * fa;                       \
            sx += s * dx;                                                      \
            sy += s * dy;                                                      \
            sz += s * dz;                                                      \
            TREE_ADD_POTENTIAL(sp, m_inv_r * erfc_u);                          \
            (void)fb;                                                          \
            (void)fc;                                                          \
        }                                                                      \
    }

/* Node k taken whole: its mass m at its centre of mass c plus its quadrupole, from its second
 * moments S = sum m u u^T. With d = c - target and R^2 = |d|^2 + eps^2, the second-order
 * Taylor expansion of the softened sum over the node's bodies (the dipole vanishes about c):
 *   a   = G (m d / R^3 - 3 S d / R^5 + 15/2 (d.S d) d / R^7 - 3/2 tr(S) d / R^5)
 *   phi = -G (m / R + 3/2 (d.S d) / R^5 - 1/2 tr(S) / R^3)
 * (short range: the terms in 1 / R^3, 3 / R^5, 15 / R^7 times A, B, C, and m / R times erfc).
 * Its remainder is the third-order term: at most 4 m r^3 / (|d| - r)^5 for bodies within r
 * of c (the fourth derivatives of 1 / R are at most 24 / R^5 <= 24 / |d|^5). The centre is
 * already the image the group takes (TREE_OUTCOME). Each product is added onto a running sum
 * (eps2 first, the accumulators last) so that it compiles to a fused multiply-add: the walk is
 * bound by the instructions it issues (docs/performance.md). */
#define TREE_INTERACT_NODE_INTO(ox, oy, oz, op, xj, yj, zj, mj, sxx, syy, szz, sxy, sxz, syz) \
    {                                                                          \
        const real dx = (xj) - tx, dy = (yj) - ty, dz = (zj) - tz;             \
        const real r2e = eps2 + dx * dx + dy * dy + dz * dz;                   \
        const real inv_r = tree_rsqrt(r2e);                                    \
        TREE_SPLIT_FACTORS(r2e * inv_r);                                       \
        const real inv_r2 = inv_r * inv_r;                                     \
        const real inv_r3 = inv_r2 * inv_r, inv_r5 = inv_r3 * inv_r2;          \
        const real sdx = (sxx) * dx + (sxy) * dy + (sxz) * dz;                 \
        const real sdy = (sxy) * dx + (syy) * dy + (syz) * dz;                 \
        const real sdz = (sxz) * dx + (syz) * dy + (szz) * dz;                 \
        const real dsd = dx * sdx + dy * sdy + dz * sdz;                       \
        const real trace = (sxx) + (syy) + (szz);                              \
        const real s = (mj) * inv_r3 * fa +                                    \
                       inv_r5 * (REAL_C(7.5) * fc * dsd * inv_r2 - REAL_C(1.5) * fb * trace); \
        const real t = REAL_C(3.0) * fb * inv_r5;                              \
        ox = ox + s * dx - t * sdx;                                            \
        oy = oy + s * dy - t * sdy;                                            \
        oz = oz + s * dz - t * sdz;                                            \
        TREE_ADD_POTENTIAL(op, (mj) * inv_r * erfc_u +                         \
                           inv_r3 * (REAL_C(1.5) * fb * dsd * inv_r2 - REAL_C(0.5) * fa * trace)); \
    }
#define TREE_INTERACT_NODE(xj, yj, zj, mj, sxx, syy, szz, sxy, sxz, syz) \
    TREE_INTERACT_NODE_INTO(sx, sy, sz, sp, xj, yj, zj, mj, sxx, syy, szz, sxy, sxz, syz)

/* Whether node k (radius rk, mass mk) at squared distance g2 from the group's box lies outside
 * its radius and leaves out at most `bound` (the relative criterion): the first term the
 * expansion leaves out, m r^3 / g^5, times 1 / (1 - r / g)^2, the growth of the terms after it
 * as the group nears the node's sphere (Salmon and Warren's bound on the remainder). Without that
 * factor, nodes that the estimate alone took whole at g just beyond r missed strongly pulled
 * bodies in clumps by 3-5% (tests/test_tree_pm.cpp, clustered boxes). */
INLINE int tree_within_estimate(const real g2, const real rk, const real mk, const real bound)
{
    const real g = sqrt(g2), gap = g - rk;
    return gap > REAL_C(0.0) && mk * rk * rk * rk <= bound * g2 * g * gap * gap;
}

/* Distance from coordinate c to the group box's side [lo, hi]: 0 inside. */
INLINE real tree_gap(const real c, const real lo, const real hi)
{
    return max(max(lo - c, c - hi), REAL_C(0.0));
}

/* Squared distance from centre of mass c to the group's box [lo, hi]. */
INLINE real tree_gap2(const real cx, const real cy, const real cz, const real lox,
                      const real loy, const real loz, const real hix, const real hiy,
                      const real hiz)
{
    const real gx = tree_gap(cx, lox, hix), gy = tree_gap(cy, loy, hiy), gz = tree_gap(cz, loz, hiz);
    return gx * gx + gy * gy + gz * gz;
}
/* Whether node k at squared distance g2 from every point of the group's box acts whole: beyond
 * its opening distance, or within the relative criterion's estimate. */
#define TREE_TAKES_WHOLE(k, g2, mk) \
    ((g2) > crit2[k] || (bound > REAL_C(0.0) && tree_within_estimate((g2), radius[k], (mk), bound)))

/* The bodies of tree positions [first, end) one by one (pairs at zero separation skipped). */
#define TREE_INTERACT_BODIES(first, end)                                               \
    for (uint j = (first); j < (end); ++j) {                                           \
        const real4 bj = body[j];                                                      \
        TREE_INTERACT(bj.x, bj.y, bj.z, bj.w, r2 > REAL_C(0.0));                       \
    }

/* What the group does with node k (of mass mk > 0, centre of mass (ckx, cky, ckz)): 1 takes it
 * whole, 2 takes its bodies one by one (a leaf), 3 opens it, 0 skips it (short range: every
 * body beyond the cut). Short range first moves the centre to its image nearest the group. */
#if TREE_SHORT_RANGE
#define TREE_OUTCOME(k, ckx, cky, ckz, outcome)                                        \
    {                                                                                  \
        ckx = gcx + TREE_IMAGE(ckx - gcx);                                             \
        cky = gcy + TREE_IMAGE(cky - gcy);                                             \
        ckz = gcz + TREE_IMAGE(ckz - gcz);                                             \
        const real rk = radius[k];                                                     \
        const uint inner = (k) >= leaves ? 2u : 3u;                                    \
        if (rk >= local_radius) {                                                      \
            outcome = inner;                                                           \
        } else {                                                                       \
            const real gx = tree_gap(ckx, glox, ghix), gy = tree_gap(cky, gloy, ghiy); \
            const real gz = tree_gap(ckz, gloz, ghiz);                                 \
            const real g2 = gx * gx + gy * gy + gz * gz, reach = cut + rk;             \
            outcome = g2 > reach * reach ? 0u : (TREE_TAKES_WHOLE(k, g2, mk) ? 1u : inner); \
        }                                                                              \
    }
#else
#define TREE_OUTCOME(k, ckx, cky, ckz, outcome)                                        \
    {                                                                                  \
        const real g2 = tree_gap2(ckx, cky, ckz, glox, gloy, gloz, ghix, ghiy, ghiz);  \
        outcome = TREE_TAKES_WHOLE(k, g2, mk) ? 1u : ((k) >= leaves ? 2u : 3u);        \
    }
#endif

/* Visits node k: accumulates what it contributes and says whether to open it (1) or move on
 * (0). The decision depends on the node and the group's box only. */
#define TREE_VISIT(k, open)                                                            \
    {                                                                                  \
        open = 0;                                                                      \
        const real mk = cm[k];                                                         \
        if (mk > REAL_C(0.0)) {                                                        \
            real ckx = cx[k], cky = cy[k], ckz = cz[k];                                \
            uint outcome;                                                              \
            TREE_OUTCOME(k, ckx, cky, ckz, outcome);                                   \
            if (outcome == 1u) {                                                       \
                TREE_INTERACT_NODE(ckx, cky, ckz, mk, sxx[k], syy[k], szz[k], sxy[k],  \
                                   sxz[k], syz[k]);                                    \
            } else if (outcome == 2u) {                                                \
                const uint p = k - leaves;                                             \
                const uint end = tree_start(p + 1, leaves, n);                         \
                TREE_INTERACT_BODIES(tree_start(p, leaves, n), end);                   \
            } else if (outcome == 3u) {                                                \
                open = 1;                                                              \
            }                                                                          \
        }                                                                              \
    }

/* Lists node k (centre (ckx, cky, ckz), mass mk) at entry `at` of the listed walk's node list,
 * in scalar stores: Oclgrind 21.10 misreports stores of vector literals. */
#define TREE_LIST_NODE(at, k, ckx, cky, ckz, mk)                                       \
    {                                                                                  \
        LOCAL_SPACE real* c = (LOCAL_SPACE real*)(list_c + (at));                      \
        LOCAL_SPACE real* q = (LOCAL_SPACE real*)(list_s + (at));                      \
        LOCAL_SPACE real* t = (LOCAL_SPACE real*)(list_t + (at));                      \
        c[0] = ckx;                                                                    \
        c[1] = cky;                                                                    \
        c[2] = ckz;                                                                    \
        c[3] = mk;                                                                     \
        q[0] = sxx[k];                                                                 \
        q[1] = syy[k];                                                                 \
        q[2] = szz[k];                                                                 \
        q[3] = sxy[k];                                                                 \
        t[0] = sxz[k];                                                                 \
        t[1] = syz[k];                                                                 \
    }

#if TREE_LANES
/* The partial sums of TREE_LANES, kept over the whole walk (declared with the target's sums,
 * added onto them in lane order at its end). */
#define TREE_LANES_ZERO                                                                \
    real px[TREE_LANES], py[TREE_LANES], pz[TREE_LANES], pp[TREE_LANES];               \
    for (uint l = 0; l < TREE_LANES; ++l) px[l] = py[l] = pz[l] = pp[l] = REAL_C(0.0)
#define TREE_LANES_ADD                                                                 \
    for (uint l = 0; l < TREE_LANES; ++l) {                                            \
        sx += px[l];                                                                   \
        sy += py[l];                                                                   \
        sz += pz[l];                                                                   \
        TREE_ADD_POTENTIAL(sp, pp[l]);                                                 \
    }
/* The listed nodes from j while TREE_LANES remain (j left at the first not taken). */
#define TREE_LANE_NODES(j, listed)                                                     \
    {                                                                                  \
        for (; j + TREE_LANES <= (listed); j += TREE_LANES)                            \
            for (uint l = 0; l < TREE_LANES; ++l) {                                    \
                LOCAL_SPACE const real* c = (LOCAL_SPACE const real*)(list_c + j + l); \
                LOCAL_SPACE const real* q = (LOCAL_SPACE const real*)(list_s + j + l); \
                LOCAL_SPACE const real* t = (LOCAL_SPACE const real*)(list_t + j + l); \
                TREE_INTERACT_NODE_INTO(px[l], py[l], pz[l], pp[l], c[0], c[1], c[2],   \
                                        c[3], q[0], q[1], q[2], q[3], t[0], t[1]);     \
            }                                                                          \
    }
/* The bodies of tree positions [first, end) TREE_LANES at a time, without branches (which
 * would keep the lanes apart): a pair at zero separation, beyond the cut or past end gets
 * 1 / r = 0, so adds exactly nothing. */
#define TREE_LANE_BODIES(first, end)                                                   \
    {                                                                                  \
        for (uint j = (first); j < (end); j += TREE_LANES)                             \
            for (uint l = 0; l < TREE_LANES; ++l) {                                    \
                const int inside = j + l < (end);                                      \
                GLOBAL const real* bj = sorted + 4 * (inside ? j + l : (first));       \
                const real dx = TREE_IMAGE(bj[0] - tx), dy = TREE_IMAGE(bj[1] - ty);   \
                const real dz = TREE_IMAGE(bj[2] - tz);                                \
                const real r2 = dx * dx + dy * dy + dz * dz;                           \
                const int take = inside && r2 > REAL_C(0.0) && TREE_WITHIN_CUT(r2);    \
                const real raw = tree_rsqrt(r2 + eps2 + (take ? REAL_C(0.0) : REAL_C(1.0))); \
                const real inv_r = take ? raw : REAL_C(0.0);                           \
                TREE_SPLIT_FACTORS((r2 + eps2) * inv_r);                               \
                const real m_inv_r = bj[3] * inv_r;                                    \
                const real s = m_inv_r * inv_r * inv_r * fa;                           \
                px[l] += s * dx;                                                       \
                py[l] += s * dy;                                                       \
                pz[l] += s * dz;                                                       \
                TREE_ADD_POTENTIAL(pp[l], m_inv_r * erfc_u);                           \
                (void)fb;                                                              \
                (void)fc;                                                              \
            }                                                                          \
    }
#endif

#endif /* PARTCL_NBODY_TREE_WALK_H */
