#pragma once
// The engines that run the methods of tableau.hpp, one per kind. Internal to lib/integrate:
// make_integrator (integrators.cpp) picks the engine and the data by name.
#include <memory>
#include <string>
#include <vector>

#include <partcl/integrate/integrator.hpp>
#include <partcl/integrate/tableau.hpp>

namespace partcl::detail {

// out = base + sum_j coefficients[j].times(h) * vectors[j] over the non-zero coefficients, in
// order; VectorOps takes 8 terms a launch, so longer sums are chained into out.
void combine_stages(VectorOps& ops, std::size_t n, RealBuffer& out, const RealBuffer& base,
                    const std::vector<Coefficient>& coefficients, double h,
                    const std::vector<const RealBuffer*>& vectors);

// An explicit Runge-Kutta method; with an embedded pair it adapts its step (the usual
// controller: safety 0.9, growth within [0.2, 5], exponent 1 / (min order + 1)), and reuses
// the last stage as the next first one where the tableau is first-same-as-last.
class ExplicitRungeKutta final : public Integrator {
public:
    // With external_first_stage, no first-stage vector is kept: only advance() may be used
    // (the starter of Adams-Bashforth, which holds f(t, y) already).
    ExplicitRungeKutta(std::string name, const ButcherTableau& tableau, VectorOps& ops,
                       std::size_t n, AdaptiveTolerances tolerances,
                       bool external_first_stage = false);

    std::string name() const override { return name_; }
    int order() const override { return tableau_.order; }
    bool adaptive() const override { return tableau_.adaptive(); }
    double next_dt() const override { return next_; }
    void reset() override { first_stage_valid_ = false; }
    IntegratorState save() const override;
    void restore(const IntegratorState& s) override;
    double step(const Derivative& f, double t, RealBuffer& y, double dt) override;

    // One step of h without error control, given k1 = f(t, y).
    void advance(const Derivative& f, double t, RealBuffer& y, double h, const RealBuffer& k1);

    // State-sized vectors kept besides y.
    static std::size_t work_vectors(const ButcherTableau& tableau);

private:
    // k_2..k_s from k_1 = *stages[0]; the last stage's input is left in tmp_.
    void stages(const Derivative& f, double t, const RealBuffer& y, double h,
                std::vector<const RealBuffer*>& stages);
    double adaptive_step(const Derivative& f, double t, RealBuffer& y, double dt);

    std::string name_;
    const ButcherTableau& tableau_;
    VectorOps& ops_;
    std::size_t n_;
    AdaptiveTolerances tolerances_;
    std::vector<RealBuffer> k_;
    RealBuffer tmp_, err_, zero_;
    bool first_stage_valid_ = false;
    double next_ = 0.0;
};

std::unique_ptr<Integrator> make_adams_bashforth(std::string name, int order, VectorOps& ops,
                                                 std::size_t n);
std::size_t adams_bashforth_work_vectors(int order);

std::unique_ptr<Integrator> make_composition(std::string name, const Composition& method,
                                             VectorOps& ops, std::size_t n);

std::unique_ptr<Integrator> make_implicit_runge_kutta(std::string name,
                                                      const ButcherTableau& tableau,
                                                      VectorOps& ops, std::size_t n,
                                                      AdaptiveTolerances tolerances);
std::size_t implicit_runge_kutta_work_vectors(const ButcherTableau& tableau);

} // namespace partcl::detail
