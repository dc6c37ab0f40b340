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
 *                              one body of its mass at its centre of mass
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
 * TREE_STAGE     0: every work-item walks and applies each source as it meets it (several
 *                   groups may share a work-group); > 0: the work-group is one group
 *                   (TREE_WALK_GROUP work-items); work-item 0 walks and stages up to TREE_STAGE
 *                   sources (nodes taken whole, bodies of opened leaves; a leaf may continue in
 *                   the next batch) in local memory, then all apply the batch, batch after
 *                   batch. Same sources, same order: the same sums.
 * TREE_POTENTIAL 1: also write the potential.
 *
 * Results land at the body's own index: acc[acc_offset + b] (x), + stride (y), + 2 stride (z),
 * pot[b]. */
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
#ifndef TREE_STAGE
#define TREE_STAGE 0
#endif

#if TREE_POTENTIAL
#define TREE_ADD_POTENTIAL(value) sp += (value)
#else
#define TREE_ADD_POTENTIAL(value)
#endif

/* Source (xj, yj, zj, mj) on the target; `apart` says the separation is not zero. */
#define TREE_INTERACT(xj, yj, zj, mj, apart)                                   \
    {                                                                          \
        const real dx = (xj) - tx, dy = (yj) - ty, dz = (zj) - tz;             \
        const real r2 = dx * dx + dy * dy + dz * dz;                           \
        if (apart) {                                                           \
            const real inv_r = real_rsqrt(r2 + eps2);                          \
            const real m_inv_r = (mj) * inv_r;                                 \
            const real s = m_inv_r * inv_r * inv_r;                            \
            sx += s * dx;                                                      \
            sy += s * dy;                                                      \
            sz += s * dz;                                                      \
            TREE_ADD_POTENTIAL(m_inv_r);                                       \
        }                                                                      \
    }

/* Distance from coordinate c to the group box's side [lo, hi]: 0 inside. */
INLINE real tree_gap(const real c, const real lo, const real hi)
{
    return max(max(lo - c, c - hi), REAL_C(0.0));
}

/* Visits node k: accumulates what it contributes and says whether to open it (1) or move on
 * (0). The decision depends on the node and the group's box only. */
#define TREE_VISIT(k, open)                                                            \
    {                                                                                  \
        open = 0;                                                                      \
        const real mk = cm[k];                                                         \
        if (mk > REAL_C(0.0)) {                                                        \
            const real ckx = cx[k], cky = cy[k], ckz = cz[k];                          \
            const real gx = tree_gap(ckx, glox, ghix), gy = tree_gap(cky, gloy, ghiy); \
            const real gz = tree_gap(ckz, gloz, ghiz);                                 \
            if (gx * gx + gy * gy + gz * gz > crit2[k]) {                              \
                TREE_INTERACT(ckx, cky, ckz, mk, 1);                                   \
            } else if (k >= leaves) {                                                  \
                const uint p = k - leaves;                                             \
                const uint end = tree_start(p + 1, leaves, n);                         \
                for (uint j = tree_start(p, leaves, n); j < end; ++j)                  \
                    TREE_INTERACT(bx[j], by[j], bz[j], bm[j], r2 > REAL_C(0.0));       \
            } else {                                                                   \
                open = 1;                                                              \
            }                                                                          \
        }                                                                              \
    }

#if TREE_STAGE
#define TREE_WALK_SIZE WORK_GROUP_SIZE(TREE_WALK_GROUP)
#else
#define TREE_WALK_SIZE
#endif

