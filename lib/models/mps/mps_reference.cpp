#include <partcl/models/mps/mps_reference.hpp>

#include <algorithm>
#include <cmath>

namespace partcl::reference {

template <class T>
MpsStep<T>::MpsStep(const MpsParameters& parameters, const CellGrid& grid, double n0,
                    double n0_laplacian, double lambda0)
    : p_(parameters), grid_(grid), n0_(n0), n0_lap_(n0_laplacian), lambda0_(lambda0) {
    max_shift_ = (grid.cell_size * grid.reach / (1 + 1e-3) - p_.re_ratio * p_.spacing) / 2;
}

namespace {

// x = C^-1 b for the symmetric d x d C when det C exceeds a tenth of (tr C / d)^d (the
// kernel's test); false, x untouched, otherwise.
template <class T>
bool solve_moments(int d, const T (&C)[3][3], const T (&b)[3], T (&x)[3]) {
    if (d == 2) {
        const T det = C[0][0] * C[1][1] - C[0][1] * C[0][1], t = (C[0][0] + C[1][1]) / T(2);
        if (!(det > T(0.1) * t * t)) return false;
        x[0] = (C[1][1] * b[0] - C[0][1] * b[1]) / det;
        x[1] = (C[0][0] * b[1] - C[0][1] * b[0]) / det;
        return true;
    }
    const T a00 = C[1][1] * C[2][2] - C[1][2] * C[1][2], a01 = C[0][2] * C[1][2] - C[0][1] * C[2][2],
            a02 = C[0][1] * C[1][2] - C[0][2] * C[1][1];
    const T det = C[0][0] * a00 + C[0][1] * a01 + C[0][2] * a02,
            t = (C[0][0] + C[1][1] + C[2][2]) / T(3);
    if (!(det > T(0.1) * t * t * t)) return false;
    const T a11 = C[0][0] * C[2][2] - C[0][2] * C[0][2], a12 = C[0][1] * C[0][2] - C[0][0] * C[1][2],
            a22 = C[0][0] * C[1][1] - C[0][1] * C[0][1];
    x[0] = (a00 * b[0] + a01 * b[1] + a02 * b[2]) / det;
    x[1] = (a01 * b[0] + a11 * b[1] + a12 * b[2]) / det;
    x[2] = (a02 * b[0] + a12 * b[1] + a22 * b[2]) / det;
    return true;
}

} // namespace

template <class T>
void MpsStep<T>::step(std::vector<T>& r, std::vector<T>& u, const std::vector<std::uint32_t>& type,
                      std::vector<T>& pressure, double dt_) {
    const int d = p_.dimensions;
    const std::size_t n = type.size();
    const std::size_t cells = grid_.count();
    const T inv = T(1 / grid_.cell_size);
    // Counting sort of particles into cells (order_ lists them cell by cell).
    cell_of_.resize(n);
    start_.assign(cells + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t c = 0, scale = 1;
        for (int k = 0; k < d; ++k) {
            const T t = (r[k * n + i] - T(grid_.origin[k])) * inv;
            if (!(t >= T(0) && t < T(grid_.cells[k]))) throw Error("mps reference: a particle left the grid");
            c += std::uint32_t(t) * scale;
            scale *= grid_.cells[k];
        }
        cell_of_[i] = c;
        ++start_[c + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    order_.resize(n);
    {
        std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
        for (std::size_t i = 0; i < n; ++i) order_[fill[cell_of_[i]]++] = std::uint32_t(i);
    }
    // Work in cell order, as the device does (neighbours then lie close in memory), and scatter
    // the results back to the caller's order at the end.
    r_sorted_.resize(d * n), u_sorted_.resize(d * n), type_sorted_.resize(n);
    std::vector<std::uint32_t> cell_sorted(n);
    const long long total = (long long)n;
#pragma omp parallel for schedule(static)
    for (long long ss = 0; ss < total; ++ss) {
        const std::size_t s = std::size_t(ss), i = order_[s];
        for (int k = 0; k < d; ++k) {
            r_sorted_[k * n + s] = r[k * n + i];
            u_sorted_[k * n + s] = u[k * n + i];
        }
        type_sorted_[s] = type[i];
        cell_sorted[s] = cell_of_[i];
    }
    cell_of_.swap(cell_sorted);
    step_sorted(r_sorted_, u_sorted_, type_sorted_, pressure_sorted_, dt_);
    pressure.resize(n);
#pragma omp parallel for schedule(static)
    for (long long ss = 0; ss < total; ++ss) {
        const std::size_t s = std::size_t(ss), i = order_[s];
        for (int k = 0; k < d; ++k) {
            r[k * n + i] = r_sorted_[k * n + s];
            u[k * n + i] = u_sorted_[k * n + s];
        }
        pressure[i] = pressure_sorted_[s];
    }
}

template <class T>
void MpsStep<T>::step_sorted(std::vector<T>& r, std::vector<T>& u,
                             const std::vector<std::uint32_t>& type, std::vector<T>& pressure,
                             double dt_) {
    const int d = p_.dimensions;
    const std::size_t n = type.size();
    const std::uint32_t nx = grid_.cells[0], ny = grid_.cells[1], nz = grid_.cells[2];
    const int reach = grid_.reach, reach_z = d == 3 ? reach : 0;
    // Calls f(j) for every particle j in the cells around particle i's cell, in the device's
    // order (cell_list.h's rows).
    auto for_neighbours = [&](std::size_t i, auto&& f) {
        const std::uint32_t c = cell_of_[i];
        const int cx = int(c % nx), cy = int((c / nx) % ny), cz = int(c / (nx * ny));
        for (int dz = -reach_z; dz <= reach_z; ++dz)
            for (int dy = -reach; dy <= reach; ++dy)
                for (int dx = -reach; dx <= reach; ++dx) {
                    const int x = cx + dx, y = cy + dy, z = cz + dz;
                    if (x < 0 || y < 0 || z < 0 || x >= int(nx) || y >= int(ny) || z >= int(nz)) continue;
                    const std::uint32_t cell = std::uint32_t(x) + nx * (std::uint32_t(y) + ny * std::uint32_t(z));
                    for (std::uint32_t s = start_[cell]; s < start_[cell + 1]; ++s) f(std::size_t(s));
                }
    };
    auto dist2 = [&](const std::vector<T>& a, std::size_t i, std::size_t j, T* delta) {
        T s = 0;
        for (int k = 0; k < d; ++k) {
            delta[k] = a[k * n + j] - a[k * n + i];
            s += delta[k] * delta[k];
        }
        return s;
    };
    const T dt = T(dt_), re = T(p_.re_ratio * p_.spacing), re_lap = T(p_.re_laplacian_ratio * p_.spacing);
    const T visc = T(p_.viscosity * 2 * d / (lambda0_ * n0_lap_));
    const T col = T(p_.collision_ratio * p_.spacing), col_wall = T(p_.wall_collision() * p_.spacing);
    const T share = T((1 + p_.restitution) * 0.5);
    const T pfactor = T(p_.sound_speed * p_.sound_speed * p_.density / n0_), n0 = T(n0_);
    const T gfactor = T(d / n0_ / p_.density * dt_), n0_over_d = T(n0_ / d);
    const T viscosity = T(p_.artificial_viscosity * p_.density * p_.sound_speed * p_.spacing);
    const T softening2 = T(0.01 * p_.spacing * p_.spacing);
    const T shift = T(p_.shifting * p_.sound_speed * dt_), l0 = T(p_.spacing);
    const MpsWeight kind = p_.weight;
    auto weight = [kind](T r, T radius) { return mps_weight(kind, r, radius); };
    const bool corrected = p_.gradient == MpsGradient::corrected;
    r_star_.resize(d * n), u_star_.resize(d * n), r_col_.resize(d * n), u_col_.resize(d * n);
    pressure.resize(n);
    const long long count = (long long)n;
    int too_far = 0;

#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < count; ++ii) {  // viscosity, gravity -> r*, u*
        const std::size_t i = std::size_t(ii);
        T a[3] = {0, 0, 0};
        if (type[i] == 0) {
            T lap[3] = {0, 0, 0};
            for_neighbours(i, [&](std::size_t j) {
                T delta[3];
                const T w = weight(std::sqrt(dist2(r, i, j, delta)), re_lap);
                for (int k = 0; k < d; ++k) lap[k] += (u[k * n + j] - u[k * n + i]) * w;
            });
            for (int k = 0; k < d; ++k) a[k] = visc * lap[k] + T(p_.gravity[k]);
        }
        for (int k = 0; k < d; ++k) {
            u_star_[k * n + i] = u[k * n + i] + dt * a[k];
            r_star_[k * n + i] = r[k * n + i] + dt * u_star_[k * n + i];
        }
    }
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < count; ++ii) {  // collisions
        const std::size_t i = std::size_t(ii);
        T du[3] = {0, 0, 0};
        if (type[i] == 0)
            for_neighbours(i, [&](std::size_t j) {
                T delta[3];
                const T r2 = dist2(r_star_, i, j, delta);
                const T limit = type[j] == 0 ? col : col_wall;
                if (j == i || !(r2 < limit * limit) || !(r2 > T(0))) return;
                const T inv_r = T(1) / std::sqrt(r2);
                T approach = 0;
                for (int k = 0; k < d; ++k) approach += (u_star_[k * n + i] - u_star_[k * n + j]) * delta[k] * inv_r;
                if (approach > T(0))
                    for (int k = 0; k < d; ++k) du[k] -= share * approach * delta[k] * inv_r;
            });
        for (int k = 0; k < d; ++k) {
            u_col_[k * n + i] = u_star_[k * n + i] + du[k];
            r_col_[k * n + i] = r_star_[k * n + i] + dt * du[k];
        }
    }
#pragma omp parallel for schedule(static) reduction(| : too_far)
    for (long long ii = 0; ii < count; ++ii) {  // number density, pressure
        const std::size_t i = std::size_t(ii);
        T shift2 = 0;
        for (int k = 0; k < d; ++k) shift2 += (r_col_[k * n + i] - r[k * n + i]) * (r_col_[k * n + i] - r[k * n + i]);
        if (!(shift2 <= T(max_shift_ * max_shift_))) too_far |= 1;
        T sum = 0;
        for_neighbours(i, [&](std::size_t j) {
            T delta[3];
            sum += weight(std::sqrt(dist2(r_col_, i, j, delta)), re);
        });
        pressure[i] = type[i] == 2 ? T(0) : std::max(T(0), pfactor * (sum - n0));
    }
    if (too_far) throw Error("mps reference: a particle moved further than the cells allow");
    const T reconstruction = T(p_.viscosity_reconstruction);
    if (reconstruction > T(0)) {  // the fluid's velocity gradients, for the viscosity's reconstruction
        gradient_.assign(std::size_t(d * d) * n, T(0));
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < count; ++ii) {
            const std::size_t i = std::size_t(ii);
            if (type[i] != 0) continue;
            T C[3][3] = {}, B[3][3] = {};  // B[a]: sum of w (u_a,j - u_a,i) (r_j - r_i) / r^2
            for_neighbours(i, [&](std::size_t j) {
                T delta[3] = {0, 0, 0};
                const T r2 = dist2(r_col_, i, j, delta);
                if (type[j] != 0 || !(r2 < re * re) || !(r2 > T(0))) return;
                const T w = weight(std::sqrt(r2), re) / r2;
                for (int a = 0; a < d; ++a)
                    for (int b = 0; b < d; ++b) {
                        B[a][b] += w * (u_col_[a * n + j] - u_col_[a * n + i]) * delta[b];
                        C[a][b] += w * delta[a] * delta[b];
                    }
            });
            T row[3];
            for (int a = 0; a < d; ++a) {
                if (!solve_moments(d, C, B[a], row)) break;  // one test for every row
                for (int b = 0; b < d; ++b) gradient_[std::size_t(a * d + b) * n + i] = row[b];
            }
        }
    }
    // r^T G r for the velocity gradient of particle i
    auto form = [&](std::size_t i, const T* delta) {
        T s = 0;
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) s += delta[a] * gradient_[std::size_t(a * d + b) * n + i] * delta[b];
        return s;
    };
    const T rho_g[3] = {T(p_.density * p_.gravity[0]), T(p_.density * p_.gravity[1]),
                        T(p_.density * p_.gravity[2])};
    for (int sweep = 0; sweep < p_.surface_sweeps; ++sweep) {  // the free surface's layer
        swept_.assign(pressure.begin(), pressure.end());      // this sweep's inputs
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < count; ++ii) {
            const std::size_t i = std::size_t(ii);
            if (type[i] != 0 || swept_[i] > T(0)) continue;  // fluid only
            T sum_w = 0, sum_p = 0;
            for_neighbours(i, [&](std::size_t j) {
                T delta[3] = {0, 0, 0};
                const T r2 = dist2(r_col_, i, j, delta);
                if (type[j] != 0 || !(swept_[j] > T(0)) || !(r2 < re * re)) return;
                const T w = weight(std::sqrt(r2), re);
                sum_w += w;
                sum_p += w * (swept_[j] - (rho_g[0] * delta[0] + rho_g[1] * delta[1] + rho_g[2] * delta[2]));
            });
            if (sum_w > T(0)) pressure[i] = std::max(T(0), sum_p / sum_w);
        }
    }
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < count; ++ii) {  // pressure gradient -> r, u
        const std::size_t i = std::size_t(ii);
        T grad[3] = {0, 0, 0}, apart[3] = {0, 0, 0};
        if (type[i] == 0) {
            T p_min = pressure[i];
            for_neighbours(i, [&](std::size_t j) {
                T delta[3];
                if (type[j] != 2 && dist2(r_col_, i, j, delta) < re * re) p_min = std::min(p_min, pressure[j]);
            });
            T C[3][3] = {};
            for_neighbours(i, [&](std::size_t j) {
                T delta[3];
                const T r2 = dist2(r_col_, i, j, delta);
                if (shift > T(0) && type[j] != 2 && r2 < l0 * l0 && r2 > T(0)) {  // close pairs
                    const T r1 = std::sqrt(r2), q = T(1) - r1 / l0;
                    for (int k = 0; k < d; ++k) apart[k] -= q * q / r1 * delta[k];
                }
                if (type[j] == 2 || !(r2 < re * re) || !(r2 > T(0))) return;
                const T w = weight(std::sqrt(r2), re) / r2;
                T bracket = pressure[j] - p_min;
                if (viscosity > T(0) && type[j] == 0) {  // artificial viscosity: fluid pairs
                    T approach = 0;
                    for (int k = 0; k < d; ++k) approach += (u_col_[k * n + j] - u_col_[k * n + i]) * delta[k];
                    if (reconstruction > T(0)) {  // towards the midpoint, limited by the pair's own
                        const T midpoint = approach - T(0.5) * reconstruction * (form(i, delta) + form(j, delta));
                        approach = approach < T(0) && midpoint < T(0) ? std::max(approach, midpoint) : T(0);
                    }
                    if (approach < T(0)) bracket += viscosity * -approach / (r2 + softening2);
                }
                for (int k = 0; k < d; ++k) grad[k] += w * bracket * delta[k];
                if (corrected)
                    for (int a = 0; a < d; ++a)
                        for (int b = 0; b < d; ++b) C[a][b] += w * delta[a] * delta[b];
            });
            T solved[3] = {0, 0, 0};
            if (corrected && solve_moments(d, C, grad, solved))
                for (int k = 0; k < d; ++k) grad[k] = solved[k] * n0_over_d;
        }
        for (int k = 0; k < d; ++k) {
            const T du = -gfactor * grad[k];
            u[k * n + i] = u_col_[k * n + i] + du;
            r[k * n + i] = r_col_[k * n + i] + dt * du + shift * apart[k];
        }
    }
}

template class MpsStep<float>;
template class MpsStep<double>;

} // namespace partcl::reference
