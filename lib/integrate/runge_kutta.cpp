#include "engines.hpp"

#include <algorithm>
#include <cmath>

namespace partcl::detail {

namespace {

using Term = VectorOps::Term;

// VectorOps::combine takes its terms as an initializer list: one call per count.
void combine_terms(VectorOps& ops, std::size_t n, RealBuffer& out, const RealBuffer& base,
                   const Term* t, std::size_t count) {
    switch (count) {
    case 1: ops.combine(n, out, 0, base, 0, {t[0]}); break;
    case 2: ops.combine(n, out, 0, base, 0, {t[0], t[1]}); break;
    case 3: ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2]}); break;
    case 4: ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2], t[3]}); break;
    case 5: ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2], t[3], t[4]}); break;
    case 6: ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2], t[3], t[4], t[5]}); break;
    case 7: ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2], t[3], t[4], t[5], t[6]}); break;
    case 8:
        ops.combine(n, out, 0, base, 0, {t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]});
        break;
    default: throw Error("combine_terms: " + std::to_string(count) + " terms in one launch");
    }
}

} // namespace

void combine_stages(VectorOps& ops, std::size_t n, RealBuffer& out, const RealBuffer& base,
                    const std::vector<Coefficient>& coefficients, double h,
                    const std::vector<const RealBuffer*>& vectors) {
    std::vector<Term> terms;
    for (std::size_t j = 0; j < coefficients.size() && j < vectors.size(); ++j)
        if (!coefficients[j].zero()) terms.push_back({coefficients[j].times(h), vectors[j]});
    if (terms.empty()) {
        if (&out != &base) ops.copy(n, base, 0, out, 0);
        return;
    }
    constexpr std::size_t per_launch = 8;
    for (std::size_t first = 0; first < terms.size(); first += per_launch)
        combine_terms(ops, n, out, first == 0 ? base : out, terms.data() + first,
                      std::min(per_launch, terms.size() - first));
}

ExplicitRungeKutta::ExplicitRungeKutta(std::string name, const ButcherTableau& tableau,
                                       VectorOps& ops, std::size_t n,
                                       AdaptiveTolerances tolerances, bool external_first_stage)
    : name_(std::move(name)), tableau_(tableau), ops_(ops), n_(n), tolerances_(tolerances),
      k_(tableau.stages()) {
    if (tableau.implicit) throw UsageError(name_ + ": an implicit tableau");
    if (adaptive() && (!(tolerances.atol > 0) || !(tolerances.rtol >= 0)))
        throw UsageError(name_ + ": atol must be positive and rtol non-negative");
    for (std::size_t i = external_first_stage ? 1 : 0; i < k_.size(); ++i)
        k_[i] = RealBuffer(ops.context(), ops.precision(), n);
    if (tableau.stages() > 1) tmp_ = RealBuffer(ops.context(), ops.precision(), n);
    if (adaptive()) {
        err_ = RealBuffer(ops.context(), ops.precision(), n);
        zero_ = RealBuffer(ops.context(), ops.precision(), n);
        // Waited for: every device of the context reads it.
        zero_.fill(ops.context().queue(0), 0.0).wait();
    }
}

std::size_t ExplicitRungeKutta::work_vectors(const ButcherTableau& tableau) {
    const std::size_t s = tableau.stages();
    return s + (s > 1 ? 1 : 0) + (tableau.adaptive() ? 2 : 0);
}

// A first-same-as-last pair's kept first stage travels with a checkpoint, so that a resumed run
// evaluates where the uninterrupted one would (splitting.cpp says why); one without it (older
// checkpoints) evaluates it again.
IntegratorState ExplicitRungeKutta::save() const {
    if (!adaptive()) return {};
    IntegratorState s{{}, {next_}};
    if (first_stage_valid_) s.vectors.push_back(k_.front().read(ops_.context().queue(0)));
    return s;
}

void ExplicitRungeKutta::restore(const IntegratorState& s) {
    next_ = adaptive() && !s.scalars.empty() ? s.scalars.at(0) : 0.0;
    first_stage_valid_ = adaptive() && tableau_.first_same_as_last() && s.vectors.size() == 1;
    if (!first_stage_valid_) return;
    if (s.vectors[0].size() != n_)
        throw UsageError(name_ + ": checkpoint holds a first stage of " + std::to_string(s.vectors[0].size()) +
                         " values for a state of " + std::to_string(n_));
    k_.front().write(ops_.context().queue(0), s.vectors[0]);
}

void ExplicitRungeKutta::stages(const Derivative& f, double t, const RealBuffer& y, double h,
                                std::vector<const RealBuffer*>& stages) {
    for (std::size_t i = 1; i < tableau_.stages(); ++i) {
        combine_stages(ops_, n_, tmp_, y, tableau_.a[i], h, stages);
        f(t + tableau_.c[i].times(h), tmp_, k_[i]);
    }
}

void ExplicitRungeKutta::advance(const Derivative& f, double t, RealBuffer& y, double h,
                                 const RealBuffer& k1) {
    std::vector<const RealBuffer*> k{&k1};
    for (std::size_t i = 1; i < k_.size(); ++i) k.push_back(&k_[i]);
    stages(f, t, y, h, k);
    combine_stages(ops_, n_, y, y, tableau_.b, h, k);
}

double ExplicitRungeKutta::step(const Derivative& f, double t, RealBuffer& y, double dt) {
    if (adaptive()) return adaptive_step(f, t, y, dt);
    f(t, y, k_[0]);
    advance(f, t, y, dt, k_[0]);
    return dt;
}

double ExplicitRungeKutta::adaptive_step(const Derivative& f, double t, RealBuffer& y,
                                         double dt) {
    const bool fsal = tableau_.first_same_as_last();
    if (!first_stage_valid_) f(t, y, k_[0]);
    std::vector<const RealBuffer*> k;
    for (const auto& stage : k_) k.push_back(&stage);
    const double exponent = -1.0 / (std::min(tableau_.order, tableau_.embedded_order) + 1);
    double h = dt;
    for (int attempt = 0;; ++attempt) {
        if (!(h > 0) || t + h == t || attempt > 100)
            throw Error(name_ + ": step size underflow at t = " + std::to_string(t) +
                        " (the solution may be singular, or the tolerances too tight for " +
                        to_string(ops_.precision()) + ")");
        stages(f, t, y, h, k);
        // First same as last: the last stage's input is the new solution.
        if (!fsal) combine_stages(ops_, n_, tmp_, y, tableau_.b, h, k);
        combine_stages(ops_, n_, err_, zero_, tableau_.error, h, k);
        const double error =
            ops_.max_scaled_error(n_, err_, y, tmp_, tolerances_.atol, tolerances_.rtol);
        const double factor = error > 0 ? 0.9 * std::pow(error, exponent) : 5.0;
        if (error <= 1.0) {
            ops_.copy(n_, tmp_, 0, y, 0);
            if (fsal) std::swap(k_.front(), k_.back());
            first_stage_valid_ = fsal;
            next_ = h * std::clamp(factor, 0.2, 5.0);
            return h;
        }
        h *= std::clamp(factor, 0.2, 1.0);
    }
}

} // namespace partcl::detail
