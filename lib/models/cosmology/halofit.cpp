#include <partcl/models/cosmology/halofit.hpp>

#include <partcl/backend/error.hpp>

#include <cmath>
#include <string>

namespace partcl::cosmology {

namespace {

constexpr double pi = 3.141592653589793;

// sigma^2(R) with a Gaussian filter and the two log-derivative moments Halofit needs:
// d1 = -dln sigma^2 / dln R and d2, with C = d1^2 + d2 (Smith et al. 2003, eqs. A4-A5).
struct Moments {
    double sigma2 = 0, d1 = 0, d2 = 0;
};

Moments moments(const LinearPower& linear, double growth2, double radius) {
    // Simpson's rule in ln k: the filter cuts the integrand off a few 1 / R out, and below
    // 1e-4 h/Mpc the spectrum adds nothing.
    const double low = std::log(1e-4), high = std::log(12 / radius);
    const int intervals = 2000;
    const double h = (high - low) / intervals;
    double s0 = 0, s1 = 0, s2 = 0;
    for (int i = 0; i <= intervals; ++i) {
        const double k = std::exp(low + i * h), y2 = k * k * radius * radius;
        const double delta2 = k * k * k * linear(k) * growth2 / (2 * pi * pi) * std::exp(-y2);
        const double w = (i == 0 || i == intervals) ? 1 : (i % 2 ? 4 : 2);
        s0 += w * delta2;
        s1 += w * delta2 * 2 * y2;
        s2 += w * delta2 * 4 * y2 * (1 - y2);
    }
    Moments m;
    m.sigma2 = s0 * h / 3;
    m.d1 = s1 / s0;
    m.d2 = s2 / s0;
    return m;
}

} // namespace

Halofit::Halofit(const Background& background, const LinearPower& linear, double a) : linear_(linear) {
    if (!(a >= 1e-3 && a <= 1))
        throw UsageError("halofit: the scale factor must be in [0.001, 1], not " + std::to_string(a));
    const double d = background.growth(a);
    growth2_ = d * d;
    // sigma falls as R grows: bisect ln R for sigma = 1.
    double small = std::log(1e-5), large = std::log(1e3);
    if (moments(linear, growth2_, std::exp(small)).sigma2 < 1) return;  // linear at every scale
    if (moments(linear, growth2_, std::exp(large)).sigma2 > 1)
        throw UsageError("halofit: the linear field is nonlinear beyond 1000 Mpc/h");
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (small + large);
        (moments(linear, growth2_, std::exp(mid)).sigma2 > 1 ? small : large) = mid;
    }
    const double radius = std::exp(0.5 * (small + large));
    const Moments m = moments(linear, growth2_, radius);
    k_sigma_ = 1 / radius;
    const double n = m.d1 - 3, c = m.d1 * m.d1 + m.d2;
    n_eff_ = n;
    curvature_ = c;
    // Takahashi et al. (2012), eq. A6-A13, with w = -1 (the dark-energy terms vanish).
    an_ = std::pow(10, 1.5222 + 2.8553 * n + 2.3706 * n * n + 0.9903 * n * n * n +
                           0.2250 * n * n * n * n - 0.6038 * c);
    bn_ = std::pow(10, -0.5642 + 0.5864 * n + 0.5716 * n * n - 1.5474 * c);
    cn_ = std::pow(10, 0.3698 + 2.0404 * n + 0.8161 * n * n + 0.5869 * c);
    gamma_ = 0.1971 - 0.0843 * n + 0.8460 * c;
    alpha_ = std::abs(6.0835 + 1.3373 * n - 0.1959 * n * n - 5.5274 * c);
    beta_ = 2.0379 - 0.7354 * n + 0.3157 * n * n + 1.2490 * n * n * n + 0.3980 * n * n * n * n -
            0.1682 * c;
    nu_ = std::pow(10, 5.2105 + 3.6902 * n);
    const double e = background.e(a);
    const double omega_m = background.parameters().omega_matter / (a * a * a * e * e);
    f1_ = std::pow(omega_m, -0.0307);
    f2_ = std::pow(omega_m, -0.0585);
    f3_ = std::pow(omega_m, 0.0743);
}

double Halofit::operator()(double k) const {
    const double p_linear = linear_(k) * growth2_;
    if (k_sigma_ == 0 || !(k > 0)) return p_linear;
    const double to_delta2 = k * k * k / (2 * pi * pi);
    const double delta2 = p_linear * to_delta2;
    const double y = k / k_sigma_;
    // The two-halo term: the linear power damped where haloes take over; the one-halo term.
    const double quasi = delta2 * std::pow(1 + delta2, beta_) / (1 + alpha_ * delta2) *
                         std::exp(-(y / 4 + y * y / 8));
    const double halo = an_ * std::pow(y, 3 * f1_) /
                        (1 + bn_ * std::pow(y, f2_) + std::pow(cn_ * f3_ * y, 3 - gamma_)) /
                        (1 + nu_ / (y * y));
    return (quasi + halo) / to_delta2;
}

} // namespace partcl::cosmology
