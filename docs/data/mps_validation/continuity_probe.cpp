// A probe, not part of partcl (docs/mps.md, "Two probes of the free surface's layer"): still
// water in a 2-D tank with partcl's explicit MPS step rewritten on the host in double (quadratic
// weight, corrected gradient, artificial viscosity, shifting: MpsFluid's options), where the
// number density comes from the sum over neighbours (--cont 0, with its own radius --ren) or is
// carried and integrated by the continuity equation, dn/dt = -n div u (--cont 1, with
// Antuono's corrected diffusion of strength --delta and --pmin 0|1, --pminfluid 0|1 for the
// bracket's reference pressure); --hydro K gives the fluid particles left at P = 0 the
// hydrostatic extrapolation of their pressured neighbours' pressure in K sweeps. Seventh pass
// (docs/mps.md, "Where the bursts are"): --sym 1 takes the conservative bracket P_i + P_j without
// the correction, --adami 1 gives walls and dummies their fluid neighbours' pressure extrapolated
// hydrostatically and sums over them; --jitter a moves the fluid particles off the lattice by up
// to a l0 and --relax T runs T seconds with the velocities damped over --tau seconds before the
// clock starts; --avlayer a lets the viscosity act on separating pairs too, a times as strong,
// for particles at P = 0, and --nulayer k gives particles at P = 0 a kinematic viscosity
// k c l0 / 8 against their fluid neighbours. Prints the largest speed of each --report seconds, a BURST line for every 5 ms
// sample after 1 s whose fastest particle exceeds 1% of sqrt(g h) (where it is, its pressure,
// number density, nearest neighbour and neighbours within re), and a RESULT line like
// partcl_bench_mps_validation's still case. Build against a partcl build:
//   g++ -O2 -fopenmp -std=c++20 -Iinclude docs/data/mps_validation/continuity_probe.cpp \
//       -Lbuild/lib -lpartcl -Wl,-rpath,$PWD/build/lib -o /tmp/continuity_probe
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_tank.hpp>
#include <string>
#include <vector>
using namespace partcl;
using T = double;
int main(int argc, char** argv) {
    auto arg = [&](const char* k, double def) {
        for (int i = 1; i + 1 < argc; ++i)
            if (std::string(argv[i]) == k) return std::atof(argv[i + 1]);
        return def;
    };
    const int d = int(arg("--dims", 2));
    const double l0 = arg("--spacing", 0.005), depth = arg("--depth", 0.1),
                 width = arg("--width", 0.1), channel = arg("--channel", 0.1),
                 end = arg("--end", 20), alpha = arg("--alpha", 0.5),
                 shifting = arg("--shifting", 0), wallcol = arg("--wallcol", 0.5),
                 delta = arg("--delta", 0), reR = arg("--re", 3.1), clampneg = arg("--clamp", 1);
    const int mode = int(arg("--cont", 0));  // 0 sum, 1 continuity
    const double g = 9.81, rho = 1000;
    MpsTank tk;
    tk.dimensions = d;
    tk.spacing = l0;
    const double wall = depth + std::ceil(0.3 * depth / l0 - 1e-9) * l0;
    tk.tank = d == 2 ? std::array<double, 3>{width, wall, 0}
                     : std::array<double, 3>{width, channel, wall};
    tk.water = d == 2 ? std::array<double, 3>{width, depth, 0}
                      : std::array<double, 3>{width, channel, depth};
    MpsScene sc = mps_tank(tk);
    MpsParticles& p = sc.particles;
    const std::size_t n = p.size();
    const int up = d - 1;
    const double c = 10.6 * std::sqrt(g * depth);
    std::size_t nf = p.count(MpsType::fluid);
    const double area = d == 2 ? width : width * channel;
    const double h = double(nf) * std::pow(l0, d) / area;
    const double strain = g / (c * c);
    std::vector<T> r(d * n), u(d * n, 0), nst(n), P(n, 0);
    std::vector<unsigned> type(n);
    for (std::size_t i = 0; i < n; ++i) {
        type[i] = unsigned(p.type[i]);
        for (int k = 0; k < d; ++k) r[k * n + i] = p.position[k * n + i];
        if (type[i] == 0) {
            double& y = r[up * n + i];
            y -= strain * (depth * y - y * y / 2);
        }
    }
    const double jitter = arg("--jitter", 0), relaxT = arg("--relax", 0), tau = arg("--tau", 0.02);
    if (jitter > 0) {
        unsigned long long st = 12345;
        auto U = [&]() { st = st * 6364136223846793005ULL + 1442695040888963407ULL; return double(st >> 11) / double(1ULL << 53) * 2 - 1; };
        for (std::size_t i = 0; i < n; ++i)
            if (type[i] == 0)
                for (int k = 0; k < d; ++k) r[k * n + i] += jitter * l0 * U();
    }
    const MpsLattice lat = mps_lattice(d, reR, MpsWeight::quadratic);
    const MpsLattice latl = mps_lattice(d, 3.1, MpsWeight::quadratic);
    const double n0 = lat.n0, n0l = latl.n0, lambda0 = latl.lambda0 * l0 * l0;
    for (std::size_t i = 0; i < n; ++i) {  // the hydrostatic number density
        const double y = r[up * n + i];
        nst[i] = n0 * (1 + std::max(0.0, g * (h - y)) / (c * c));
    }
    const double renR = arg("--ren", reR);
    const T ren = renR * l0;
    const double n0n = mps_lattice(d, renR, MpsWeight::quadratic).n0;
    const T re = reR * l0, re_lap = 3.1 * l0, cut = std::max(re, re_lap) + 0.2 * l0;
    auto w = [](T rr, T R) {
        if (!(rr > 0 && rr < R)) return T(0);
        T q = 1 - rr / R;
        return q * q;
    };
    // cell list
    T lo[3] = {sc.lower[0], sc.lower[1], sc.lower[2]};
    int nc[3] = {1, 1, 1};
    for (int k = 0; k < d; ++k) nc[k] = int(std::ceil((sc.upper[k] - sc.lower[k]) / cut)) + 1;
    std::vector<std::vector<unsigned>> nb(n);
    auto build = [&]() {
        std::vector<std::vector<unsigned>> cells(std::size_t(nc[0]) * nc[1] * nc[2]);
        std::vector<int> ci(3 * n);
        for (std::size_t i = 0; i < n; ++i) {
            int cc[3] = {0, 0, 0};
            for (int k = 0; k < d; ++k) {
                cc[k] = int((r[k * n + i] - lo[k]) / cut);
                if (cc[k] < 0 || cc[k] >= nc[k]) {
                    std::printf("LEFT GRID\n");
                    std::exit(3);
                }
            }
            for (int k = 0; k < 3; ++k) ci[3 * i + k] = cc[k];
            cells[cc[0] + nc[0] * (cc[1] + nc[1] * cc[2])].push_back(unsigned(i));
        }
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < (long long)n; ++ii) {
            std::size_t i = ii;
            nb[i].clear();
            for (int dz = (d == 3 ? -1 : 0); dz <= (d == 3 ? 1 : 0); ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        int x = ci[3 * i] + dx, y = ci[3 * i + 1] + dy, z = ci[3 * i + 2] + dz;
                        if (x < 0 || y < 0 || z < 0 || x >= nc[0] || y >= nc[1] || z >= nc[2])
                            continue;
                        for (unsigned j : cells[x + nc[0] * (y + nc[1] * z)]) {
                            if (j == i) continue;
                            T s = 0;
                            for (int k = 0; k < d; ++k) {
                                T dd = r[k * n + j] - r[k * n + i];
                                s += dd * dd;
                            }
                            if (s < cut * cut) nb[i].push_back(j);
                        }
                    }
        }
    };
    auto dist2 = [&](const std::vector<T>& a, std::size_t i, std::size_t j, T* del) {
        T s = 0;
        for (int k = 0; k < d; ++k) {
            del[k] = a[k * n + j] - a[k * n + i];
            s += del[k] * del[k];
        }
        return s;
    };
    std::vector<T> gn(d * n, 0);
    const double anto = arg("--antuono", 1);
    std::vector<T> rs(d * n), us(d * n), rc(d * n), uc(d * n), nnew(n);
    // --nulayer k: fluid particles left at P = 0 (the last step's) take a kinematic viscosity
    // k c l0 / 8 against their fluid neighbours (Monaghan's alpha c h / 8 as a Laplacian).
    const double nulayer = arg("--nulayer", 0);
    const T nu_layer = T(nulayer * c * l0 / 8 * 2 * d / (lambda0 * n0l));
    const T visc = T(1e-6 * 2 * d / (lambda0 * n0l)), col = 0.5 * l0, colw = wallcol * l0,
            share = 0.6;
    const T pf = c * c * rho / n0, av = alpha * rho * c * l0, soft2 = 0.01 * l0 * l0;
    auto solve = [&](const T(&C)[3][3], const T(&b)[3], T(&x)[3]) {
        if (d == 2) {
            T det = C[0][0] * C[1][1] - C[0][1] * C[0][1], t = (C[0][0] + C[1][1]) / 2;
            if (!(det > 0.1 * t * t)) return false;
            x[0] = (C[1][1] * b[0] - C[0][1] * b[1]) / det;
            x[1] = (C[0][0] * b[1] - C[0][1] * b[0]) / det;
            return true;
        }
        T a00 = C[1][1] * C[2][2] - C[1][2] * C[1][2], a01 = C[0][2] * C[1][2] - C[0][1] * C[2][2],
          a02 = C[0][1] * C[1][2] - C[0][2] * C[1][1];
        T det = C[0][0] * a00 + C[0][1] * a01 + C[0][2] * a02,
          t = (C[0][0] + C[1][1] + C[2][2]) / 3;
        if (!(det > 0.1 * t * t * t)) return false;
        T a11 = C[0][0] * C[2][2] - C[0][2] * C[0][2], a12 = C[0][1] * C[0][2] - C[0][0] * C[1][2],
          a22 = C[0][0] * C[1][1] - C[0][1] * C[0][1];
        x[0] = (a00 * b[0] + a01 * b[1] + a02 * b[2]) / det;
        x[1] = (a01 * b[0] + a11 * b[1] + a12 * b[2]) / det;
        x[2] = (a02 * b[0] + a12 * b[1] + a22 * b[2]) / det;
        return true;
    };
    const bool pminfluid = arg("--pminfluid", 0) != 0;
    const bool usepmin = arg("--pmin", 1) != 0;
    const int hydro = int(arg("--hydro", 0));
    const bool sym = arg("--sym", 0) != 0;  // conservative P_i + P_j, uncorrected
    const bool adami = arg("--adami", 0) != 0;
    // --avlayer a: in the layer at P = 0 the viscosity also acts, a times as strong, on pairs
    // that separate (a damping of the layer's bobbing that leaves its pressure alone).
    const double avlayer = arg("--avlayer", 0);
    const double rep0 = arg("--report", 1);
    double t = 0, vmax = 0, next = std::min(0.005, rep0), maxafter = 0, secmax = 0;
    long steps = 0;
    int sec = 1;
    const double rep = arg("--report", 1);
    // The fluid's mean height (its centre of mass), against which the height change is given.
    auto mean_height = [&]() {
        double s = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (type[i] == 0) s += r[up * n + i];
        return s / nf;
    };
    double y0 = mean_height();
    double psum = 0, psum2 = 0;
    long pcount = 0;
    // The fastest fluid particle and its squared speed.
    auto fastest = [&]() {
        std::size_t bi = 0;
        double bv = -1;
        for (std::size_t q = 0; q < n; ++q)
            if (type[q] == 0) {
                double v2 = 0;
                for (int k = 0; k < d; ++k) v2 += u[k * n + q] * u[k * n + q];
                if (v2 > bv) {
                    bv = v2;
                    bi = q;
                }
            }
        return std::pair<std::size_t, double>(bi, bv);
    };
    bool relaxing = relaxT > 0;
    if (relaxing) next = 1e30;
    while (t < end - 1e-12) {
        double dt = 0.2 * l0 / (c + vmax);
        if (t + dt > next) dt = next - t;
        build();
        const long long cnt = n;
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            T a[3] = {0, 0, 0};
            if (type[i] == 0) {
                T lap[3] = {0, 0, 0}, lapf[3] = {0, 0, 0};
                for (unsigned j : nb[i]) {
                    T del[3];
                    T ww = w(std::sqrt(dist2(r, i, j, del)), re_lap);
                    for (int k = 0; k < d; ++k) lap[k] += (u[k * n + j] - u[k * n + i]) * ww;
                    if (nulayer > 0 && type[j] == 0)
                        for (int k = 0; k < d; ++k) lapf[k] += (u[k * n + j] - u[k * n + i]) * ww;
                }
                for (int k = 0; k < d; ++k) a[k] = visc * lap[k];
                if (nulayer > 0 && !(P[i] > 0))
                    for (int k = 0; k < d; ++k) a[k] += nu_layer * lapf[k];
                a[up] -= g;
            }
            for (int k = 0; k < d; ++k) {
                us[k * n + i] = u[k * n + i] + dt * a[k];
                rs[k * n + i] = r[k * n + i] + dt * us[k * n + i];
            }
        }
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            T du[3] = {0, 0, 0};
            if (type[i] == 0)
                for (unsigned j : nb[i]) {
                    T del[3];
                    T r2 = dist2(rs, i, j, del);
                    T lim = type[j] == 0 ? col : colw;
                    if (!(r2 < lim * lim) || !(r2 > 0)) continue;
                    T inv = 1 / std::sqrt(r2), ap = 0;
                    for (int k = 0; k < d; ++k)
                        ap += (us[k * n + i] - us[k * n + j]) * del[k] * inv;
                    if (ap > 0)
                        for (int k = 0; k < d; ++k) du[k] -= share * ap * del[k] * inv;
                }
            for (int k = 0; k < d; ++k) {
                uc[k * n + i] = us[k * n + i] + du[k];
                rc[k * n + i] = rs[k * n + i] + dt * du[k];
            }
        }
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            T C[3][3] = {}, b[3] = {0, 0, 0}, x[3] = {0, 0, 0};
            for (int k = 0; k < d; ++k) gn[k * n + i] = 0;
            if (type[i] == 2) continue;
            for (unsigned j : nb[i]) {
                T del[3];
                T r2 = dist2(rc, i, j, del);
                if (type[j] == 2 || !(r2 < re * re) || !(r2 > 0)) continue;
                T ww = w(std::sqrt(r2), re) / r2;
                for (int a = 0; a < d; ++a) {
                    b[a] += ww * del[a] * (nst[j] - nst[i]);
                    for (int bb = 0; bb < d; ++bb) C[a][bb] += ww * del[a] * del[bb];
                }
            }
            if (solve(C, b, x))
                for (int k = 0; k < d; ++k) gn[k * n + i] = x[k];
        }
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            if (mode == 0) {
                T s = 0;
                for (unsigned j : nb[i]) {
                    T del[3];
                    s += w(std::sqrt(dist2(rc, i, j, del)), ren);
                }
                nnew[i] = s * n0 / n0n;
            } else if (type[i] == 2)
                nnew[i] = n0;
            else {
                T C[3][3] = {}, B[3][3] = {}, plain = 0, diff = 0;
                for (unsigned j : nb[i]) {
                    T del[3];
                    T r2 = dist2(rc, i, j, del);
                    if (!(r2 < re * re) || !(r2 > 0)) continue;
                    T ww = w(std::sqrt(r2), re) / r2;
                    for (int a = 0; a < d; ++a)
                        for (int b = 0; b < d; ++b) {
                            C[a][b] += ww * del[a] * del[b];
                            B[a][b] += ww * del[a] * (uc[b * n + j] - uc[b * n + i]);
                        }
                    for (int k = 0; k < d; ++k)
                        plain += ww * del[k] * (uc[k * n + j] - uc[k * n + i]);
                    if (type[j] != 2) {
                        T corr = 0;
                        for (int k = 0; k < d; ++k)
                            corr += 0.5 * (gn[k * n + i] + gn[k * n + j]) * del[k];
                        diff += w(std::sqrt(r2), re_lap) * (nst[j] - nst[i] - anto * corr);
                    }
                }
                T div = plain * d / n0;
                // tr(C^-1 B): solve C x = column b of B for each b, sum x[b]
                T tr = 0;
                bool ok = true;
                for (int b = 0; b < d && ok; ++b) {
                    T col3[3] = {B[0][b], B[1][b], d == 3 ? B[2][b] : 0}, x[3];
                    ok = solve(C, col3, x);
                    tr += x[b];
                }
                if (ok && arg("--plain", 0) == 0) div = tr;
                nnew[i] = nst[i] * (1 - dt * div) +
                          dt * delta * c * l0 * (2 * d / (lambda0 * n0l)) * diff;
                (void)diff;
            }
        }
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            T v = pf * (nnew[i] - n0);
            if (clampneg > 0) v = std::max(T(0), v);
            P[i] = type[i] == 2 ? 0 : v;
        }
        // --adami 1: walls and dummies take their fluid neighbours' pressure extrapolated
        // hydrostatically (Adami et al. 2012), and the gradient sums over them too.
        if (adami) {
            std::vector<T> Pf = P;
#pragma omp parallel for schedule(static)
            for (long long ii = 0; ii < cnt; ++ii) {
                std::size_t i = ii;
                if (type[i] == 0) continue;
                T sw = 0, sp = 0;
                for (unsigned j : nb[i]) {
                    T del[3];
                    T r2 = dist2(rc, i, j, del);
                    if (type[j] != 0 || !(r2 < re * re)) continue;
                    T ww = w(std::sqrt(r2), re);
                    sw += ww;
                    sp += ww * (Pf[j] + rho * g * del[up]);
                }
                P[i] = sw > 0 ? std::max(T(0), sp / sw) : 0;
            }
        }
        // --hydro K: K Jacobi sweeps that give the fluid particles left without pressure (the
        // layer within re of the surface) the hydrostatic extrapolation of their pressured
        // neighbours', P_j - rho g (y_i - y_j), weighted by w(r_ij, re).
        for (int sweep = 0; sweep < hydro; ++sweep) {
            std::vector<T> Pold = P;
#pragma omp parallel for schedule(static)
            for (long long ii = 0; ii < cnt; ++ii) {
                std::size_t i = ii;
                if (type[i] != 0 || Pold[i] > 0) continue;
                T sw = 0, sp = 0;
                for (unsigned j : nb[i]) {
                    T del[3];
                    T r2 = dist2(rc, i, j, del);
                    if (type[j] != 0 || !(Pold[j] > 0) || !(r2 < re * re)) continue;
                    T ww = w(std::sqrt(r2), re);
                    sw += ww;
                    sp += ww * (Pold[j] + rho * g * del[up]);
                }
                if (sw > 0) P[i] = std::max(T(0), sp / sw);
            }
        }
        nst = nnew;
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < cnt; ++ii) {
            std::size_t i = ii;
            T grad[3] = {0, 0, 0}, apart[3] = {0, 0, 0};
            if (type[i] == 0) {
                T pmin = P[i];
                for (unsigned j : nb[i]) {
                    T del[3];
                    if ((pminfluid ? type[j] == 0 : type[j] != 2) && dist2(rc, i, j, del) < re * re)
                        pmin = std::min(pmin, P[j]);
                }
                T C[3][3] = {};
                for (unsigned j : nb[i]) {
                    T del[3];
                    T r2 = dist2(rc, i, j, del);
                    if (shifting > 0 && type[j] != 2 && r2 < l0 * l0 && r2 > 0) {
                        T r1 = std::sqrt(r2), q = 1 - r1 / l0;
                        for (int k = 0; k < d; ++k) apart[k] -= q * q / r1 * del[k];
                    }
                    if ((type[j] == 2 && !adami) || !(r2 < re * re) || !(r2 > 0)) continue;
                    T ww = w(std::sqrt(r2), re) / r2,
                      br = sym ? P[j] + P[i] : P[j] - (usepmin ? pmin : P[i]);
                    if (av > 0 && type[j] == 0) {
                        T ap = 0;
                        for (int k = 0; k < d; ++k) ap += (uc[k * n + j] - uc[k * n + i]) * del[k];
                        // Approaching pairs; with --avlayer, separating ones too at P = 0.
                        const T scale = ap < 0 ? T(1) : P[i] <= 0 ? T(avlayer) : T(0);
                        if (scale > 0) br += av * scale * -ap / (r2 + soft2);
                    }
                    for (int k = 0; k < d; ++k) grad[k] += ww * br * del[k];
                    for (int a = 0; a < d; ++a)
                        for (int b = 0; b < d; ++b) C[a][b] += ww * del[a] * del[b];
                }
                T x[3] = {0, 0, 0};
                if (!sym && solve(C, grad, x))
                    for (int k = 0; k < d; ++k) grad[k] = x[k] * n0 / d;
            }
            for (int k = 0; k < d; ++k) {
                T du = -(d / n0 / rho * dt) * grad[k];
                u[k * n + i] = uc[k * n + i] + du;
                r[k * n + i] = rc[k * n + i] + dt * du + shifting * c * dt * apart[k];
            }
        }
        t += dt;
        ++steps;
        if (relaxing) {
            const double damp = std::exp(-dt / tau);
            for (auto& v : u) v *= damp;
            if (t >= relaxT) {
                relaxing = false;
                const double lattice = y0;
                y0 = mean_height();
                std::printf("relaxed %.2f s, %ld steps: height against the lattice %.3f%%\n", t, steps, 100 * (y0 / lattice - 1));
                std::fill(u.begin(), u.end(), 0);
                t = 0;
                steps = 0;
                next = std::min(0.005, rep0);
            }
        }
        vmax = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (type[i] == 0) {
                T s = 0;
                for (int k = 0; k < d; ++k) s += u[k * n + i] * u[k * n + i];
                vmax = std::max(vmax, double(std::sqrt(s)));
            }
        if (t >= next - 1e-12) {
            next += std::min(0.005, rep);
            if (!std::isfinite(vmax)) {
                std::printf("NaN at t=%g\n", t);
                return 2;
            }
            if (t >= 1 - 1e-9) {
                maxafter = std::max(maxafter, vmax);
                if (vmax > 0.01 * std::sqrt(g * h)) {
                    const auto [bi, bv] = fastest();
                    double dmin = 1e9; int tmin = -1, nfl = 0, nwall = 0;
                    for (unsigned j : nb[bi]) {
                        T del[3];
                        double rr = std::sqrt(dist2(r, bi, j, del));
                        if (rr < dmin) { dmin = rr; tmin = int(type[j]); }
                        if (rr < re) { if (type[j] == 0) ++nfl; else if (type[j] == 1) ++nwall; }
                    }
                    std::printf("BURST t=%.3f v=%.3f%% at (%.4f,%.4f) u=(%.4f,%.4f) P/rgh=%.3f n/n0=%.4f nearest %.3f l0 type %d, fluid %d wall %d in re\n",
                                t, 100 * std::sqrt(bv) / std::sqrt(g * h), r[bi], r[n + bi], u[bi], u[n + bi], P[bi] / (rho * g * h), nst[bi] / n0, dmin / l0, tmin, nfl, nwall);
                }
                double row = 0;
                long cntb = 0;
                for (std::size_t i = 0; i < n; ++i)
                    if (type[i] == 0 && r[up * n + i] < l0) {
                        row += P[i] + rho * g * r[up * n + i];
                        ++cntb;
                    }
                row /= cntb;
                psum += row;
                psum2 += row * row;
                ++pcount;
            }
            secmax = std::max(secmax, vmax);
            if (t >= sec * rep - 1e-9) {
                {
                    const auto [bi, bv] = fastest();
                    (void)bv;
                    std::printf("  fastest at x=%.4f y=%.4f v=(%.4f,%.4f) P=%.1f n/n0=%.5f\n",
                                r[bi], r[n + bi], u[bi], u[n + bi], P[bi], nst[bi] / n0);
                }
                std::printf("t=%.2f max %.4f%% height %.3f%%\n", sec * rep,
                            100 * secmax / std::sqrt(g * h), 100 * (mean_height() / y0 - 1));
                std::fflush(stdout);
                secmax = 0;
                ++sec;
            }
        }
    }
    const double mean = psum / pcount, sd = std::sqrt(std::max(0.0, psum2 / pcount - mean * mean));
    std::printf(
        "RESULT mode=%d fluid=%zu steps=%ld maxafter1s=%.3f%% bottom mean=%.4f sd=%.3f%% "
        "height=%.3f%%\n",
        mode, nf, steps, 100 * maxafter / std::sqrt(g * h), mean / (rho * g * h),
        100 * sd / (rho * g * h), 100 * (mean_height() / y0 - 1));
}
