// Implicit Runge-Kutta methods by fixed-point iteration: the stages K_i = f(t + c_i h,
// y + h sum_j a_ij K_j) are swept in turn (each new K_i used at once), starting from
// K_i = f(t, y), until the new solution y + h sum_j b_j K_j changes between sweeps by at most
// atol + rtol max(|y|, |y_new|) in every component. The tolerances are the run's, but at least
// 16 machine epsilons of the precision, which rounding could not get below. The iteration
// contracts for h |df/dy| small enough; otherwise it stops with an error asking for a smaller
// step. Every step starts afresh: nothing is carried between steps.
#include "engines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace partcl::detail {

namespace {

constexpr int max_sweeps = 100;

double epsilon(Precision p) {
    return p == Precision::float32 ? double(std::numeric_limits<float>::epsilon())
                                   : std::numeric_limits<double>::epsilon();
}

class ImplicitRungeKutta final : public Integrator {
public:
    ImplicitRungeKutta(std::string name, const ButcherTableau& tableau, VectorOps& ops,
                       std::size_t n, AdaptiveTolerances tolerances)
        : name_(std::move(name)), tableau_(tableau), ops_(ops), n_(n),
          atol_(std::max(tolerances.atol, 16 * epsilon(ops.precision()))),
          rtol_(std::max(tolerances.rtol, 16 * epsilon(ops.precision()))),
          k_(tableau.stages()) {
        if (!(tolerances.atol > 0) || !(tolerances.rtol >= 0))
            throw UsageError(name_ + ": atol must be positive and rtol non-negative");
        for (auto* b : {&tmp_, &y_new_, &y_old_, &change_})
            *b = RealBuffer(ops.context(), ops.precision(), n);
        for (auto& b : k_) b = RealBuffer(ops.context(), ops.precision(), n);
        for (const auto& k : k_) stages_.push_back(&k);
    }
    std::string name() const override { return name_; }
    int order() const override { return tableau_.order; }
    std::size_t iterations() const override { return iterations_; }

    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        f(t, y, k_[0]);
        for (std::size_t i = 1; i < k_.size(); ++i) ops_.copy(n_, k_[0], 0, k_[i], 0);
        combine_stages(ops_, n_, y_old_, y, tableau_.b, dt, stages_);
        double last = std::numeric_limits<double>::infinity();
        for (iterations_ = 1; iterations_ <= max_sweeps; ++iterations_) {
            for (std::size_t i = 0; i < k_.size(); ++i) {
                // A row of zeros (the trapezoid's first stage) is explicit: K_i = f(t, y).
                const auto& row = tableau_.a[i];
                if (std::all_of(row.begin(), row.end(), [](Coefficient c) { return c.zero(); }))
                    continue;
                combine_stages(ops_, n_, tmp_, y, row, dt, stages_);
                f(t + tableau_.c[i].times(dt), tmp_, k_[i]);
            }
            combine_stages(ops_, n_, y_new_, y, tableau_.b, dt, stages_);
            ops_.combine(n_, change_, 0, y_new_, 0, {{-1.0, &y_old_}});
            const double change = ops_.max_scaled_error(n_, change_, y, y_new_, atol_, rtol_);
            if (change <= 1.0) {
                ops_.copy(n_, y_new_, 0, y, 0);
                return dt;
            }
            // Sweeps that stopped contracting will not converge.
            if (!std::isfinite(change) || (iterations_ > 10 && change > last))
                break;
            last = change;
            std::swap(y_new_, y_old_);
        }
        throw Error(name_ + ": the implicit stages did not converge at t = " + std::to_string(t) +
                    " with dt = " + std::to_string(dt) + " after " +
                    std::to_string(iterations_) + " sweeps (try a smaller dt)");
    }

private:
    std::string name_;
    const ButcherTableau& tableau_;
    VectorOps& ops_;
    std::size_t n_;
    double atol_, rtol_;
    std::vector<RealBuffer> k_;
    std::vector<const RealBuffer*> stages_;
    RealBuffer tmp_, y_new_, y_old_, change_;
    std::size_t iterations_ = 0;
};

} // namespace

std::unique_ptr<Integrator> make_implicit_runge_kutta(std::string name,
                                                      const ButcherTableau& tableau,
                                                      VectorOps& ops, std::size_t n,
                                                      AdaptiveTolerances tolerances) {
    return std::make_unique<ImplicitRungeKutta>(std::move(name), tableau, ops, n, tolerances);
}

std::size_t implicit_runge_kutta_work_vectors(const ButcherTableau& tableau) {
    return tableau.stages() + 4;
}

} // namespace partcl::detail
