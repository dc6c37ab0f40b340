#include "tree_check.hpp"

#include <cfloat>
#include <cmath>

#include <partcl/io/initial_conditions.hpp>
#include <partcl/models/nbody/dense_reference.hpp>

#include "support.hpp"

using namespace partcl;

namespace partcl_test {

Bodies plummer(std::size_t n, std::uint32_t seed) {
    Random random(seed);
    return plummer_sphere(n, 1.0, 1.0, 1.0, random);
}

Bodies rounded(Bodies b, Precision precision) {
    if (precision == Precision::float32)
        for (auto* v : {&b.x, &b.y, &b.z, &b.m})
            for (double& value : *v) value = double(float(value));
    return b;
}

Forces tree_forces(Precision precision, const Bodies& b, GravityParameters p, TreeOptions o,
                   TreeSnapshot* tree) {
    Context& context = test_context();
    const std::size_t n = b.size();
    TreeGravity gravity(context, precision, p, o, memory_cache());
    DeviceBodies bodies(context, precision, b);
    RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
    gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
    if (tree) *tree = gravity.snapshot();
    return {acc.read(context.queue(0)), pot.read(context.queue(0))};
}

Reference reference_forces(const Bodies& b, GravityParameters p) {
    const std::size_t n = b.size();
    const double eps2 = p.softening * p.softening;
    Reference r;
    r.exact.acc.assign(3 * n, 0.0);
    r.exact.pot.assign(n, 0.0);
    reference::dense_gravity<double>(n, b.x.data(), b.y.data(), b.z.data(), b.m.data(), eps2, p.G,
                                     0, n, r.exact.acc.data(), r.exact.acc.data() + n,
                                     r.exact.acc.data() + 2 * n, r.exact.pot.data());
    absolute_sums(b, eps2, p.G, r.magnitude.acc, r.magnitude.pot);
    return r;
}

double epsilon(Precision precision) {
    return precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
}

} // namespace partcl_test