KERNEL TREE_WALK_SIZE void tree_gravity(const uint n, const uint leaves, const uint groups, const real eps2,
                         const real G, GLOBAL const real* RESTRICT node,
                         GLOBAL const real* RESTRICT sorted, GLOBAL const uint* RESTRICT perm,
                         GLOBAL real* RESTRICT acc, const uint acc_offset, const uint stride,
                         GLOBAL real* RESTRICT pot)
{
    const uint item = global_id(0);
    const uint group = item / TREE_WALK_GROUP, lane = item % TREE_WALK_GROUP;
    if (group >= groups) return;
    const uint first = tree_start(group, groups, n), last = tree_start(group + 1, groups, n);
    if (first == last) return;  /* an empty group (groups of one, n not a power of two) */
    const uint nodes = 2 * leaves;
    GLOBAL const real* RESTRICT cx = node;
    GLOBAL const real* RESTRICT cy = node + nodes;
    GLOBAL const real* RESTRICT cz = node + 2 * nodes;
    GLOBAL const real* RESTRICT cm = node + 3 * nodes;
    GLOBAL const real* RESTRICT crit2 = node + 4 * nodes;
    GLOBAL const real* RESTRICT bx = sorted;
    GLOBAL const real* RESTRICT by = sorted + n;
    GLOBAL const real* RESTRICT bz = sorted + 2 * n;
    GLOBAL const real* RESTRICT bm = sorted + 3 * n;
    /* The group's box, from its bodies (at most TREE_WALK_GROUP broadcast loads: groups
     * smaller than a leaf have no box in the tree). */
    real glox = bx[first], gloy = by[first], gloz = bz[first];
    real ghix = glox, ghiy = gloy, ghiz = gloz;
    for (uint j = first + 1; j < last; ++j) {
        glox = min(glox, bx[j]);
        gloy = min(gloy, by[j]);
        gloz = min(gloz, bz[j]);
        ghix = max(ghix, bx[j]);
        ghiy = max(ghiy, by[j]);
        ghiz = max(ghiz, bz[j]);
    }
    const uint i = first + lane;
    const uint target = min(i, last - 1);
    const real tx = bx[target], ty = by[target], tz = bz[target];
    real sx = REAL_C(0.0), sy = REAL_C(0.0), sz = REAL_C(0.0), sp = REAL_C(0.0);
#if TREE_STAGE
    /* Work-item 0 walks and stages what acts on the group (nodes taken whole, bodies of opened
     * leaves) in local memory, TREE_STAGE at a time; then every work-item applies them. */
    LOCAL real stage_x[TREE_STAGE], stage_y[TREE_STAGE], stage_z[TREE_STAGE], stage_m[TREE_STAGE];
    LOCAL uint stage_count, stage_done;
    uint k = 1, leaf_next = 0, leaf_end = 0;
    int walking = 1;
#if !TREE_STACKLESS
    uint stack[TREE_STACK];
    uint top = 0;
#endif
    for (;;) {
        if (lane == 0) {
            uint c = 0;
            while (c < TREE_STAGE) {
                if (leaf_next < leaf_end) {
                    stage_x[c] = bx[leaf_next];
                    stage_y[c] = by[leaf_next];
                    stage_z[c] = bz[leaf_next];
                    stage_m[c] = bm[leaf_next];
                    ++c;
                    ++leaf_next;
                    continue;
                }
                if (!walking) break;
                int open = 0;
                const real mk = cm[k];
                if (mk > REAL_C(0.0)) {
                    const real ckx = cx[k], cky = cy[k], ckz = cz[k];
                    const real gx = tree_gap(ckx, glox, ghix), gy = tree_gap(cky, gloy, ghiy);
                    const real gz = tree_gap(ckz, gloz, ghiz);
                    if (gx * gx + gy * gy + gz * gz > crit2[k]) {
                        stage_x[c] = ckx;
                        stage_y[c] = cky;
                        stage_z[c] = ckz;
                        stage_m[c] = mk;
                        ++c;
                    } else if (k >= leaves) {
                        leaf_next = tree_start(k - leaves, leaves, n);
                        leaf_end = tree_start(k - leaves + 1, leaves, n);
                    } else {
                        open = 1;
                    }
                }
#if TREE_STACKLESS
                if (open) {
                    k = 2 * k;
                } else {
                    while (k & 1u) k >>= 1;
                    k += 1;
                }
                walking = k != 1;
#else
                if (open) {
                    stack[top++] = 2 * k + 1;
                    stack[top++] = 2 * k;
                }
                walking = top > 0;
                if (walking) k = stack[--top];
#endif
            }
            stage_count = c;
            stage_done = !walking && leaf_next == leaf_end;
        }
        BARRIER_LOCAL;
        const uint c = stage_count, done = stage_done;
        for (uint j = 0; j < c; ++j)
            TREE_INTERACT(stage_x[j], stage_y[j], stage_z[j], stage_m[j], r2 > REAL_C(0.0));
        BARRIER_LOCAL;
        if (done) break;
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
    if (i >= last) return;
    const uint b = perm[i];
    acc[acc_offset + b] = G * sx;
    acc[acc_offset + stride + b] = G * sy;
    acc[acc_offset + 2 * stride + b] = G * sz;
#if TREE_POTENTIAL
    pot[b] = -G * sp;
#endif
}
