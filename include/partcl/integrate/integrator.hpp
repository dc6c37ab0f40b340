#pragma once
// Integrators of dy/dt = f(t, y) over a state vector held on the device. They are generic over
// the derivative, so every model (dense or tree gravity, ...) reuses them; the state never leaves
// the device between steps. The methods are data (tableau.hpp) run by one engine per kind:
//
//   explicit Runge-Kutta   euler, rk4; embedded pairs with adaptive step control: rkck5
//                          (Cash-Karp 5(4)), rkdp5 (Dormand-Prince 5(4), alias dopri5),
//                          rkdverk6 (Verner 6(5)), rkf78 (Fehlberg 7(8))
//   Adams-Bashforth        adams1 .. adams5 (alias ab5), started with rk4, 1 evaluation a step
//   symplectic splitting   leapfrog (kick-drift-kick), yoshida4, yoshida6 (compositions of
//                          leapfrog), for second-order systems: y = (q | p), f = (p | a(q))
//   implicit Runge-Kutta   rkgl6 (Gauss-Legendre), rklc4 (Lobatto IIIC), trapezoid: fixed-point
//                          iteration to the tolerances, iterations() reports the sweeps
//
// integrator_catalog() lists them with their order and kind.
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

    // Fixed-point sweeps the last step took (implicit methods; 0 for explicit ones).
    virtual std::size_t iterations() const { return 0; }

    // Forgets history (call after changing y outside the integrator).
    virtual void reset() {}

    virtual IntegratorState save() const { return {}; }
    virtual void restore(const IntegratorState&) {}
};

struct AdaptiveTolerances {
    double atol = 1e-8;
    double rtol = 1e-8;
};

// The integrators by name (or alias); throws UsageError naming the known ones for an unknown
// name. Adaptive methods control their step to `tolerances`; implicit ones iterate to them.
std::unique_ptr<Integrator> make_integrator(const std::string& name, VectorOps& ops,
                                            std::size_t state_size,
                                            AdaptiveTolerances tolerances = {});

struct IntegratorInfo {
    std::string name;
    int order;
    std::string kind;      // e.g. "embedded Runge-Kutta 5(4), adaptive step, 6 evaluations"
    std::string alias_of;  // empty for a method's own name
};
// Every method, then the aliases kept for older scenarios (dopri5, ab5).
const std::vector<IntegratorInfo>& integrator_catalog();
// The names make_integrator accepts, in the catalog's order.
const std::vector<std::string>& integrator_names();
// Whether the named integrator adapts its step (the embedded pairs) rather than taking dt every
// step; false for an unknown name.
bool integrator_adapts_step(const std::string& name);
// Whether the named integrator solves its stages by fixed-point iteration (the implicit
// methods): it converges only where the derivative depends on the state alone, not on the
// evaluations before. False for an unknown name.
bool integrator_iterates(const std::string& name);
// State-sized vectors the named integrator keeps besides y (for memory estimates before a run).
std::size_t integrator_work_vectors(const std::string& name);

} // namespace partcl
