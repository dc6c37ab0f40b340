/* The long-range half of TreePM gravity on a periodic mesh (partcl::ParticleMesh,
 * include/partcl/models/nbody/particle_mesh.hpp), after Gadget-2's pm_periodic:
 *   pm_deposit_layer, pm_deposit_sum
 *                     mass density at the mesh nodes, triangular-shaped clouds, the bodies sorted
 *                     by cell (gathers per node: no atomics, the same sum on every device)
 *   (Fft forward)  pm_fields  (Fft inverse, three times)
 *                     phi_k = -4 pi G rho_k exp(-k^2 r_s^2) / k^2, divided by the square of
 *                     the TSC window (once for the deposit, once for the interpolation); the
 *                     k = 0 mode the erfc kernel's mean, 4 pi G r_s^2 rho_mean (the mean
 *                     density itself is the background: no force); g = -grad phi at the
 *                     nodes, spectrally: g_a,k = -i k_a phi_k. Both interlaced meshes at once:
 *                     their densities share one transform, their six field components three
 *   pm_interpolate    g (and phi) at the bodies with the deposit's weights, added to theirs
 * The mesh: `nodes` per axis over a cube of edge nodes / inverse_h, node (i, j, k) at
 * (i, j, k) h and at index i + nodes (j + nodes k) (partcl::Fft's layout); rho and phi are
 * interleaved complex (re, im), as is each component of the field. The kernels after pm_wrap
 * take the bodies in the cells' frame, x + h/2 wrapped into [0, nodes h) along each axis: cell c
 * (the cell list's floor(x / h)) holds the bodies nearest node c, so a node's deposit gathers
 * 3 x 3 x 3 cells, the triangular cloud's reach, not 4 x 4 x 4. */
#include "common/real.h"

/* Cell and fraction along one axis (the cell list bins with the same product). */
INLINE uint pm_cell(const real x, const real inverse_h, const uint nodes, PRIVATE real* frac)
{
    const real t = x * inverse_h;
    const uint c = min((uint)t, nodes - 1u);
    *frac = t - (real)c;
    return c;
}

/* Positions (component a of body i at positions[a * stride + i], any finite value) mapped into
 * the box [0, nodes h), written at wrapped[a * n + i]: the cell list and the deposit then see
 * the same cell. A coordinate that rounds onto the box's edge is its image 0. Infinite becomes NaN. NaN stays
 * (the cell list reports it). */
KERNEL void pm_wrap(const uint n, const uint stride, GLOBAL const real* RESTRICT positions,
                    const real box, const uint nodes, const real inverse_h, const real shift,
                    GLOBAL real* RESTRICT wrapped)
{
    const uint i = global_id(0);
    if (i >= n) return;
    for (int a = 0; a < 3; ++a) {
        const real x = positions[a * stride + i] + shift;
        real w = x - box * floor(x / box);
        /* Rounding can leave w a hair below 0 or on the upper edge: both are image 0. */
        if (!(w >= REAL_C(0.0) && w * inverse_h < (real)nodes)) w = w == w ? REAL_C(0.0) : w;
        wrapped[a * n + i] = w;
    }
}

/* An index in [0, 3 nodes) wrapped into [0, nodes) (no %: see pm_coordinates). */
INLINE uint pm_wrap_index(uint i, const uint nodes)
{
    i = i >= nodes ? i - nodes : i;
    return i >= nodes ? i - nodes : i;
}

/* Node index of (i, j, k), each wrapped from [0, 3 nodes) into [0, nodes). */
INLINE uint pm_node(const uint i, const uint j, const uint k, const uint nodes)
{
    return pm_wrap_index(i, nodes) + nodes * (pm_wrap_index(j, nodes) + nodes * pm_wrap_index(k, nodes));
}

/* Coordinates of node g. Written with products rather than % next to /: LLVM then inserts a
 * `freeze` that Oclgrind 21.10's checker cannot follow. */
INLINE void pm_coordinates(const uint g, const uint nodes, PRIVATE uint* c)
{
    const uint row = g / nodes;
    const uint layer = row / nodes;
    c[0] = g - row * nodes;
    c[1] = row - layer * nodes;
    c[2] = layer;
}

/* The triangular-shaped cloud's weight at a node d cells from the body. */
INLINE real pm_tsc(const real d)
{
    const real a = fabs(d);
    const real outer = REAL_C(1.5) - a;
    return a < REAL_C(0.5) ? REAL_C(0.75) - a * a
                           : (a < REAL_C(1.5) ? REAL_C(0.5) * outer * outer : REAL_C(0.0));
}

/* The triangular-shaped cloud's weights, per axis, at the node before a body's nearest one,
 * that node and the one after, d = the body's offset from its nearest node in cells (-1/2 to
 * 1/2): pm_tsc(1 + d), pm_tsc(d), pm_tsc(1 - d). */
