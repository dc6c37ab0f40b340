/* Electrostatic particle-in-cell on a periodic grid (partcl::ElectrostaticPic,
 * include/partcl/models/pic/electrostatic_pic.hpp), in PIC_DIMENSIONS = 1, 2 or 3 dimensions.
 * One step:
 *   (CellList: each particle's cell, sort by cell, cell start/end, particles gathered into
 *    cell order)
 *   pic_deposit_atomic | pic_deposit_gather   charge density rho at the grid nodes (CIC)
 *   (Fft forward)  pic_poisson  (Fft inverse)  potential phi = IFFT(FFT(rho) / k^2), k = 0 mode 0
 *   pic_field                                  E = -grad phi, centred difference at the nodes
 *   pic_push                                   E gathered with the deposit's CIC weights, leapfrog
 *   pic_leaving, pic_partition                 over several ranks: the particles that left the
 *                                              rank's slab, packed to be sent, the others kept
 *
 * The grid: cubic cells of edge dx, nodes at (i, j, k) dx, node (i, j, k) at index
 * i + nx (j + ny k) (x fastest, the layout of partcl::Fft). A particle in cell c (floor(x / dx)
 * per axis) shares its charge among the 2^D nodes of the cell's corners, node c + b (b in
 * {0, 1}^D, wrapping periodically) with weight prod_k (b_k ? f_k : 1 - f_k), f = x / dx - c.
 * Grid arrays rho and phi are interleaved complex (re, im) as the Fft takes them; the field is
 * structure-of-arrays, component k of node g at k * points + g. Particles are
 * structure-of-arrays too: component k of particle i at k * stride + i; positions lie in
 * [0, n_k dx) (the cell list refuses others; the push wraps them back).
 *
 * The deposits, the field and the push each compute one range [first, end) of their items
 * (particles or nodes), so that the host can spread a launch over several devices: each device
 * holds the particles of its slabs of cells and the ghosts of the slab on either side
 * (partcl::ParticleSlabs, whose cell list indexes the cells by their place in the whole grid),
 * deposits the nodes of its slabs and pushes its own particles. Those writing per item write
 * item i of their range at out[out_offset + c * out_stride + (i - first)]
 * (partcl::PartitionedOutput's layout, and the push's own slots of the next step). Every item is
 * computed the same way whichever range it falls in.
 *
 * Over several MPI ranks (ElectrostaticPic on a communicator) each rank holds a slab of planes
 * along the slowest axis (axis PIC_DIMENSIONS - 1) and its particles, their coordinate along that
 * axis measured from the slab's first plane. The kernels then see a local grid of the slab's
 * planes plus ghost planes after them, which never wrap: a particle of the slab's last cell
 * deposits into the ghost plane (summed into the next rank's first plane by the host), the
 * gather deposit of the first plane finds no particles in the ghost cell below it (the host
 * adds the previous rank's part), the field's first plane reads the potential's last ghost
 * plane (the previous rank's last plane), and the push leaves that axis unwrapped: particles that
 * left the slab are found by pic_leaving and moved between the ranks by the host. */
#include "common/real.h"

#ifndef PIC_DIMENSIONS
#define PIC_DIMENSIONS 1
#endif
#if PIC_DIMENSIONS < 1 || PIC_DIMENSIONS > 3
#error "PIC_DIMENSIONS must be 1, 2 or 3"
#endif
#define PIC_CORNERS (1 << PIC_DIMENSIONS)

/* The atomic deposit in double needs 64-bit atomics; without them it is left out (the host
 * refuses PicDeposit::atomic in double on such a device, naming the extension). */
#if PARTCL_REAL_IS_DOUBLE
#ifdef PARTCL_HAS_ATOMIC_ADD_DOUBLE
#define PIC_ATOMIC_ADD ATOMIC_ADD_DOUBLE
#endif
#else
#define PIC_ATOMIC_ADD ATOMIC_ADD_FLOAT
#endif

/* The grid as kernel parameters: nodes per axis (1 for unused axes) and 1 / dx. */
#define PIC_GRID_PARAMS const uint nx, const uint ny, const uint nz, const real inverse_dx

INLINE uint pic_axis_size(const int k, const uint nx, const uint ny, const uint nz)
{
    return k == 0 ? nx : (k == 1 ? ny : nz);
}

