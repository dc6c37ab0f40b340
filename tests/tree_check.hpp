#pragma once
// What the tree suites (test_tree.cpp, test_tree_structure.cpp) share: the bodies they use and
// the forces of a TreeGravity and of the float64 direct sum on them.
#include <cstdint>
#include <vector>

#include <partcl/models/nbody/bodies.hpp>
#include <partcl/models/nbody/gravity_parameters.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl_test {

// A Plummer sphere of n bodies (G = M = a = 1).
partcl::Bodies plummer(std::size_t n, std::uint32_t seed);

// The bodies as a device of `precision` holds them, so comparisons measure the kernels alone.
partcl::Bodies rounded(partcl::Bodies b, partcl::Precision precision);

struct Forces {
    std::vector<double> acc, pot;  // acc: x | y | z
};

// The tree's forces on `b`; with `tree`, the tree they came from as well.
Forces tree_forces(partcl::Precision precision, const partcl::Bodies& b,
                   partcl::GravityParameters p, partcl::TreeOptions o,
                   partcl::TreeSnapshot* tree = nullptr);

// The float64 reference, and per body the sums of the magnitudes of its terms (rounding error
// is bounded relative to those, not to the net sum, which cancels).
struct Reference {
    Forces exact, magnitude;
};

Reference reference_forces(const partcl::Bodies& b, partcl::GravityParameters p);

// The machine epsilon of `precision`.
double epsilon(partcl::Precision precision);

} // namespace partcl_test
