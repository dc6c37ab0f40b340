#include <partcl/models/nbody/dense_reference.hpp>

#include <cmath>
#include <limits>

namespace partcl::reference {

namespace {

// Softened (eps^2 a normal number), a pair at zero separation adds exactly zero force, so only
// the potential needs the test: the same branch-free form as the kernel's DENSE_SOFTENED, so
// the benchmark compares like with like.
template <bool Softened, bool Potential, class T>
void sum_targets(std::size_t n, const T* x, const T* y, const T* z, const T* m, T eps2, T G,
                 std::size_t begin, std::size_t end, T* ax, T* ay, T* az, T* pot) {
    const long long first = static_cast<long long>(begin), last = static_cast<long long>(end);
#pragma omp parallel for schedule(static)
    for (long long i = first; i < last; ++i) {
        const T xi = x[i], yi = y[i], zi = z[i];
        T sx = 0, sy = 0, sz = 0, sp = 0;
#pragma omp simd reduction(+ : sx, sy, sz, sp)
        for (std::size_t j = 0; j < n; ++j) {
            const T dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            const T r2 = dx * dx + dy * dy + dz * dz;
            const T inv_r = Softened ? T(1) / std::sqrt(r2 + eps2)
                                     : r2 > T(0) ? T(1) / std::sqrt(r2 + eps2) : T(0);
            const T m_inv_r = m[j] * inv_r;
            const T s = m_inv_r * inv_r * inv_r;
            sx += s * dx;
            sy += s * dy;
            sz += s * dz;
            if (Potential) sp += r2 > T(0) ? m_inv_r : T(0);
        }
        const std::size_t k = static_cast<std::size_t>(i) - begin;
        ax[k] = G * sx;
        ay[k] = G * sy;
        az[k] = G * sz;
        if (Potential) pot[k] = -G * sp;
    }
}

} // namespace

template <class T>
void dense_gravity(std::size_t n, const T* x, const T* y, const T* z, const T* m, T eps2, T G,
                   std::size_t begin, std::size_t end, T* ax, T* ay, T* az, T* pot) {
    const bool softened = eps2 >= std::numeric_limits<T>::min();
    if (softened && pot)
        sum_targets<true, true>(n, x, y, z, m, eps2, G, begin, end, ax, ay, az, pot);
    else if (softened)
        sum_targets<true, false>(n, x, y, z, m, eps2, G, begin, end, ax, ay, az, pot);
    else if (pot)
        sum_targets<false, true>(n, x, y, z, m, eps2, G, begin, end, ax, ay, az, pot);
    else
        sum_targets<false, false>(n, x, y, z, m, eps2, G, begin, end, ax, ay, az, pot);
}

template void dense_gravity<float>(std::size_t, const float*, const float*, const float*,
                                   const float*, float, float, std::size_t, std::size_t, float*,
                                   float*, float*, float*);
template void dense_gravity<double>(std::size_t, const double*, const double*, const double*,
                                    const double*, double, double, std::size_t, std::size_t,
                                    double*, double*, double*, double*);

} // namespace partcl::reference
