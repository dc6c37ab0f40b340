/* The top levels of nbody/tree.h's kd-tree over the bodies of every rank, and the bodies' way to
 * the rank that builds their node's subtree and their results' way back (DeviceTreeTop and
 * EssentialTreeGravity, lib/models/nbody; docs/design.md, "Ranks").
 *
 * A rank's m bodies: pos (x | y | z, m each), index (each body's place in the global order),
 * perm (the rank's order: place s -> body) and node (body -> its node at the level being
 * split, 0 .. count - 1). The split, per level of `count` nodes (lib/models/nbody/
 * tree_top_split.hpp runs the selection on the host):
 *   top_keys, sort_by_key (reals), top_groups, sort_by_key (uint)
 *       the bodies by node, each node's along its axis, ties in the order before: the build's
 *       segmented sort, from the root's order by index (top_start and a sort)
 *   top_probe, top_count_before
 *       a round of the distributed median selection: the keys at a few places; how many of a
 *       run of places come before a pivot
 *   top_children
 *       each body into the child of its node that its place is in.
 * The order of node k's bodies (top_before): along k's axis, ties along its parent's axis and
 * so on to the root's, then by index, which is what those stable sorts give (top_keys makes -0
 * a +0 key, so that every sort holds them equal, as < does).
 *
 * The move: top_pack writes each body as a record in the rank's order (x, y, z, m | index,
 * node), which is by node and so by the rank that owns the node; the records arriving from
 * each rank are a run in the tree's order, which top_merge interleaves (a body's place is its
 * place in its run plus, for every other run, the count there before it) and top_place lays
 * out for the build. The results go back the same way: top_results lays them out by arrival,
 * top_home puts the ones that came home at their bodies. */
#include "nbody/tree.h"

#ifndef TOP_GROUP
#define TOP_GROUP 64
#endif

/* Body a (a0, a1, a2, ia) before body b in the order of heap node k's bodies. */
INLINE int top_before(GLOBAL const uint* RESTRICT axis, uint k, const real a0, const real a1,
                      const real a2, const uint ia, const real b0, const real b1, const real b2,
                      const uint ib)
{
    for (; k >= 1; k >>= 1) {
        const uint x = axis[k];
        const real u = x == 0 ? a0 : (x == 1 ? a1 : a2);
        const real v = x == 0 ? b0 : (x == 1 ? b1 : b2);
        if (u != v) return u < v;
    }
    return ia < ib;
}

/* This rank's bounding box: work-group g bounds the bodies it meets (a grid-stride loop) into
 * partial[6 g + a] (lower, axis a) and partial[6 g + 3 + a] (upper). A NaN or infinite
 * coordinate makes its side the largest real, which the host refuses. */
KERNEL WORK_GROUP_SIZE(TOP_GROUP) void top_bounds(const uint m, GLOBAL const real* RESTRICT pos,
                                                  GLOBAL real* RESTRICT partial)
{
    LOCAL real lo[3 * TOP_GROUP];
    LOCAL real hi[3 * TOP_GROUP];
    const uint lane = local_id(0);
    for (uint a = 0; a < 3; ++a) {
        real l = REAL_MAX, h = -REAL_MAX;
        for (uint i = global_id(0); i < m; i += global_size(0)) {
            l = min(l, tree_bounded(pos[a * m + i], -REAL_MAX));
            h = max(h, tree_bounded(pos[a * m + i], REAL_MAX));
        }
        lo[a * TOP_GROUP + lane] = l;
        hi[a * TOP_GROUP + lane] = h;
    }
    tree_reduce_boxes(lo, hi, lane, TOP_GROUP);
    if (lane == 0)
        for (uint a = 0; a < 3; ++a) {
            partial[6 * group_id(0) + a] = lo[a * TOP_GROUP];
            partial[6 * group_id(0) + 3 + a] = hi[a * TOP_GROUP];
        }
}

/* The root's order: keys = the bodies' indices, values = the bodies, for a sort by key; every
 * body in node 0. */
KERNEL void top_start(const uint m, GLOBAL const uint* RESTRICT index, GLOBAL uint* RESTRICT keys,
                      GLOBAL uint* RESTRICT values, GLOBAL uint* RESTRICT node)
{
    const uint i = global_id(0);
    if (i >= m) return;
    keys[i] = index[i];
    values[i] = i;
    node[i] = 0;
}

