/* Barnes-Hut gravity over the heap kd-tree of nbody/tree.h (built by tree_build.cl): a group
 * walk.
 *
 * Bodies walk the tree in groups. Group p of `groups` (groups = 2^L, L chosen by the host so
 * that a group holds at most TREE_WALK_GROUP bodies) owns the tree positions
 * [tree_start(p, groups, n), tree_start(p + 1, groups, n)): a node of the heap's level L when
 * L <= D, a slice of a leaf when the groups are smaller than the leaves. TREE_WALK_GROUP
 * consecutive work-items take one group, one body each (those past the group's count walk
 * along and write nothing). The group's box B is the tight box of its bodies, and every
 * work-item of the group walks the SAME path, depth first, left child first; at node k
 * (skipped when its mass is 0), with dist(c_k, B) the distance from k's centre of mass to B:
 *   dist(c_k, B)^2 > crit2[k]  every body of the group is that far: the node acts on each as
 *                              its mass at its centre of mass plus its quadrupole
 *                              (TREE_INTERACT_NODE)
 *   else, k a leaf             its bodies act one by one (pairs at zero separation skipped,
 *                              as dense)
 *   else                       open: visit 2k, then 2k + 1
 * So the group's decisions are uniform (no divergence within it, node loads are broadcasts)
 * and a node is taken whole only where every body of the group would take it on its own: the
 * bound of the per-body walk holds for each body, and no body takes a node holding itself. In
 * rounding too: fl(lo - c) <= fl(t - c) for lo <= t, so dist(c, B) as computed never exceeds
 * |c - t| as computed. With TREE_WALK_GROUP 1 the box is the body itself and the walk is the
 * classic per-body one.
 *
 * The force is the softened one of dense.cl: a = G m (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2),
 * phi = -G m / (|r_j - r_i|^2 + eps^2)^(1/2).
 *
 * TREE_WALK_GROUP   most bodies of a group (work-items per group), a power of two (a shift and
 *                   a mask; any other size's division and remainder compile to LLVM's `freeze`,
 *                   which Oclgrind 21.10's --uninitialized cannot run).
 * TREE_STACKLESS 0: nested traversal with an explicit stack of TREE_STACK node indices in
 *                   private memory (depth-first needs at most one entry per level plus one);
 *                1: stackless: after visiting or skipping node k the next node is k's next
 *                   sibling on the way back up, (k >> trailing ones of k) + 1; back at the
 *                   root (1) the walk is over. Both visit the same nodes in the same order.
 * TREE_LIST     0: every work-item walks and applies each source as it meets it (several
 *                   groups may share a work-group); > 0: the work-group is one group
 *                   (TREE_WALK_GROUP work-items, at most 512) and walks together, a node per
 *                   work-item per round, off a stack in local memory (TREE_LIST_STACK
 *                   entries); the nodes it takes whole are listed in local memory, TREE_LIST
 *                   (>= TREE_WALK_GROUP) at most, and the list applied when full; the bodies
 *                   of opened leaves are applied the round they are opened. Same sources as
 *                   the walk of one work-item (TREE_STACKLESS does not apply), another order.
 * TREE_LIST_STACK   entries of that stack: 2 TREE_WALK_GROUP (levels + 1) suffice. A round
 *                   pops the top entries and pushes their children in the order popped, so
 *                   the stack is ordered by depth; a round that pushes depth d + 1 has popped
 *                   every entry of depth > d, so at most 2 TREE_WALK_GROUP entries of any
 *                   depth are on it at once.
 * TREE_LANES     listed walk only, > 0: each body sums its listed nodes and its opened leaves'
 *                   bodies into TREE_LANES partial sums, added in lane order (CPUs: the
 *                   compiler may not reorder one scalar sum, but packs independent ones into
 *                   vectors, as dense.cl's DENSE_LANES). Another order of the same terms.
 * TREE_SHORT_RANGE 1: TreePM's short-range walk in a periodic cube of edge `box`
 *                   (models/nbody/tree_pm_gravity.hpp): every separation is its nearest image,
 *                   each pair and node acts with Gadget-2's short-range kernel
 *                   erfc(r / 2 r_s) / r (r_s the split scale; `half_inverse_split` =
 *                   1 / (2 r_s)), pairs beyond `cut` act not at all, and nodes wholly beyond it
 *                   are skipped. A node is placed at the image of its centre of mass nearest the
 *                   group's box; that is every body's nearest image, for every target of the
 *                   group, where 2 (radius + the group box's half diagonal) + cut < box / 2, so
 *                   only such a node is skipped or taken whole (larger ones are opened, their
 *                   bodies taking their own images). Needs cut < box / 2.
 * relative > 0:   a relative opening criterion (Gadget-2's, for the quadrupole), as a second
 *                   way to take a node whole: `reference` holds |a| of every body (by body
 *                   index) from an earlier evaluation, and a node also acts whole where the size
 *                   of the first term its expansion leaves out, m r^3 / g^5 (g its centre's
 *                   distance from the group's box; G left out), over (1 - r / g)^2, is at most
 *                   relative * the group's smallest reference |a| (relative = the accuracy /
 *                   G). Where bodies pull hard (halos) that takes nodes theta would open; where
 *                   pulls nearly cancel (uniform regions) theta decides. g > r keeps every body
 *                   of the group outside the node.
 * TREE_POTENTIAL 1: also write the potential.
 * TREE_SOFTENED  1: eps2 is a normal number (real_rsqrt_normal applies).
 *
 * A launch walks groups [first_group, end_group) of the `groups`; work-item 0 takes group
 * first_group (a device's range of groups when the walk is split over devices). Results land at
 * the body's own index b = perm[i]: acc[acc_offset + b] (x), + stride (y), + 2 stride (z),
 * pot[b]; or, with tree_order 1, at the tree position's place in the launch's slice,
 * b = i - tree_start(first_group, groups, n), for tree_scatter to put at perm[i] later. */
