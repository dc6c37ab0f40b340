#pragma once
// The CPU reference of dense gravity: the same sum as cl/nbody/dense.cl, threaded with OpenMP
// and vectorised over sources. Tests compare the kernels with it in double; benchmarks use its
// float form as the baseline (it is built with -O3 -ffast-math and, by default, -march=native).
#include <cstddef>

namespace partcl::reference {

// Targets [begin, end) against sources [0, n); outputs indexed from begin; `pot` may be null.
template <class T>
void dense_gravity(std::size_t n, const T* x, const T* y, const T* z, const T* m, T eps2, T G,
                   std::size_t begin, std::size_t end, T* ax, T* ay, T* az, T* pot);

extern template void dense_gravity<float>(std::size_t, const float*, const float*, const float*,
                                          const float*, float, float, std::size_t, std::size_t,
                                          float*, float*, float*, float*);
extern template void dense_gravity<double>(std::size_t, const double*, const double*,
                                           const double*, const double*, double, double,
                                           std::size_t, std::size_t, double*, double*, double*,
                                           double*);

} // namespace partcl::reference
