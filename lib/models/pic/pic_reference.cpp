#include <partcl/models/pic/pic_reference.hpp>

#include <cmath>
#include <utility>

namespace partcl::reference {

namespace {

bool power_of_two(std::uint32_t n) { return n && !(n & (n - 1)); }

// In-place radix-2 FFT of n points at data[offset + i * stride]: exp(-2 pi i k n / N) forward,
// unnormalised +i inverse, like partcl::Fft.
template <class T>
void fft_line(std::complex<T>* data, std::size_t n, std::size_t stride, bool inverse) {
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(data[i * stride], data[j * stride]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const double angle = (inverse ? 2 : -2) * 3.141592653589793 / double(len);
        for (std::size_t i = 0; i < n; i += len)
            for (std::size_t k = 0; k < len / 2; ++k) {
                const std::complex<T> w(T(std::cos(angle * double(k))), T(std::sin(angle * double(k))));
                const std::complex<T> a = data[(i + k) * stride];
                const std::complex<T> b = data[(i + k + len / 2) * stride] * w;
                data[(i + k) * stride] = a + b;
                data[(i + k + len / 2) * stride] = a - b;
            }
    }
}

} // namespace

template <class T>
PicStep<T>::PicStep(const PicGrid& grid, const std::vector<PicSpecies>& species) : grid_(grid) {
    for (int k = 0; k < 3; ++k)
        if (!power_of_two(grid.nodes[k]))
            throw UsageError("pic reference: grid sizes must be powers of 2");
    const double volume = std::pow(grid.spacing, grid.dimensions);
    for (const PicSpecies& s : species) {
        density_.push_back(T(s.charge * s.weight / volume));
        qm_.push_back(T(s.charge / s.mass));
    }
    const std::size_t points = grid.points();
    rho_.resize(points);
    field_.resize(grid.dimensions * points);
    work_.resize(points);
    start_.resize(points + 1);
}

template <class T>
void PicStep<T>::fft(bool inverse) {
    const std::size_t nx = grid_.nodes[0], ny = grid_.nodes[1], nz = grid_.nodes[2];
    if (nx > 1) {
#pragma omp parallel for
        for (std::ptrdiff_t l = 0; l < std::ptrdiff_t(ny * nz); ++l) fft_line(&work_[l * nx], nx, 1, inverse);
    }
    if (ny > 1) {
#pragma omp parallel for
        for (std::ptrdiff_t l = 0; l < std::ptrdiff_t(nx * nz); ++l)
            fft_line(&work_[(l / nx) * nx * ny + l % nx], ny, nx, inverse);
    }
    if (nz > 1) {
#pragma omp parallel for
        for (std::ptrdiff_t l = 0; l < std::ptrdiff_t(nx * ny); ++l) fft_line(&work_[l], nz, nx * ny, inverse);
    }
}

template <class T>
void PicStep<T>::step(std::vector<T>& x, std::vector<T>& v, std::vector<std::uint32_t>& species,
                      double dt_v, double dt_x) {
    const int d = grid_.dimensions;
    const std::size_t n = species.size(), points = grid_.points();
    const std::uint32_t* nodes = grid_.nodes.data();
    const T inverse_dx = T(1 / grid_.spacing);

    // Counting sort by cell, stable like the device's.
    cell_of_.resize(n);
    std::fill(start_.begin(), start_.end(), 0u);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t c = 0, scale = 1;
        for (int k = 0; k < d; ++k) {
            const T t = x[k * n + i] * inverse_dx;
            if (!(t >= 0 && t < T(nodes[k])))
                throw UsageError("pic reference: particle " + std::to_string(i) +
                                 " lies outside the box or is NaN");
            c += std::size_t(t) * scale;
            scale *= nodes[k];
        }
        cell_of_[i] = std::uint32_t(c);
        ++start_[c + 1];
    }
    for (std::size_t c = 0; c < points; ++c) start_[c + 1] += start_[c];
    x_sorted_.resize(d * n);
    v_sorted_.resize(d * n);
    species_sorted_.resize(n);
    {
        std::vector<std::uint32_t> next(start_.begin(), start_.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t s = next[cell_of_[i]]++;
            for (int k = 0; k < d; ++k) {
                x_sorted_[k * n + s] = x[k * n + i];
                v_sorted_[k * n + s] = v[k * n + i];
            }
            species_sorted_[s] = species[i];
        }
    }
    x.swap(x_sorted_);
    v.swap(v_sorted_);
    species.swap(species_sorted_);