#include "nbody/tree.h"

#ifndef TREE_WALK_GROUP
#define TREE_WALK_GROUP 32
#endif
#ifndef TREE_STACKLESS
#define TREE_STACKLESS 1
#endif
#ifndef TREE_STACK
#define TREE_STACK 64
#endif
#ifndef TREE_POTENTIAL
#define TREE_POTENTIAL 0
#endif
#ifndef TREE_SOFTENED
#define TREE_SOFTENED 0
#endif
#ifndef TREE_SHORT_RANGE
#define TREE_SHORT_RANGE 0
#endif

/* Softened, r^2 + eps^2 >= eps^2 is a normal number. */
#if TREE_SOFTENED
#define tree_rsqrt(x) real_rsqrt_normal(x)
#else
#define tree_rsqrt(x) real_rsqrt(x)
#endif
#ifndef TREE_LIST
#define TREE_LIST 0
#endif
#ifndef TREE_LANES
#define TREE_LANES 0
#endif
#ifndef TREE_LIST_STACK
#define TREE_LIST_STACK (2 * TREE_WALK_GROUP * 31)
#endif

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

/* Source (xj, yj, zj, mj) on the target, added to (ox, oy, oz) and the potential to op;
 * `apart` says the separation is not zero. */
#define TREE_INTERACT_INTO(ox, oy, oz, op, xj, yj, zj, mj, apart)              \
    {                                                                          \
        const real dx = TREE_IMAGE((xj) - tx), dy = TREE_IMAGE((yj) - ty);     \
        const real dz = TREE_IMAGE((zj) - tz);                                 \
        const real r2 = dx * dx + dy * dy + dz * dz;                           \
        if ((apart) && TREE_WITHIN_CUT(r2)) {                                  \
            const real inv_r = tree_rsqrt(r2 + eps2);                          \
            TREE_SPLIT_FACTORS((r2 + eps2) * inv_r);                           \
            const real m_inv_r = (mj) * inv_r;                                 \
            const real s = m_inv_r * inv_r * inv_r * fa;                       \
            ox += s * dx;                                                      \
            oy += s * dy;                                                      \
            oz += s * dz;                                                      \
            TREE_ADD_POTENTIAL(op, m_inv_r * erfc_u);                          \
            (void)fb;                                                          \
            (void)fc;                                                          \
        }                                                                      \
    }
