#pragma once
// Fft: in-place complex discrete Fourier transforms of 1-, 2- or 3-D grids on one device, for the
// field solves of particle-in-cell. Data are interleaved (re, im) pairs of `real`, x fastest:
// element (i, j, k) is pair i + nx (j + ny k) of a RealBuffer of 2 nx ny nz reals.
//
//   forward:  X[k] = sum_n x[n] exp(-2 pi i k n / N)      (per axis)
//   inverse:  x[n] = sum_k X[k] exp(+2 pi i k n / N)      (unnormalised: forward then inverse
//                                                           multiplies by nx ny nz)
//
// A plan may transform along some axes only (FftAxes): then it makes one transform along those
// axes for each index of the others, e.g. the planes of a stack of 2-D grids, {nx, ny, planes}
// along x and y, or the columns of a grid, along y alone. dist::SlabFft builds the transform of
// a grid cut between ranks from such pieces.
//
// On OpenCL, VkFFT (which generates and builds its kernels when the plan is made); on CUDA,
// cuFFT. A plan is made once per shape and precision and reused.
#include <array>
#include <memory>

#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

namespace detail {
class FftPlan;
}

// The axes a plan transforms along (x, y, z); every one by default.
struct FftAxes {
    std::array<bool, 3> along{true, true, true};
    static FftAxes only(int axis) {
        FftAxes axes{{false, false, false}};
        axes.along.at(std::size_t(axis)) = true;
        return axes;
    }
};

class Fft {
public:
    // shape {nx, ny, nz}; use 1 for the unused trailing axes of 1-D and 2-D grids. UsageError
    // for a size of 0 or from 2^31 on, or no axis to transform along; Unsupported naming the
    // grid for one whose 2 nx ny nz reals exceed the device's largest buffer
    // (DeviceInfo::max_allocation) or that the library cannot transform (VkFFT planned every
    // size tried, primes and Bluestein included).
    Fft(Context& context, Precision precision, std::array<std::size_t, 3> shape,
        std::size_t device = 0, FftAxes axes = {});
    ~Fft();
    Fft(Fft&&) noexcept;
    Fft& operator=(Fft&&) noexcept;

    const std::array<std::size_t, 3>& shape() const noexcept { return shape_; }
    const FftAxes& axes() const noexcept { return axes_; }
    std::size_t points() const noexcept { return shape_[0] * shape_[1] * shape_[2]; }
    Precision precision() const noexcept { return precision_; }

    // Enqueued on the plan's device queue; `data` holds 2 points() reals of the plan's precision.
    void forward(RealBuffer& data);
    void inverse(RealBuffer& data);

private:
    void check(const RealBuffer& data) const;

    Context* context_;
    Precision precision_;
    std::array<std::size_t, 3> shape_;
    FftAxes axes_;
    std::size_t device_;
    std::unique_ptr<detail::FftPlan> plan_;
};

} // namespace partcl
