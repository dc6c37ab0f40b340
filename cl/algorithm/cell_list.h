#ifndef PARTCL_ALGORITHM_CELL_LIST_H
#define PARTCL_ALGORITHM_CELL_LIST_H
/* The kernel side of partcl::CellList (include/partcl/algorithm/cell_list.hpp): a uniform grid
 * of cubic cells over a box, particles sorted by cell, each cell's particles the sorted slots
 * [cell_start[c], cell_end[c]). A user's kernel visits the 9 (2-D) or 27 (3-D) cells around a
 * particle's own:
 *
 *     #define CELL_LIST_DIMENSIONS 2          (or -D from the host; 3 when not given)
 *     #include "algorithm/cell_list.h"
 *     KERNEL void k(..., CELL_LIST_GRID_PARAMS, GLOBAL const uint* cell_start,
 *                   GLOBAL const uint* cell_end, ...)
 *     {
 *         const uint home = cell_list_cell(x, y, z, CELL_LIST_GRID);
 *         for (int k = 0; k < CELL_LIST_NEIGHBOURS; ++k) {
 *             const uint c = cell_list_neighbour(home, k, CELL_LIST_GRID);
 *             if (c == CELL_LIST_NONE) continue;
 *             for (uint s = cell_start[c]; s < cell_end[c]; ++s) { ... slot s ... }
 *         }
 *     }
 *
 * and the host sets the seven grid arguments with CellList::grid_args(kernel, first_index).
 * Every pair closer than the cell size lies in neighbouring cells. Cell c of coordinates
 * (ix, iy, iz) is ix + nx * (iy + ny * iz); in 2-D nz = 1 and z is ignored. */
#include "common/real.h"

#ifndef CELL_LIST_DIMENSIONS
#define CELL_LIST_DIMENSIONS 3
#endif
#if CELL_LIST_DIMENSIONS == 2
#define CELL_LIST_NEIGHBOURS 9
#elif CELL_LIST_DIMENSIONS == 3
#define CELL_LIST_NEIGHBOURS 27
#else
#error "CELL_LIST_DIMENSIONS must be 2 or 3"
#endif

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

/* Neighbour k in [0, CELL_LIST_NEIGHBOURS) of cell `home` (k = CELL_LIST_NEIGHBOURS / 2 is home
 * itself), or CELL_LIST_NONE when it falls outside the grid. */
INLINE uint cell_list_neighbour(const uint home, const int k, CELL_LIST_GRID_PARAMS)
{
    (void)cell_origin_x;
    (void)cell_origin_y;
    (void)cell_origin_z;
    (void)cell_inverse_size;
    const int ix = (int)(home % cell_nx) + k % 3 - 1;
    const int iy = (int)((home / cell_nx) % cell_ny) + (k / 3) % 3 - 1;
    if (ix < 0 || iy < 0 || ix >= (int)cell_nx || iy >= (int)cell_ny) return CELL_LIST_NONE;
#if CELL_LIST_DIMENSIONS == 3
    const int iz = (int)(home / (cell_nx * cell_ny)) + k / 9 - 1;
    if (iz < 0 || iz >= (int)cell_nz) return CELL_LIST_NONE;
    return (uint)ix + cell_nx * ((uint)iy + cell_ny * (uint)iz);
#else
    (void)cell_nz;
    return (uint)ix + cell_nx * (uint)iy;
#endif
}

#endif /* PARTCL_ALGORITHM_CELL_LIST_H */
