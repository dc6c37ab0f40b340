#pragma once
// The 1-D plasma set-ups of the PIC physics tests and of `partcl run langmuir` / `two-stream`,
// and the measurements made on them. Units: epsilon0 = 1 and electrons of charge -1, mass 1, the
// weight chosen so that the plasma frequency omega_p = sqrt(n q^2 / m) = 1 (time in 1/omega_p).
// The ions are ElectrostaticPic's neutralising background.
#include <cstddef>
#include <vector>

#include <partcl/models/pic/electrostatic_pic.hpp>

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

// Projections of the field (ElectrostaticPic::field(), 1-D) on sin(k x) and cos(k x) at the
// nodes, k = 2 pi mode / L: {sin part, cos part}, unnormalised.
struct FieldMode {
    double sine = 0, cosine = 0;
};
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
