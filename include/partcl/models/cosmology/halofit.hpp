#pragma once
// Halofit: the nonlinear matter power spectrum estimated from the linear one, Smith et al.
// (2003)'s fit with the revised coefficients of Takahashi et al. (2012), the default of CAMB and
// CLASS (their 5% accuracy holds for k up to 1 h/Mpc at z in 0..10). For Lambda-CDM with w = -1
// and no massive neutrinos; k in h/Mpc, powers in (Mpc/h)^3.
#include <partcl/models/cosmology/cosmology.hpp>

namespace partcl::cosmology {

class Halofit {
public:
    // The spectrum at scale factor a (in [1e-3, 1]; UsageError elsewhere). Where the linear
    // field has no scale of unit variance above 1e-5 Mpc/h (early times), the estimate is the
    // linear spectrum.
    Halofit(const Background& background, const LinearPower& linear, double a);

    double operator()(double k) const;
    // The nonlinear scale k_sigma (sigma(1 / k_sigma) = 1 with a Gaussian filter), the
    // effective index n_eff and the curvature C there; k_sigma 0 when the field is linear.
    double nonlinear_scale() const noexcept { return k_sigma_; }
    double effective_index() const noexcept { return n_eff_; }
    double curvature() const noexcept { return curvature_; }

private:
    const LinearPower& linear_;
    double growth2_ = 1;  // D(a)^2
    double k_sigma_ = 0, n_eff_ = 0, curvature_ = 0;
    double an_ = 0, bn_ = 0, cn_ = 0, gamma_ = 0, alpha_ = 0, beta_ = 0, nu_ = 0;
    double f1_ = 1, f2_ = 1, f3_ = 1;
};

} // namespace partcl::cosmology
