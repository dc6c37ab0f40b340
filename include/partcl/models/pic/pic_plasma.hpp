#pragma once
// The plasma set-ups of the PIC physics tests and of `partcl run` ([plasma] setup), and the
// measurements made on them. Units: epsilon0 = 1. The 1-D langmuir and two-stream set-ups are
// electrons of charge -1, mass 1, the weight chosen so that the plasma frequency
// omega_p = sqrt(n q^2 / m) = 1 (time in 1/omega_p), the ions ElectrostaticPic's neutralising
// background. The species set-up loads any list of species in 1, 2 or 3 dimensions.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <partcl/models/pic/pic_particles.hpp>

namespace partcl {

// Electrons of weight length / n: omega_p = 1 for n macro-particles in a 1-D box of that length.
std::vector<PicSpecies> unit_plasma_electrons(double length, std::size_t n);

// Cold electrons evenly spaced over [0, L), displaced by amplitude sin(k x0), k = 2 pi mode / L,
// at rest: a Langmuir oscillation of mode `mode`. UsageError for n = 0 or a grid not 1-D.
PicParticles langmuir_particles(const PicGrid& grid, std::size_t n, double amplitude, int mode = 1);

// Two interleaved cold beams at +-beam_speed (n / 2 each; n even), displaced like the Langmuir
// set-up to seed mode `mode`.
PicParticles two_stream_particles(const PicGrid& grid, std::size_t n, double beam_speed,
                                  double amplitude, int mode = 1);

// One species of the general set-up ([[plasma.species]]). A macro-particle carries
// density dx^D / particles_per_cell physical particles, so the species has number density
// `density` and plasma frequency sqrt(density charge^2 / mass).
struct PlasmaSpecies {
    std::string name = "electrons";
    double charge = -1;                    // per physical particle
    double mass = 1;
    double density = 1;
    std::uint64_t particles_per_cell = 1;  // m^D on a lattice in each cell: 1, 4, 9, ... in 2-D
    std::array<double, 3> drift{};         // mean velocity; components from `dimensions` on 0
    double thermal_speed = 0;              // each velocity component normal(0, thermal_speed)
    double amplitude = 0;                  // displacement a sin(k . x0) along k (the seeded wave)
};

// sqrt(sum over species of density charge^2 / mass): the frequency of a cold plasma's
// oscillation at any k, every species mobile (for electrons and positrons, sqrt 2 omega_pe).
double cold_plasma_frequency(const std::vector<PlasmaSpecies>& species);

// m when particles_per_cell = m^dimensions, else 0.
std::uint64_t lattice_side(std::uint64_t particles_per_cell, int dimensions);

// The model's species (charge, mass, weight) and the particles of the species set-up on a
// cubic grid: species after species, each particles_per_cell = m^D per cell on the lattice
// (c + (j + 1/2) / m) dx per axis, displaced by amplitude k^ sin(k . x0) with
// k = 2 pi mode / L (wrapped into the box), velocities drift + normal(0, thermal_speed) per
// component from a generator seeded with `seed`. UsageError for an empty list, a particle count
// that is not m^D or a zero mode.
std::vector<PicSpecies> species_of(const PicGrid& grid, const std::vector<PlasmaSpecies>& species);
PicParticles species_particles(const PicGrid& grid, const std::vector<PlasmaSpecies>& species,
                               const std::array<int, 3>& mode, std::uint64_t seed);

// Projections of the field (ElectrostaticPic::field()) along the wave, E . k / |k|, on
// sin(k . x) and cos(k . x) at the nodes, k = 2 pi mode / L per axis: {sin part, cos part},
// unnormalised. In 1-D with mode {m, 0, 0} that is E_x on sin and cos of 2 pi m x / L.
struct FieldMode {
    double sine = 0, cosine = 0;
};
FieldMode field_mode(const std::vector<double>& field, const PicGrid& grid,
                     const std::array<int, 3>& mode);
FieldMode field_mode(const std::vector<double>& field, const PicGrid& grid, int mode = 1);

// The angular frequency of an oscillating signal from its zero crossings (linearly
// interpolated between samples): pi (crossings - 1) / (last - first). NaN with fewer than two
// crossings. `crossings`, when given, receives how many there were.
double zero_crossing_frequency(const std::vector<double>& t, const std::vector<double>& value,
                               std::size_t* crossings = nullptr);

// Least-squares slope of log |E_k| over the linear phase of an instability: from e^1.5 above
// the first sample (the other roots then negligible) to e^2 below the peak. rate is NaN when
// that window holds fewer than three samples.
struct GrowthFit {
    double rate = 0;
    double from = 0, to = 0;  // the window's times
    std::size_t samples = 0;
};
GrowthFit linear_growth_rate(const std::vector<double>& t, const std::vector<double>& log_amplitude);

// Cold symmetric two-stream linear theory (omega_p = 1 in total, each beam half the density):
// omega^2 = k^2 v0^2 + 1/2 - sqrt(1 + 8 k^2 v0^2) / 2; the growth rate sqrt(-omega^2) where
// that is negative, else 0. At k v0 = sqrt(3 / 8) it is largest, 1 / (2 sqrt 2).
double two_stream_growth_rate(double k_v0);

} // namespace partcl
