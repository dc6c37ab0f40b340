#pragma once
// The CPU reference of periodic gravity, in float64: Ewald's sum over every image of every body
// in a cube of edge `box` with a uniform background of the opposite mean density (the k = 0 mode
// left out, as cosmological codes and TreePM do). Tests compare TreePM with it. O(N^2) pairs
// (27 nearest images each, real space) plus O(N K) for K wave vectors, threaded with OpenMP;
// or O(N) a target for a sample of them.
//
// The potential convention: phi_i = G sum_{j != i} m_j psi(r_ij) + G m_i psi_0, psi the
// periodic potential of a unit mass with its background (psi(r) = -1/r + O(1) near 0, zero mean
// over the box) and psi_0 the limit of psi(r) + 1/r: each body feels its own images too.
#include <cstddef>
#include <vector>

#include <partcl/models/nbody/bodies.hpp>

namespace partcl::reference {

struct PeriodicGravity {
    std::vector<double> ax, ay, az, potential;
};

// Accelerations and potentials of every body (positions anywhere: only differences count).
// Both sums are cut where their terms fall below 1e-10 of the leading one. UsageError for a box
// that is not positive and finite, or for bodies that fail Bodies::validate.
PeriodicGravity ewald_gravity(const Bodies& bodies, double box, double G = 1);
// The same for bodies `targets` only (entry t of each vector for body targets[t]), every body
// a source: the real-space sum costs O(N) a target. UsageError also for a target past the bodies.
PeriodicGravity ewald_gravity(const Bodies& bodies, double box, const std::vector<std::size_t>& targets,
                              double G = 1);

} // namespace partcl::reference
