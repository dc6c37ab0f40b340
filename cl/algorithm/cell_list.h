#ifndef PARTCL_ALGORITHM_CELL_LIST_H
#define PARTCL_ALGORITHM_CELL_LIST_H
/* The kernel side of partcl::CellList (include/partcl/algorithm/cell_list.hpp): a uniform grid
 * of cubic cells over a box, particles sorted by cell, each cell's particles the sorted slots
 * [cell_start[c], cell_end[c]) (an empty cell's range is empty and sits where its particles
 * would). Every pair closer than the grid's radius lies within CELL_LIST_REACH cells of each
 * other along each axis (CellGrid::reach: cells of radius / reach). A user's kernel visits the
 * cells around a particle's own as rows along x: cells next to each other along x have
 * consecutive indices, so a row's particles are one range of slots.
 *
 *     #define CELL_LIST_DIMENSIONS 2      (or -D from the host; 3 when not given)
 *     #define CELL_LIST_REACH 2           (the grid's reach; 1 when not given)
 *     #include "algorithm/cell_list.h"
 *     KERNEL void k(..., CELL_LIST_GRID_PARAMS, GLOBAL const uint* cell_start,
 *                   GLOBAL const uint* cell_end, ...)
 *     {
 *         int home[3];
 *         cell_list_coordinates(cell_list_cell(x, y, z, CELL_LIST_GRID), CELL_LIST_GRID, home);
 *         for (int k = 0; k < CELL_LIST_ROWS; ++k) {
 *             uint first, last;
 *             if (!cell_list_row(home, k, CELL_LIST_GRID, &first, &last)) continue;
 *             const uint end = cell_end[last];
 *             for (uint s = cell_start[first]; s < end; ++s) { ... slot s ... }
 *         }
 *     }
 *
 * and the host sets the seven grid arguments with CellList::grid_args(kernel, first_index).
 * Cell c of coordinates (ix, iy, iz) is ix + nx * (iy + ny * iz); in 2-D nz = 1 and z is
 * ignored. */
#include "common/real.h"

#ifndef CELL_LIST_DIMENSIONS
#define CELL_LIST_DIMENSIONS 3
#endif
#ifndef CELL_LIST_REACH
#define CELL_LIST_REACH 1
#endif
/* Cells per axis around a cell's own, and rows of them; _WITHIN(r): for a kernel that needs
 * only the cells within r <= CELL_LIST_REACH (pairs closer than r cell edges). */
#define CELL_LIST_SPAN (2 * CELL_LIST_REACH + 1)
#if CELL_LIST_DIMENSIONS == 2
#define CELL_LIST_ROWS_WITHIN(r) (2 * (r) + 1)
#elif CELL_LIST_DIMENSIONS == 3
#define CELL_LIST_ROWS_WITHIN(r) ((2 * (r) + 1) * (2 * (r) + 1))
#else
#error "CELL_LIST_DIMENSIONS must be 2 or 3"
#endif
#define CELL_LIST_ROWS CELL_LIST_ROWS_WITHIN(CELL_LIST_REACH)

#define CELL_LIST_NONE 0xffffffffu

/* The grid as kernel parameters (origin of cell 0, 1 / cell size, cells per axis) and as the
 * matching argument list for the helpers below. */
#define CELL_LIST_GRID_PARAMS                                                                   \
    const real cell_origin_x, const real cell_origin_y, const real cell_origin_z,             \
        const real cell_inverse_size, const uint cell_nx, const uint cell_ny, const uint cell_nz
#define CELL_LIST_GRID                                                                          \
    cell_origin_x, cell_origin_y, cell_origin_z, cell_inverse_size, cell_nx, cell_ny, cell_nz

/* Cell coordinate along one axis, or -1 outside [0, n) (NaN included: comparisons fail). */
INLINE int cell_list_axis(const real x, const real origin, const real inverse_size, const uint n)
{
    const real t = (x - origin) * inverse_size;
    return (t >= REAL_C(0.0) && t < (real)n) ? (int)t : -1;
}

/* The cell holding (x, y, z), or CELL_LIST_NONE when the point is outside the grid or NaN. */
INLINE uint cell_list_cell(const real x, const real y, const real z, CELL_LIST_GRID_PARAMS)
{
    const int ix = cell_list_axis(x, cell_origin_x, cell_inverse_size, cell_nx);
    const int iy = cell_list_axis(y, cell_origin_y, cell_inverse_size, cell_ny);
#if CELL_LIST_DIMENSIONS == 3
    const int iz = cell_list_axis(z, cell_origin_z, cell_inverse_size, cell_nz);
    if (ix < 0 || iy < 0 || iz < 0) return CELL_LIST_NONE;
    return (uint)ix + cell_nx * ((uint)iy + cell_ny * (uint)iz);
#else
    (void)z;
    (void)cell_origin_z;
    (void)cell_nz;
    if (ix < 0 || iy < 0) return CELL_LIST_NONE;
    return (uint)ix + cell_nx * (uint)iy;
#endif
}

/* Coordinates (ix, iy, iz) of cell `cell`. Written with products rather than % next to /:
 * LLVM then inserts a `freeze` instruction that Oclgrind 21.10's checker cannot follow. */
INLINE void cell_list_coordinates(const uint cell, CELL_LIST_GRID_PARAMS, PRIVATE int* c)
{
    (void)cell_origin_x;
    (void)cell_origin_y;
    (void)cell_origin_z;
    (void)cell_inverse_size;
    (void)cell_nz;
    const uint row = cell / cell_nx;
    const uint layer = row / cell_ny;
    c[0] = (int)(cell - row * cell_nx);
    c[1] = (int)(row - layer * cell_ny);
    c[2] = (int)layer;
}

/* Row k in [0, CELL_LIST_ROWS_WITHIN(reach)) around the cell at `home`: the cells within
 * `reach` of it along x (clipped to the grid) in the layer k % (2 reach + 1) - reach away along
 * y and, in 3-D, k / (2 reach + 1) - reach along z. Sets its first and last cell and returns 1,
 * or returns 0 when that layer lies outside the grid. */
INLINE int cell_list_row_within(PRIVATE const int* home, const int k, const int reach,
                                CELL_LIST_GRID_PARAMS, PRIVATE uint* first, PRIVATE uint* last)
{
    (void)cell_origin_x;
    (void)cell_origin_y;
    (void)cell_origin_z;
    (void)cell_inverse_size;
    const int span = 2 * reach + 1;
    const int layer = k / span;
    const int iy = home[1] + (k - layer * span) - reach;
    if (iy < 0 || iy >= (int)cell_ny) return 0;
#if CELL_LIST_DIMENSIONS == 3
    const int iz = home[2] + layer - reach;
    if (iz < 0 || iz >= (int)cell_nz) return 0;
    const uint base = cell_nx * ((uint)iy + cell_ny * (uint)iz);
#else
    (void)cell_nz;
    const uint base = cell_nx * (uint)iy;
#endif
    *first = base + (uint)max(home[0] - reach, 0);
    *last = base + (uint)min(home[0] + reach, (int)cell_nx - 1);
    return 1;
}

/* Row k in [0, CELL_LIST_ROWS): cell_list_row_within at the grid's reach. */
INLINE int cell_list_row(PRIVATE const int* home, const int k, CELL_LIST_GRID_PARAMS,
                         PRIVATE uint* first, PRIVATE uint* last)
{
    return cell_list_row_within(home, k, CELL_LIST_REACH, CELL_LIST_GRID, first, last);
}

#endif /* PARTCL_ALGORITHM_CELL_LIST_H */