INLINE void pm_weights(const real d, PRIVATE real* w)
{
    w[0] = REAL_C(0.5) * (REAL_C(0.5) - d) * (REAL_C(0.5) - d);
    w[1] = REAL_C(0.75) - d * d;
    w[2] = REAL_C(0.5) * (REAL_C(0.5) + d) * (REAL_C(0.5) + d);
}

/* The density's first half, per layer of cells: for each (i, j) of layer k of cells [first,
 * end) (as node indices), the mass of the 3 x 3 cells of that layer around (i, j), weighted for
 * node (i, j) along x and y and, along z, for each of the nodes k - 1, k and k + 1, written at
 * to_below[g], to_level[g] and to_above[g] (g the index of (i, j, k)). Bodies sorted by cell
 * (slots [cell_start[c], cell_end[c]) of cell c, c the bodies' nearest node), positions[a *
 * stride + s] (the cells' frame) and mass[s] of slot s. A row's three cells are one range of
 * slots unless the row wraps. Splitting the 27 cells of a node in two passes reads each body
 * 9 times instead of 27. */
KERNEL void pm_deposit_layer(const uint first, const uint end, const uint stride,
                             GLOBAL const real* RESTRICT positions, GLOBAL const real* RESTRICT mass,
                             GLOBAL const uint* RESTRICT cell_start, GLOBAL const uint* RESTRICT cell_end,
                             const uint nodes, const real inverse_h, GLOBAL real* RESTRICT to_below,
                             GLOBAL real* RESTRICT to_level, GLOBAL real* RESTRICT to_above)
{
    const uint g = first + global_id(0);
    if (g >= end) return;
    uint node[3];
    pm_coordinates(g, nodes, node);
    const uint i = node[0];
    /* Cells lo..hi of the row without wrapping, and the one across the row's end, if any. */
    const uint lo = i == 0u ? 0u : i - 1u, hi = i + 1u == nodes ? i : i + 1u;
    const uint across = i == 0u ? nodes - 1u : (i + 1u == nodes ? 0u : nodes);
    real below = REAL_C(0.0), level = REAL_C(0.0), above = REAL_C(0.0);
    for (int oy = -1; oy <= 1; ++oy) {
        const uint row = nodes * (pm_wrap_index(node[1] + nodes + (uint)(oy + 1) - 1u, nodes) + nodes * node[2]);
        for (int part = 0; part < 2; ++part) {
            if (part == 1 && across == nodes) break;
            const uint from = cell_start[row + (part == 0 ? lo : across)];
            const uint to = cell_end[row + (part == 0 ? hi : across)];
            for (uint s = from; s < to; ++s) {
                real fx, fy, fz;
                const uint cx = pm_cell(positions[s], inverse_h, nodes, &fx);
                (void)pm_cell(positions[stride + s], inverse_h, nodes, &fy);
                (void)pm_cell(positions[2 * stride + s], inverse_h, nodes, &fz);
                /* The body sits at (c + f - 1/2) h: o + f - 1/2 cells from the node, o its
                 * cell's offset. */
                int ox = (int)cx - (int)i;
                ox = ox > 1 ? ox - (int)nodes : (ox < -1 ? ox + (int)nodes : ox);
                const real wxy = mass[s] * pm_tsc((real)ox + fx - REAL_C(0.5)) *
                                 pm_tsc((real)oy + fy - REAL_C(0.5));
                real wz[3];
                pm_weights(fz - REAL_C(0.5), wz);
                below += wxy * wz[0];
                level += wxy * wz[1];
                above += wxy * wz[2];
            }
        }
    }
    to_below[g] = below;
    to_level[g] = level;
    to_above[g] = above;
}

/* The density at nodes [first, end) from pm_deposit_layer's parts: node (i, j, k) sums what
 * layers k + 1, k and k - 1 gave it. Writes node g's at rho[2 g + part]: the two interlaced
 * meshes' densities, real fields both, share one complex transform as its real (part 0) and
 * imaginary (part 1) halves. */
KERNEL void pm_deposit_sum(const uint first, const uint end, const uint nodes, const real inverse_h,
                           GLOBAL const real* RESTRICT to_below, GLOBAL const real* RESTRICT to_level,
                           GLOBAL const real* RESTRICT to_above, const uint part, GLOBAL real* RESTRICT rho)
{
    const uint g = first + global_id(0);
    if (g >= end) return;
    uint node[3];
    pm_coordinates(g, nodes, node);
    const uint layer = nodes * nodes, base = g - node[2] * layer;
    const uint up = pm_wrap_index(node[2] + 1u, nodes), down = pm_wrap_index(node[2] + nodes - 1u, nodes);
    const real sum = to_below[base + up * layer] + to_level[g] + to_above[base + down * layer];
    const real h3_inverse = inverse_h * inverse_h * inverse_h;
    rho[2u * g + part] = sum * h3_inverse;
}