    // Deposit: each node gathers from the 2^d cells it is a corner of.
#pragma omp parallel for
    for (std::ptrdiff_t g = 0; g < std::ptrdiff_t(points); ++g) {
        const std::size_t u = std::size_t(g);
        const std::size_t node[3] = {u % nodes[0], (u / nodes[0]) % nodes[1], u / (nodes[0] * nodes[1])};
        T sum = 0;
        for (int b = 0; b < (1 << d); ++b) {
            std::size_t c = 0, scale = 1;
            for (int k = 0; k < d; ++k) {
                const bool down = (b >> k) & 1;
                c += (down ? (node[k] + nodes[k] - 1) % nodes[k] : node[k]) * scale;
                scale *= nodes[k];
            }
            for (std::uint32_t s = start_[c]; s < start_[c + 1]; ++s) {
                T w = density_[species[s]];
                for (int k = 0; k < d; ++k) {
                    const T t = x[k * n + s] * inverse_dx;
                    const T f = t - T(std::min(std::uint32_t(t), nodes[k] - 1));
                    w *= ((b >> k) & 1) ? f : 1 - f;
                }
                sum += w;
            }
        }
        rho_[g] = sum;
        work_[g] = sum;
    }

    // Poisson: phi_k = rho_k / k^2, k = 0 zeroed.
    fft(false);
#pragma omp parallel for
    for (std::ptrdiff_t g = 0; g < std::ptrdiff_t(points); ++g) {
        const std::size_t u = std::size_t(g);
        const std::size_t index[3] = {u % nodes[0], (u / nodes[0]) % nodes[1], u / (nodes[0] * nodes[1])};
        double k2 = 0;
        for (int k = 0; k < d; ++k) {
            const double m = double(index[k]) - (2 * index[k] > nodes[k] ? double(nodes[k]) : 0.0);
            const double kk = 6.283185307179586 * m / (nodes[k] * grid_.spacing);
            k2 += kk * kk;
        }
        work_[g] *= T(k2 > 0 ? 1 / (k2 * double(points)) : 0);
    }
    fft(true);

    // Field: centred differences.
#pragma omp parallel for
    for (std::ptrdiff_t g = 0; g < std::ptrdiff_t(points); ++g) {
        std::size_t scale = 1;
        for (int k = 0; k < d; ++k) {
            const std::size_t i = (g / scale) % nodes[k];
            const std::size_t below = g - i * scale + ((i + nodes[k] - 1) % nodes[k]) * scale;
            const std::size_t above = g - i * scale + ((i + 1) % nodes[k]) * scale;
            field_[k * points + g] = (work_[below].real() - work_[above].real()) * T(0.5) * inverse_dx;
            scale *= nodes[k];
        }
    }

    // Gather and push.
#pragma omp parallel for
    for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(n); ++s) {
        std::uint32_t cell[3] = {0, 0, 0};
        T frac[3] = {0, 0, 0};
        for (int k = 0; k < d; ++k) {
            const T t = x[k * n + s] * inverse_dx;
            cell[k] = std::min(std::uint32_t(t), nodes[k] - 1);
            frac[k] = t - T(cell[k]);
        }
        T e[3] = {0, 0, 0};
        for (int b = 0; b < (1 << d); ++b) {
            T w = 1;
            std::size_t node = 0, scale = 1;
            for (int k = 0; k < d; ++k) {
                const bool up = (b >> k) & 1;
                node += ((cell[k] + up) % nodes[k]) * scale;
                scale *= nodes[k];
                w *= up ? frac[k] : 1 - frac[k];
            }
            for (int k = 0; k < d; ++k) e[k] += w * field_[k * points + node];
        }
        for (int k = 0; k < d; ++k) {
            const T length = T(nodes[k] * grid_.spacing);
            const T vn = v[k * n + s] + qm_[species[s]] * e[k] * T(dt_v);
            T xn = x[k * n + s] + vn * T(dt_x);
            xn -= length * std::floor(xn / length);
            if (xn * inverse_dx >= T(nodes[k])) xn = 0;
            v[k * n + s] = vn;
            x[k * n + s] = xn;
        }
    }
}

template class PicStep<float>;
template class PicStep<double>;

} // namespace partcl::reference