#define TREE_INTERACT(xj, yj, zj, mj, apart) TREE_INTERACT_INTO(sx, sy, sz, sp, xj, yj, zj, mj, apart)

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

#if TREE_LIST
#define TREE_WALK_SIZE WORK_GROUP_SIZE(TREE_WALK_GROUP)
#else
#define TREE_WALK_SIZE
#endif

KERNEL TREE_WALK_SIZE void tree_gravity(const uint n, const uint leaves, const uint groups,
                         const uint first_group, const uint end_group, const real eps2,
                         const real G, GLOBAL const real* RESTRICT node,
                         GLOBAL const real* RESTRICT sorted, GLOBAL const uint* RESTRICT perm,
                         GLOBAL real* RESTRICT acc, const uint acc_offset, const uint stride,
                         GLOBAL real* RESTRICT pot, const uint tree_order,
                         GLOBAL const real* RESTRICT box_radius, const real box,
                         const real half_inverse_split, const real cut,
                         GLOBAL const real* RESTRICT reference, const real relative)
{
    const uint item = global_id(0);
    const uint group = first_group + item / TREE_WALK_GROUP, lane = item % TREE_WALK_GROUP;
    if (group >= end_group) return;
    const uint first = tree_start(group, groups, n), last = tree_start(group + 1, groups, n);
    if (first == last) return;  /* an empty group (groups of one, n not a power of two) */
    const uint nodes = 2 * leaves;
    GLOBAL const real* RESTRICT cx = node;
    GLOBAL const real* RESTRICT cy = node + nodes;
    GLOBAL const real* RESTRICT cz = node + 2 * nodes;
    GLOBAL const real* RESTRICT cm = node + 3 * nodes;
    GLOBAL const real* RESTRICT crit2 = node + 4 * nodes;
    GLOBAL const real* RESTRICT sxx = node + 5 * nodes;
    GLOBAL const real* RESTRICT syy = node + 6 * nodes;
    GLOBAL const real* RESTRICT szz = node + 7 * nodes;
    GLOBAL const real* RESTRICT sxy = node + 8 * nodes;
    GLOBAL const real* RESTRICT sxz = node + 9 * nodes;
    GLOBAL const real* RESTRICT syz = node + 10 * nodes;
    GLOBAL const real4* RESTRICT body = (GLOBAL const real4*)sorted;
    /* The group's box, from its bodies (at most TREE_WALK_GROUP broadcast loads: groups
     * smaller than a leaf have no box in the tree). */
    real glox = body[first].x, gloy = body[first].y, gloz = body[first].z;
    real ghix = glox, ghiy = gloy, ghiz = gloz;
    for (uint j = first + 1; j < last; ++j) {
        const real4 bj = body[j];
        glox = min(glox, bj.x);
        gloy = min(gloy, bj.y);
        gloz = min(gloz, bj.z);
        ghix = max(ghix, bj.x);
        ghiy = max(ghiy, bj.y);
        ghiz = max(ghiz, bj.z);
    }
    GLOBAL const real* RESTRICT radius = box_radius + 6 * nodes;
    /* The relative criterion's bound for the group: its weakest-pulled body decides. */
    real bound = REAL_C(0.0);
    if (relative > REAL_C(0.0)) {
        real weakest = reference[perm[first]];
        for (uint j = first + 1; j < last; ++j) weakest = min(weakest, reference[perm[j]]);
        bound = relative * weakest;
    }
#if TREE_SHORT_RANGE
    const real inverse_box = REAL_C(1.0) / box, cut2 = cut * cut;
    const real gcx = REAL_C(0.5) * (glox + ghix), gcy = REAL_C(0.5) * (gloy + ghiy);
    const real gcz = REAL_C(0.5) * (gloz + ghiz);
    const real hx = ghix - gcx, hy = ghiy - gcy, hz = ghiz - gcz;
    /* Nodes below this radius are skipped or taken whole at one image (TREE_SHORT_RANGE). */
    const real local_radius =
        REAL_C(0.5) * (REAL_C(0.5) * box - cut) - sqrt(hx * hx + hy * hy + hz * hz);
#else
    (void)box;
    (void)half_inverse_split;
    (void)cut;
#endif
    const uint i = first + lane;
    const uint target = min(i, last - 1);
    const real4 own = body[target];
    const real tx = own.x, ty = own.y, tz = own.z;
    real sx = REAL_C(0.0), sy = REAL_C(0.0), sz = REAL_C(0.0), sp = REAL_C(0.0);
#if TREE_LANES
    TREE_LANES_ZERO;
#endif
#if TREE_LIST
    /* The group walks together: each round pops up to TREE_WALK_GROUP nodes off a stack
     * shared by the group, one per work-item, tests them, and a scan over the work-group
     * places the outcomes: nodes taken whole go to the source list, opened leaves to this
     * round's leaf ranges (applied at once), opened nodes' children back on the stack (left
     * child on top). The list is applied when it could not take another round. */
    /* A listed node in three wide loads: (c, m), (sxx, syy, szz, sxy), (sxz, syz). */
    LOCAL real4 list_c[TREE_LIST], list_s[TREE_LIST];
    LOCAL real2 list_t[TREE_LIST];
    LOCAL uint stack[TREE_LIST_STACK];
    LOCAL uint leaf_first[TREE_WALK_GROUP], leaf_last[TREE_WALK_GROUP];
    LOCAL uint scan[TREE_WALK_GROUP];
    LOCAL uint shared_top, shared_count;
    if (lane == 0) {
        stack[0] = 1;
        shared_top = 1;
        shared_count = 0;
    }
    BARRIER_LOCAL;
    for (;;) {
        const uint top = shared_top;
        if (top == 0) break;
        const uint take = min(top, (uint)TREE_WALK_GROUP), base = top - take;
        /* Outcome counts packed in one word for one scan: taken whole (bits 0-9), opened
         * leaf (10-19), opened node (20-29); a group has at most 512 work-items. */
        uint kind = 0, k = 0;
        real ckx = REAL_C(0.0), cky = REAL_C(0.0), ckz = REAL_C(0.0), mk = REAL_C(0.0);
        if (lane < take) {
            k = stack[base + lane];
            mk = cm[k];
            if (mk > REAL_C(0.0)) {
                ckx = cx[k];
                cky = cy[k];
                ckz = cz[k];
                uint outcome;
                TREE_OUTCOME(k, ckx, cky, ckz, outcome);
                kind = outcome == 0u ? 0u : (1u << (10u * (outcome - 1u)));
            }
        }
        scan[lane] = kind;
        BARRIER_LOCAL;
        for (uint d = 1; d < TREE_WALK_GROUP; d *= 2) {
            const uint add = lane >= d ? scan[lane - d] : 0u;
            BARRIER_LOCAL;
            scan[lane] += add;
            BARRIER_LOCAL;
        }
        const uint total = scan[TREE_WALK_GROUP - 1], before = scan[lane] - kind;
        const uint count = shared_count;
        if (kind == 1u) {
            const uint at = count + (before & 0x3ffu);
            /* Scalar stores: Oclgrind 21.10 misreports stores of vector literals. */
            LOCAL_SPACE real* c = (LOCAL_SPACE real*)(list_c + at);
            LOCAL_SPACE real* q = (LOCAL_SPACE real*)(list_s + at);
            LOCAL_SPACE real* t = (LOCAL_SPACE real*)(list_t + at);
            c[0] = ckx;
            c[1] = cky;
            c[2] = ckz;
            c[3] = mk;
            q[0] = sxx[k];
            q[1] = syy[k];
            q[2] = szz[k];
            q[3] = sxy[k];
            t[0] = sxz[k];
            t[1] = syz[k];
        } else if (kind == 1u << 10) {
            const uint at = (before >> 10) & 0x3ffu;
            leaf_first[at] = tree_start(k - leaves, leaves, n);
            leaf_last[at] = tree_start(k - leaves + 1, leaves, n);
        } else if (kind == 1u << 20) {
            const uint at = base + 2 * (before >> 20);
            stack[at] = 2 * k + 1;
            stack[at + 1] = 2 * k;
        }
        BARRIER_LOCAL;
        const uint opened_leaves = (total >> 10) & 0x3ffu, opened = total >> 20;
        for (uint q = 0; q < opened_leaves; ++q) {
            const uint end = leaf_last[q];
#if TREE_LANES
            TREE_LANE_BODIES(leaf_first[q], end);
#else
            TREE_INTERACT_BODIES(leaf_first[q], end);
#endif
        }
        const uint next_top = base + 2 * opened;
        uint listed = count + (total & 0x3ffu);
        if (listed > TREE_LIST - TREE_WALK_GROUP || next_top == 0) {
            uint j = 0;
#if TREE_LANES
            TREE_LANE_NODES(j, listed);
#endif
            for (; j < listed; ++j) {
                const real4 centre = list_c[j], moments = list_s[j];
                const real2 more = list_t[j];
                TREE_INTERACT_NODE(centre.x, centre.y, centre.z, centre.w, moments.x, moments.y,
                                   moments.z, moments.w, more.x, more.y);
            }
            listed = 0;
        }
        BARRIER_LOCAL;
        if (lane == 0) {
            shared_top = next_top;
            shared_count = listed;
        }
        BARRIER_LOCAL;
    }
#elif TREE_STACKLESS
    uint k = 1;
    do {
        int open;
        TREE_VISIT(k, open);
        if (open) {
            k = 2 * k;
        } else {
            while (k & 1u) k >>= 1;  /* up while k is a right child; the root ends at 0 */
            k += 1;
        }
    } while (k != 1);
#else
    uint stack[TREE_STACK];
    uint top = 0;
    stack[top++] = 1;
    while (top > 0) {
        const uint k = stack[--top];
        int open;
        TREE_VISIT(k, open);
        if (open) {
            stack[top++] = 2 * k + 1;
            stack[top++] = 2 * k;
        }
    }
#endif
#if TREE_LANES
    TREE_LANES_ADD;
#endif
    if (i >= last) return;
    const uint b = tree_order ? i - tree_start(first_group, groups, n) : perm[i];
    acc[acc_offset + b] = G * sx;
    acc[acc_offset + stride + b] = G * sy;
    acc[acc_offset + 2 * stride + b] = G * sz;
#if TREE_POTENTIAL
    pot[b] = -G * sp;
#endif
}

