#include <partcl/integrate/integrator.hpp>

#include <algorithm>
#include <cmath>

namespace partcl {

namespace {

using Term = VectorOps::Term;

class Euler final : public Integrator {
public:
    Euler(VectorOps& ops, std::size_t n) : ops_(ops), n_(n), k_(ops.context(), ops.precision(), n) {}
    std::string name() const override { return "euler"; }
    int order() const override { return 1; }
    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        f(t, y, k_);
        ops_.combine(n_, y, 0, y, 0, {{dt, &k_}});
        return dt;
    }

private:
    VectorOps& ops_;
    std::size_t n_;
    RealBuffer k_;
};

// Kick-drift-kick. The acceleration at the end of a step is the one at the start of the next,
// so it is kept: one evaluation per step. It depends on positions only, so changing velocities
// between steps (damping) leaves it valid.
class Leapfrog final : public Integrator {
public:
    Leapfrog(VectorOps& ops, std::size_t n) : ops_(ops), n_(n), a_(ops.context(), ops.precision(), n) {
        if (n % 2) throw UsageError("leapfrog needs a second-order system: an even state size");
    }
    std::string name() const override { return "leapfrog"; }
    int order() const override { return 2; }
    void reset() override { valid_ = false; }
    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        const std::size_t h = n_ / 2;
        if (!valid_) f(t, y, a_);
        ops_.combine(h, y, h, y, h, {{dt / 2, &a_, h}});
        ops_.combine(h, y, 0, y, 0, {{dt, &y, h}});
        f(t + dt, y, a_);
        ops_.combine(h, y, h, y, h, {{dt / 2, &a_, h}});
        valid_ = true;
        return dt;
    }

private:
    VectorOps& ops_;
    std::size_t n_;
    RealBuffer a_;
    bool valid_ = false;
};

// The classical fourth-order step, given k1 = f(t, y) already.
class RungeKutta4Stages {
public:
    RungeKutta4Stages(VectorOps& ops, std::size_t n)
        : ops_(ops), n_(n), k2_(ops.context(), ops.precision(), n),
          k3_(ops.context(), ops.precision(), n), k4_(ops.context(), ops.precision(), n),
          tmp_(ops.context(), ops.precision(), n) {}
    void finish(const Derivative& f, double t, RealBuffer& y, double dt, const RealBuffer& k1) {
        ops_.combine(n_, tmp_, 0, y, 0, {{dt / 2, &k1}});
        f(t + dt / 2, tmp_, k2_);
        ops_.combine(n_, tmp_, 0, y, 0, {{dt / 2, &k2_}});
        f(t + dt / 2, tmp_, k3_);
        ops_.combine(n_, tmp_, 0, y, 0, {{dt, &k3_}});
        f(t + dt, tmp_, k4_);
        ops_.combine(n_, y, 0, y, 0,
                     {{dt / 6, &k1}, {dt / 3, &k2_}, {dt / 3, &k3_}, {dt / 6, &k4_}});
    }

private:
    VectorOps& ops_;
    std::size_t n_;
    RealBuffer k2_, k3_, k4_, tmp_;
};

class RungeKutta4 final : public Integrator {
public:
    RungeKutta4(VectorOps& ops, std::size_t n)
        : k1_(ops.context(), ops.precision(), n), stages_(ops, n) {}
    std::string name() const override { return "rk4"; }
    int order() const override { return 4; }
    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        f(t, y, k1_);
        stages_.finish(f, t, y, dt, k1_);
        return dt;
    }

private:
    RealBuffer k1_;
    RungeKutta4Stages stages_;
};

