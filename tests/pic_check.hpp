#pragma once
// The kernels of cl/pic/pic.cl, each against a float64 host reference on fresh random inputs:
// both deposits (particles of three species of mixed-sign charge, sorted into cells on the host
// for the gather, so that no other code is under test), the Poisson multiply, the field
// difference and the gather-and-push. Used at a small grid under Oclgrind
// (tests/test_oclgrind.cpp) and at larger ones by the pic suite.
#include <cstddef>
#include <random>

#include <partcl/backend/precision.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>

namespace partcl_test {

void check_pic_kernels(partcl::Precision precision, int dimensions, unsigned nodes_per_axis,
                       std::size_t particles);

// n particles uniform in the grid's box, velocities uniform in [-0.5, 0.5) per axis, of two
// species: every third particle species 1, the others species 0.
partcl::PicParticles random_pic_particles(const partcl::PicGrid& grid, std::size_t n,
                                          std::mt19937& rng);

} // namespace partcl_test