/* Puts a slice of `count` results in tree order (x | y | z, `count` each, and the potentials),
 * written by tree_gravity with tree_order 1 for tree positions [first, first + count), at
 * their bodies' indices, as tree_gravity writes them with tree_order 0. Copies only: the
 * results keep their bits. */
KERNEL void tree_scatter(const uint count, const uint first, GLOBAL const uint* RESTRICT perm,
                         GLOBAL const real* RESTRICT slice, GLOBAL const real* RESTRICT pot_slice,
                         GLOBAL real* RESTRICT acc, const uint acc_offset, const uint stride,
                         GLOBAL real* RESTRICT pot)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint b = perm[first + j];
    acc[acc_offset + b] = slice[j];
    acc[acc_offset + stride + b] = slice[count + j];
    acc[acc_offset + 2 * stride + b] = slice[2 * count + j];
#if TREE_POTENTIAL
    pot[b] = pot_slice[j];
#endif
}

/* |a| of each body from accelerations x | y | z (`stride` apart from acc_offset): the relative
 * criterion's reference for the next evaluation. */
KERNEL void tree_reference(const uint n, GLOBAL const real* RESTRICT acc, const uint acc_offset,
                           const uint stride, GLOBAL real* RESTRICT reference)
{
    const uint b = global_id(0);
    if (b >= n) return;
    const real x = acc[acc_offset + b], y = acc[acc_offset + stride + b];
    const real z = acc[acc_offset + 2 * stride + b];
    reference[b] = sqrt(x * x + y * y + z * z);
}
