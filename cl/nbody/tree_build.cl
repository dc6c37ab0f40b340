/* Building the heap kd-tree of nbody/tree.h on the device.
 *
 * Top down, once per level l = 0 .. D-1 (count = 2^l nodes), the host runs
 *   tree_keys      key = each body's coordinate along its node's widest axis, value = position
 *   sort_by_key    (real keys, stable)
 *   tree_regroup   key = the node the body came from, value = the body
 *   sort_by_key    (uint keys, stable): bodies grouped by node again, each node's range now
 *                  sorted along its axis (a segmented sort from two stable sorts)
 *   tree_split     each node's cell box cut at its median body into its children's boxes
 * and, once nodes hold at most TREE_FINISH bodies, the remaining levels by tree_finish, a
 * work-group per node, in local memory.
 * after tree_root_box has bounded all bodies. The cell boxes only choose split axes (widest
 * side of the cell, as a classic kd-tree does); the opening criterion uses the tight boxes the
 * bottom-up pass computes:
 *   tree_gather    positions and masses in tree order
 *   tree_leaves    mass, centre of mass, second moments, tight box and crit2 of each leaf
 *                  from its bodies
 *   tree_nodes     the same for level l from level l + 1, for l = D-1 .. 0
 *
 * crit2 = (r / theta)^2 where r, the node's radius, bounds the distance of its bodies from its
 * centre of mass: a leaf's is the farthest body's; a node's the smaller of its tight box's
 * farthest corner and max over its children of (distance between the centres + the child's
 * radius). A target at distance d from com treats the node as a whole when d^2 > crit2, i.e.
 * r / d < theta (drons/nbody's lambda_crit is 1 / theta). theta = 0 opens every node. A body
 * of a node is at most r from the node's com: with theta <= 1 no body accepts a node that
 * holds it (the factors 1 + 4 eps on r and 1 + 8 eps on crit2 keep that true through
 * rounding), and bodies never meet themselves.
 *
 * A window: a rank of locally essential trees (docs/design.md, "Ranks") holds the bodies of
 * a run of nodes at some level, the tree positions [base, base + m) of the tree of all n,
 * and builds their subtrees alone. So the kernels take the tree's n for the ranges
 * (tree_start), base and m for the bodies held (pos and perm hold m, position i is base + i),
 * and the launches over nodes the run's nodes [first, last) of their level, in the heap of
 * all n. The whole tree is the window base 0, m = n, every node.
 *
 * TREE_GROUP: work-group size of tree_root_box (a power of two). */
#include "nbody/tree.h"

#ifndef TREE_GROUP
#define TREE_GROUP 64
#endif

/* The widest side of node k's cell box; ties go to the lower axis. */
INLINE uint tree_widest_axis(GLOBAL const real* box, const uint nodes, const uint k)
{
    const real ex = box[3 * nodes + k] - box[k];
    const real ey = box[4 * nodes + k] - box[nodes + k];
    const real ez = box[5 * nodes + k] - box[2 * nodes + k];
    return ex >= ey ? (ex >= ez ? 0u : 2u) : (ey >= ez ? 1u : 2u);
}


/* The root box in two passes of this kernel (one work-group alone would take milliseconds
 * for a million bodies): work-group g bounds items [0, n) it meets with a grid-stride loop,
 * lower corner of item i along axis a at in[a * in_stride + i], upper at
 * in[hi_offset + a * in_stride + i], and writes its box to out[a * out_stride + out_offset + g]
 * (lower) and out[(3 + a) * out_stride + out_offset + g] (upper). Pass 1 over the bodies
 * (hi_offset 0) into per-group partial boxes, also setting perm = identity for the first
 * perm_count items; pass 2, one work-group, over the partial boxes into node 1. n >= 1 items
 * per pass and at most as many work-groups as items, so every group meets one. */
