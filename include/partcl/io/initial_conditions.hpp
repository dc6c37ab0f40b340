#pragma once
// Initial conditions of a scenario's [bodies] table. Sampling is reproducible: a
// std::mt19937_64 seeded with [bodies] seed, turned into doubles by code of our own (not the
// standard distributions, whose output differs between standard libraries), so one seed gives
// bit-identical bodies everywhere.
#include <cstdint>
#include <random>

#include <partcl/io/scenario.hpp>
#include <partcl/models/nbody/bodies.hpp>

namespace partcl {

// The bodies a scenario starts from, validated (Bodies::validate). Sampled kinds are shifted
// to the centre-of-mass frame (total momentum and mass-weighted position 0, to rounding); a
// snapshot is taken as it is (its time is not part of Bodies: see read_snapshot), converted
// into the scenario's [units] when both it and the snapshot name their units. Throws
// UsageError for an invalid scenario or an unreadable snapshot, or when [bodies] n is not 0 and
// differs from the snapshot's count.
Bodies make_bodies(const Scenario& scenario);

// The pieces, for tests and for programs composing their own systems. All use G from the
// arguments and put the bodies' centre of mass at rest at the origin.
class Random {
public:
    explicit Random(std::uint64_t seed) : engine_(seed) {}
    double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }  // [0, 1), 53 bits
    double uniform(double low, double high) { return low + (high - low) * uniform(); }
    std::mt19937_64& engine() noexcept { return engine_; }

private:
    std::mt19937_64 engine_;
};

// Plummer sphere of n equal masses, Aarseth, Henon & Wielen (1974): radii from the inverted
// cumulative mass M(r)/M = X, r = a / sqrt(X^(-2/3) - 1), X uniform in (0, 0.999] (the
// outermost 0.1 % of the mass is cut, as AHW do); speeds by von Neumann rejection on
// g(q) = q^2 (1 - q^2)^(7/2) as fractions q of the local escape speed
// sqrt(2 G M / a) (1 + r^2/a^2)^(-1/4); isotropic directions.
Bodies plummer_sphere(std::size_t n, double scale, double total_mass, double G, Random& random);

// Two Plummer spheres; see Scenario::Galaxies. Sphere 1 (mass M / (1 + q), round(n / (1 + q))
// bodies) starts at -M2/M * (separation, impact_parameter, 0), sphere 2 at +M1/M * that, with
// relative velocity (-approach_speed, 0, 0) of sphere 2 with respect to sphere 1.
Bodies galaxies(std::size_t n, const Scenario::Galaxies& settings, double G, Random& random);

// Two bodies at apocentre of a Kepler ellipse: separation a (1 + e) along x, relative speed
// sqrt(G M (1 - e) / (a (1 + e))) along y.
Bodies kepler_pair(const Scenario::Kepler& settings, double G);

// n equal masses uniform in [-side/2, side/2]^3, velocity components uniform in
// [-velocity, velocity].
Bodies uniform_cube(std::size_t n, const Scenario::Cube& settings, Random& random);

// Shifts positions and velocities so the mass-weighted mean of each is 0.
void to_centre_of_mass_frame(Bodies& bodies);

} // namespace partcl
