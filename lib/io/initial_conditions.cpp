#include <partcl/io/initial_conditions.hpp>

#include <partcl/io/snapshot.hpp>
#include <partcl/backend/error.hpp>

#include "io/scenario_schema.hpp"

#include <cmath>

namespace partcl {

namespace {

constexpr double pi = 3.14159265358979323846;

// A direction uniform on the unit sphere, times `length`.
void isotropic(Random& random, double length, double& x, double& y, double& z) {
    const double cos_theta = random.uniform(-1.0, 1.0);
    const double sin_theta = std::sqrt(std::max(0.0, 1.0 - cos_theta * cos_theta));
    const double phi = random.uniform(0.0, 2.0 * pi);
    x = length * sin_theta * std::cos(phi);
    y = length * sin_theta * std::sin(phi);
    z = length * cos_theta;
}

void append(Bodies& to, const Bodies& from) {
    std::vector<double> Bodies::*const fields[] = {&Bodies::x,  &Bodies::y,  &Bodies::z,
                                                   &Bodies::vx, &Bodies::vy, &Bodies::vz,
                                                   &Bodies::m};
    for (auto field : fields) {
        auto& out = to.*field;
        const auto& in = from.*field;
        out.insert(out.end(), in.begin(), in.end());
    }
}

} // namespace

void to_centre_of_mass_frame(Bodies& bodies) {
    const std::size_t n = bodies.size();
    double mass = 0;
    for (double m : bodies.m) mass += m;
    if (!(mass > 0)) return;
    std::vector<double>* fields[] = {&bodies.x,  &bodies.y,  &bodies.z,
                                     &bodies.vx, &bodies.vy, &bodies.vz};
    for (auto* field : fields) {
        // Two passes: the second removes what rounding left of the first.
        for (int pass = 0; pass < 2; ++pass) {
            double sum = 0;
            for (std::size_t i = 0; i < n; ++i) sum += bodies.m[i] * (*field)[i];
            const double mean = sum / mass;
            for (auto& value : *field) value -= mean;
        }
    }
}

Bodies plummer_sphere(std::size_t n, double scale, double total_mass, double G, Random& random) {
    Bodies bodies;
    bodies.resize(n);
    const double velocity_scale = std::sqrt(G * total_mass / scale);
    for (std::size_t i = 0; i < n; ++i) {
        // Radius, in units of a, from the cumulative mass X = r^3 / (1 + r^2)^(3/2).
        double X = 0;
        while (X <= 0) X = 0.999 * random.uniform();
        const double r = 1.0 / std::sqrt(std::pow(X, -2.0 / 3.0) - 1.0);
        isotropic(random, r * scale, bodies.x[i], bodies.y[i], bodies.z[i]);

        // Speed as a fraction q of the escape speed, distributed as g(q) = q^2 (1 - q^2)^3.5
        // (maximum 0.092 at q^2 = 2/9, hence the 0.1 bound of the rejection).
        double q = 0;
        for (;;) {
            q = random.uniform();
            const double g = random.uniform(0.0, 0.1);
            if (g < q * q * std::pow(1.0 - q * q, 3.5)) break;
        }
        const double escape = std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25);
        isotropic(random, q * escape * velocity_scale, bodies.vx[i], bodies.vy[i],
                  bodies.vz[i]);
        bodies.m[i] = total_mass / double(n);
    }
    to_centre_of_mass_frame(bodies);
    return bodies;
}

Bodies galaxies(std::size_t n, const Scenario::Galaxies& settings, double G, Random& random) {
    if (n < 2) throw UsageError("galaxies: need at least 2 bodies (got " + std::to_string(n) + ")");
    const double q = settings.mass_ratio;
    const double M = settings.total_mass;
    const double M1 = M / (1.0 + q), M2 = M * q / (1.0 + q);
    std::size_t n1 = std::size_t(std::llround(double(n) / (1.0 + q)));
    n1 = std::min(std::max<std::size_t>(n1, 1), n - 1);
    const std::size_t n2 = n - n1;

    Bodies first = plummer_sphere(n1, settings.scale, M1, G, random);
    Bodies second = plummer_sphere(n2, settings.scale, M2, G, random);
    const double d[3] = {settings.separation, settings.impact_parameter, 0.0};
    const double v[3] = {-settings.approach_speed, 0.0, 0.0};
    const auto place = [&](Bodies& b, double factor) {
        for (std::size_t i = 0; i < b.size(); ++i) {
            b.x[i] += factor * d[0];
            b.y[i] += factor * d[1];
            b.z[i] += factor * d[2];
            b.vx[i] += factor * v[0];
            b.vy[i] += factor * v[1];
            b.vz[i] += factor * v[2];
        }
    };
    place(first, -M2 / M);
    place(second, M1 / M);
    Bodies bodies = std::move(first);
    append(bodies, second);
    to_centre_of_mass_frame(bodies);
    return bodies;
}

