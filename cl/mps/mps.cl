/* Explicit MPS (moving particle semi-implicit, in its explicit, weakly compressible form), one
 * time step in five kernels, more with the surface's sweeps and the viscosity's reconstruction
 * (partcl::MpsFluid, include/partcl/models/mps/mps_fluid.hpp):
 *
 *   mps_predict    fluid: u* = u + dt (nu 2d/(lambda0 n0_lap) sum_j (u_j - u_i) w_lap + g),
 *                  r* = r + dt u*; walls and dummies keep their place and zero velocity
 *   mps_collide    a fluid particle closer than the collision distance to another particle
 *                  (fluid, or wall and dummy at their own distance) that it approaches takes
 *                  the impulse of a collision with restitution e (equal masses); r* follows
 *                  the changed velocity
 *   mps_pressure   fluid and wall: n* = sum_j w(|r*_j - r*_i|), P = max(0, c^2 rho0/n0 (n* - n0));
 *                  dummies: P = 0 (they only complete the number density near walls)
 *   mps_surface_pressure  (launched MpsOptions::surface_sweeps times) a fluid particle at P = 0
 *                  takes the w-weighted mean of P_j - rho0 g.(r*_j - r*_i) over its fluid
 *                  neighbours within re that have a pressure, at least 0
 *   mps_velocity_gradient  (with MpsOptions::viscosity_reconstruction) each fluid particle's
 *                  corrected velocity gradient over its fluid neighbours, for the viscosity
 *   mps_correct    fluid: grad P = d/n0 sum_j (P_j - P_min,i) (r_j - r_i)/|r_j - r_i|^2 w, over
 *                  fluid and wall j, with P_min,i the least pressure of i and those neighbours
 *                  (or that sum times the inverse of the corrective matrix, and with an
 *                  artificial viscosity's pressure added to the bracket: below);
 *                  u = u* - dt/rho0 grad P, r = r* - dt^2/rho0 grad P, and r moved apart
 *                  from fluid and wall particles nearer than l0 (close-pair shifting: below)
 *   mps_max_speed  per work-group maximum fluid speed, for the next CFL-limited step
 *
 * w(r) = re/r - 1 for 0 < r < re, 0 otherwise (coincident particles do not interact: the
 * collision step keeps particles apart). Particles are in cell-sorted order (CellList::gather),
 * so slot = particle; `keys` is each particle's cell at the positions the cell list was built
 * from (r at the start of the step). Pairs are searched in the cells within CELL_LIST_REACH
 * of it (cell_list.h): the host makes the grid's radius at least re_lap and re + 2 * max_shift,
 * and mps_pressure raises
 * bit 1 of `status` for a particle that moved further than max_shift, which the host reports.
 * Structure of arrays: component k of particle i at k * n + i.
 *
 * Each per-particle kernel computes particles [first, last) (work-item g: particle first + g):
 * a device's own particles between the ghosts of its neighbours' cells (partcl::ParticleSlabs;
 * n counts them all). It reads every input, neighbours included, from those arrays, and writes
 * component k of particle i at out_offset + k * out_stride + (i - first) of its outputs: the
 * same layout (out_offset = first, out_stride = n) or the device's own particles alone, the next
 * step's (out_offset = 0, out_stride = last - first). */
#ifndef MPS_DIMENSIONS
#define MPS_DIMENSIONS 2
#endif
#define CELL_LIST_DIMENSIONS MPS_DIMENSIONS
#include "algorithm/cell_list.h"

#define MPS_FLUID 0u
#define MPS_WALL 1u
#define MPS_DUMMY 2u

#ifndef MPS_GROUP
#define MPS_GROUP 64
#endif

#if MPS_DIMENSIONS == 3
#define Z_OF(a, i) ((a)[2 * n + (i)])
#else
#define Z_OF(a, i) REAL_C(0.0)
#endif

/* MPS_WEIGHT 0: Koshizuka's w = re/r - 1; 1: w = (1 - r/re)^2, finite at r = 0, so a close pair
 * does not dominate a particle's number density (partcl::MpsWeight). */