KERNEL WORK_GROUP_SIZE(TREE_GROUP) void tree_root_box(const uint n, const uint in_stride,
                                                      const uint hi_offset,
                                                      GLOBAL const real* RESTRICT in,
                                                      const uint out_stride, const uint out_offset,
                                                      GLOBAL real* RESTRICT out,
                                                      const uint perm_count,
                                                      GLOBAL uint* RESTRICT perm)
{
    LOCAL real lo[3 * TREE_GROUP];
    LOCAL real hi[3 * TREE_GROUP];
    const uint lane = local_id(0);
    const uint first = global_id(0), step = global_size(0);
    for (uint a = 0; a < 3; ++a) {
        real l = REAL_MAX, h = -REAL_MAX;
        for (uint i = first; i < n; i += step) {
            l = min(l, tree_bounded(in[a * in_stride + i], -REAL_MAX));
            h = max(h, tree_bounded(in[hi_offset + a * in_stride + i], REAL_MAX));
        }
        lo[a * TREE_GROUP + lane] = l;
        hi[a * TREE_GROUP + lane] = h;
    }
    for (uint i = first; i < perm_count; i += step) perm[i] = i;
    tree_reduce_boxes(lo, hi, lane, TREE_GROUP);
    if (lane == 0)
        for (uint a = 0; a < 3; ++a) {
            out[a * out_stride + out_offset + group_id(0)] = lo[a * TREE_GROUP];
            out[(3u + a) * out_stride + out_offset + group_id(0)] = hi[a * TREE_GROUP];
        }
}

/* Level with `count` nodes: keys[i] = coordinate of body perm[i] along its node's widest axis,
 * values[i] = i. */
KERNEL void tree_keys(const uint n, const uint base, const uint m, const uint count,
                      const uint nodes, GLOBAL const real* RESTRICT pos,
                      GLOBAL const real* RESTRICT box, GLOBAL const uint* RESTRICT perm,
                      GLOBAL real* RESTRICT keys, GLOBAL uint* RESTRICT values)
{
    const uint i = global_id(0);
    if (i >= m) return;
    const uint axis = tree_widest_axis(box, nodes, count + tree_node_of(base + i, count, n));
    keys[i] = pos[axis * m + perm[i]];
    values[i] = i;
}

/* After the sort by coordinate: node_keys[j] = the node position values[j] belonged to,
 * perm_out[j] = its body. */
KERNEL void tree_regroup(const uint n, const uint base, const uint m, const uint count,
                         GLOBAL const uint* RESTRICT values, GLOBAL const uint* RESTRICT perm,
                         GLOBAL uint* RESTRICT node_keys, GLOBAL uint* RESTRICT perm_out)
{
    const uint j = global_id(0);
    if (j >= m) return;
    const uint from = values[j];
    node_keys[j] = tree_node_of(base + from, count, n);
    perm_out[j] = perm[from];
}

/* Node k's children's cell boxes: its own, cut along `axis` at `cut` (the coordinate of the
 * right child's first body) when both children hold bodies. */
INLINE void tree_cut(GLOBAL real* RESTRICT box, const uint nodes, const uint k, const uint axis,
                     const int split, const real cut)
{
    for (uint c = 0; c < 6; ++c) {
        const real v = box[c * nodes + k];
        box[c * nodes + 2 * k] = v;
        box[c * nodes + 2 * k + 1] = v;
    }
    if (split) {
        box[(3 + axis) * nodes + 2 * k] = cut;  /* left: hi */
        box[axis * nodes + 2 * k + 1] = cut;    /* right: lo */
    }
}

/* Node p (first <= p < last) of a level of `count` (its range sorted along its widest axis):
 * the children's cell boxes are its own, cut at the coordinate of the right child's first
 * body. */
KERNEL void tree_split(const uint n, const uint base, const uint m, const uint first,
                       const uint last, const uint count, const uint nodes,
                       GLOBAL const real* RESTRICT pos, GLOBAL const uint* RESTRICT perm,
                       GLOBAL real* RESTRICT box)
{
    const uint p = first + global_id(0);
    if (p >= last) return;
    const uint k = count + p;
    const uint axis = tree_widest_axis(box, nodes, k);
    const uint begin = tree_start(p, count, n), end = tree_start(p + 1, count, n);
    const uint mid = tree_start(2 * p + 1, 2 * count, n);
    const int split = begin < mid && mid < end;
    tree_cut(box, nodes, k, axis, split, split ? pos[axis * m + perm[mid - base]] : REAL_C(0.0));
}