/* Level of `count` nodes, each body's node node[b] >> shift: keys[s] = the coordinate of body
 * perm[s] along its node's axis, values[s] = the body. */
KERNEL void top_keys(const uint m, const uint count, const uint shift, GLOBAL const uint* RESTRICT axis,
                     GLOBAL const uint* RESTRICT node, GLOBAL const real* RESTRICT pos,
                     GLOBAL const uint* RESTRICT perm, GLOBAL real* RESTRICT keys,
                     GLOBAL uint* RESTRICT values)
{
    const uint s = global_id(0);
    if (s >= m) return;
    const uint b = perm[s];
    const real v = pos[axis[count + (node[b] >> shift)] * m + b];
    keys[s] = v == REAL_C(0.0) ? REAL_C(0.0) : v;
    values[s] = b;
}

/* After the sort along the axes: keys[s] = the node of body values[s] (node[b] >> shift). */
KERNEL void top_groups(const uint m, const uint shift, GLOBAL const uint* RESTRICT node,
                       GLOBAL const uint* RESTRICT values, GLOBAL uint* RESTRICT keys)
{
    const uint s = global_id(0);
    if (s >= m) return;
    keys[s] = node[values[s]] >> shift;
}

/* The keys at places at[o]: coordinates at key[3 o + a], the index at key_index[o]. */
KERNEL void top_probe(const uint probes, GLOBAL const uint* RESTRICT at, const uint m,
                      GLOBAL const real* RESTRICT pos, GLOBAL const uint* RESTRICT index,
                      GLOBAL const uint* RESTRICT perm, GLOBAL real* RESTRICT key,
                      GLOBAL uint* RESTRICT key_index)
{
    const uint o = global_id(0);
    if (o >= probes) return;
    const uint b = perm[at[o]];
    for (uint a = 0; a < 3; ++a) key[3 * o + a] = pos[a * m + b];
    key_index[o] = index[b];
}

/* Ask o (ask[4 o ..]: lo, hi, heap node k, the pivot's index; its coordinates at pivot[3 o ..]):
 * found[2 o] = how many of places [lo, hi), in node k's order, hold bodies before the pivot,
 * found[2 o + 1] = 1 if the next place holds the pivot itself. */
KERNEL void top_count_before(const uint asks, GLOBAL const uint* RESTRICT ask,
                             GLOBAL const real* RESTRICT pivot, GLOBAL const uint* RESTRICT axis,
                             const uint m, GLOBAL const real* RESTRICT pos,
                             GLOBAL const uint* RESTRICT index, GLOBAL const uint* RESTRICT perm,
                             GLOBAL uint* RESTRICT found)
{
    const uint o = global_id(0);
    if (o >= asks) return;
    const uint lo = ask[4 * o], hi = ask[4 * o + 1], k = ask[4 * o + 2], pi = ask[4 * o + 3];
    const real p0 = pivot[3 * o], p1 = pivot[3 * o + 1], p2 = pivot[3 * o + 2];
    uint first = lo, len = hi - lo;
    while (len > 0) {
        const uint step = len / 2, mid = first + step, b = perm[mid];
        if (top_before(axis, k, pos[b], pos[m + b], pos[2 * m + b], index[b], p0, p1, p2, pi)) {
            first = mid + 1;
            len -= step + 1;
        } else {
            len = step;
        }
    }
    found[2 * o] = first - lo;
    found[2 * o + 1] = first < hi && index[perm[first]] == pi ? 1u : 0u;
}

/* Each body into its child: node p's bodies at places from cut[p] on go right. */
KERNEL void top_children(const uint m, GLOBAL const uint* RESTRICT perm, GLOBAL const uint* RESTRICT cut,
                         GLOBAL uint* RESTRICT node)
{
    const uint s = global_id(0);
    if (s >= m) return;
    const uint b = perm[s], p = node[b];
    node[b] = 2 * p + (s >= cut[p] ? 1u : 0u);
}

/* The records of the bodies in the rank's order: rec[4 s ..] = x, y, z, m, tag[2 s ..] =
 * index, node. */