#ifndef MPS_WEIGHT
#define MPS_WEIGHT 0
#endif
INLINE real mps_weight(const real r, const real re)
{
#if MPS_WEIGHT == 1
    const real q = REAL_C(1.0) - r / re;
    return (r > REAL_C(0.0) && r < re) ? q * q : REAL_C(0.0);
#else
    return (r > REAL_C(0.0) && r < re) ? re / r - REAL_C(1.0) : REAL_C(0.0);
#endif
}

/* Loops over every particle j (slots) in the rows of cells within `reach` of particle i's cell
 * (its cell's coordinates found once, in the loop's initialiser); close with `}}`. */
#define FOR_NEIGHBOURS_WITHIN(i, j, reach)                                                      \
    for (int home_[3], k_ = (cell_list_coordinates(keys[i], CELL_LIST_GRID, home_), 0);        \
         k_ < CELL_LIST_ROWS_WITHIN(reach); ++k_) {                                             \
        uint first_, last_;                                                                     \
        if (!cell_list_row_within(home_, k_, (reach), CELL_LIST_GRID, &first_, &last_))         \
            continue;                                                                           \
        const uint end_ = cell_end[last_];                                                      \
        for (uint j = cell_start[first_]; j < end_; ++j) {
#define FOR_NEIGHBOURS(i, j) FOR_NEIGHBOURS_WITHIN(i, j, CELL_LIST_REACH)

/* Cells within which collision partners lie (the host's choice: the collision distance plus
 * twice max_shift in cell edges, rounded up); at most the grid's reach. */
#ifndef MPS_COLLIDE_REACH
#define MPS_COLLIDE_REACH CELL_LIST_REACH
#endif
#if MPS_COLLIDE_REACH > CELL_LIST_REACH
#error "MPS_COLLIDE_REACH exceeds the grid's reach"
#endif

/* Particle i of the kernel's range [first, last), and where its outputs go. */
#define RANGE_PARAMS const uint first, const uint last, const uint out_offset, const uint out_stride
#define PARTICLE_IN_RANGE(i)                                                                   \
    const uint i = first + global_id(0);                                                       \
    if (i >= last) return;                                                                     \
    const uint o = out_offset + (i - first)

#define CELL_ARGS CELL_LIST_GRID_PARAMS, GLOBAL const uint* keys, GLOBAL const uint* cell_start, \
                  GLOBAL const uint* cell_end

KERNEL void mps_predict(const uint n, CELL_ARGS, GLOBAL const uint* type,
                        GLOBAL const real* r, GLOBAL const real* u, GLOBAL real* r_star,
                        GLOBAL real* u_star, const real dt, const real re_lap,
                        const real viscosity_factor, const real gx, const real gy, const real gz,
                        RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    const real xi = r[i], yi = r[n + i], zi = Z_OF(r, i);
    const real ui = u[i], vi = u[n + i], wi = Z_OF(u, i);
    real ax = REAL_C(0.0), ay = REAL_C(0.0), az = REAL_C(0.0);
    if (type[i] == MPS_FLUID) {
        real lx = REAL_C(0.0), ly = REAL_C(0.0), lz = REAL_C(0.0);
        FOR_NEIGHBOURS(i, j)
            const real dx = r[j] - xi, dy = r[n + j] - yi, dz = Z_OF(r, j) - zi;
            const real w = mps_weight(sqrt(dx * dx + dy * dy + dz * dz), re_lap);
            lx += (u[j] - ui) * w;
            ly += (u[n + j] - vi) * w;
            lz += (Z_OF(u, j) - wi) * w;
        }}
        ax = viscosity_factor * lx + gx;
        ay = viscosity_factor * ly + gy;
        az = viscosity_factor * lz + gz;
    }
    const real us = ui + dt * ax, vs = vi + dt * ay, ws = wi + dt * az;
    u_star[o] = us;
    u_star[out_stride + o] = vs;
    r_star[o] = xi + dt * us;
    r_star[out_stride + o] = yi + dt * vs;
#if MPS_DIMENSIONS == 3
    u_star[2 * out_stride + o] = ws;
    r_star[2 * out_stride + o] = zi + dt * ws;
#else
    (void)ws;
    (void)gz;
#endif
}

