#include <partcl/models/nbody/ewald_reference.hpp>

#include <cmath>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::reference {

namespace {

constexpr double pi = 3.14159265358979323846;
// alpha box: the real-space sum then needs images within 0.8 box (erfc(4.5) = 2e-10) and the
// Fourier sum wave numbers |h| up to 8.4 (exp(-pi^2 h^2 / 5.6^2) = 2e-10), h = k box / 2 pi.
constexpr double alpha_box = 5.6, real_reach = 4.5 / alpha_box;
constexpr int h_max = 8;
constexpr double h2_max = 71;

double wrapped(double d, double box) noexcept { return d - box * std::nearbyint(d / box); }

} // namespace

PeriodicGravity ewald_gravity(const Bodies& bodies, double box, double G) {
    std::vector<std::size_t> every(bodies.size());
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
    return ewald_gravity(bodies, box, every, G);
}

PeriodicGravity ewald_gravity(const Bodies& bodies, double box, const std::vector<std::size_t>& targets,
                              double G) {
    if (!(box > 0) || !std::isfinite(box))
        throw UsageError("ewald_gravity: the box edge must be positive and finite");
    bodies.validate();
    const std::size_t n = bodies.size();
    for (std::size_t i : targets)
        if (i >= n)
            throw UsageError("ewald_gravity: target " + std::to_string(i) + " of " + std::to_string(n) +
                             " bodies");
    const double alpha = alpha_box / box, volume = box * box * box;
    const double reach2 = real_reach * box * real_reach * box;

    // Wave vectors and the bodies' structure factors: sum_j m_j (cos, sin)(k . r_j).
    struct Wave {
        double kx, ky, kz, weight, c, s;
    };
    std::vector<Wave> waves;
    for (int hx = -h_max; hx <= h_max; ++hx)
        for (int hy = -h_max; hy <= h_max; ++hy)
            for (int hz = -h_max; hz <= h_max; ++hz) {
                const int h2 = hx * hx + hy * hy + hz * hz;
                if (h2 == 0 || h2 > h2_max) continue;
                const double kx = 2 * pi * hx / box, ky = 2 * pi * hy / box, kz = 2 * pi * hz / box;
                const double k2 = kx * kx + ky * ky + kz * kz;
                waves.push_back({kx, ky, kz, 4 * pi / volume * std::exp(-k2 / (4 * alpha * alpha)) / k2, 0, 0});
            }
    const long long wave_count = static_cast<long long>(waves.size());
#pragma omp parallel for schedule(static)
    for (long long w = 0; w < wave_count; ++w) {
        Wave& wave = waves[std::size_t(w)];
        double c = 0, s = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double phase = wave.kx * bodies.x[j] + wave.ky * bodies.y[j] + wave.kz * bodies.z[j];
            c += bodies.m[j] * std::cos(phase);
            s += bodies.m[j] * std::sin(phase);
        }
        wave.c = c;
        wave.s = s;
    }

    // psi_0's parts: the images of r = 0 and the Fourier sum at r = 0 (each adds -), the
    // background's pi / (alpha^2 V) (+), and the removed erfc's self term 2 alpha / sqrt(pi).
    double images0 = 0;
    for (int nx = -1; nx <= 1; ++nx)
        for (int ny = -1; ny <= 1; ++ny)
            for (int nz = -1; nz <= 1; ++nz) {
                if (nx == 0 && ny == 0 && nz == 0) continue;
                const double r = box * std::sqrt(double(nx * nx + ny * ny + nz * nz));
                images0 += std::erfc(alpha * r) / r;
            }
    double fourier0 = 0;
    for (const Wave& wave : waves) fourier0 += wave.weight;
    const double background = pi / (alpha * alpha * volume);
    const double psi0 = -images0 - fourier0 + background + 2 * alpha / std::sqrt(pi);

    PeriodicGravity out;
    out.ax.assign(targets.size(), 0);
    out.ay.assign(targets.size(), 0);
    out.az.assign(targets.size(), 0);
    out.potential.assign(targets.size(), 0);
    double total_mass = 0;
    for (double m : bodies.m) total_mass += m;
    const long long count = static_cast<long long>(targets.size());
#pragma omp parallel for schedule(dynamic, 16)
    for (long long t = 0; t < count; ++t) {
        const std::size_t i = targets[std::size_t(t)];
        double ax = 0, ay = 0, az = 0, phi = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const double dx0 = wrapped(bodies.x[j] - bodies.x[i], box);
            const double dy0 = wrapped(bodies.y[j] - bodies.y[i], box);
            const double dz0 = wrapped(bodies.z[j] - bodies.z[i], box);
            for (int nx = -1; nx <= 1; ++nx)
                for (int ny = -1; ny <= 1; ++ny)
                    for (int nz = -1; nz <= 1; ++nz) {
                        const double dx = dx0 + nx * box, dy = dy0 + ny * box, dz = dz0 + nz * box;
                        const double r2 = dx * dx + dy * dy + dz * dz;
                        if (r2 > reach2) continue;
                        const double r = std::sqrt(r2), erfc_ar = std::erfc(alpha * r);
                        // d/dr of -erfc(alpha r) / r, over r: the pull toward the source.
                        const double pull = (erfc_ar / r + 2 * alpha / std::sqrt(pi) *
                                             std::exp(-alpha * alpha * r2)) / r2;
                        ax += bodies.m[j] * pull * dx;
                        ay += bodies.m[j] * pull * dy;
                        az += bodies.m[j] * pull * dz;
                        phi -= bodies.m[j] * erfc_ar / r;
                    }
        }
        // Fourier part of sum_j m_j psi(r_i - r_j) and its gradient, j = i included (its force
        // term vanishes; its potential term belongs to psi_0, which counts it once already).
        for (const Wave& wave : waves) {
            const double phase = wave.kx * bodies.x[i] + wave.ky * bodies.y[i] + wave.kz * bodies.z[i];
            const double cos_i = std::cos(phase), sin_i = std::sin(phase);
            const double in_phase = cos_i * wave.c + sin_i * wave.s;   // sum_j m_j cos(k.(r_i - r_j))
            const double quadrature = sin_i * wave.c - cos_i * wave.s;  // sum_j m_j sin(k.(r_i - r_j))
            phi -= wave.weight * in_phase;
            ax -= wave.weight * quadrature * wave.kx;
            ay -= wave.weight * quadrature * wave.ky;
            az -= wave.weight * quadrature * wave.kz;
        }
        // The Fourier sum at r_i - r_i = 0 is already in, so psi_0 takes its other parts only.
        phi += bodies.m[i] * (psi0 + fourier0);
        phi += background * (total_mass - bodies.m[i]);
        out.ax[std::size_t(t)] = G * ax;
        out.ay[std::size_t(t)] = G * ay;
        out.az[std::size_t(t)] = G * az;
        out.potential[std::size_t(t)] = G * phi;
    }
    return out;
}

} // namespace partcl::reference