Bodies kepler_pair(const Scenario::Kepler& settings, double G) {
    const double m1 = settings.masses[0], m2 = settings.masses[1], M = m1 + m2;
    const double a = settings.semi_major_axis, e = settings.eccentricity;
    const double r = a * (1.0 + e);
    const double v = std::sqrt(G * M * (1.0 - e) / (a * (1.0 + e)));
    Bodies bodies;
    bodies.resize(2);
    bodies.m = {m1, m2};
    bodies.x = {-m2 / M * r, m1 / M * r};
    bodies.y = {0.0, 0.0};
    bodies.z = {0.0, 0.0};
    bodies.vx = {0.0, 0.0};
    bodies.vy = {-m2 / M * v, m1 / M * v};
    bodies.vz = {0.0, 0.0};
    return bodies;
}

Bodies uniform_cube(std::size_t n, const Scenario::Cube& settings, Random& random) {
    Bodies bodies;
    bodies.resize(n);
    const double h = 0.5 * settings.side, u = settings.velocity;
    for (std::size_t i = 0; i < n; ++i) {
        bodies.x[i] = random.uniform(-h, h);
        bodies.y[i] = random.uniform(-h, h);
        bodies.z[i] = random.uniform(-h, h);
        bodies.vx[i] = u > 0 ? random.uniform(-u, u) : 0.0;
        bodies.vy[i] = u > 0 ? random.uniform(-u, u) : 0.0;
        bodies.vz[i] = u > 0 ? random.uniform(-u, u) : 0.0;
        bodies.m[i] = settings.total_mass / double(n);
    }
    to_centre_of_mass_frame(bodies);
    return bodies;
}

Bodies make_bodies(const Scenario& scenario) {
    detail::validate_initial_conditions(scenario);
    Random random(scenario.seed);
    const double G = scenario.gravity.G;
    const std::size_t n = std::size_t(scenario.n);
    Bodies bodies;
    if (scenario.initial == InitialConditions::plummer) {
        bodies = plummer_sphere(n, scenario.plummer.scale, scenario.plummer.total_mass, G, random);
    } else if (scenario.initial == InitialConditions::galaxies) {
        bodies = galaxies(n, scenario.galaxies, G, random);
    } else if (scenario.initial == InitialConditions::kepler) {
        bodies = kepler_pair(scenario.kepler, G);
    } else if (scenario.initial == InitialConditions::cube) {
        bodies = uniform_cube(n, scenario.cube, random);
    } else {  // snapshot
        Snapshot snapshot = read_snapshot(scenario.snapshot);
        bodies = std::move(snapshot.bodies);
        // Into the scenario's code units where both name theirs.
        const UnitSystem to = unit_system(scenario), from = snapshot.units;
        if (to.known() && from.known() && to != from) {
            const double length = from.length_cm / to.length_cm, mass = from.mass_g / to.mass_g,
                         velocity = from.velocity_cm_per_s / to.velocity_cm_per_s;
            for (std::size_t i = 0; i < bodies.size(); ++i) {
                bodies.x[i] *= length;
                bodies.y[i] *= length;
                bodies.z[i] *= length;
                bodies.vx[i] *= velocity;
                bodies.vy[i] *= velocity;
                bodies.vz[i] *= velocity;
                bodies.m[i] *= mass;
            }
        }
        if (scenario.n != 0 && bodies.size() != scenario.n)
            throw UsageError("snapshot " + scenario.snapshot.string() + " has " +
                             std::to_string(bodies.size()) + " bodies but [bodies] n = " +
                             std::to_string(scenario.n));
    }
    bodies.validate();
    return bodies;
}

} // namespace partcl