KERNEL void mps_collide(const uint n, CELL_ARGS, GLOBAL const uint* type,
                        GLOBAL const real* r_star, GLOBAL const real* u_star, GLOBAL real* r_out,
                        GLOBAL real* u_out, const real dt, const real collision_distance,
                        const real wall_collision_distance, const real restitution,
                        RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    const real xi = r_star[i], yi = r_star[n + i], zi = Z_OF(r_star, i);
    const real ui = u_star[i], vi = u_star[n + i], wi = Z_OF(u_star, i);
    real du = REAL_C(0.0), dv = REAL_C(0.0), dw = REAL_C(0.0);
    if (type[i] == MPS_FLUID) {
        const real d2 = collision_distance * collision_distance;
        const real d2_wall = wall_collision_distance * wall_collision_distance;
        /* Equal masses: each approaching pair loses (1 + e)/2 of its approach speed to i. */
        const real share = (REAL_C(1.0) + restitution) * REAL_C(0.5);
        FOR_NEIGHBOURS_WITHIN(i, j, MPS_COLLIDE_REACH)
            const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
            const real r2 = dx * dx + dy * dy + dz * dz;
            if (j != i && r2 < (type[j] == MPS_FLUID ? d2 : d2_wall) && r2 > REAL_C(0.0)) {
                const real inv = REAL_C(1.0) / sqrt(r2);
                const real ex = dx * inv, ey = dy * inv, ez = dz * inv;
                const real approach = (ui - u_star[j]) * ex + (vi - u_star[n + j]) * ey +
                                      (wi - Z_OF(u_star, j)) * ez;
                if (approach > REAL_C(0.0)) {
                    du -= share * approach * ex;
                    dv -= share * approach * ey;
                    dw -= share * approach * ez;
                }
            }
        }}
    }
    u_out[o] = ui + du;
    u_out[out_stride + o] = vi + dv;
    r_out[o] = xi + dt * du;
    r_out[out_stride + o] = yi + dt * dv;
#if MPS_DIMENSIONS == 3
    u_out[2 * out_stride + o] = wi + dw;
    r_out[2 * out_stride + o] = zi + dt * dw;
#else
    (void)dw;
#endif
}

KERNEL void mps_pressure(const uint n, CELL_ARGS, GLOBAL const uint* type, GLOBAL const real* r,
                         GLOBAL const real* r_star, GLOBAL real* number_density,
                         GLOBAL real* pressure, const real re, const real n0,
                         const real pressure_factor, const real max_shift, GLOBAL uint* status,
                         RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    (void)out_stride;
    const real xi = r_star[i], yi = r_star[n + i], zi = Z_OF(r_star, i);
    const real sx = xi - r[i], sy = yi - r[n + i], sz = zi - Z_OF(r, i);
    if (!(sx * sx + sy * sy + sz * sz <= max_shift * max_shift)) ATOMIC_OR(status, 1u);
    real sum = REAL_C(0.0);
    FOR_NEIGHBOURS(i, j)
        const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
        sum += mps_weight(sqrt(dx * dx + dy * dy + dz * dz), re);
    }}
    number_density[o] = sum;
    pressure[o] = type[i] == MPS_DUMMY ? REAL_C(0.0)
                                       : fmax(REAL_C(0.0), pressure_factor * (sum - n0));
}

/* One sweep of the free surface's layer's pressure: reads `pressure` (every slot), writes
 * `swept` (the own slots); walls, dummies and particles that have a pressure keep theirs. Only
 * fluid is swept and only fluid is read: sweeping walls too, from fluid and walls or from fluid
 * alone, or giving every wall the fluid's extrapolation, made still water louder or unstable
 * (docs/mps.md, sixth to eighth passes). */