/* sin(x) / x, 1 at 0. */
INLINE real pm_sinc(const real x)
{
    return x != REAL_C(0.0) ? sin(x) / x : REAL_C(1.0);
}

/* Node g's mirror, the point of wave vector -k. */
INLINE uint pm_mirror(const PRIVATE uint* index, const uint nodes)
{
    return pm_node(nodes - index[0], nodes - index[1], nodes - index[2], nodes);
}

/* The two interlaced meshes' density spectra from their shared transform F (density 0 + i
 * density 1): rho_0,k = (F_k + conj F_-k) / 2, rho_1,k = (F_k - conj F_-k) / 2i. */
INLINE void pm_split(GLOBAL const real* RESTRICT spectrum, const uint g, const uint mirror,
                     PRIVATE real* rho0, PRIVATE real* rho1)
{
    const real a = spectrum[2u * g], b = spectrum[2u * g + 1u];
    const real c = spectrum[2u * mirror], d = spectrum[2u * mirror + 1u];
    rho0[0] = REAL_C(0.5) * (a + c);
    rho0[1] = REAL_C(0.5) * (b - d);
    rho1[0] = REAL_C(0.5) * (b + d);
    rho1[1] = REAL_C(0.5) * (c - a);
}

/* The densities' shared spectrum into the six components of the two meshes' fields, packed two
 * real fields to a complex one for three inverse transforms: out0 = g0x + i g0y, out1 = g0z +
 * i g1x, out2 = g1y + i g1z (X + i Y of spectra X, Y transforms back to x + i y for real x,
 * y); with `potential` 1 also phi0 + i phi1 into phi. For each mesh phi_k = -4 pi G rho_k
 * exp(-k^2 r_s^2) / k^2, divided by the square of the TSC window (once for the deposit, once
 * for the interpolation) and by the points for the unnormalised inverse transform (`scale` =
 * -4 pi G / points, `split2` = r_s^2), and g_a,k = -i k_a phi_k (the Nyquist frequency's
 * derivative, whose sign the grid cannot tell, is 0). */
KERNEL void pm_fields(const uint points, const uint nodes, const real inverse_h, const real split2,
                      const real scale, GLOBAL const real* RESTRICT spectrum, GLOBAL real* RESTRICT out0,
                      GLOBAL real* RESTRICT out1, GLOBAL real* RESTRICT out2, GLOBAL real* RESTRICT phi,
                      const uint potential)
{
    const uint g = global_id(0);
    if (g >= points) return;
    uint index[3];
    pm_coordinates(g, nodes, index);
    real k2 = REAL_C(0.0), window = REAL_C(1.0), k[3];
    for (int a = 0; a < 3; ++a) {
        const real m = (real)index[a] - (2u * index[a] > nodes ? (real)nodes : REAL_C(0.0));
        const real ka = REAL_C(6.283185307179586) * m * inverse_h / (real)nodes;
        k2 += ka * ka;
        k[a] = 2u * index[a] == nodes ? REAL_C(0.0) : ka;
        window *= pm_sinc(REAL_C(3.141592653589793) * m / (real)nodes);
    }
    const real w3 = window * window * window;
    /* k = 0: the mean potential of the short range's erfc kernel over a uniform density,
     * 4 pi G r_s^2 rho_mean, which the tree's sum cut at a finite radius does not give and
     * Ewald's convention (zero mean over the box) counts; it moves no body. */
    const real factor = k2 > REAL_C(0.0) ? scale * exp(-k2 * split2) / (k2 * w3 * w3) : -scale * split2;
    real rho0[2], rho1[2];
    pm_split(spectrum, g, pm_mirror(index, nodes), rho0, rho1);
    const real p0r = factor * rho0[0], p0i = factor * rho0[1];
    const real p1r = factor * rho1[0], p1i = factor * rho1[1];
    /* -i k (re + i im) = k im - i k re, per mesh and axis. */
    const real g0xr = k[0] * p0i, g0xi = -k[0] * p0r, g0yr = k[1] * p0i, g0yi = -k[1] * p0r;
    const real g0zr = k[2] * p0i, g0zi = -k[2] * p0r, g1xr = k[0] * p1i, g1xi = -k[0] * p1r;
    const real g1yr = k[1] * p1i, g1yi = -k[1] * p1r, g1zr = k[2] * p1i, g1zi = -k[2] * p1r;
    /* X + i Y = (Xr - Yi) + i (Xi + Yr). */
    out0[2u * g] = g0xr - g0yi;
    out0[2u * g + 1u] = g0xi + g0yr;
    out1[2u * g] = g0zr - g1xi;
    out1[2u * g + 1u] = g0zi + g1xr;
    out2[2u * g] = g1yr - g1zi;
    out2[2u * g + 1u] = g1yi + g1zr;
    if (potential) {
        phi[2u * g] = p0r - p1i;
        phi[2u * g + 1u] = p0i + p1r;
    }
}

