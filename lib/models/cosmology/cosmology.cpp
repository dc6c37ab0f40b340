#include <partcl/models/cosmology/cosmology.hpp>

#include <cmath>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::cosmology {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double first_a = 1e-3;

// Simpson's rule over [x0, x1] in `intervals` (even) steps.
template <class F>
double simpson(F&& f, double x0, double x1, int intervals) {
    const double h = (x1 - x0) / intervals;
    double sum = f(x0) + f(x1);
    for (int i = 1; i < intervals; ++i) sum += (i % 2 ? 4 : 2) * f(x0 + i * h);
    return sum * h / 3;
}

void require(bool ok, const std::string& what) {
    if (!ok) throw UsageError("cosmology: " + what);
}

} // namespace

void Parameters::validate() const {
    require(omega_matter > 0 && omega_matter <= 10, "Omega_matter must be in (0, 10], got " + std::to_string(omega_matter));
    require(omega_lambda >= 0 && omega_lambda <= 10, "Omega_lambda must be in [0, 10], got " + std::to_string(omega_lambda));
    require(omega_baryon >= 0 && omega_baryon < omega_matter,
            "Omega_baryon must be in [0, Omega_matter), got " + std::to_string(omega_baryon));
    require(h > 0 && h < 10, "h must be in (0, 10), got " + std::to_string(h));
    require(sigma8 > 0 && std::isfinite(sigma8), "sigma8 must be positive, got " + std::to_string(sigma8));
    require(spectral_index >= 0 && spectral_index <= 3, "n_s must be in [0, 3], got " + std::to_string(spectral_index));
    require(temperature_cmb > 0 && std::isfinite(temperature_cmb), "the CMB temperature must be positive");
    // A universe that recollapses or never expanded from a = 1e-3 to 1 has no E(a) > 0 there.
    for (double a = first_a; a <= 1.0; a *= 1.01)
        require(omega_matter / (a * a * a) + omega_curvature() / (a * a) + omega_lambda > 0,
                "H(a)^2 is not positive for some a in [0.001, 1]: these densities do not expand");
}

double Background::e(double a) const noexcept {
    return std::sqrt(p_.omega_matter / (a * a * a) + p_.omega_curvature() / (a * a) + p_.omega_lambda);
}

Background::Background(const Parameters& parameters) : p_(parameters) {
    p_.validate();
    // The growth equation in x = ln a, y = (D, dD/dx):
    //   D'' + (2 + dln E/dx) D' = 3/2 Omega_m(a) D,   Omega_m(a) = Omega_m a^-3 / E^2,
    // from D = a, D' = a at a = 1e-3 (matter domination's growing mode), by RK4.
    log_first_ = std::log(first_a);
    step_ = -log_first_ / double(samples - 1);
    auto derivative = [this](double x, double d, double dd, double& d_out, double& dd_out) {
        const double a = std::exp(x), e2 = e(a) * e(a);
        const double dlne = (-3 * p_.omega_matter / (a * a * a) - 2 * p_.omega_curvature() / (a * a)) / (2 * e2);
        d_out = dd;
        dd_out = -(2 + dlne) * dd + 1.5 * p_.omega_matter / (a * a * a * e2) * d;
    };
    double d = first_a, dd = first_a;
    d_[0] = d, dd_[0] = dd;
    const int substeps = 8;
    const double h = step_ / substeps;
    for (std::size_t k = 1; k < samples; ++k) {
        for (int s = 0; s < substeps; ++s) {
            const double x = log_first_ + double(k - 1) * step_ + s * h;
            double k1, l1, k2, l2, k3, l3, k4, l4;
            derivative(x, d, dd, k1, l1);
            derivative(x + h / 2, d + h / 2 * k1, dd + h / 2 * l1, k2, l2);
            derivative(x + h / 2, d + h / 2 * k2, dd + h / 2 * l2, k3, l3);
            derivative(x + h, d + h * k3, dd + h * l3, k4, l4);
            d += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
            dd += h / 6 * (l1 + 2 * l2 + 2 * l3 + l4);
        }
        d_[k] = d, dd_[k] = dd;
    }
    norm_ = d_[samples - 1];
}

