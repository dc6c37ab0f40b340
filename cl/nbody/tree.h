#ifndef PARTCL_NBODY_TREE_H
#define PARTCL_NBODY_TREE_H
/* The kd-tree of tree_build.cl and tree_force.cl, stored as a binary heap.
 *
 * Bodies are kept in tree order through a permutation `perm` (tree position -> body). The tree
 * has D levels of splits and 2^D leaves; node k (1 <= k < 2^(D+1)) has children 2k and 2k + 1,
 * the root is 1, level l holds nodes [2^l, 2^(l+1)) and the leaves are [2^D, 2^(D+1)).
 * Node p of level l (heap index 2^l + p) owns tree positions
 *
 *     [tree_start(p, 2^l, n), tree_start(p + 1, 2^l, n)),  tree_start(p, c, n) = floor(p n / c),
 *
 * so the children of a node split its range at its middle (the median along its split axis,
 * once the range is sorted along that axis), and a level's ranges tile [0, n) for ANY n. The
 * host picks D so that a leaf holds at most `leaf_size` bodies; with leaf_size 1 and n not a
 * power of two some leaves (and nodes) are empty: they get mass 0 and traversals skip them.
 *
 * Per-node arrays are structure of arrays of `nodes` = 2^(D+1) elements each (element 0 unused):
 *   node: cx | cy | cz | m | crit2      centre of mass, mass, squared opening distance
 *         | sxx | syy | szz | sxy | sxz | syz
 *                                      second moments sum m u u^T of the bodies' offsets u
 *                                      from the centre of mass (the quadrupole)
 *   box:  lox | loy | loz | hix | hiy | hiz | radius
 *                                      tight box; the node's bodies lie within radius of its
 *                                      centre of mass
 * Sorted bodies: (x, y, z, m) of each body side by side (4 n reals), in tree order. */
#include "common/real.h"

/* First tree position of node p among `count` nodes of a level (64-bit: p * n reaches 2^41). */
INLINE uint tree_start(const uint p, const uint count, const uint n)
{
    return (uint)(((ulong)p * (ulong)n) / (ulong)count);
}

/* The node (of `count` at a level) that owns tree position i: the p with
 * tree_start(p) <= i < tree_start(p + 1), which is ceil((i + 1) count / n) - 1. */
INLINE uint tree_node_of(const uint i, const uint count, const uint n)
{
    return (uint)((((ulong)i + 1) * (ulong)count - 1) / (ulong)n);
}

/* v, or `flag` where v is NaN or infinite: such a body widens the root box to the largest
 * reals, which the host refuses (a NaN would otherwise take no place in the sorts' order). */
INLINE real tree_bounded(const real v, const real flag)
{
    return isnan(v) || fabs(v) >= REAL_MAX ? flag : v;
}

/* The work-group's boxes, lane l's at lo[a * size + l] and hi[a * size + l] (axis a, `size` lanes, a
 * power of two), reduced into lane 0's; every lane calls it once its own box is written. */
INLINE void tree_reduce_boxes(LOCAL_SPACE real* lo, LOCAL_SPACE real* hi, const uint lane, const uint size)
{
    BARRIER_LOCAL;
    for (uint stride = size / 2; stride > 0; stride /= 2) {
        if (lane < stride)
            for (uint a = 0; a < 3; ++a) {
                lo[a * size + lane] = min(lo[a * size + lane], lo[a * size + lane + stride]);
                hi[a * size + lane] = max(hi[a * size + lane], hi[a * size + lane + stride]);
            }
        BARRIER_LOCAL;
    }
}

#endif /* PARTCL_NBODY_TREE_H */