// Dormand & Prince (1980) 5(4) with first-same-as-last and the usual step controller
// (safety 0.9, growth within [0.2, 5]); the error is measured in the max norm of
// e_i / (atol + rtol max(|y_i|, |y_new_i|)), formed from the stages directly (not as the
// difference of two solutions, which float could not resolve).
class DormandPrince54 final : public Integrator {
public:
    DormandPrince54(VectorOps& ops, std::size_t n, AdaptiveTolerances tolerances)
        : ops_(ops), n_(n), tolerances_(tolerances) {
        if (!(tolerances.atol > 0) || !(tolerances.rtol >= 0))
            throw UsageError("dopri5: atol must be positive and rtol non-negative");
        for (auto* b : {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &tmp_, &err_, &zero_})
            *b = RealBuffer(ops.context(), ops.precision(), n);
        // Waited for: every device of the context reads it.
        zero_.fill(ops.context().queue(0), 0.0).wait();
    }
    std::string name() const override { return "dopri5"; }
    int order() const override { return 5; }
    bool adaptive() const override { return true; }
    double next_dt() const override { return next_; }
    void reset() override { fsal_ = false; }
    IntegratorState save() const override { return {{}, {next_}}; }
    void restore(const IntegratorState& s) override {
        next_ = s.scalars.empty() ? 0.0 : s.scalars.at(0);
        fsal_ = false;
    }

    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        if (!fsal_) f(t, y, k1_);
        double h = dt;
        for (int attempt = 0;; ++attempt) {
            if (!(h > 0) || t + h == t || attempt > 100)
                throw Error("dopri5: step size underflow at t = " + std::to_string(t) +
                            " (the solution may be singular, or the tolerances too tight for " +
                            to_string(ops_.precision()) + ")");
            ops_.combine(n_, tmp_, 0, y, 0, {{h / 5, &k1_}});
            f(t + h / 5, tmp_, k2_);
            ops_.combine(n_, tmp_, 0, y, 0, {{h * 3 / 40, &k1_}, {h * 9 / 40, &k2_}});
            f(t + h * 3 / 10, tmp_, k3_);
            ops_.combine(n_, tmp_, 0, y, 0,
                         {{h * 44 / 45, &k1_}, {-h * 56 / 15, &k2_}, {h * 32 / 9, &k3_}});
            f(t + h * 4 / 5, tmp_, k4_);
            ops_.combine(n_, tmp_, 0, y, 0,
                         {{h * 19372 / 6561, &k1_}, {-h * 25360 / 2187, &k2_},
                          {h * 64448 / 6561, &k3_}, {-h * 212 / 729, &k4_}});
            f(t + h * 8 / 9, tmp_, k5_);
            ops_.combine(n_, tmp_, 0, y, 0,
                         {{h * 9017 / 3168, &k1_}, {-h * 355 / 33, &k2_},
                          {h * 46732 / 5247, &k3_}, {h * 49 / 176, &k4_},
                          {-h * 5103 / 18656, &k5_}});
            f(t + h, tmp_, k6_);
            ops_.combine(n_, tmp_, 0, y, 0,
                         {{h * 35 / 384, &k1_}, {h * 500 / 1113, &k3_}, {h * 125 / 192, &k4_},
                          {-h * 2187 / 6784, &k5_}, {h * 11 / 84, &k6_}});
            f(t + h, tmp_, k7_);
            ops_.combine(n_, err_, 0, zero_, 0,
                         {{h * 71 / 57600, &k1_}, {-h * 71 / 16695, &k3_}, {h * 71 / 1920, &k4_},
                          {-h * 17253 / 339200, &k5_}, {h * 22 / 525, &k6_},
                          {-h / 40, &k7_}});
            const double error =
                ops_.max_scaled_error(n_, err_, y, tmp_, tolerances_.atol, tolerances_.rtol);
            const double factor =
                error > 0 ? 0.9 * std::pow(error, -0.2) : 5.0;
            if (error <= 1.0) {
                ops_.copy(n_, tmp_, 0, y, 0);
                std::swap(k1_, k7_);
                fsal_ = true;
                next_ = h * std::clamp(factor, 0.2, 5.0);
                return h;
            }
            h *= std::clamp(factor, 0.2, 1.0);
        }
    }

private:
    VectorOps& ops_;
    std::size_t n_;
    AdaptiveTolerances tolerances_;
    RealBuffer k1_, k2_, k3_, k4_, k5_, k6_, k7_, tmp_, err_, zero_;
    bool fsal_ = false;
    double next_ = 0.0;
};

