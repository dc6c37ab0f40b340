#include <partcl/diag/compensated_sum.hpp>
#include <partcl/diag/nbody_diagnostics.hpp>
#include <partcl/backend/error.hpp>

namespace partcl {

double NBodyDiagnostics::virial_ratio() const noexcept {
    return potential != 0 ? 2 * kinetic / std::abs(potential) : 0.0;
}

NBodyDiagnostics measure(const Bodies& bodies, const std::vector<double>& potential) {
    const std::size_t n = bodies.size();
    if (potential.size() != n)
        throw UsageError("measure: " + std::to_string(potential.size()) + " potentials for " +
                         std::to_string(n) + " bodies");
    CompensatedSum t, w, p[3], l[3];
    for (std::size_t i = 0; i < n; ++i) {
        const double m = bodies.m[i];
        const double vx = bodies.vx[i], vy = bodies.vy[i], vz = bodies.vz[i];
        const double x = bodies.x[i], y = bodies.y[i], z = bodies.z[i];
        t += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        w += 0.5 * m * potential[i];
        p[0] += m * vx;
        p[1] += m * vy;
        p[2] += m * vz;
        l[0] += m * (y * vz - z * vy);
        l[1] += m * (z * vx - x * vz);
        l[2] += m * (x * vy - y * vx);
    }
    NBodyDiagnostics d;
    d.kinetic = t.value();
    d.potential = w.value();
    for (int k = 0; k < 3; ++k) {
        d.momentum[k] = p[k].value();
        d.angular_momentum[k] = l[k].value();
    }
    return d;
}

} // namespace partcl