KERNEL void mps_surface_pressure(const uint n, CELL_ARGS, GLOBAL const uint* type,
                                 GLOBAL const real* r_star, GLOBAL const real* pressure,
                                 GLOBAL real* swept, const real re, const real rho_gx,
                                 const real rho_gy, const real rho_gz, RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    (void)out_stride;
    real p = pressure[i];
    if (type[i] == MPS_FLUID && !(p > REAL_C(0.0))) {
        const real xi = r_star[i], yi = r_star[n + i], zi = Z_OF(r_star, i);
        real sum_w = REAL_C(0.0), sum_p = REAL_C(0.0);
        FOR_NEIGHBOURS(i, j)
            const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
            const real r2 = dx * dx + dy * dy + dz * dz;
            if (type[j] == MPS_FLUID && pressure[j] > REAL_C(0.0) && r2 < re * re) {
                const real w = mps_weight(sqrt(r2), re);
                sum_w += w;
                sum_p += w * (pressure[j] - (rho_gx * dx + rho_gy * dy + rho_gz * dz));
            }
        }}
        if (sum_w > REAL_C(0.0)) p = fmax(REAL_C(0.0), sum_p / sum_w);
    }
    swept[o] = p;
}

/* MPS_GRADIENT 1 (partcl::MpsGradient::corrected): the sum is multiplied by the inverse of
 * C = sum_j w (r_j - r_i)(r_j - r_i)^T / |r_j - r_i|^2, which makes the gradient exact for a
 * linear pressure on any particle arrangement; where C is near singular (a sparse one-sided
 * neighbourhood at the free surface: det C below a tenth of (tr C / d)^d) the plain sum stands. */
#ifndef MPS_GRADIENT
#define MPS_GRADIENT 0
#endif
#define MPS_CONDITION REAL_C(0.1)

/* Solves C x = b for the symmetric C (xx, xy, xz, yy, yz, zz) when it is well conditioned; returns
 * 0 and leaves x alone otherwise. */
INLINE int mps_solve(const real xx, const real xy, const real xz, const real yy, const real yz,
                     const real zz, const real bx, const real by, const real bz, real* x, real* y,
                     real* z)
{
#if MPS_DIMENSIONS == 3
    const real a00 = yy * zz - yz * yz, a01 = xz * yz - xy * zz, a02 = xy * yz - xz * yy;
    const real det = xx * a00 + xy * a01 + xz * a02, t = (xx + yy + zz) / REAL_C(3.0);
    if (!(det > MPS_CONDITION * t * t * t)) return 0;
    const real a11 = xx * zz - xz * xz, a12 = xy * xz - xx * yz, a22 = xx * yy - xy * xy;
    *x = (a00 * bx + a01 * by + a02 * bz) / det;
    *y = (a01 * bx + a11 * by + a12 * bz) / det;
    *z = (a02 * bx + a12 * by + a22 * bz) / det;
#else
    (void)xz, (void)yz, (void)zz, (void)bz, (void)z;
    const real det = xx * yy - xy * xy, t = (xx + yy) / REAL_C(2.0);
    if (!(det > MPS_CONDITION * t * t)) return 0;
    *x = (yy * bx - xy * by) / det;
    *y = (xx * by - xy * bx) / det;
#endif
    return 1;
}

/* Monaghan's artificial viscosity as a pressure added to pair (i, j)'s bracket in the gradient
 * sum: alpha rho0 c l0 |v_ij . r_ij| / (r^2 + eps^2) while the pair approaches (approach =
 * (u_j - u_i) . (r_j - r_i) < 0), 0 otherwise (viscosity = alpha rho0 c l0). */
INLINE real mps_viscous_pressure(const real approach, const real r2, const real viscosity,
                                 const real softening2)
{
    return approach < REAL_C(0.0) ? viscosity * -approach / (r2 + softening2) : REAL_C(0.0);
}

