#pragma once
// Integration methods as data: the Butcher tableaux of the Runge-Kutta methods (explicit, embedded
// pairs, implicit), the Adams-Bashforth weights and the composition weights of the symplectic
// splittings. One engine per kind (lib/integrate/) runs any of them.
#include <string>
#include <vector>

namespace partcl {

// A coefficient num / den. Rational coefficients are exact integers over exact integers, and a
// step scales them as (h * num) / den, the way the hand-written methods did, so re-expressing
// those as tableaux changed no result. Irrational ones (Gauss-Legendre) have den = 1.
struct Coefficient {
    double num = 0;
    double den = 1;

    double value() const { return num / den; }
    double times(double h) const { return h * num / den; }
    bool zero() const { return num == 0; }
};

struct ButcherTableau {
    std::string name;
    int order = 0;           // of the solution advanced (b)
    int embedded_order = 0;  // of the error estimator's solution (b_hat); 0: none, fixed step
    bool implicit = false;   // a_ij != 0 for some j >= i
    std::vector<Coefficient> c;
    std::vector<std::vector<Coefficient>> a;  // s rows of s entries
    std::vector<Coefficient> b;
    // b - b_hat, exact for rational tableaux (the error estimate is formed from the stages
    // directly, not as the difference of two solutions, which float could not resolve).
    std::vector<Coefficient> error;

    std::size_t stages() const { return b.size(); }
    bool adaptive() const { return embedded_order > 0; }
    // The last stage is evaluated at the new solution (a_s = b, c_s = 1), so its derivative is
    // the next step's first stage.
    bool first_same_as_last() const;
};

// The tableau named (euler, rk4, rkck5, rkdp5, rkdverk6, rkf78, rkgl6, rklc4, trapezoid), or
// throws UsageError.
const ButcherTableau& butcher_tableau(const std::string& name);
const std::vector<ButcherTableau>& butcher_tableaux();

// Adams-Bashforth of order k: y_{n+1} = y_n + h sum_j weights[j] f_{n-j}, j = 0..k-1, the
// weights as integers over one denominator.
struct AdamsWeights {
    std::vector<double> num;
    double den = 1;
};
AdamsWeights adams_bashforth_weights(int order);  // order 1..5, else UsageError

// A symmetric composition of kick-drift-kick leapfrog substeps of weights w_k dt (sum 1).
struct Composition {
    std::string name;
    int order = 2;
    std::vector<double> weights;
};
const Composition& composition(const std::string& name);  // leapfrog, yoshida4, yoshida6

} // namespace partcl
