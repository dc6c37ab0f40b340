#pragma once
// Explicit integrators of dy/dt = f(t, y) over a state vector held on the device. They are
// generic over the derivative, so every model (dense or tree gravity, ...) reuses them; the state
// never leaves the device between steps.
//
//   euler             1st order, 1 evaluation per step
//   leapfrog          2nd order kick-drift-kick, symplectic, 1 evaluation per step; for
//                     second-order systems: y = (q | p) halves, f = (p | a(q))
//   rk4               classical Runge-Kutta, 4th order, 4 evaluations
//   dopri5            Dormand-Prince 5(4), adaptive step with error control, FSAL (6 per step)
//   ab5               Adams-Bashforth 5, 1 evaluation per step, started with rk4
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <partcl/integrate/vector_ops.hpp>

namespace partcl {

// f(t, y, dydt): returns with dydt complete, for any device of the context to read.
using Derivative = std::function<void(double t, const RealBuffer& y, RealBuffer& dydt)>;

// What an integrator carries between steps besides y, so a checkpoint can resume a run bit for
// bit.
struct IntegratorState {
    std::vector<std::vector<double>> vectors;
    std::vector<double> scalars;
};

class Integrator {
public:
    virtual ~Integrator() = default;

    virtual std::string name() const = 0;
    virtual int order() const = 0;
    virtual bool adaptive() const { return false; }

    // Advances y from t by one step. Fixed-step methods take exactly dt; adaptive ones try
    // dt (or their own proposal, see next_dt) and shrink it until the error is accepted.
    // Returns the step taken.
    virtual double step(const Derivative& f, double t, RealBuffer& y, double dt) = 0;

    // The step an adaptive method proposes next; fixed-step methods return 0.
    virtual double next_dt() const { return 0.0; }

    // Forgets history (call after changing y outside the integrator).
    virtual void reset() {}

    virtual IntegratorState save() const { return {}; }
    virtual void restore(const IntegratorState&) {}
};

struct AdaptiveTolerances {
    double atol = 1e-8;
    double rtol = 1e-8;
};

// The integrators by name; throws UsageError naming the known ones for an unknown name.
std::unique_ptr<Integrator> make_integrator(const std::string& name, VectorOps& ops,
                                            std::size_t state_size,
                                            AdaptiveTolerances tolerances = {});
const std::vector<std::string>& integrator_names();
// Whether the named integrator adapts its step (dopri5) rather than taking dt every step.
bool integrator_adapts_step(const std::string& name);
// State-sized vectors the named integrator keeps besides y (for memory estimates before a run).
std::size_t integrator_work_vectors(const std::string& name);

} // namespace partcl