/* The levels from `first_level` down, for nodes of at most TREE_FINISH bodies, in one launch:
 * work-group p takes node p of level first_level (whose count <= TREE_FINISH bodies it holds in
 * local memory) and does for each level what tree_keys, the two sorts and tree_split do for
 * the whole tree: each body's rank within its node along the node's widest axis (ties by
 * position: the stable sort's order), then the cut into the children's cell boxes. The same
 * tree, without a sort of all n bodies per level. */
#ifdef TREE_FINISH
KERNEL WORK_GROUP_SIZE(TREE_FINISH) void tree_finish(const uint n, const uint base, const uint m,
                                                     const uint first, const uint first_level,
                                                     const uint levels, const uint nodes,
                                                     GLOBAL const real* RESTRICT pos,
                                                     GLOBAL uint* RESTRICT perm,
                                                     GLOBAL real* RESTRICT box)
{
    LOCAL uint body[TREE_FINISH], ranked[TREE_FINISH];
    LOCAL real key[TREE_FINISH];
    const uint lane = local_id(0), p = first + group_id(0);
    const uint first_count = 1u << first_level;
    const uint begin = tree_start(p, first_count, n), size = tree_start(p + 1, first_count, n) - begin;
    const int active = lane < size;
    const uint i = begin + (active ? lane : 0u);  /* this work-item's tree position */
    if (active) body[lane] = perm[i - base];
    for (uint level = first_level; level < levels; ++level) {
        const uint count = 1u << level;
        /* The node of this level holding position i, its range, and its axis. */
        const uint q = tree_node_of(i, count, n);
        const uint k = count + q;
        const uint lo = tree_start(q, count, n) - begin, hi = tree_start(q + 1, count, n) - begin;
        const uint axis = tree_widest_axis(box, nodes, k);
        BARRIER_LOCAL;
        if (active) key[lane] = pos[axis * m + body[lane]];
        BARRIER_LOCAL;
        if (active) {
            const real mine = key[lane];
            uint rank = lo;
            for (uint j = lo; j < hi; ++j) {
                const real other = key[j];
                rank += (other < mine || (other == mine && j < lane)) ? 1u : 0u;
            }
            ranked[rank] = body[lane];
        }
        BARRIER_LOCAL;
        if (active) body[lane] = ranked[lane];
        BARRIER_LOCAL;
        /* The node's first work-item cuts its cell box at its right child's first body. */
        if (active && lane == lo) {
            const uint mid = tree_start(2 * q + 1, 2 * count, n) - begin;
            const int split = lo < mid && mid < hi;
            tree_cut(box, nodes, k, axis, split, split ? pos[axis * m + body[mid]] : REAL_C(0.0));
        }
        BARRIER_GLOBAL;
    }
    if (active) perm[i - base] = body[lane];
}
#endif

/* sorted: (x, y, z, m) of each body side by side, in tree order (one wide load per body in
 * the walk). */
KERNEL void tree_gather(const uint n, GLOBAL const real* RESTRICT pos,
                        GLOBAL const real* RESTRICT mass, GLOBAL const uint* RESTRICT perm,
                        GLOBAL real* RESTRICT sorted)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const uint b = perm[i];
    sorted[4 * i] = pos[b];
    sorted[4 * i + 1] = pos[n + b];
    sorted[4 * i + 2] = pos[2 * n + b];
    sorted[4 * i + 3] = mass[b];
}

/* crit2 of a node whose bodies lie within `radius` of its centre of mass. */
INLINE real tree_crit2(const real radius, const real theta)
{
    if (theta <= REAL_C(0.0)) return REAL_MAX;
    return radius * radius / (theta * theta) * (REAL_C(1.0) + REAL_C(8.0) * REAL_EPSILON);
}

/* Distance from c to the farthest corner of the box [lo, hi]. */
INLINE real tree_corner(const real cx, const real cy, const real cz, const real lox,
                        const real loy, const real loz, const real hix, const real hiy,
                        const real hiz)
{
    const real rx = max(hix - cx, cx - lox);
    const real ry = max(hiy - cy, cy - loy);
    const real rz = max(hiz - cz, cz - loz);
    return sqrt(rx * rx + ry * ry + rz * rz);
}

