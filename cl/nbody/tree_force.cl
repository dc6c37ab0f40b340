/* Barnes-Hut gravity over the heap kd-tree of nbody/tree.h (built by tree_build.cl).
 *
 * Work-item i takes the body at tree position i (neighbouring work-items hold neighbouring
 * bodies, so they walk nearly the same nodes) and walks the tree depth first, left child
 * first. At node k (skipped when its mass is 0):
 *   d^2 > crit2[k]     far enough: the node acts as one body of its mass at its centre of mass
 *   else, k a leaf     its bodies act one by one (pairs at zero separation skipped, as dense)
 *   else               open: visit 2k, then 2k + 1
 * with the softened force of dense.cl: a = G m (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2),
 * phi = -G m / (|r_j - r_i|^2 + eps^2)^(1/2).
 *
 * TREE_STACKLESS 0: nested traversal with an explicit stack of TREE_STACK node indices in
 *                   private memory (depth-first needs at most one entry per level plus one);
 *                1: stackless: after visiting or skipping node k the next node is k's next
 *                   sibling on the way back up, (k >> trailing ones of k) + 1; back at the
 *                   root (1) the walk is over. Both visit the same nodes in the same order.
 * TREE_POTENTIAL 1: also write the potential.
 *
 * Results land at the body's own index: acc[acc_offset + b] (x), + stride (y), + 2 stride (z),
 * pot[b]. */
#include "nbody/tree.h"

#ifndef TREE_STACKLESS
#define TREE_STACKLESS 1
#endif
#ifndef TREE_STACK
#define TREE_STACK 64
#endif
#ifndef TREE_POTENTIAL
#define TREE_POTENTIAL 0
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

/* Visits node k: accumulates what it contributes and says whether to open it (1) or move on
 * (0). */
#define TREE_VISIT(k, open)                                                            \
    {                                                                                  \
        open = 0;                                                                      \
        const real mk = cm[k];                                                         \
        if (mk > REAL_C(0.0)) {                                                        \
            const real ddx = cx[k] - tx, ddy = cy[k] - ty, ddz = cz[k] - tz;           \
            if (ddx * ddx + ddy * ddy + ddz * ddz > crit2[k]) {                        \
                TREE_INTERACT(cx[k], cy[k], cz[k], mk, 1);                             \
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

KERNEL void tree_gravity(const uint n, const uint leaves, const uint nodes, const real eps2,
                         const real G, GLOBAL const real* RESTRICT node,
                         GLOBAL const real* RESTRICT sorted, GLOBAL const uint* RESTRICT perm,
                         GLOBAL real* RESTRICT acc, const uint acc_offset, const uint stride,
                         GLOBAL real* RESTRICT pot)
{
    const uint i = global_id(0);
    if (i >= n) return;
    GLOBAL const real* RESTRICT cx = node;
    GLOBAL const real* RESTRICT cy = node + nodes;
    GLOBAL const real* RESTRICT cz = node + 2 * nodes;
    GLOBAL const real* RESTRICT cm = node + 3 * nodes;
    GLOBAL const real* RESTRICT crit2 = node + 4 * nodes;
    GLOBAL const real* RESTRICT bx = sorted;
    GLOBAL const real* RESTRICT by = sorted + n;
    GLOBAL const real* RESTRICT bz = sorted + 2 * n;
    GLOBAL const real* RESTRICT bm = sorted + 3 * n;
    const real tx = bx[i], ty = by[i], tz = bz[i];
    real sx = REAL_C(0.0), sy = REAL_C(0.0), sz = REAL_C(0.0), sp = REAL_C(0.0);
#if TREE_STACKLESS
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
    const uint b = perm[i];
    acc[acc_offset + b] = G * sx;
    acc[acc_offset + stride + b] = G * sy;
    acc[acc_offset + 2 * stride + b] = G * sz;
#if TREE_POTENTIAL
    pot[b] = -G * sp;
#endif
}
