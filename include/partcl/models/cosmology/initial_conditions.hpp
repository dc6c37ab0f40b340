#pragma once
// Cosmological initial conditions on a lattice: a Gaussian random density field with the linear
// power spectrum at the starting redshift, and the bodies displaced from the lattice by
// Lagrangian perturbation theory, first order (Zel'dovich) or second (2LPT), as N-GenIC and
// 2LPTic make them. The transforms run on device 0 of a context (partcl::Fft), in double where
// the device has it; the white noise is drawn on the host from the seed alone, so the same seed
// gives the same bodies on every device and backend (to the transforms' rounding).
//
// Units as cosmology.hpp says. Velocities are the canonical momenta per unit mass of Gadget-2's
// comoving integration, u = a^2 dx/dt (x comoving), which Background::drift and kick advance.
#include <cstddef>
#include <cstdint>

#include <partcl/models/cosmology/cosmology.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl::cosmology {

struct InitialConditions {
    std::size_t side = 64;     // bodies per side of the lattice, and the grid of the field
    double box = 100;          // edge of the periodic box, Mpc/h
    double redshift = 49;      // when the bodies start
    std::uint64_t seed = 1;    // the white noise's
    bool second_order = true;  // 2LPT; false: Zel'dovich
    // Angulo & Pontzen (2016)'s fixed amplitudes: every mode of the white noise keeps its phase
    // and takes its mean amplitude, so the field's spectrum is the linear one with no scatter
    // from mode to mode (a small box's few large-scale modes then measure growth, not luck).
    bool fixed_amplitude = false;
};

// The bodies: side^3 of equal mass Omega_m rho_crit box^3 / side^3 (rho_crit = 3 H0^2 / 8 pi G),
// positions in [0, box), velocities u = a^2 dx/dt. UsageError for a side below 2 or above 1024,
// a box or redshift out of range (the growth table starts at z = 999), or bad parameters;
// Unsupported for a grid the device's FFT cannot take.
Bodies make_initial_conditions(Context& context, const Parameters& parameters,
                               const InitialConditions& options);

// The scale factor of a redshift, and back.
inline double scale_factor(double redshift) noexcept { return 1.0 / (1.0 + redshift); }

} // namespace partcl::cosmology