/* Writes node k's summary; an empty or massless node gets mass 0 (traversals skip it) and,
 * empty, the box lo = REAL_MAX, hi = -REAL_MAX that any union ignores. s: the second moments
 * about the centre of mass, xx yy zz xy xz yz; radius: the node's bodies lie within it of the
 * centre. */
INLINE void tree_store(GLOBAL real* RESTRICT node, GLOBAL real* RESTRICT box, const uint nodes,
                       const uint k, const real m, const real cx, const real cy, const real cz,
                       const real* s, const real radius, const real lox, const real loy,
                       const real loz, const real hix, const real hiy, const real hiz,
                       const real theta)
{
    const int massive = m > REAL_C(0.0);
    node[k] = cx;
    node[nodes + k] = cy;
    node[2 * nodes + k] = cz;
    node[3 * nodes + k] = massive ? m : REAL_C(0.0);
    node[4 * nodes + k] = massive ? tree_crit2(radius, theta) : REAL_C(0.0);
    for (uint c = 0; c < 6; ++c) node[(5 + c) * nodes + k] = massive ? s[c] : REAL_C(0.0);
    box[k] = lox;
    box[nodes + k] = loy;
    box[2 * nodes + k] = loz;
    box[3 * nodes + k] = hix;
    box[4 * nodes + k] = hiy;
    box[5 * nodes + k] = hiz;
    box[6 * nodes + k] = radius;
}

/* The centre of a node of mass m and weighted sum w: the centre of mass, or for a massless
 * node its box's centre (0 when empty). */
INLINE real tree_centre(const real m, const real w, const real lo, const real hi)
{
    return m > REAL_C(0.0) ? w / m : (lo > hi ? REAL_C(0.0) : REAL_C(0.5) * (lo + hi));
}

/* Adds m u u^T to the second moments s (xx yy zz xy xz yz). */
INLINE void tree_add_moments(real* s, const real m, const real ux, const real uy, const real uz)
{
    s[0] += m * ux * ux;
    s[1] += m * uy * uy;
    s[2] += m * uz * uz;
    s[3] += m * ux * uy;
    s[4] += m * ux * uz;
    s[5] += m * uy * uz;
}

/* Leaf p (first <= p < last) of `leaves` from its bodies (sorted: tree order): the centre of
 * mass, then the second moments about it. */
KERNEL void tree_leaves(const uint n, const uint base, const uint first, const uint last,
                        const uint leaves, const uint nodes, GLOBAL const real* RESTRICT sorted,
                        GLOBAL real* RESTRICT node, GLOBAL real* RESTRICT box, const real theta)
{
    const uint p = first + global_id(0);
    if (p >= last) return;
    const uint begin = tree_start(p, leaves, n) - base, end = tree_start(p + 1, leaves, n) - base;
    real m = REAL_C(0.0), wx = REAL_C(0.0), wy = REAL_C(0.0), wz = REAL_C(0.0);
    real lox = REAL_MAX, loy = REAL_MAX, loz = REAL_MAX;
    real hix = -REAL_MAX, hiy = -REAL_MAX, hiz = -REAL_MAX;
    for (uint i = begin; i < end; ++i) {
        const real x = sorted[4 * i], y = sorted[4 * i + 1], z = sorted[4 * i + 2];
        const real mi = sorted[4 * i + 3];
        m += mi;
        wx += mi * x;
        wy += mi * y;
        wz += mi * z;
        lox = min(lox, x);
        loy = min(loy, y);
        loz = min(loz, z);
        hix = max(hix, x);
        hiy = max(hiy, y);
        hiz = max(hiz, z);
    }
    const real cx = tree_centre(m, wx, lox, hix), cy = tree_centre(m, wy, loy, hiy);
    const real cz = tree_centre(m, wz, loz, hiz);
    real s[6] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    real far2 = REAL_C(0.0);
    for (uint i = begin; i < end; ++i) {
        const real ux = sorted[4 * i] - cx, uy = sorted[4 * i + 1] - cy, uz = sorted[4 * i + 2] - cz;
        tree_add_moments(s, sorted[4 * i + 3], ux, uy, uz);
        far2 = max(far2, ux * ux + uy * uy + uz * uz);
    }
    const real radius = sqrt(far2) * (REAL_C(1.0) + REAL_C(4.0) * REAL_EPSILON);
    tree_store(node, box, nodes, leaves + p, m, cx, cy, cz, s, radius, lox, loy, loz, hix, hiy,
               hiz, theta);
}

