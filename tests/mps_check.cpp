#include "mps_check.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <random>

#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

// The method's choices the kernels are built or called with.
struct Variant {
    MpsWeight weight;
    MpsGradient gradient;
    double viscosity;  // the artificial viscosity's alpha rho0 c l0 (0: off)
    double shift;      // close-pair shifting's shifting c dt (0: off)
    double reconstruction;  // the viscosity's reconstruction share (0: off)
};

double weight_of(MpsWeight kind, double r, double re) {
    if (!(r > 0 && r < re)) return 0;
    return kind == MpsWeight::quadratic ? (1 - r / re) * (1 - r / re) : re / r - 1;
}

// |dw/dr| at r, bounded for both weights.
double slope_bound(double r, double re) { return std::max(re / (r * r), 2 / re); }

// det C and C^-1 of a symmetric d x d moment matrix.
double invert_moments(int dims, const double (&C)[3][3], double (&inv)[3][3]) {
    double det;
    if (dims == 2) {
        det = C[0][0] * C[1][1] - C[0][1] * C[1][0];
        inv[0][0] = C[1][1] / det, inv[1][1] = C[0][0] / det;
        inv[0][1] = inv[1][0] = -C[0][1] / det;
    } else {
        const double a00 = C[1][1] * C[2][2] - C[1][2] * C[2][1];
        const double a01 = C[0][2] * C[2][1] - C[0][1] * C[2][2];
        const double a02 = C[0][1] * C[1][2] - C[0][2] * C[1][1];
        det = C[0][0] * a00 + C[1][0] * a01 + C[2][0] * a02;
        inv[0][0] = a00 / det, inv[0][1] = inv[1][0] = a01 / det, inv[0][2] = inv[2][0] = a02 / det;
        inv[1][1] = (C[0][0] * C[2][2] - C[0][2] * C[2][0]) / det;
        inv[1][2] = inv[2][1] = (C[0][1] * C[0][2] - C[0][0] * C[1][2]) / det;
        inv[2][2] = (C[0][0] * C[1][1] - C[0][1] * C[1][0]) / det;
    }
    return det;
}

// The rounding bound of C^-1 b computed as the kernels do, from the bounds on b and on C's sums:
// |C^-1| <= 1 / lambda_min, and lambda_min >= det / tr^(d-1); the solve's own rounding grows with
// the condition number, tr^d / det at most.
double solve_tolerance(int dims, double det, double tr, double b_tol, double c_tol, double size, double eps) {
    const double inverse_norm = std::pow(tr, dims - 1) / det, kappa = std::pow(tr, dims) / det;
    return inverse_norm * (b_tol + c_tol * size) + 64 * eps * kappa * size;
}

