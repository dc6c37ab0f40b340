#pragma once
// The kernels of cl/mps/mps.cl, each against a float64 host reference (brute force over all
// pairs) on fresh random inputs: a jittered lattice of `per_axis` particles per axis (fluid,
// wall and dummy particles mixed), random velocities and pressures, sorted into cells on the
// host so that no other code is under test. Used at small N under Oclgrind
// (tests/test_oclgrind.cpp) and at larger N by the mps suite.
#include <cstddef>

#include <partcl/backend/precision.hpp>

namespace partcl_test {

void check_mps_kernels(partcl::Precision precision, int dimensions, std::size_t per_axis);

} // namespace partcl_test