/* Node p (first <= p < last) of a level of `count` from its two children; second moments by
 * the parallel-axis rule, each child's about its own centre of mass plus its mass at that
 * centre. */
KERNEL void tree_nodes(const uint first, const uint last, const uint count, const uint nodes,
                       GLOBAL real* RESTRICT node, GLOBAL real* RESTRICT box, const real theta)
{
    const uint p = first + global_id(0);
    if (p >= last) return;
    const uint k = count + p;
    const uint child[2] = {2 * k, 2 * k + 1};
    real m = REAL_C(0.0), w[3] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    real lo[3], hi[3];
    for (uint a = 0; a < 3; ++a) {
        lo[a] = min(box[a * nodes + child[0]], box[a * nodes + child[1]]);
        hi[a] = max(box[(3 + a) * nodes + child[0]], box[(3 + a) * nodes + child[1]]);
    }
    for (uint c = 0; c < 2; ++c) {
        const real mc = node[3 * nodes + child[c]];
        m += mc;
        for (uint a = 0; a < 3; ++a) w[a] += mc * node[a * nodes + child[c]];
    }
    real centre[3];
    for (uint a = 0; a < 3; ++a) centre[a] = tree_centre(m, w[a], lo[a], hi[a]);
    real s[6] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    /* The bodies lie within the tight box's farthest corner, and within each (non-empty)
     * child's radius of its centre: the smaller bound is the radius. */
    real reach = REAL_C(0.0);
    for (uint c = 0; c < 2; ++c) {
        const uint q = child[c];
        for (uint e = 0; e < 6; ++e) s[e] += node[(5 + e) * nodes + q];
        const real ux = node[q] - centre[0], uy = node[nodes + q] - centre[1];
        const real uz = node[2 * nodes + q] - centre[2];
        tree_add_moments(s, node[3 * nodes + q], ux, uy, uz);
        if (box[q] <= box[3 * nodes + q])
            reach = max(reach, sqrt(ux * ux + uy * uy + uz * uz) + box[6 * nodes + q]);
    }
    const real corner = tree_corner(centre[0], centre[1], centre[2], lo[0], lo[1], lo[2], hi[0],
                                    hi[1], hi[2]);
    const real radius = min(corner, reach) * (REAL_C(1.0) + REAL_C(4.0) * REAL_EPSILON);
    tree_store(node, box, nodes, k, m, centre[0], centre[1], centre[2], s, radius, lo[0], lo[1],
               lo[2], hi[0], hi[1], hi[2], theta);
}

/* Locally essential trees (docs/design.md, "Ranks"): other ranks' nodes and bodies into this
 * rank's heap. Row j of `rows` (the 11 node fields, then the radius) becomes node ids[j]; no
 * two rows name the same node. */
KERNEL void tree_import_nodes(const uint count, const uint nodes, GLOBAL const uint* RESTRICT ids,
                              GLOBAL const real* RESTRICT rows, GLOBAL real* RESTRICT node,
                              GLOBAL real* RESTRICT box)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint k = ids[j];
    for (uint f = 0; f < 11; ++f) node[f * nodes + k] = rows[12 * j + f];
    box[6 * nodes + k] = rows[12 * j + 11];
}

/* Body j (x, y, z, m of `values`) at tree position at[j] of `sorted`; no two at one position. */
KERNEL void tree_import_bodies(const uint count, GLOBAL const uint* RESTRICT at,
                               GLOBAL const real* RESTRICT values, GLOBAL real* RESTRICT sorted)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint p = at[j];
    for (uint c = 0; c < 4; ++c) sorted[4 * p + c] = values[4 * j + c];
}

