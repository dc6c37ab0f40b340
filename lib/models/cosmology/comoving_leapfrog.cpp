#include <partcl/models/cosmology/comoving_leapfrog.hpp>

#include <cmath>
#include <string>

namespace partcl::cosmology {

ComovingLeapfrog::ComovingLeapfrog(Context& context, const Background& background,
                                   GravityModel& gravity, DeviceBodies& bodies, double a,
                                   ProgramCache& cache)
    : background_(background), gravity_(gravity), bodies_(bodies),
      ops_(context, bodies.precision(), cache),
      acceleration_(context, bodies.precision(), 3 * bodies.size()), a_(a) {
    if (!(a >= 1e-3 && a <= 1))
        throw UsageError("comoving leapfrog: the scale factor must be in [0.001, 1], not " + std::to_string(a));
}

void ComovingLeapfrog::step(double a1) {
    if (!(a1 > a_ && a1 <= 1))
        throw UsageError("comoving leapfrog: a step goes from a = " + std::to_string(a_) +
                         " to a later a of at most 1, not " + std::to_string(a1));
    const std::size_t n = bodies_.size();
    RealBuffer& state = bodies_.state;
    const double middle = std::sqrt(a_ * a1);
    if (!have_acceleration_) gravity_.accelerations(state, bodies_.mass, n, acceleration_, 0);
    ops_.combine(3 * n, state, 3 * n, state, 3 * n, {{background_.kick(a_, middle), &acceleration_, 0}});
    ops_.combine(3 * n, state, 0, state, 0, {{background_.drift(a_, a1), &state, 3 * n}});
    gravity_.accelerations(state, bodies_.mass, n, acceleration_, 0);
    ops_.combine(3 * n, state, 3 * n, state, 3 * n, {{background_.kick(middle, a1), &acceleration_, 0}});
    have_acceleration_ = true;
    a_ = a1;
    ++steps_;
}

} // namespace partcl::cosmology
