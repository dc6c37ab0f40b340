#pragma once
// A tree's order in a checkpoint, as the cosmology and N-body runs keep it: tree_order the
// order itself, run_state {its age, the built tree's leaf radii, then each body's |a| where the
// relative criterion reads one} (io/checkpoint.hpp). Private to the library.
#include <cmath>
#include <string>

#include <partcl/io/checkpoint.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>

#include "output.hpp"

namespace partcl::detail {

inline void put_tree_order(TreeGravity::Order order, Checkpoint& c) {
    c.tree_order = std::move(order.perm);
    c.run_state = {double(order.age), order.leaf_radii};
    c.run_state.insert(c.run_state.end(), order.reference.begin(), order.reference.end());
}

// The order put_tree_order wrote, for a run of n bodies; a checkpoint without one (older
// versions, or a tree built every evaluation) gives the empty order, which builds anew.
// UsageError naming `run` ("a cosmological run") where it does not fit n bodies.
inline TreeGravity::Order tree_order_of(const Checkpoint& c, std::size_t n, const std::string& run) {
    const double age = c.run_state.empty() ? 0 : c.run_state[0];
    const double leaf_radii = c.run_state.size() > 1 ? c.run_state[1] : 0;
    const std::size_t references = c.run_state.size() > 2 ? c.run_state.size() - 2 : 0;
    if ((references != 0 && references != n) || !(age >= 0 && age < 1e6 && age == std::floor(age)) ||
        (!c.tree_order.empty() && c.tree_order.size() != n))
        throw UsageError("checkpoint of " + run + ": its tree order (" + std::to_string(c.tree_order.size()) +
                         " bodies, age " + shortest(age) + ", " + std::to_string(references) +
                         " reference accelerations) does not fit its " + std::to_string(n) + " bodies");
    return {c.tree_order, std::size_t(age), leaf_radii,
            std::vector<double>(c.run_state.end() - std::ptrdiff_t(references), c.run_state.end())};
}

} // namespace partcl::detail