/* What a rank sends of its subtrees (the inverse of the imports): rows[12 j ..] = node ids[j]'s
 * 11 node fields, then its radius; values[4 j ..] = the body at tree position at[j] of `sorted`
 * (x, y, z, m). */
KERNEL void tree_export_nodes(const uint count, const uint nodes, GLOBAL const uint* RESTRICT ids,
                              GLOBAL const real* RESTRICT node, GLOBAL const real* RESTRICT box,
                              GLOBAL real* RESTRICT rows)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint k = ids[j];
    for (uint f = 0; f < 11; ++f) rows[12 * j + f] = node[f * nodes + k];
    rows[12 * j + 11] = box[6 * nodes + k];
}

KERNEL void tree_export_bodies(const uint count, GLOBAL const uint* RESTRICT at,
                               GLOBAL const real* RESTRICT sorted, GLOBAL real* RESTRICT values)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint p = at[j];
    for (uint c = 0; c < 4; ++c) values[4 * j + c] = sorted[4 * p + c];
}

/* Locally essential trees' selection (TreeGravity::essential_sends): what of this rank's
 * subtrees the walk groups of other ranks may meet. Each group lies inside a box (a node of the
 * branches' level another rank owns), so its walk opens no node the box's walk leaves shut,
 * where a node opens when it has mass and the squared distance from its centre of mass to the
 * box is within crit2 * margin (the margin covers both walks' rounding).
 *
 * Bit b of word w of a node's mask stands for box 32 w + b. Walked nodes are numbered level by
 * level: above the run's level `top`, a run of each level holding the run's ancestors (everyone
 * holds the top); at and below it, the run's nodes (others' subtrees are theirs to send); each
 * level's from `base` on, the run's children of a node at i of its level at 2 i and 2 i + 1 of
 * theirs.
 * tree_essential_open, once a level from the root (k == 1 reaches every box's walk, `walked`),
 * then tree_essential_count, below `top` and at the leaves:
 *   open[words (base + i) + w]  the boxes whose walk opens node first + i (its parent opened)
 *   sends[at + i]                below `top`: the ranks a node goes to (rank[] of the boxes
 *                                that opened its parent; a rank's boxes are consecutive)
 *   leaf_sends[i]                at the leaves: the ranks times the leaf's bodies
 * and once the counts are scanned into offsets, tree_essential_nodes and tree_essential_bodies
 * write each node and body once for each rank, in the ranks' order. */
INLINE bool tree_box_opens(GLOBAL const real* RESTRICT box, const uint j, const real cx, const real cy,
                           const real cz, const real crit)
{
    const real gx = max(max(box[6 * j] - cx, cx - box[6 * j + 3]), REAL_C(0.0));
    const real gy = max(max(box[6 * j + 1] - cy, cy - box[6 * j + 4]), REAL_C(0.0));
    const real gz = max(max(box[6 * j + 2] - cz, cz - box[6 * j + 5]), REAL_C(0.0));
    return gx * gx + gy * gy + gz * gz <= crit;
}

/* The ranks named by `words` masks, each once: counted, and where `out`, each written `repeat`
 * times in a row from out[at] on. */
INLINE uint tree_mask_ranks(GLOBAL const uint* RESTRICT mask, const uint words, GLOBAL const uint* RESTRICT rank,
                            GLOBAL uint* RESTRICT out, const uint at, const uint repeat)
{
    uint ranks = 0, last = 0xffffffffu;
    for (uint w = 0; w < words; ++w) {
        const uint bits = mask[w];
        for (uint b = 0; b < 32 && (bits >> b) != 0; ++b)
            if ((bits >> b) & 1u && rank[32 * w + b] != last) {
                last = rank[32 * w + b];
                if (out)
                    for (uint r = 0; r < repeat; ++r) out[at + ranks * repeat + r] = last;
                ++ranks;
            }
    }
    return ranks;
}

/* One word of each node's mask a work-item (a node's boxes are tested side by side: a node may
 * be reached by the boxes of thousands of ranks). */