/* MPS_RECONSTRUCT 1 (partcl::MpsOptions::viscosity_reconstruction, the share s): the viscosity's
 * approach speed from the pair's velocities reconstructed linearly towards its midpoint,
 * u_i + s G_i r/2 and u_j - s G_j r/2 (G the velocity gradients of mps_velocity_gradient,
 * r = r_j - r_i), limited by the pair's own approach (minmod): 1 - s of it for a linear velocity
 * field, nearly all of it for particle-scale noise. */
#ifndef MPS_RECONSTRUCT
#define MPS_RECONSTRUCT 0
#endif

/* r^T G r for the velocity gradient G of slot i (component a d + b at (a d + b) n + i). */
INLINE real mps_gradient_form(GLOBAL const real* g, const uint n, const uint i, const real dx,
                              const real dy, const real dz)
{
#if MPS_DIMENSIONS == 3
    return dx * (g[i] * dx + g[n + i] * dy + g[2 * n + i] * dz) +
           dy * (g[3 * n + i] * dx + g[4 * n + i] * dy + g[5 * n + i] * dz) +
           dz * (g[6 * n + i] * dx + g[7 * n + i] * dy + g[8 * n + i] * dz);
#else
    (void)dz;
    return dx * (g[i] * dx + g[n + i] * dy) + dy * (g[2 * n + i] * dx + g[3 * n + i] * dy);
#endif
}

INLINE real mps_reconstructed_approach(const real approach, const real share,
                                       GLOBAL const real* g, const uint n, const uint i,
                                       const uint j, const real dx, const real dy, const real dz)
{
    const real midpoint = approach - REAL_C(0.5) * share * (mps_gradient_form(g, n, i, dx, dy, dz) +
                                                     mps_gradient_form(g, n, j, dx, dy, dz));
    return approach < REAL_C(0.0) && midpoint < REAL_C(0.0) ? fmax(approach, midpoint)
                                                             : REAL_C(0.0);
}

/* Each fluid particle's velocity gradient G[a][b] = du_a/dx_b from its fluid neighbours within
 * re, corrected as the pressure gradient is (exact for a linear field on any arrangement); 0
 * where the neighbourhood's moment matrix is near singular, and for walls and dummies (the
 * viscosity acts between fluid particles alone). Component a d + b of slot o lies at
 * (a d + b) out_stride + o. */
KERNEL void mps_velocity_gradient(const uint n, CELL_ARGS, GLOBAL const uint* type,
                                  GLOBAL const real* r_star, GLOBAL const real* u_star,
                                  GLOBAL real* gradient, const real re, RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    const real xi = r_star[i], yi = r_star[n + i], zi = Z_OF(r_star, i);
    const real ui = u_star[i], vi = u_star[n + i], wi = Z_OF(u_star, i);
    real ux = REAL_C(0.0), uy = REAL_C(0.0), uz = REAL_C(0.0), vx = REAL_C(0.0),
         vy = REAL_C(0.0), vz = REAL_C(0.0), wx = REAL_C(0.0), wy = REAL_C(0.0),
         wz = REAL_C(0.0);
    if (type[i] == MPS_FLUID) {
        const real re2 = re * re;
        real cxx = REAL_C(0.0), cxy = REAL_C(0.0), cxz = REAL_C(0.0), cyy = REAL_C(0.0),
             cyz = REAL_C(0.0), czz = REAL_C(0.0);
        real bux = REAL_C(0.0), buy = REAL_C(0.0), buz = REAL_C(0.0), bvx = REAL_C(0.0),
             bvy = REAL_C(0.0), bvz = REAL_C(0.0), bwx = REAL_C(0.0), bwy = REAL_C(0.0),
             bwz = REAL_C(0.0);
        FOR_NEIGHBOURS(i, j)
            const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
            const real r2 = dx * dx + dy * dy + dz * dz;
            if (type[j] == MPS_FLUID && r2 < re2 && r2 > REAL_C(0.0)) {
                const real w = mps_weight(sqrt(r2), re) / r2;
                const real du = w * (u_star[j] - ui), dv = w * (u_star[n + j] - vi),
                           dw = w * (Z_OF(u_star, j) - wi);
                bux += du * dx, buy += du * dy, buz += du * dz;
                bvx += dv * dx, bvy += dv * dy, bvz += dv * dz;
                bwx += dw * dx, bwy += dw * dy, bwz += dw * dz;
                cxx += w * dx * dx, cxy += w * dx * dy, cxz += w * dx * dz;
                cyy += w * dy * dy, cyz += w * dy * dz, czz += w * dz * dz;
            }
        }}
        /* One condition for every row: all of G, or none of it. */
        if (mps_solve(cxx, cxy, cxz, cyy, cyz, czz, bux, buy, buz, &ux, &uy, &uz)) {
            mps_solve(cxx, cxy, cxz, cyy, cyz, czz, bvx, bvy, bvz, &vx, &vy, &vz);
            mps_solve(cxx, cxy, cxz, cyy, cyz, czz, bwx, bwy, bwz, &wx, &wy, &wz);
        }
    }