template <class T>
void check_typed(Precision precision, int dims, std::size_t per_axis, const Variant& variant) {
    const auto weight = [&](double r, double re) { return weight_of(variant.weight, r, re); };
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(dims);
    CAPTURE(per_axis);
    CAPTURE(int(variant.weight));
    CAPTURE(int(variant.gradient));
    CAPTURE(variant.viscosity);
    CAPTURE(variant.shift);
    CAPTURE(variant.reconstruction);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);

    // Unit spacing near the origin keeps |x| / r small, which bounds the rounding of r_j - r_i.
    // Walls at their own collision distance (MpsOptions::wall_collision_ratio).
    const double l0 = 1, re = 2.1, re_lap = 3.1, d_col = 0.5 * l0, d_wall = 0.8 * l0;
    const double cell = std::max(re_lap, re + l0), max_shift = (cell - re) / 2;
    std::size_t n = 1;
    for (int k = 0; k < dims; ++k) n *= per_axis;
    const double lo = -2.0, side = double(per_axis) * l0 + 4.0;  // box [lo, lo + side]^d

    // Positions r (jittered lattice) and r* (r moved by less than max_shift): no pair of r* may
    // lie within 1e-3 of a threshold (re, re_lap, the collision distance), where results jump.
    std::vector<T> r(dims * n), rs(dims * n), u(dims * n), us(dims * n), p(n);
    std::vector<std::uint32_t> type(n);
    auto coord = [&](const std::vector<T>& a, std::size_t i, int k) { return double(a[k * n + i]); };
    auto distance = [&](const std::vector<T>& a, std::size_t i, std::size_t j) {
        double s = 0;
        for (int k = 0; k < dims; ++k) s += (coord(a, j, k) - coord(a, i, k)) * (coord(a, j, k) - coord(a, i, k));
        return std::sqrt(s);
    };
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t rest = i;
        for (int k = 0; k < dims; ++k) {
            const double lattice = double(rest % per_axis) * l0;
            rest /= per_axis;
            r[k * n + i] = T(lattice + 0.3 * (2 * u01(rng) - 1));
            u[k * n + i] = T(2 * u01(rng) - 1);
            us[k * n + i] = T(2 * u01(rng) - 1);
        }
        const double pick = u01(rng);
        type[i] = pick < 0.7 ? 0 : pick < 0.9 ? 1 : 2;
        p[i] = T(u01(rng) < 0.2 ? 0.0 : 100 * u01(rng));
    }
    // One colliding pair for sure (random jitter alone leaves none in about one draw in ten):
    // particle 1 at 0.3 l0 beside particle 0 along x, both fluid, moving towards each other.
    for (int k = 0; k < dims; ++k) r[k * n + 1] = T(coord(r, 0, k) + (k == 0 ? 0.3 * l0 : 0.0));
    type[0] = type[1] = 0;
    us[0] = T(1);
    us[1] = T(-1);
    // r* = r moved by at most 0.45 max_shift (room for rounding below the limit), redrawn for
    // particles in a pair whose distance lies within 1e-3 of a threshold where results jump (re
    // for the minimum pressure, the collision distance) or that nearly coincide.
    auto draw_shift = [&](std::size_t i) {
        for (int k = 0; k < dims; ++k)
            rs[k * n + i] = T(coord(r, i, k) + 0.45 * max_shift / std::sqrt(double(dims)) * (2 * u01(rng) - 1));
    };
    for (std::size_t i = 0; i < n; ++i) draw_shift(i);
    // The pair keeps its 0.3 l0 at r* (particle 1 moves as particle 0 does: within max_shift).
    for (int k = 0; k < dims; ++k) rs[k * n + 1] = T(coord(rs, 0, k) + (k == 0 ? 0.3 * l0 : 0.0));
    for (int pass = 0;; ++pass) {
        REQUIRE(pass < 50);
        std::size_t redrawn = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) {
                const double dist = distance(rs, i, j);
                if (std::fabs(dist - re) < 1e-3 || std::fabs(dist - d_col) < 1e-3 ||
                    std::fabs(dist - d_wall) < 1e-3 || dist < 0.05) {
                    draw_shift(j);
                    ++redrawn;
                }
            }
        if (redrawn == 0) break;
    }

    // Cells of r on the host, in T as the device computes them; sort every array by cell.
    const T origin = T(lo), inverse = T(1 / (cell * (1 + 1e-3)));
    std::uint32_t cells_per_axis = std::uint32_t(std::floor(side / (cell * (1 + 1e-3)))) + 1;
    const std::uint32_t nz = dims == 3 ? cells_per_axis : 1, cell_count = cells_per_axis * cells_per_axis * nz;
    std::vector<std::uint32_t> key(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t c = 0, scale = 1;
        for (int k = 0; k < dims; ++k) {
            const T t = (r[k * n + i] - origin) * inverse;
            REQUIRE((t >= 0 && t < T(cells_per_axis)));
            c += std::uint32_t(t) * scale;
            scale *= cells_per_axis;
        }
        key[i] = c;
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    auto permute = [&](auto& a, int components) {
        auto copy = a;
        for (int k = 0; k < components; ++k)
            for (std::size_t s = 0; s < n; ++s) a[k * n + s] = copy[k * n + order[s]];
    };
    permute(r, dims), permute(rs, dims), permute(u, dims), permute(us, dims), permute(p, 1);
    permute(type, 1), permute(key, 1);
    // CellList's bounds: an empty cell's range is empty and sits where its particles would.
    std::vector<std::uint32_t> start(cell_count, 0), end(cell_count, 0);
    for (std::size_t c = 0; c < cell_count; ++c) {
        start[c] = std::uint32_t(std::lower_bound(key.begin(), key.end(), c) - key.begin());
        end[c] = std::uint32_t(std::upper_bound(key.begin(), key.end(), c) - key.begin());
    }

    BuildOptions options;
    options.precision = precision;
    options.define("MPS_DIMENSIONS", dims).define("MPS_GROUP", 16);
    options.define("MPS_WEIGHT", int(variant.weight)).define("MPS_GRADIENT", int(variant.gradient));
    options.define("MPS_RECONSTRUCT", variant.reconstruction > 0 ? 1 : 0);
    const Program program = build_program(context, Source::builtin("mps/mps.cl"), options, memory_cache());
    Buffer<T> br(context, r), brs(context, rs), bu(context, u), bus(context, us), bp(context, p);
    Buffer<std::uint32_t> btype(context, type), bkey(context, key), bstart(context, start), bend(context, end);
    auto cell_args = [&](Kernel& k) {
        k.args(std::uint32_t(n), Real{double(origin)}, Real{double(origin)}, Real{double(origin)},
               Real{double(inverse)}, cells_per_axis, cells_per_axis, nz, bkey, bstart, bend);
    };
    // Every particle, written in place: the range [0, n), outputs at offset 0, n apart.
    auto whole_range = [&](Kernel& k, std::uint32_t first_index) {
        k.arg(first_index, std::uint32_t(0)).arg(first_index + 1, std::uint32_t(n))
            .arg(first_index + 2, std::uint32_t(0)).arg(first_index + 3, std::uint32_t(n));
    };

    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    const double X = std::fabs(lo) + side;  // bound on |coordinates|
    // Rounding of one pair term F * w(r): r_j - r_i is off by up to 2 X eps per component, so r
    // by 2 sqrt(d) X eps and w by (re / r^2) of that; F by a few eps relative (more where it
    // holds a unit vector (r_j - r_i) / r: X / r relative). The sum adds count * eps * sum |T|.
    auto pair_error = [&](double F, double r_ij, double rad) {
        const double w = weight(r_ij, rad);
        return std::fabs(F) * eps * (slope_bound(r_ij, rad) * 4 * X + (w + 1) * (8 + 8 * X / r_ij));
    };
    const double g[3] = {0.3, -9.81, 1.7};
    const double dt = 0.01, visc = 0.37;  // viscosity factor large enough to matter

    {  // mps_predict
        Buffer<T> out_r(context, dims * n), out_u(context, dims * n);
        Kernel k(program, "mps_predict");
        cell_args(k);
        k.arg(11, btype).arg(12, br).arg(13, bu).arg(14, out_r).arg(15, out_u);
        k.arg(16, Real{dt}).arg(17, Real{re_lap}).arg(18, Real{visc});
        k.arg(19, Real{g[0]}).arg(20, Real{g[1]}).arg(21, Real{g[2]});
        whole_range(k, 22);
        k.launch(queue, n, 16).wait();
        const auto got_r = out_r.read(queue), got_u = out_u.read(queue);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) {
            for (int c = 0; c < dims; ++c) {
                double lap = 0, err = 0, abs_sum = 0, count = 0;
                if (type[i] == 0)
                    for (std::size_t j = 0; j < n; ++j) {
                        const double rij = distance(r, i, j);
                        const double F = coord(u, j, c) - coord(u, i, c), w = weight(rij, re_lap);
                        if (w == 0) continue;
                        lap += F * w;
                        err += pair_error(F, rij, re_lap);
                        abs_sum += std::fabs(F * w);
                        ++count;
                    }
                const double a = type[i] == 0 ? visc * lap + double(T(g[c])) : 0;
                const double want_u = coord(u, i, c) + dt * a;
                const double want_r = coord(r, i, c) + dt * want_u;
                const double tol_u = dt * double(T(visc)) * (err + (count + 4) * eps * abs_sum) +
                                     4 * eps * (std::fabs(coord(u, i, c)) + dt * std::fabs(a) + 1e-30);
                const double tol_r = dt * tol_u + 4 * eps * (std::fabs(coord(r, i, c)) + dt * std::fabs(want_u));
                wrong += !(std::fabs(got_u[c * n + i] - want_u) <= tol_u);
                wrong += !(std::fabs(got_r[c * n + i] - want_r) <= tol_r);
            }
        }
        CHECK_MESSAGE(wrong == 0, "mps_predict");
    }

    {  // mps_collide on (r*, u*)
        Buffer<T> out_r(context, dims * n), out_u(context, dims * n);
        const double e = 0.2;
        Kernel k(program, "mps_collide");
        cell_args(k);
        k.arg(11, btype).arg(12, brs).arg(13, bus).arg(14, out_r).arg(15, out_u);
        k.arg(16, Real{dt}).arg(17, Real{d_col}).arg(18, Real{d_wall}).arg(19, Real{e});
        whole_range(k, 20);
        k.launch(queue, n, 16).wait();
        const auto got_r = out_r.read(queue), got_u = out_u.read(queue);
        std::size_t wrong = 0, collisions = 0, wall_collisions = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double du[3] = {0, 0, 0}, err = 0;
            if (type[i] == 0)
                for (std::size_t j = 0; j < n; ++j) {
                    const double rij = distance(rs, i, j);
                    if (j == i || rij >= (type[j] == 0 ? d_col : d_wall)) continue;
                    double ev[3] = {0, 0, 0}, approach = 0, speed = 0;
                    for (int c = 0; c < dims; ++c) {
                        ev[c] = (coord(rs, j, c) - coord(rs, i, c)) / rij;
                        approach += (coord(us, i, c) - coord(us, j, c)) * ev[c];
                        speed += std::fabs(coord(us, i, c)) + std::fabs(coord(us, j, c));
                    }
                    // The approach speed's rounding (unit vector: X / r relative) decides
                    // near-zero cases either way; both are within this bound.
                    err += 0.6 * speed * eps * (16 + 16 * X / rij);
                    if (approach <= 0) continue;
                    ++collisions;
                    wall_collisions += type[j] != 0 && rij >= d_col;
                    for (int c = 0; c < dims; ++c) du[c] -= 0.6 * approach * ev[c];
                }
            for (int c = 0; c < dims; ++c) {
                const double want_u = coord(us, i, c) + du[c], want_r = coord(rs, i, c) + dt * du[c];
                const double tol_u = err + 4 * eps * (std::fabs(coord(us, i, c)) + std::fabs(du[c]));
                const double tol_r = dt * tol_u + 4 * eps * std::fabs(coord(rs, i, c));
                wrong += !(std::fabs(got_u[c * n + i] - want_u) <= tol_u);
                wrong += !(std::fabs(got_r[c * n + i] - want_r) <= tol_r);
            }
        }
        CAPTURE(collisions);
        CAPTURE(wall_collisions);
        CHECK_MESSAGE(wrong == 0, "mps_collide");
        if (n >= 100) {  // the cases were exercised, walls beyond the fluid's distance too
            CHECK(collisions > 0);
            CHECK(wall_collisions > 0);
        }
    }

    for (bool too_far : {false, true}) {  // mps_pressure at r*; a particle moved too far
        CAPTURE(too_far);
        std::vector<T> moved = rs;
        if (too_far) moved[n / 2] = T(coord(r, n / 2, 0) + 1.2 * max_shift);
        Buffer<T> bmoved(context, moved), density(context, n), pressure(context, n);
        Buffer<std::uint32_t> status(context, 1);
        status.fill(queue, 0u).wait();
        const double n0 = 6.5, factor = 40.0;
        Kernel k(program, "mps_pressure");
        cell_args(k);
        k.arg(11, btype).arg(12, br).arg(13, bmoved).arg(14, density).arg(15, pressure);
        k.arg(16, Real{re}).arg(17, Real{n0}).arg(18, Real{factor}).arg(19, Real{max_shift}).arg(20, status);
        whole_range(k, 21);
        k.launch(queue, n, 16).wait();
        CHECK(status.read(queue)[0] == (too_far ? 1u : 0u));
        if (too_far) continue;
        const auto got_n = density.read(queue), got_p = pressure.read(queue);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double sum = 0, err = 0, count = 0;
            for (std::size_t j = 0; j < n; ++j) {
                const double rij = distance(rs, i, j), w = weight(rij, re);
                if (w == 0) continue;
                sum += w;
                err += pair_error(1, rij, re);
                ++count;
            }
            const double tol_n = err + (count + 2) * eps * sum;
            const double want_p = type[i] == 2 ? 0 : std::max(0.0, factor * (sum - n0));
            const double tol_p = factor * (tol_n + 2 * eps * (sum + n0)) + 2 * eps * want_p;
            wrong += !(std::fabs(got_n[i] - sum) <= tol_n);
            wrong += !(std::fabs(got_p[i] - want_p) <= tol_p);
        }
        CHECK_MESSAGE(wrong == 0, "mps_pressure");
    }

    {  // mps_surface_pressure: a fifth of the particles at P = 0 (the others up to 100), rho0 g
       // steep enough across re that the weighted mean falls below 0, and stays at 0, for some
        Buffer<T> swept(context, n);
        const double steep = 1000 / re, rho_g[3] = {0.3 * steep, -2 * steep, 0.5 * steep};
        Kernel k(program, "mps_surface_pressure");
        cell_args(k);
        k.arg(11, btype).arg(12, brs).arg(13, bp).arg(14, swept);
        k.arg(15, Real{re}).arg(16, Real{rho_g[0]}).arg(17, Real{rho_g[1]}).arg(18, Real{rho_g[2]});
        whole_range(k, 19);
        k.launch(queue, n, 16).wait();
        const auto got = swept.read(queue);
        std::size_t wrong = 0, extrapolated = 0, clamped = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double want = double(p[i]), tol = 0;
            if (type[i] == 0 && !(p[i] > 0)) {
                // A weighted mean: a weight off by e moves it by e |v_j - mean| / sum w; each
                // value v_j = P_j - rho0 g.(r_j - r_i) carries the rounding of its terms.
                double sum_w = 0, sum_v = 0, err_w = 0, scale = 0, count = 0;
                std::vector<std::pair<double, double>> terms;  // (w, v)
                for (std::size_t j = 0; j < n; ++j) {
                    const double rij = distance(rs, i, j), w = weight(rij, re);
                    if (type[j] != 0 || !(p[j] > 0) || w == 0) continue;
                    double drop = 0, reach = 0;
                    for (int c = 0; c < dims; ++c) {
                        drop += rho_g[c] * (coord(rs, j, c) - coord(rs, i, c));
                        reach += std::fabs(rho_g[c]) * (std::fabs(coord(rs, j, c)) + std::fabs(coord(rs, i, c)));
                    }
                    terms.emplace_back(w, double(p[j]) - drop);
                    sum_w += w;
                    sum_v += w * (double(p[j]) - drop);
                    err_w += pair_error(1, rij, re);
                    scale = std::max(scale, std::fabs(double(p[j])) + reach);
                    ++count;
                }
                if (sum_w > 0) {
                    const double mean = sum_v / sum_w;
                    double spread = 0;
                    for (const auto& [w, v] : terms) spread = std::max(spread, std::fabs(v - mean));
                    want = std::max(0.0, mean);
                    tol = 2 * err_w * spread / sum_w + (count + 8) * eps * scale;
                    ++(mean > 0 ? extrapolated : clamped);
                }
            }
            wrong += !(std::fabs(double(got[i]) - want) <= tol);
        }
        CHECK_MESSAGE(wrong == 0, "mps_surface_pressure");
        if (n >= 100) CHECK((extrapolated > 0 && clamped > 0));
    }

    if (variant.reconstruction > 0) {  // mps_velocity_gradient: r*, u* -> the fluid's G
        const std::size_t dd = std::size_t(dims * dims);
        Buffer<T> out(context, dd * n);
        Kernel k(program, "mps_velocity_gradient");
        cell_args(k);
        k.arg(11, btype).arg(12, brs).arg(13, bus).arg(14, out).arg(15, Real{re});
        whole_range(k, 16);
        k.launch(queue, n, 16).wait();
        const auto got = out.read(queue);
        std::size_t wrong = 0, solved = 0, borderline = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double B[3][3] = {}, C[3][3] = {}, b_err[3] = {}, b_sum[3] = {}, c_err = 0, c_sum = 0, count = 0;
            for (std::size_t j = 0; j < n && type[i] == 0; ++j) {
                const double rij = distance(rs, i, j), w = weight(rij, re);
                if (type[j] != 0 || w == 0) continue;
                double e[3] = {0, 0, 0};
                for (int c = 0; c < dims; ++c) e[c] = coord(rs, j, c) - coord(rs, i, c);
                for (int a = 0; a < dims; ++a) {
                    const double F = (coord(us, j, a) - coord(us, i, a)) / rij;  // times e / r
                    for (int b = 0; b < dims; ++b) B[a][b] += w * F * e[b] / rij;
                    b_err[a] += pair_error(F, rij, re);
                    b_sum[a] += std::fabs(F * w);
                    for (int b = 0; b < dims; ++b) C[a][b] += w * e[a] * e[b] / (rij * rij);
                }
                c_err += w * eps * (8 + 8 * X / rij) + slope_bound(rij, re) * 4 * X * eps;
                c_sum += w;
                ++count;
            }
            double inv[3][3], tr = 0, want[3][3] = {}, tol[3] = {};
            for (int c = 0; c < dims; ++c) tr += C[c][c];
            const double det = type[i] == 0 ? invert_moments(dims, C, inv) : 0;
            const double threshold = 0.1 * std::pow(tr / dims, dims);
            if (type[i] == 0 && std::fabs(det - threshold) <= 0.02 * threshold) {
                ++borderline;  // within 2% of the kernel's test: either way
                continue;
            }
            if (type[i] == 0 && det > threshold) {
                ++solved;
                for (int a = 0; a < dims; ++a) {
                    double size = 0;
                    for (int b = 0; b < dims; ++b) {
                        for (int c = 0; c < dims; ++c) want[a][b] += inv[b][c] * B[a][c];
                        size += std::fabs(want[a][b]);
                    }
                    tol[a] = solve_tolerance(dims, det, tr, b_err[a] + (count + 4) * eps * b_sum[a],
                                             dims * (c_err + (count + 4) * eps * c_sum), size, eps);
                }
            }
            for (int a = 0; a < dims; ++a)
                for (int b = 0; b < dims; ++b)
                    wrong += !(std::fabs(got[std::size_t(a * dims + b) * n + i] - want[a][b]) <= tol[a]);
        }
        CAPTURE(solved);
        CAPTURE(borderline);
        CHECK_MESSAGE(wrong == 0, "mps_velocity_gradient");
        if (n >= 100) CHECK(solved > 0);
    }

    {  // mps_correct: r*, u*, P (and given velocity gradients G) -> r, u
        Buffer<T> out_r(context, dims * n), out_u(context, dims * n);
        const double factor = 0.013, n0_over_d = 2.7, softening2 = 0.01;  // d / n0 / rho0 * dt
        // G, given (random): mps_correct reads it only to reconstruct the viscosity's velocities.
        std::vector<T> G(std::size_t(dims * dims) * n);
        for (T& v : G) v = T(2 * u01(rng) - 1);
        auto g_of = [&](std::size_t i, int a, int b) { return double(G[std::size_t(a * dims + b) * n + i]); };
        Buffer<T> bG(context, G);
        Kernel k(program, "mps_correct");
        cell_args(k);
        k.arg(11, btype).arg(12, brs).arg(13, bus).arg(14, bp).arg(15, bG)
            .arg(16, Real{variant.reconstruction}).arg(17, out_r).arg(18, out_u);
        k.arg(19, Real{dt}).arg(20, Real{re}).arg(21, Real{factor}).arg(22, Real{n0_over_d})
            .arg(23, Real{variant.viscosity}).arg(24, Real{softening2})
            .arg(25, Real{variant.shift}).arg(26, Real{l0});
        whole_range(k, 27);
        k.launch(queue, n, 16).wait();
        const auto got_r = out_r.read(queue), got_u = out_u.read(queue);
        std::size_t wrong = 0, corrected = 0, borderline = 0, shifted = 0, reconstructed = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double grad[3] = {0, 0, 0}, err = 0, abs_sum = 0, count = 0;
            double C[3][3] = {}, c_err = 0, c_sum = 0;
            // Close-pair shifting: the sum of (1 - r/l0)^2 (r_i - r_j)/r over fluid and wall
            // partners nearer than l0, and its rounding (the pair's r off by 4 (X + r) eps).
            double apart[3] = {0, 0, 0}, apart_err = 0, apart_sum = 0, close = 0;
            if (type[i] == 0 && variant.shift > 0)
                for (std::size_t j = 0; j < n; ++j) {
                    const double rij = distance(rs, i, j);
                    if (type[j] == 2 || j == i || !(rij < l0) || !(rij > 0)) continue;
                    const double q = 1 - rij / l0;
                    for (int c = 0; c < dims; ++c) apart[c] -= q * q * (coord(rs, j, c) - coord(rs, i, c)) / rij;
                    apart_err += 2 * (q * q / rij + 2 * q / l0) * 4 * (X + rij) * eps;
                    apart_sum += q * q;
                    ++close;
                }
            shifted += close > 0;
            if (type[i] == 0) {
                double p_min = p[i];
                for (std::size_t j = 0; j < n; ++j)
                    if (type[j] != 2 && distance(rs, i, j) < re) p_min = std::min(p_min, double(p[j]));
                for (std::size_t j = 0; j < n; ++j) {
                    const double rij = distance(rs, i, j), w = weight(rij, re);
                    if (type[j] == 2 || w == 0) continue;
                    double e[3] = {0, 0, 0}, approach = 0, speed = 0;
                    for (int c = 0; c < dims; ++c) {
                        e[c] = coord(rs, j, c) - coord(rs, i, c);
                        approach += (coord(us, j, c) - coord(us, i, c)) * e[c];
                        speed += std::fabs(coord(us, j, c)) + std::fabs(coord(us, i, c));
                    }
                    double bracket = p[j] - p_min, bracket_err = 0;
                    if (variant.viscosity > 0 && type[j] == 0) {  // between fluid particles
                        const double scale = variant.viscosity / (rij * rij + softening2);
                        // The approach's rounding (r_j - r_i off by 2 X eps a component) may
                        // decide a near-zero one either way: both are within this.
                        double used = approach, used_err = speed * eps * (4 * X + 8 * rij);
                        if (variant.reconstruction > 0) {  // minmod of it and the midpoints'
                            double form = 0, size = 0;
                            for (int a = 0; a < dims; ++a)
                                for (int b = 0; b < dims; ++b) {
                                    form += e[a] * (g_of(i, a, b) + g_of(j, a, b)) * e[b];
                                    size += std::fabs(g_of(i, a, b)) + std::fabs(g_of(j, a, b));
                                }
                            const double midpoint = approach - 0.5 * variant.reconstruction * form;
                            used = approach < 0 && midpoint < 0 ? std::max(approach, midpoint) : 0.0;
                            reconstructed += used != approach;
                            used_err += 0.5 * variant.reconstruction * size * eps * (8 * X * rij + 16 * rij * rij);
                        }
                        if (used < 0) bracket -= scale * used;
                        bracket_err = scale * used_err;
                    }
                    const double F = bracket / rij;  // times the unit vector
                    for (int c = 0; c < dims; ++c) grad[c] += F * w * e[c] / rij;
                    err += pair_error(F, rij, re) + w / rij * bracket_err;
                    abs_sum += std::fabs(F * w) + w / rij * bracket_err;
                    ++count;
                    for (int a = 0; a < dims; ++a)
                        for (int b = 0; b < dims; ++b) C[a][b] += w * e[a] * e[b] / (rij * rij);
                    c_err += w * eps * (8 + 8 * X / rij) + slope_bound(rij, re) * 4 * X * eps;
                    c_sum += w;
                }
            }
            double tol_grad = err + (count + 4) * eps * abs_sum;
            if (variant.gradient == MpsGradient::corrected && type[i] == 0) {
                // The kernel's test: det C above a tenth of (tr C / d)^d; the plain sum stands
                // otherwise. Particles within 2% of the threshold may go either way: skipped.
                double tr = 0;
                for (int c = 0; c < dims; ++c) tr += C[c][c];
                const double t = tr / dims;
                double inv[3][3];
                const double det = invert_moments(dims, C, inv);
                const double threshold = 0.1 * std::pow(t, dims);
                if (std::fabs(det - threshold) <= 0.02 * threshold) {
                    ++borderline;
                    continue;
                }
                if (det > threshold) {
                    ++corrected;
                    double solved[3] = {0, 0, 0};
                    for (int a = 0; a < dims; ++a)
                        for (int b = 0; b < dims; ++b) solved[a] += inv[a][b] * grad[b];
                    double size = 0;
                    for (int c = 0; c < dims; ++c) size += std::fabs(solved[c]);
                    const double c_tol = dims * (c_err + (count + 4) * eps * c_sum);
                    tol_grad = n0_over_d * solve_tolerance(dims, det, tr, tol_grad, c_tol, size, eps);
                    for (int c = 0; c < dims; ++c) grad[c] = n0_over_d * solved[c];
                }
            }
            for (int c = 0; c < dims; ++c) {
                const double du = -double(T(factor)) * grad[c];
                const double want_u = coord(us, i, c) + du, want_r = coord(rs, i, c) + dt * du;
                const double tol_u = double(T(factor)) * tol_grad +
                                     4 * eps * (std::fabs(coord(us, i, c)) + std::fabs(du));
                const double moved = double(T(variant.shift)) * apart[c];
                const double tol_r = dt * tol_u + 4 * eps * (std::fabs(coord(rs, i, c)) + std::fabs(moved)) +
                                     double(T(variant.shift)) * (apart_err + (close + 4) * eps * apart_sum);
                wrong += !(std::fabs(got_u[c * n + i] - want_u) <= tol_u);
                wrong += !(std::fabs(got_r[c * n + i] - (want_r + moved)) <= tol_r);
            }
        }
        CAPTURE(corrected);
        CAPTURE(borderline);
        CHECK_MESSAGE(wrong == 0, "mps_correct");
        // Both of the corrected gradient's paths were taken (where there are particles enough).
        if (variant.gradient == MpsGradient::corrected && n >= 100) CHECK(corrected > 0);
        if (variant.shift > 0 && n >= 100) CHECK(shifted > 0);
        if (variant.reconstruction > 0 && n >= 100) CHECK(reconstructed > 0);
    }

    {  // mps_max_speed: per work-group of 16, fluid only
        const std::size_t groups = (n + 15) / 16;
        Buffer<T> partial(context, groups);
        Kernel k(program, "mps_max_speed");
        k.args(std::uint32_t(n), btype, bu, partial, std::uint32_t(0), std::uint32_t(n));
        k.launch(queue, n, 16).wait();
        const auto got = partial.read(queue);
        for (std::size_t gi = 0; gi < groups; ++gi) {
            double want = 0;
            for (std::size_t i = gi * 16; i < std::min(n, gi * 16 + 16); ++i) {
                if (type[i] != 0) continue;
                double s = 0;
                for (int c = 0; c < dims; ++c) s += coord(u, i, c) * coord(u, i, c);
                want = std::max(want, std::sqrt(s));
            }
            CHECK(std::fabs(got[gi] - want) <= 4 * eps * want);
        }
    }
}

} // namespace

void check_mps_kernels(Precision precision, int dimensions, std::size_t per_axis) {
    // The seed's method, and every alternative at once (each is its own code path).
    for (const Variant& variant : {Variant{MpsWeight::koshizuka, MpsGradient::koshizuka, 0.0, 0.0, 0.0},
                                   Variant{MpsWeight::quadratic, MpsGradient::corrected, 37.0, 0.03, 0.5}}) {
        if (precision == Precision::float64)
            check_typed<double>(precision, dimensions, per_axis, variant);
        else
            check_typed<float>(precision, dimensions, per_axis, variant);
    }
}

} // namespace partcl_test
