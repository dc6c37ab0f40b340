#pragma once
// Neumaier's compensated sum: the error of adding n terms stays near one rounding of the
// result instead of growing with n, so energy drifts of 1e-12 are measurable over 1e6 bodies.
#include <cmath>

namespace partcl {

class CompensatedSum {
public:
    void add(double value) noexcept {
        const double t = sum_ + value;
        compensation_ += std::abs(sum_) >= std::abs(value) ? (sum_ - t) + value : (value - t) + sum_;
        sum_ = t;
    }
    CompensatedSum& operator+=(double value) noexcept {
        add(value);
        return *this;
    }
    double value() const noexcept { return sum_ + compensation_; }

private:
    double sum_ = 0.0;
    double compensation_ = 0.0;
};

} // namespace partcl
