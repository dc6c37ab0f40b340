// Symplectic splittings of a second-order system y = (q | p), f = (p | a(q)): kick-drift-kick
// leapfrog, and symmetric compositions of leapfrog substeps (Yoshida). The acceleration at the
// end of a substep is the one at the start of the next, so it is kept: one evaluation per
// substep. It depends on positions only, so changing velocities between steps (damping) leaves
// it valid.
#include "engines.hpp"

namespace partcl::detail {

namespace {

class Splitting final : public Integrator {
public:
    Splitting(std::string name, const Composition& method, VectorOps& ops, std::size_t n)
        : name_(std::move(name)), method_(method), ops_(ops), n_(n),
          a_(ops.context(), ops.precision(), n) {
        if (n % 2)
            throw UsageError(name_ + " needs a second-order system: an even state size");
    }
    std::string name() const override { return name_; }
    int order() const override { return method_.order; }
    void reset() override { valid_ = false; }
    // The kept derivative (whose second half is the acceleration) travels with a checkpoint, so that a resumed run evaluates the
    // forces exactly where the uninterrupted one would (a model whose evaluation depends on
    // the one before, as a refitted tree does, then resumes bit for bit too). A checkpoint
    // without it (older ones) evaluates it again.
    IntegratorState save() const override {
        if (!valid_) return {};
        return {{a_.read(ops_.context().queue(0))}, {}};
    }
    void restore(const IntegratorState& s) override {
        valid_ = s.vectors.size() == 1;
        if (!valid_) return;
        if (s.vectors[0].size() != n_)
            throw UsageError(name_ + ": checkpoint holds a derivative of " + std::to_string(s.vectors[0].size()) +
                             " values for a state of " + std::to_string(n_));
        a_.write(ops_.context().queue(0), s.vectors[0]);
    }

    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        const std::size_t h = n_ / 2;
        if (!valid_) f(t, y, a_);
        double elapsed = 0;
        for (double w : method_.weights) {
            const double sub = dt * w;
            ops_.combine(h, y, h, y, h, {{sub / 2, &a_, h}});
            ops_.combine(h, y, 0, y, 0, {{sub, &y, h}});
            elapsed += w;
            f(t + dt * elapsed, y, a_);
            ops_.combine(h, y, h, y, h, {{sub / 2, &a_, h}});
        }
        valid_ = true;
        return dt;
    }

private:
    std::string name_;
    const Composition& method_;
    VectorOps& ops_;
    std::size_t n_;
    RealBuffer a_;
    bool valid_ = false;
};

} // namespace

std::unique_ptr<Integrator> make_composition(std::string name, const Composition& method,
                                             VectorOps& ops, std::size_t n) {
    return std::make_unique<Splitting>(std::move(name), method, ops, n);
}

} // namespace partcl::detail
