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
 * TREE_LANES     listed walk only, > 0 (CPUs): work-item 0 walks the group's path alone and
 *                   lists its sources for all (rounds of a scan cost a CPU, which runs the
 *                   work-items in turn, every work-item's share of each), and each body sums
 *                   the listed nodes and the opened leaves' bodies into TREE_LANES partial sums,
 *                   added in lane order (the compiler may not reorder one scalar sum, but
 *                   packs independent ones into vectors, as dense.cl's DENSE_LANES). The same
 *                   sources as the rounds, in another order.
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

#include "nbody/tree_walk.h"

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
#if TREE_LIST && TREE_LANES
    /* CPUs: work-item 0 walks the group's path alone, listing the nodes it takes whole and the
     * leaves it opens until either list is full; then every work-item applies both lists to
     * its body, and the walk goes on. A CPU runs a work-group's work-items in turn, so one
     * walker costs the others nothing, where the rounds below would cost each a scan. */
    LOCAL real4 list_c[TREE_LIST], list_s[TREE_LIST];
    LOCAL real2 list_t[TREE_LIST];
    LOCAL uint stack[TREE_LIST_STACK];
    LOCAL uint leaf_first[TREE_WALK_GROUP], leaf_last[TREE_WALK_GROUP];
    LOCAL uint shared_top, shared_nodes, shared_leaves;
    if (lane == 0) {
        stack[0] = 1;
        shared_top = 1;
    }
    for (;;) {
        BARRIER_LOCAL;
        if (lane == 0) {
            uint top = shared_top, listed = 0, opened = 0;
            while (top > 0 && listed < TREE_LIST && opened < TREE_WALK_GROUP) {
                const uint k = stack[--top];
                const real mk = cm[k];
                if (!(mk > REAL_C(0.0))) continue;
                real ckx = cx[k], cky = cy[k], ckz = cz[k];
                uint outcome;
                TREE_OUTCOME(k, ckx, cky, ckz, outcome);
                if (outcome == 1u) {
                    TREE_LIST_NODE(listed, k, ckx, cky, ckz, mk);
                    ++listed;
                } else if (outcome == 2u) {
                    leaf_first[opened] = tree_start(k - leaves, leaves, n);
                    leaf_last[opened] = tree_start(k - leaves + 1, leaves, n);
                    ++opened;
                } else if (outcome == 3u) {
                    stack[top++] = 2 * k + 1;
                    stack[top++] = 2 * k;
                }
            }
            shared_top = top;
            shared_nodes = listed;
            shared_leaves = opened;
        }
        BARRIER_LOCAL;
        const uint top = shared_top, listed = shared_nodes, opened = shared_leaves;
        for (uint q = 0; q < opened; ++q) {
            const uint end = leaf_last[q];
            TREE_LANE_BODIES(leaf_first[q], end);
        }
        uint j = 0;
        TREE_LANE_NODES(j, listed);
        for (; j < listed; ++j) {
            const real4 centre = list_c[j], moments = list_s[j];
            const real2 more = list_t[j];
            TREE_INTERACT_NODE(centre.x, centre.y, centre.z, centre.w, moments.x, moments.y,
                               moments.z, moments.w, more.x, more.y);
        }
        if (top == 0) break;
    }
#elif TREE_LIST
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
            TREE_LIST_NODE(at, k, ckx, cky, ckz, mk);
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
            TREE_INTERACT_BODIES(leaf_first[q], end);
        }
        const uint next_top = base + 2 * opened;
        uint listed = count + (total & 0x3ffu);
        if (listed > TREE_LIST - TREE_WALK_GROUP || next_top == 0) {
            for (uint j = 0; j < listed; ++j) {
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
