#pragma once
// The variants behind Fft, one per library: fft_with_vkfft.cpp (OpenCL), fft_with_cufft.cpp
// (CUDA).
#include <array>
#include <memory>

#include <partcl/runtime/real_buffer.hpp>

namespace partcl::detail {

class FftPlan {
public:
    virtual ~FftPlan() = default;
    // direction -1: forward, +1: inverse.
    virtual void run(Queue& queue, RealBuffer& data, int direction) = 0;
};

std::unique_ptr<FftPlan> fft_with_vkfft(Context& context, std::size_t device, Precision precision,
                                        const std::array<std::size_t, 3>& shape);
#ifdef PARTCL_WITH_CUDA
std::unique_ptr<FftPlan> fft_with_cufft(Context& context, std::size_t device, Precision precision,
                                        const std::array<std::size_t, 3>& shape);
#endif

} // namespace partcl::detail