double Background::growth(double a) const {
    if (!(a >= first_a * (1 - 1e-12) && a <= 1 + 1e-12))
        throw UsageError("cosmology: the growth factor is tabulated for a in [0.001, 1], not " + std::to_string(a));
    // Cubic Hermite in x = ln a from D and dD/dx at the samples.
    const double t = (std::log(a) - log_first_) / step_;
    const std::size_t k = std::min<std::size_t>(samples - 2, std::size_t(std::max(0.0, std::floor(t))));
    const double u = t - double(k), u2 = u * u, u3 = u2 * u;
    const double d = (2 * u3 - 3 * u2 + 1) * d_[k] + (u3 - 2 * u2 + u) * step_ * dd_[k] +
                     (-2 * u3 + 3 * u2) * d_[k + 1] + (u3 - u2) * step_ * dd_[k + 1];
    return d / norm_;
}

double Background::growth_rate(double a) const {
    const double t = (std::log(a) - log_first_) / step_;
    growth(a);  // the range check
    const std::size_t k = std::min<std::size_t>(samples - 2, std::size_t(std::max(0.0, std::floor(t))));
    const double u = t - double(k);
    // dD/dx and D linearly between samples are enough for f (its error is step^2).
    const double dd = (1 - u) * dd_[k] + u * dd_[k + 1];
    return dd / (growth(a) * norm_);
}

double Background::drift(double a0, double a1) const {
    require(a0 > 0 && a1 > 0, "drift: scale factors must be positive");
    // In x = ln a: integral of 1 / (a^2 H) dx.
    return simpson([this](double x) { const double a = std::exp(x); return 1 / (a * a * hubble(a)); },
                   std::log(a0), std::log(a1), 64);
}

double Background::kick(double a0, double a1) const {
    require(a0 > 0 && a1 > 0, "kick: scale factors must be positive");
    return simpson([this](double x) { const double a = std::exp(x); return 1 / (a * hubble(a)); },
                   std::log(a0), std::log(a1), 64);
}

double transfer_no_wiggle(const Parameters& p, double k) {
    const double theta = p.temperature_cmb / 2.7;
    const double om = p.omega_matter * p.h * p.h, ob = p.omega_baryon * p.h * p.h;
    const double fb = p.omega_baryon / p.omega_matter;
    // Sound horizon (Mpc), eq. 26; the shape's suppression by baryons, eq. 31.
    const double s = 44.5 * std::log(9.83 / om) / std::sqrt(1 + 10 * std::pow(ob, 0.75));
    const double alpha = 1 - 0.328 * std::log(431 * om) * fb + 0.38 * std::log(22.3 * om) * fb * fb;
    const double k_mpc = k * p.h;
    const double gamma = p.omega_matter * p.h * (alpha + (1 - alpha) / (1 + std::pow(0.43 * k_mpc * s, 4)));
    const double q = k * theta * theta / gamma;  // eq. 28, k in h/Mpc
    const double l0 = std::log(2 * std::exp(1.0) + 1.8 * q), c0 = 14.2 + 731 / (1 + 62.5 * q);
    return l0 / (l0 + c0 * q * q);
}

LinearPower::LinearPower(const Parameters& parameters) : p_(parameters) {
    p_.validate();
    amplitude_ = 1;
    const double s = sigma(8.0);
    amplitude_ = p_.sigma8 * p_.sigma8 / (s * s);
}

double LinearPower::operator()(double k) const noexcept {
    if (!(k > 0)) return 0;
    const double t = transfer_no_wiggle(p_, k);
    return amplitude_ * std::pow(k, p_.spectral_index) * t * t;
}

double LinearPower::sigma(double r) const {
    require(r > 0, "sigma: the radius must be positive");
    // sigma^2 = 1 / (2 pi^2) integral k^3 P(k) W(k r)^2 dln k, W the top hat's transform.
    const double s2 = simpson(
        [&](double x) {
            const double k = std::exp(x), y = k * r;
            const double w = y < 1e-3 ? 1 - y * y / 10 : 3 * (std::sin(y) - y * std::cos(y)) / (y * y * y);
            return k * k * k * (*this)(k) * w * w;
        },
        std::log(1e-5), std::log(1e3), 8000);
    return std::sqrt(s2 / (2 * pi * pi));
}

} // namespace partcl::cosmology