/* Cell and fraction along one axis. t >= 0 for a position inside the box; the min guards the
 * top edge should t round up to n. */
INLINE uint pic_cell(const real x, const real inverse_dx, const uint n, PRIVATE real* frac)
{
    const real t = x * inverse_dx;
    const uint c = min((uint)t, n - 1u);
    *frac = t - (real)c;
    return c;
}

/* Cell and fractions of particle s along every axis. */
INLINE void pic_locate(GLOBAL const real* positions, const uint stride, const uint s,
                       const real inverse_dx, const uint nx, const uint ny, const uint nz,
                       PRIVATE uint* cell, PRIVATE real* frac)
{
    for (int k = 0; k < PIC_DIMENSIONS; ++k)
        cell[k] = pic_cell(positions[k * stride + s], inverse_dx, pic_axis_size(k, nx, ny, nz),
                           &frac[k]);
}

/* Corner b in [0, PIC_CORNERS) of a particle's cell: its node (wrapping periodically) and w
 * times the corner's cloud-in-cell weight. The atomic deposit and the push's gather share it,
 * so a particle exerts no force on itself. */
INLINE real pic_corner(const int b, PRIVATE const uint* cell, PRIVATE const real* frac, real w,
                       const uint nx, const uint ny, const uint nz, PRIVATE uint* node)
{
    uint at = 0u, scale = 1u;
    for (int k = 0; k < PIC_DIMENSIONS; ++k) {
        const uint size = pic_axis_size(k, nx, ny, nz);
        const uint up = (uint)(b >> k) & 1u;
        const uint c = cell[k] + up;
        at += (c == size ? 0u : c) * scale;
        scale *= size;
        w *= up ? frac[k] : REAL_C(1.0) - frac[k];
    }
    *node = at;
    return w;
}

/* Coordinates of node or cell g, x fastest. Written with explicit products rather than % next
 * to /: LLVM then inserts a `freeze` instruction that Oclgrind 21.10's checker cannot follow. */
INLINE void pic_coordinates(const uint g, const uint nx, const uint ny, PRIVATE uint* c)
{
    const uint row = g / nx;
    const uint layer = row / ny;
    c[0] = g - row * nx;
    c[1] = row - layer * ny;
    c[2] = layer;
}

#ifdef PIC_ATOMIC_ADD
/* Charge of particle s (its species' charge times weight over the cell volume) spread to the
 * corners of its cell: atomics, one work-item per particle of [first, end). rho (the whole
 * grid) zeroed by the host. */
KERNEL void pic_deposit_atomic(const uint first, const uint end, const uint stride,
                               GLOBAL const real* positions, GLOBAL const uint* species,
                               GLOBAL const real* species_density, PIC_GRID_PARAMS,
                               GLOBAL real* rho)
{
    const uint s = first + global_id(0);
    if (s >= end) return;
    uint cell[3] = {0u, 0u, 0u};
    real frac[3] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    pic_locate(positions, stride, s, inverse_dx, nx, ny, nz, cell, frac);
    const real q = species_density[species[s]];
    for (int b = 0; b < PIC_CORNERS; ++b) {
        uint node;
        const real w = pic_corner(b, cell, frac, q, nx, ny, nz, &node);
        PIC_ATOMIC_ADD(&rho[2u * node], w);
    }
}
#endif

/* The same density without atomics: one work-item per node sums the particles of the 2^D cells
 * that have the node as a corner, the particles sorted by cell (slots [cell_start[c],
 * cell_end[c]) of cell c, c the cell list's index, equal to the cell's lower node). Writes every
 * node of [first, end), the imaginary part 0: node g's real part at
 * rho[rho_offset + 2 (g - first)] (the interleaved array's reals are the items of the output). */
