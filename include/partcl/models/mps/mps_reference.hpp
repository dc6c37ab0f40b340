#pragma once
// The CPU reference of one explicit MPS step: the same algorithm as MpsFluid (cl/mps/mps.cl),
// in T, over the same cell grid (a counting sort into cells, then the cells within the grid's
// reach, in the device's order; particles gathered into cell order and back, as the device
// reorders them), parallel
// over particles with OpenMP. The baseline of benchmarks/mps.cpp and, in double, the check of
// MpsFluid's whole step. The caller's particle order is kept.
#include <cstdint>
#include <vector>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/models/mps/mps_fluid.hpp>

namespace partcl::reference {

template <class T>
class MpsStep {
public:
    // n0 and lambda0 as MpsFluid computes them; `grid` that of its cell list.
    MpsStep(const MpsParameters& parameters, const CellGrid& grid, double n0, double n0_laplacian,
            double lambda0);

    // One step of dt: r, u (component k of particle i at k * n + i) advance; pressure gets P.
    // Throws Error when a particle leaves the grid or moves further than the cells allow.
    void step(std::vector<T>& r, std::vector<T>& u, const std::vector<std::uint32_t>& type,
              std::vector<T>& pressure, double dt);

private:
    MpsParameters p_;
    CellGrid grid_;
    double n0_, n0_lap_, lambda0_, max_shift_;
    std::vector<std::uint32_t> cell_of_, start_, order_;
    std::vector<T> r_star_, u_star_, r_col_, u_col_, r_sorted_, u_sorted_, pressure_sorted_, swept_,
        gradient_;
    std::vector<std::uint32_t> type_sorted_;

    // The step on particles in cell order (cell_of_, start_ describe them).
    void step_sorted(std::vector<T>& r, std::vector<T>& u, const std::vector<std::uint32_t>& type,
                     std::vector<T>& pressure, double dt);
};

extern template class MpsStep<float>;
extern template class MpsStep<double>;

} // namespace partcl::reference