/* The field (and with `potential` 1 the potential, plus `self` m: the mesh's own potential at
 * a body of itself is removed, see particle_mesh.hpp) at the bodies of slots [0, n) with the
 * deposit's weights, each component the real (part 0) or imaginary (part 1) half of its buffer, added to out[out_offset + a * out_stride + order[s]] and pot[order[s]]:
 * the bodies in cell order (positions[a * stride + s], mass[s]) read neighbouring nodes, which
 * the cache then holds, where bodies in their own order would read the mesh at random. */
KERNEL void pm_interpolate(const uint n, const uint stride, GLOBAL const real* RESTRICT positions,
                           GLOBAL const real* RESTRICT mass, GLOBAL const uint* RESTRICT order,
                           const uint nodes, const real inverse_h,
                           GLOBAL const real* RESTRICT field_x, GLOBAL const real* RESTRICT field_y,
                           GLOBAL const real* RESTRICT field_z, GLOBAL const real* RESTRICT phi,
                           const uint part_x, const uint part_y, const uint part_z, const uint part_phi,
                           GLOBAL real* RESTRICT out, const uint out_offset, const uint out_stride,
                           GLOBAL real* RESTRICT pot, const uint potential, const real self,
                           const real weight)
{
    const uint i = global_id(0);
    if (i >= n) return;
    /* Nearest node (the cell, in the cells' frame) and the weights of it and the nodes either
     * side, per axis. */
    uint near[3];
    real w[3][3];
    for (int a = 0; a < 3; ++a) {
        real d;
        near[a] = pm_cell(positions[a * stride + i], inverse_h, nodes, &d);
        pm_weights(d - REAL_C(0.5), w[a]);
    }
    real gx = REAL_C(0.0), gy = REAL_C(0.0), gz = REAL_C(0.0), p = REAL_C(0.0);
    for (int bz = 0; bz < 3; ++bz)
        for (int by = 0; by < 3; ++by)
            for (int bx = 0; bx < 3; ++bx) {
                const real wc = w[0][bx] * w[1][by] * w[2][bz];
                const uint g = pm_node(near[0] + nodes - 1u + (uint)bx, near[1] + nodes - 1u + (uint)by,
                                       near[2] + nodes - 1u + (uint)bz, nodes);
                gx += wc * field_x[2u * g + part_x];
                gy += wc * field_y[2u * g + part_y];
                gz += wc * field_z[2u * g + part_z];
                if (potential) p += wc * phi[2u * g + part_phi];
            }
    const uint body = order[i];
    out[out_offset + body] += weight * gx;
    out[out_offset + out_stride + body] += weight * gy;
    out[out_offset + 2u * out_stride + body] += weight * gz;
    if (potential) pot[body] += weight * (p + self * mass[i]);
}

/* The power of the density's spectrum at each point, for ParticleMesh::power_spectrum: the
 * two interlaced meshes' spectra, split from their shared transform (pm_split; the second's
 * bodies shifted by half a cell along every axis, so its spectrum is the first's times
 * exp(-i k.s)), averaged once the second is turned back by exp(+i k.s), then |.|^2 over the
 * TSC window squared. Writes out[g] (reals). */
KERNEL void pm_power(const uint points, const uint nodes, GLOBAL const real* RESTRICT spectrum,
                     GLOBAL real* RESTRICT out)
{
    const uint g = global_id(0);
    if (g >= points) return;
    uint index[3];
    pm_coordinates(g, nodes, index);
    real phase = REAL_C(0.0), window = REAL_C(1.0);
    for (int a = 0; a < 3; ++a) {
        const real m = (real)index[a] - (2u * index[a] > nodes ? (real)nodes : REAL_C(0.0));
        const real x = REAL_C(3.141592653589793) * m / (real)nodes;
        phase += x;
        window *= pm_sinc(x);
    }
    real first[2], second[2];
    pm_split(spectrum, g, pm_mirror(index, nodes), first, second);
    const real c = cos(phase), s = sin(phase);
    const real re = REAL_C(0.5) * (first[0] + second[0] * c - second[1] * s);
    const real im = REAL_C(0.5) * (first[1] + second[0] * s + second[1] * c);
    const real w3 = window * window * window;
    out[g] = (re * re + im * im) / (w3 * w3);
}
