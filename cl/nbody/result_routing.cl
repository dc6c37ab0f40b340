/* DistributedTreeGravity's routing of a rank's walked results (in tree order, `count` of them
 * from tree position `first`; body perm[first + j] for result j) to their bodies' ranks
 * (include/partcl/models/nbody/distributed_tree_gravity.hpp):
 *   routing_local   those whose body lives on this rank (owner[body] == me) written at its slot
 *                   there (slot[body]), as tree_scatter writes; the others flagged
 *   (exclusive_scan on the host side: each flagged result's place among them)
 *   routing_pack    the flagged ones packed with their bodies, for the host to send
 * Results and packs are structure-of-arrays: component c of result j at c * count + j (the
 * potential, with_potential, in a buffer of its own; packed as component 3). */
#include "common/real.h"

KERNEL void routing_local(const uint count, const uint first, GLOBAL const uint* RESTRICT perm,
                          GLOBAL const uint* RESTRICT owner, GLOBAL const uint* RESTRICT slot,
                          const uint me, GLOBAL const real* RESTRICT walked,
                          GLOBAL const real* RESTRICT walked_potential, const uint with_potential,
                          GLOBAL real* RESTRICT acc, const uint acc_offset, const uint stride,
                          GLOBAL real* RESTRICT pot, GLOBAL uint* RESTRICT flags)
{
    const uint j = global_id(0);
    if (j >= count) return;
    const uint b = perm[first + j];
    if (owner[b] != me) {
        flags[j] = 1u;
        return;
    }
    flags[j] = 0u;
    const uint s = slot[b];
    acc[acc_offset + s] = walked[j];
    acc[acc_offset + stride + s] = walked[count + j];
    acc[acc_offset + 2 * stride + s] = walked[2 * count + j];
    if (with_potential) pot[s] = walked_potential[j];
}

KERNEL void routing_pack(const uint count, const uint first, GLOBAL const uint* RESTRICT perm,
                         GLOBAL const uint* RESTRICT flags, GLOBAL const uint* RESTRICT offsets,
                         GLOBAL const real* RESTRICT walked,
                         GLOBAL const real* RESTRICT walked_potential, const uint with_potential,
                         const uint packed, GLOBAL uint* RESTRICT bodies, GLOBAL real* RESTRICT values)
{
    const uint j = global_id(0);
    if (j >= count || flags[j] == 0u) return;
    const uint o = offsets[j];
    bodies[o] = perm[first + j];
    values[o] = walked[j];
    values[packed + o] = walked[count + j];
    values[2 * packed + o] = walked[2 * count + j];
    if (with_potential) values[3 * packed + o] = walked_potential[j];
}
