// Adams-Bashforth of order 1..5 with a constant step: y_{n+1} = y_n + h sum_j w_j f_{n-j}.
// While the history of derivatives fills, steps are RK4 (from the f_n already evaluated). A
// change of dt restarts the history.
#include "engines.hpp"

#include <algorithm>

namespace partcl::detail {

namespace {

class AdamsBashforth final : public Integrator {
public:
    AdamsBashforth(std::string name, int order, VectorOps& ops, std::size_t n)
        : name_(std::move(name)), order_(order), weights_(adams_bashforth_weights(order)),
          ops_(ops), n_(n), history_(std::size_t(order)) {
        for (auto& b : history_) b = RealBuffer(ops.context(), ops.precision(), n);
        if (order > 1)
            starter_ = std::make_unique<ExplicitRungeKutta>("rk4", butcher_tableau("rk4"), ops,
                                                            n, AdaptiveTolerances{}, true);
    }
    std::string name() const override { return name_; }
    int order() const override { return order_; }
    void reset() override { count_ = 0; }

    double step(const Derivative& f, double t, RealBuffer& y, double dt) override {
        if (count_ > 0 && dt != dt_) count_ = 0;
        dt_ = dt;
        // history_[0] is f_n, [1] f_{n-1}, ...: rotate so the oldest is overwritten.
        std::rotate(history_.begin(), history_.end() - 1, history_.end());
        f(t, y, history_[0]);
        if (count_ + 1 < history_.size()) {
            starter_->advance(f, t, y, dt, history_[0]);
        } else {
            std::vector<Coefficient> w;
            std::vector<const RealBuffer*> f_past;
            for (std::size_t j = 0; j < history_.size(); ++j) {
                w.push_back({weights_.num[j], weights_.den});
                f_past.push_back(&history_[j]);
            }
            combine_stages(ops_, n_, y, y, w, dt, f_past);
        }
        count_ = std::min(count_ + 1, history_.size() - 1);
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
        if (count_ >= history_.size() || s.vectors.size() != count_)
            throw UsageError(name_ + ": checkpoint holds " + std::to_string(s.vectors.size()) +
                             " derivatives for a history of " + std::to_string(count_) +
                             " (at most " + std::to_string(history_.size() - 1) + ")");
        for (std::size_t i = 0; i < count_; ++i)
            history_[i].write(ops_.context().queue(0), s.vectors[i]);
    }

private:
    std::string name_;
    int order_;
    AdamsWeights weights_;
    VectorOps& ops_;
    std::size_t n_;
    std::vector<RealBuffer> history_;
    std::unique_ptr<ExplicitRungeKutta> starter_;
    std::size_t count_ = 0;  // previous derivatives held (0..order - 1)
    double dt_ = 0.0;
};

} // namespace

std::unique_ptr<Integrator> make_adams_bashforth(std::string name, int order, VectorOps& ops,
                                                 std::size_t n) {
    return std::make_unique<AdamsBashforth>(std::move(name), order, ops, n);
}

std::size_t adams_bashforth_work_vectors(int order) {
    // The history, and the RK4 starter's k2..k4 and stage input.
    const std::size_t starter = ExplicitRungeKutta::work_vectors(butcher_tableau("rk4")) - 1;
    return std::size_t(order) + (order > 1 ? starter : 0);
}

} // namespace partcl::detail