// Adams-Bashforth 5 with a constant step; the first four steps are RK4 while the history of
// derivatives fills. A change of dt restarts the history.
class AdamsBashforth5 final : public Integrator {
public:
    AdamsBashforth5(VectorOps& ops, std::size_t n) : ops_(ops), n_(n), rk4_(ops, n) {
        for (auto& b : history_) b = RealBuffer(ops.context(), ops.precision(), n);
    }
    std::string name() const override { return "ab5"; }
    int order() const override { return 5; }
    void reset() override { count_ = 0; }

    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        if (count_ > 0 && dt != dt_) count_ = 0;
        dt_ = dt;
        // history_[0] is f_n, [1] f_{n-1}, ...: rotate so the oldest is overwritten.
        std::rotate(history_.begin(), history_.end() - 1, history_.end());
        f(t, y, history_[0]);
        if (count_ < 4) {
            rk4_.finish(f, t, y, dt, history_[0]);
        } else {
            ops_.combine(n_, y, 0, y, 0,
                         {{dt * 1901 / 720, &history_[0]}, {-dt * 2774 / 720, &history_[1]},
                          {dt * 2616 / 720, &history_[2]}, {-dt * 1274 / 720, &history_[3]},
                          {dt * 251 / 720, &history_[4]}});
        }
        count_ = std::min<std::size_t>(count_ + 1, 4);
        return dt;
    }

    // Blocking transfers on device 0's queue: every VectorOps operation and derivative returns
    // with its output complete on all devices, so a read sees the whole vector, and a write is
    // complete before any device reads it.
    IntegratorState save() const override {
        IntegratorState s;
        for (std::size_t i = 0; i < count_; ++i)
            s.vectors.push_back(history_[i].read(ops_.context().queue(0)));
        s.scalars = {double(count_), dt_};
        return s;
    }
    void restore(const IntegratorState& s) override {
        count_ = s.scalars.empty() ? 0 : static_cast<std::size_t>(s.scalars.at(0));
        dt_ = s.scalars.size() > 1 ? s.scalars[1] : 0.0;
        if (s.vectors.size() != count_)
            throw UsageError("ab5: checkpoint holds " + std::to_string(s.vectors.size()) +
                             " derivatives for a history of " + std::to_string(count_));
        for (std::size_t i = 0; i < count_; ++i)
            history_[i].write(ops_.context().queue(0), s.vectors[i]);
    }

private:
    VectorOps& ops_;
    std::size_t n_;
    RungeKutta4Stages rk4_;
    std::vector<RealBuffer> history_ = std::vector<RealBuffer>(5);
    std::size_t count_ = 0;  // previous derivatives held (0..4)
    double dt_ = 0.0;
};

} // namespace

const std::vector<std::string>& integrator_names() {
    static const std::vector<std::string> names{"euler", "leapfrog", "rk4", "dopri5", "ab5"};
    return names;
}

bool integrator_adapts_step(const std::string& name) { return name == "dopri5"; }

// Counts of the RealBuffers the classes above allocate: keep them in step.
std::size_t integrator_work_vectors(const std::string& name) {
    if (name == "rk4") return 5;     // k1..k4, tmp
    if (name == "dopri5") return 10; // k1..k7, tmp, err, zero (+ a scratch of 1 in VectorOps)
    if (name == "ab5") return 9;     // 5 derivatives, rk4's k2..k4 and tmp
    return 1;                        // euler: k; leapfrog: a
}

std::unique_ptr<Integrator> make_integrator(const std::string& name, VectorOps& ops,
                                            std::size_t state_size,
                                            AdaptiveTolerances tolerances) {
    if (name == "euler") return std::make_unique<Euler>(ops, state_size);
    if (name == "leapfrog") return std::make_unique<Leapfrog>(ops, state_size);
    if (name == "rk4") return std::make_unique<RungeKutta4>(ops, state_size);
    if (name == "dopri5") return std::make_unique<DormandPrince54>(ops, state_size, tolerances);
    if (name == "ab5") return std::make_unique<AdamsBashforth5>(ops, state_size);
    std::string known;
    for (const auto& n : integrator_names()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown integrator '" + name + "' (known: " + known + ")");
}

} // namespace partcl