KERNEL void tree_essential_open(const uint count, const uint first, const uint base, const uint parent_first,
                                const uint parent_base, const uint nodes, const uint words, const real margin,
                                GLOBAL const uint* RESTRICT walked, GLOBAL const real* RESTRICT box,
                                GLOBAL const real* RESTRICT node, GLOBAL uint* RESTRICT open)
{
    const uint g = global_id(0);
    if (g >= count * words) return;
    const uint i = g / words, w = g - i * words, k = first + i;
    const uint bits = k == 1 ? walked[w] : open[words * (parent_base + (k >> 1) - parent_first) + w];
    uint opened = 0;
    if (node[3 * nodes + k] > 0) {
        const real cx = node[k], cy = node[nodes + k], cz = node[2 * nodes + k];
        const real crit = node[4 * nodes + k] * margin;
        for (uint b = 0; b < 32 && (bits >> b) != 0; ++b)
            if ((bits >> b) & 1u && tree_box_opens(box, 32 * w + b, cx, cy, cz, crit)) opened |= 1u << b;
    }
    open[words * (base + i) + w] = opened;
}

/* After tree_essential_open of the level: below `top`, sends[at + i]; at the leaves, leaf_sends[i]. */
KERNEL void tree_essential_count(const uint count, const uint first, const uint base, const uint parent_first,
                                 const uint parent_base, const uint words, const uint sends_at,
                                 const uint leaf_level, const uint leaves, const uint n,
                                 GLOBAL const uint* RESTRICT rank, GLOBAL const uint* RESTRICT open,
                                 GLOBAL uint* RESTRICT sends, GLOBAL uint* RESTRICT leaf_sends)
{
    const uint i = global_id(0);
    if (i >= count) return;
    const uint k = first + i;
    if (sends_at != 0xffffffffu)
        sends[sends_at + i] =
            tree_mask_ranks(open + words * (parent_base + (k >> 1) - parent_first), words, rank, 0, 0, 0);
    if (leaf_level) {
        const uint p = k - leaves;
        leaf_sends[i] = tree_mask_ranks(open + words * (base + i), words, rank, 0, 0, 0) *
                        (tree_start(p + 1, leaves, n) - tree_start(p, leaves, n));
    }
}

/* Node first + i of a level below `top` at offsets[at + i] on, once for each rank it goes to. */
KERNEL void tree_essential_nodes(const uint count, const uint first, const uint parent_first, const uint parent_base,
                                 const uint words, const uint at, GLOBAL const uint* RESTRICT rank,
                                 GLOBAL const uint* RESTRICT open, GLOBAL const uint* RESTRICT offsets,
                                 GLOBAL uint* RESTRICT ids, GLOBAL uint* RESTRICT to)
{
    const uint i = global_id(0);
    if (i >= count) return;
    const uint k = first + i, o = offsets[at + i];
    const uint ranks = tree_mask_ranks(open + words * (parent_base + (k >> 1) - parent_first), words, rank, to, o, 1);
    for (uint r = 0; r < ranks; ++r) ids[o + r] = k;
}

/* The bodies of leaf first + i (of the run's `count`, walked from `base`) at offsets[i] on,
 * rank after rank: their places in the window of tree positions from `window` on. */
KERNEL void tree_essential_bodies(const uint count, const uint first, const uint base, const uint words,
                                  const uint leaves, const uint n, const uint window,
                                  GLOBAL const uint* RESTRICT rank, GLOBAL const uint* RESTRICT open,
                                  GLOBAL const uint* RESTRICT offsets, GLOBAL uint* RESTRICT places,
                                  GLOBAL uint* RESTRICT to)
{
    const uint i = global_id(0);
    if (i >= count) return;
    const uint p = first + i - leaves, begin = tree_start(p, leaves, n), end = tree_start(p + 1, leaves, n);
    const uint o = offsets[i];
    const uint size = end - begin, ranks = tree_mask_ranks(open + words * (base + i), words, rank, to, o, size);
    for (uint q = 0; q < ranks * size; ++q) places[o + q] = begin + q % size - window;
}