#if MPS_DIMENSIONS == 3
    gradient[o] = ux, gradient[out_stride + o] = uy, gradient[2 * out_stride + o] = uz;
    gradient[3 * out_stride + o] = vx, gradient[4 * out_stride + o] = vy;
    gradient[5 * out_stride + o] = vz, gradient[6 * out_stride + o] = wx;
    gradient[7 * out_stride + o] = wy, gradient[8 * out_stride + o] = wz;
#else
    (void)uz, (void)vz, (void)wx, (void)wy, (void)wz, (void)wi;
    gradient[o] = ux, gradient[out_stride + o] = uy;
    gradient[2 * out_stride + o] = vx, gradient[3 * out_stride + o] = vy;
#endif
}

/* Close-pair shifting (partcl::MpsOptions::shifting): a fluid particle nearer than l0 to fluid or
 * wall particles moves, position only, by shift * sum_j (1 - r/l0)^2 (r_i - r_j)/r. Where
 * P = 0 (the free surface, and the walls beside it) pressure does not keep particles apart;
 * pairs there close up to the collision distance and later spring apart. */
KERNEL void mps_correct(const uint n, CELL_ARGS, GLOBAL const uint* type,
                        GLOBAL const real* r_star, GLOBAL const real* u_star,
                        GLOBAL const real* pressure, GLOBAL const real* velocity_gradient,
                        const real reconstruction, GLOBAL real* r, GLOBAL real* u, const real dt,
                        const real re, const real gradient_factor, const real n0_over_d,
                        const real viscosity, const real softening2, const real shift,
                        const real l0, RANGE_PARAMS)
{
    PARTICLE_IN_RANGE(i);
    const real xi = r_star[i], yi = r_star[n + i], zi = Z_OF(r_star, i);
    const real ui = u_star[i], vi = u_star[n + i], wi = Z_OF(u_star, i);
    real gx = REAL_C(0.0), gy = REAL_C(0.0), gz = REAL_C(0.0);
    real sx = REAL_C(0.0), sy = REAL_C(0.0), sz = REAL_C(0.0);
    if (type[i] == MPS_FLUID) {
        const real re2 = re * re;
        real p_min = pressure[i];
        FOR_NEIGHBOURS(i, j)
            const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
            if (type[j] != MPS_DUMMY && dx * dx + dy * dy + dz * dz < re2)
                p_min = fmin(p_min, pressure[j]);
        }}
        real cxx = REAL_C(0.0), cxy = REAL_C(0.0), cxz = REAL_C(0.0), cyy = REAL_C(0.0),
             cyz = REAL_C(0.0), czz = REAL_C(0.0);
        FOR_NEIGHBOURS(i, j)
            const real dx = r_star[j] - xi, dy = r_star[n + j] - yi, dz = Z_OF(r_star, j) - zi;
            const real r2 = dx * dx + dy * dy + dz * dz;
            if (shift > REAL_C(0.0) && type[j] != MPS_DUMMY && r2 < l0 * l0 && r2 > REAL_C(0.0)) {
                const real r1 = sqrt(r2), q = REAL_C(1.0) - r1 / l0, f = q * q / r1;
                sx -= f * dx;
                sy -= f * dy;
                sz -= f * dz;
            }
            if (type[j] != MPS_DUMMY && r2 < re2 && r2 > REAL_C(0.0)) {
                const real w = mps_weight(sqrt(r2), re) / r2;
                /* Neighbours' velocities are read (and copied to ghosts) only with viscosity,
                 * which acts between fluid particles alone: at walls it would be a friction
                 * of order alpha rho0 c l0, far above water's, damping waves and sloshing. */
                real bracket = pressure[j] - p_min;
                if (viscosity > REAL_C(0.0) && type[j] == MPS_FLUID) {
                    real approach = (u_star[j] - ui) * dx + (u_star[n + j] - vi) * dy +
                                    (Z_OF(u_star, j) - wi) * dz;
#if MPS_RECONSTRUCT
                    approach = mps_reconstructed_approach(approach, reconstruction,
                                                          velocity_gradient, n, i, j, dx, dy, dz);
#endif
                    bracket += mps_viscous_pressure(approach, r2, viscosity, softening2);
                }
                const real f = w * bracket;
                gx += f * dx;
                gy += f * dy;
                gz += f * dz;
#if MPS_GRADIENT == 1
                cxx += w * dx * dx, cxy += w * dx * dy, cxz += w * dx * dz;
                cyy += w * dy * dy, cyz += w * dy * dz, czz += w * dz * dz;
#endif
            }
        }}