KERNEL void top_pack(const uint m, GLOBAL const uint* RESTRICT perm, GLOBAL const real* RESTRICT pos,
                     GLOBAL const real* RESTRICT mass, GLOBAL const uint* RESTRICT index,
                     GLOBAL const uint* RESTRICT node, GLOBAL real* RESTRICT rec,
                     GLOBAL uint* RESTRICT tag)
{
    const uint s = global_id(0);
    if (s >= m) return;
    const uint b = perm[s];
    for (uint a = 0; a < 3; ++a) rec[4 * s + a] = pos[a * m + b];
    rec[4 * s + 3] = mass[b];
    tag[2 * s] = index[b];
    tag[2 * s + 1] = node[b];
}

/* Arrived record c before arrived record a in the tree's order at the level of `count` nodes:
 * by node, then in the node's order, which its parent's sort left. */
INLINE int top_arrived_before(GLOBAL const uint* RESTRICT axis, const uint count,
                              GLOBAL const real* RESTRICT rec, GLOBAL const uint* RESTRICT tag,
                              const uint c, const uint a)
{
    const uint nc = tag[2 * c + 1], na = tag[2 * a + 1];
    if (nc != na) return nc < na;
    return top_before(axis, (count + na) / 2, rec[4 * c], rec[4 * c + 1], rec[4 * c + 2], tag[2 * c],
                      rec[4 * a], rec[4 * a + 1], rec[4 * a + 2], tag[2 * a]);
}

/* The held records arrived in runs, run r at [run[r], run[r + 1]), each in the tree's order:
 * order[place] = a for record a at its place among all. */
KERNEL void top_merge(const uint held, const uint runs, GLOBAL const uint* RESTRICT run,
                      const uint count, GLOBAL const uint* RESTRICT axis,
                      GLOBAL const real* RESTRICT rec, GLOBAL const uint* RESTRICT tag,
                      GLOBAL uint* RESTRICT order)
{
    const uint a = global_id(0);
    if (a >= held) return;
    uint mine = 0;
    while (run[mine + 1] <= a) ++mine;
    uint place = a - run[mine];
    for (uint r = 0; r < runs; ++r) {
        if (r == mine) continue;
        uint first = run[r], len = run[r + 1] - run[r];
        while (len > 0) {
            const uint step = len / 2, mid = first + step;
            if (top_arrived_before(axis, count, rec, tag, mid, a)) {
                first = mid + 1;
                len -= step + 1;
            } else {
                len = step;
            }
        }
        place += first - run[r];
    }
    order[place] = a;
}

/* The held bodies in the tree's order for the build: positions x | y | z and masses. */
KERNEL void top_place(const uint held, GLOBAL const uint* RESTRICT order, GLOBAL const real* RESTRICT rec,
                      GLOBAL real* RESTRICT pos, GLOBAL real* RESTRICT mass)
{
    const uint j = global_id(0);
    if (j >= held) return;
    const uint a = order[j];
    for (uint c = 0; c < 3; ++c) pos[c * held + j] = rec[4 * a + c];
    mass[j] = rec[4 * a + 3];
}

/* The walk's results (acceleration x | y | z and potential, by the build's body j, which is
 * arrival order[perm[j]]) by arrival: res[4 a ..] = ax, ay, az, potential (0 unless
 * with_potential). */
KERNEL void top_results(const uint held, GLOBAL const uint* RESTRICT order, GLOBAL const uint* RESTRICT perm,
                        GLOBAL const real* RESTRICT acc, const uint with_potential,
                        GLOBAL const real* RESTRICT potential, GLOBAL real* RESTRICT res)
{
    const uint j = global_id(0);
    if (j >= held) return;
    const uint a = order[perm[j]];
    for (uint c = 0; c < 3; ++c) res[4 * a + c] = acc[c * held + j];
    res[4 * a + 3] = with_potential ? potential[j] : REAL_C(0.0);
}

/* The results home, res[4 s ..] for the body at the rank's place s: its acceleration at
 * out[offset + c m + b], its potential at potential[b] if with_potential. */
KERNEL void top_home(const uint m, GLOBAL const uint* RESTRICT perm, GLOBAL const real* RESTRICT res,
                     const uint offset, GLOBAL real* RESTRICT out, const uint with_potential,
                     GLOBAL real* RESTRICT potential)
{
    const uint s = global_id(0);
    if (s >= m) return;
    const uint b = perm[s];
    for (uint c = 0; c < 3; ++c) out[offset + c * m + b] = res[4 * s + c];
    if (with_potential) potential[b] = res[4 * s + 3];
}
