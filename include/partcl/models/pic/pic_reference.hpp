#pragma once
// The CPU reference of one ElectrostaticPic step: the same algorithm (counting sort by cell,
// the per-node CIC gather deposit, FFT Poisson solve, centred-difference field, CIC gather and
// leapfrog push, periodic wrap), in T, parallel with OpenMP. Its FFT is a plain radix-2 one, so
// the grid's sizes must be powers of 2. The baseline of benchmarks/pic.cpp and, in double, the
// check of the model's whole step. Particles are reordered into cell order as on the device.
#include <complex>
#include <cstdint>
#include <vector>

#include <partcl/models/pic/electrostatic_pic.hpp>

namespace partcl::reference {

template <class T>
class PicStep {
public:
    // UsageError for a grid whose sizes are not powers of 2.
    PicStep(const PicGrid& grid, const std::vector<PicSpecies>& species);

    // Solves the field at x (component k of particle i at k * n + i), then pushes: v += (q/m)
    // E dt_v, x += v dt_x. Particles are sorted by cell first (x, v, species reordered).
    // Throws UsageError for a particle outside the box or NaN.
    void step(std::vector<T>& x, std::vector<T>& v, std::vector<std::uint32_t>& species,
              double dt_v, double dt_x);

    // Of the last step, before its push: charge density and field at the nodes.
    const std::vector<T>& charge_density() const noexcept { return rho_; }
    const std::vector<T>& field() const noexcept { return field_; }

private:
    PicGrid grid_;
    std::vector<T> density_, qm_;
    std::vector<T> rho_, field_, x_sorted_, v_sorted_;
    std::vector<std::complex<T>> work_;
    std::vector<std::uint32_t> cell_of_, start_, species_sorted_;

    void fft(bool inverse);
};

extern template class PicStep<float>;
extern template class PicStep<double>;

} // namespace partcl::reference
