#pragma once
// The background of a Lambda-CDM universe and its linear matter power spectrum, on the host in
// double: what comoving integration and initial conditions need (docs/cosmology.md).
//
// Units, Gadget-2's with h scaled out: lengths in Mpc/h, masses in 1e10 Msun/h, velocities in
// km/s, so G = 43.0091 and H0 = 100 (km/s)/(Mpc/h); time in (Mpc/h)/(km/s) = 977.8 Gyr/h.
// Radiation is left out (it matters before z ~ 1000, long before a run starts).
#include <cstddef>

#include <cmath>

namespace partcl::cosmology {

inline constexpr double gravitational_constant = 43.0091;  // (Mpc/h) (km/s)^2 / (1e10 Msun/h)
inline constexpr double hubble_constant = 100.0;           // H0 in (km/s) / (Mpc/h)
// rho_crit = 3 H0^2 / (8 pi G), in (1e10 Msun/h) / (Mpc/h)^3.
inline constexpr double critical_density =
    3 * hubble_constant * hubble_constant / (8 * 3.14159265358979323846 * gravitational_constant);

// The image of x in the periodic box [0, box): one that rounds onto the upper edge is 0.
inline double periodic_image(double x, double box) noexcept {
    const double w = x - box * std::floor(x / box);
    return w < box ? w : 0.0;
}

struct Parameters {
    double omega_matter = 0.3;
    double omega_lambda = 0.7;
    double omega_baryon = 0.045;  // shapes the transfer function only (the run is dark matter)
    double h = 0.7;               // H0 / (100 km/s/Mpc): shapes the transfer function only
    double sigma8 = 0.8;          // the linear density contrast's rms in spheres of 8 Mpc/h at z = 0
    double spectral_index = 0.96;
    double temperature_cmb = 2.7255;  // K, for the transfer function

    double omega_curvature() const noexcept { return 1.0 - omega_matter - omega_lambda; }
    // UsageError naming the value: densities out of [0, 10] (matter > 0), h, sigma8 or the
    // temperature not positive, the baryons more than the matter, n_s outside [0, 3].
    void validate() const;
};

class Background {
public:
    // Tabulates the linear growth factor from the growth equation (validates first).
    explicit Background(const Parameters& parameters);

    const Parameters& parameters() const noexcept { return p_; }
    // H(a) / H0.
    double e(double a) const noexcept;
    double hubble(double a) const noexcept { return hubble_constant * e(a); }
    // The growing mode D(a) of the linear growth equation D'' + (3/a + E'/E) D' =
    // 3/2 Omega_m D / (a^5 E^2), normalised to D(1) = 1, and f = dln D / dln a. For a in
    // [1e-3, 1] (UsageError elsewhere).
    double growth(double a) const;
    double growth_rate(double a) const;
    // Gadget-2's factors for a leapfrog in a with canonical momenta (velocities u = a^2 dx/dt):
    // the drift dx = u * drift(a0, a1), drift = integral da / (a^3 H(a)); the kick
    // du = g * kick(a0, a1), kick = integral da / (a^2 H(a)), g the comoving acceleration.
    double drift(double a0, double a1) const;
    double kick(double a0, double a1) const;

private:
    Parameters p_;
    // D and dD/da at a_k = exp(log(1e-3) + k step), k < samples.
    static constexpr std::size_t samples = 2001;
    double log_first_ = 0, step_ = 0;
    double d_[samples]{}, dd_[samples]{};
    double norm_ = 1;
};

// Eisenstein & Hu (1998)'s transfer function without the baryon oscillations (their section
// 4.2: the zero-baryon shape with the baryons' suppression of small scales), k in h/Mpc.
double transfer_no_wiggle(const Parameters& p, double k);

// The linear matter power spectrum at z = 0, P(k) = A k^n_s T(k)^2 in (Mpc/h)^3, A set so that
// its rms in top-hat spheres of 8 Mpc/h is sigma8.
class LinearPower {
public:
    explicit LinearPower(const Parameters& parameters);
    double operator()(double k) const noexcept;
    // The rms of the linear density contrast in top-hat spheres of radius r (Mpc/h) at z = 0.
    double sigma(double r) const;
    double amplitude() const noexcept { return amplitude_; }

private:
    Parameters p_;
    double amplitude_ = 1;
};

} // namespace partcl::cosmology