KERNEL void pic_deposit_gather(const uint first, const uint end, const uint stride,
                               GLOBAL const real* positions, GLOBAL const uint* species,
                               GLOBAL const real* species_density, GLOBAL const uint* cell_start,
                               GLOBAL const uint* cell_end, PIC_GRID_PARAMS, GLOBAL real* rho,
                               const uint rho_offset)
{
    const uint g = first + global_id(0);
    if (g >= end) return;
    uint node[3];
    pic_coordinates(g, nx, ny, node);
    real sum = REAL_C(0.0);
    for (int b = 0; b < PIC_CORNERS; ++b) {
        /* The cell below the node along the axes whose bit is set: the node is its upper
         * corner there. */
        uint c = 0u, scale = 1u;
        for (int k = 0; k < PIC_DIMENSIONS; ++k) {
            const uint size = pic_axis_size(k, nx, ny, nz);
            const uint down = (uint)(b >> k) & 1u;
            c += (down ? (node[k] == 0u ? size - 1u : node[k] - 1u) : node[k]) * scale;
            scale *= size;
        }
        for (uint s = cell_start[c]; s < cell_end[c]; ++s) {
            real w = species_density[species[s]];
            for (int k = 0; k < PIC_DIMENSIONS; ++k) {
                real f;
                (void)pic_cell(positions[k * stride + s], inverse_dx,
                               pic_axis_size(k, nx, ny, nz), &f);
                w *= ((b >> k) & 1) ? f : REAL_C(1.0) - f;
            }
            sum += w;
        }
    }
    const uint at = rho_offset + 2u * (g - first);
    rho[at] = sum;
    rho[at + 1u] = REAL_C(0.0);
}

/* Poisson in Fourier space, -k^2 phi_k = -rho_k (units with epsilon0 = 1): phi_k = rho_k / k^2,
 * times 1 / points for the unnormalised inverse transform; the k = 0 mode 0 (a uniform
 * neutralising background). k_x = 2 pi m / (nx dx), m the signed frequency of index i. The
 * whole grid's spectrum, or a rank's columns [column_first, column_first + columns) of every
 * plane (dist::SlabFft's layout: frequency s along the slowest axis of column q at
 * s * columns + q - column_first; the whole grid is columns = the points of a plane). */
KERNEL void pic_poisson(const uint count, const uint column_first, const uint columns,
                        PIC_GRID_PARAMS, GLOBAL real* data)
{
    const uint g = global_id(0);
    if (g >= count) return;
    const uint points = nx * ny * nz;
    const uint s = g / columns;
    uint index[3];
    pic_coordinates(column_first + (g - s * columns), nx, ny, index);
    index[PIC_DIMENSIONS - 1] = s;
    real k2 = REAL_C(0.0);
    for (int k = 0; k < PIC_DIMENSIONS; ++k) {
        const uint size = pic_axis_size(k, nx, ny, nz);
        const real m = (real)index[k] - (2u * index[k] > size ? (real)size : REAL_C(0.0));
        const real kk = REAL_C(6.283185307179586) * m * inverse_dx / (real)size;
        k2 += kk * kk;
    }
    const real factor = k2 > REAL_C(0.0) ? REAL_C(1.0) / (k2 * (real)points) : REAL_C(0.0);
    data[2u * g] *= factor;
    data[2u * g + 1u] *= factor;
}

/* E = -grad phi by the centred difference (phi[g - e_k] - phi[g + e_k]) / (2 dx) at the nodes
 * of [first, end); phi is the real part of the interleaved array (the whole grid). */
KERNEL void pic_field(const uint first, const uint end, GLOBAL const real* phi, PIC_GRID_PARAMS,
                      GLOBAL real* field, const uint out_offset, const uint out_stride)
{
    const uint g = first + global_id(0);
    if (g >= end) return;
    uint node[3];
    pic_coordinates(g, nx, ny, node);
    uint scale = 1u;
    for (int k = 0; k < PIC_DIMENSIONS; ++k) {
        const uint size = pic_axis_size(k, nx, ny, nz);
        const uint below = g - node[k] * scale + (node[k] == 0u ? size - 1u : node[k] - 1u) * scale;
        const uint above = g - node[k] * scale + (node[k] + 1u == size ? 0u : node[k] + 1u) * scale;
        field[out_offset + k * out_stride + (g - first)] =
            (phi[2u * below] - phi[2u * above]) * REAL_C(0.5) * inverse_dx;
        scale *= size;
    }
}

/* E at the particle with the deposit's weights (so a particle exerts no force on itself),
 * then v += (q / m) E dt_v, x += v dt_x, x wrapped into [0, n dx) along the axes whose bit is
 * set in `wrap` (all but the slab axis over several ranks), for the particles of [first, end).
 * A NaN stays NaN (the cell list reports it at the next sort). The new positions and
 * velocities go to their own arrays (the same as the old ones is allowed: each work-item reads
 * its particle before writing it); in 1-D the positions' y component (the cell list's) is 0. */