#if MPS_GRADIENT == 1
        /* gradient_factor carries the plain sum's d / n0: the corrected one is scaled back. */
        real x = gx, y = gy, z = gz;
        if (mps_solve(cxx, cxy, cxz, cyy, cyz, czz, gx, gy, gz, &x, &y, &z)) {
            gx = x * n0_over_d;
            gy = y * n0_over_d;
            gz = z * n0_over_d;
        }
#else
        (void)cxx, (void)cxy, (void)cxz, (void)cyy, (void)cyz, (void)czz, (void)n0_over_d;
#endif
    }
#if !MPS_RECONSTRUCT
    (void)velocity_gradient, (void)reconstruction;
#endif
    /* gradient_factor = d / n0 / rho0 * dt: the velocity change is -gradient_factor * sum. */
    const real du = -gradient_factor * gx, dv = -gradient_factor * gy, dw = -gradient_factor * gz;
    u[o] = ui + du;
    u[out_stride + o] = vi + dv;
    r[o] = xi + dt * du + shift * sx;
    r[out_stride + o] = yi + dt * dv + shift * sy;
#if MPS_DIMENSIONS == 3
    u[2 * out_stride + o] = wi + dw;
    r[2 * out_stride + o] = zi + dt * dw + shift * sz;
#else
    (void)dw;
    (void)sz;
#endif
}

/* partial[g] = the largest fluid speed among the particles of work-group g of the range
 * [first, last) (0 when none). */
KERNEL WORK_GROUP_SIZE(MPS_GROUP)
void mps_max_speed(const uint n, GLOBAL const uint* type, GLOBAL const real* u,
                   GLOBAL real* partial, const uint first, const uint last)
{
    LOCAL real best[MPS_GROUP];
    const uint i = first + global_id(0), l = local_id(0);
    real s = REAL_C(0.0);
    if (i < last && type[i] == MPS_FLUID) {
        const real a = u[i], b = u[n + i], c = Z_OF(u, i);
        s = sqrt(a * a + b * b + c * c);
    }
    best[l] = s;
    BARRIER_LOCAL;
    for (uint width = MPS_GROUP / 2; width > 0; width /= 2) {
        if (l < width) best[l] = fmax(best[l], best[l + width]);
        BARRIER_LOCAL;
    }
    if (l == 0) partial[group_id(0)] = best[0];
}