KERNEL void pic_push(const uint first, const uint end, const uint stride,
                     GLOBAL const real* positions, GLOBAL const real* velocities,
                     GLOBAL const uint* species, GLOBAL const real* species_charge_over_mass,
                     GLOBAL const real* field, PIC_GRID_PARAMS, const real dt_v,
                     const real dt_x, GLOBAL real* new_positions, GLOBAL real* new_velocities,
                     const uint out_offset, const uint out_stride, const uint wrap)
{
    const uint s = first + global_id(0);
    if (s >= end) return;
    const uint points = nx * ny * nz;
    uint cell[3] = {0u, 0u, 0u};
    real frac[3] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    pic_locate(positions, stride, s, inverse_dx, nx, ny, nz, cell, frac);
    real e[3] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    for (int b = 0; b < PIC_CORNERS; ++b) {
        uint node;
        const real w = pic_corner(b, cell, frac, REAL_C(1.0), nx, ny, nz, &node);
        for (int k = 0; k < PIC_DIMENSIONS; ++k) e[k] += w * field[k * points + node];
    }
    const real qm = species_charge_over_mass[species[s]];
    for (int k = 0; k < PIC_DIMENSIONS; ++k) {
        const uint size = pic_axis_size(k, nx, ny, nz);
        const real length = (real)size / inverse_dx;
        const real v = velocities[k * stride + s] + qm * e[k] * dt_v;
        real x = positions[k * stride + s] + v * dt_x;
        if ((wrap >> k) & 1u) {
            x -= length * floor(x / length);
            /* Rounding can leave x at length (x a tiny negative number before the wrap) or
             * put x / dx at n: both are the periodic image 0. Same expression as the cell
             * list's. */
            if (x * inverse_dx >= (real)size) x = REAL_C(0.0);
        }
        const uint at = out_offset + k * out_stride + (s - first);
        new_velocities[at] = v;
        new_positions[at] = x;
    }
#if PIC_DIMENSIONS == 1
    /* The cell list's y: one layer of cells. */
    new_positions[out_offset + out_stride + (s - first)] = REAL_C(0.0);
#endif
}

/* Over several ranks: flags[i] = 1 for the particles of [0, n) whose coordinate along the slab
 * axis lies outside the slab's `planes` cells (below 0, or at planes dx and above, computed as
 * pic_cell computes a cell), else 0. NaN stays (the cell list reports it). */
KERNEL void pic_leaving(const uint n, const uint stride, GLOBAL const real* positions,
                        const real inverse_dx, const uint planes, GLOBAL uint* flags)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const real t = positions[(PIC_DIMENSIONS - 1) * stride + i] * inverse_dx;
    flags[i] = (t < REAL_C(0.0) || t >= (real)planes) ? 1u : 0u;
}

/* The particles of [0, n) split by their flags (offsets: the flags' exclusive scan): those
 * leaving packed in order into `pack` (position components, then velocity components, of
 * leaver j at c * leaving + j) and `pack_species`; the others kept in order at slot
 * i - offsets[i] of the new arrays (component k at k * new_stride). */
KERNEL void pic_partition(const uint n, const uint stride, GLOBAL const real* positions,
                          GLOBAL const real* velocities, GLOBAL const uint* species,
                          GLOBAL const uint* flags, GLOBAL const uint* offsets,
                          const uint new_stride, GLOBAL real* new_positions,
                          GLOBAL real* new_velocities, GLOBAL uint* new_species,
                          const uint leaving, GLOBAL real* pack, GLOBAL uint* pack_species)
{
    const uint i = global_id(0);
    if (i >= n) return;
    const uint j = offsets[i];
    if (flags[i]) {
        for (int k = 0; k < PIC_DIMENSIONS; ++k) {
            pack[k * leaving + j] = positions[k * stride + i];
            pack[(PIC_DIMENSIONS + k) * leaving + j] = velocities[k * stride + i];
        }
        pack_species[j] = species[i];
        return;
    }
    const uint at = i - j;
    for (int k = 0; k < PIC_DIMENSIONS; ++k) {
        new_positions[k * new_stride + at] = positions[k * stride + i];
        new_velocities[k * new_stride + at] = velocities[k * stride + i];
    }
#if PIC_DIMENSIONS == 1
    new_positions[new_stride + at] = REAL_C(0.0);  /* the cell list's y */
#endif
    new_species[at] = species[i];
}
