// The CUDA backend's device algorithms: sort, scan and reduce with CUB (algorithms.cu, compiled
// by nvcc), and FFTs with cuFFT, on the queue's stream.
#include <memory>
#include <vector>

#include <cufft.h>

#include "backend/cuda/algorithms.hpp"
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

void check_cufft(cufftResult status, const char* call) {
    if (status != CUFFT_SUCCESS)
        throw Error(std::string(call) + " failed: cuFFT status " + std::to_string(int(status)));
}

// The transforms along one run of adjacent axes [first, last] of a grid, x fastest: a cuFFT
// plan of rank last - first + 1 batched over the axes below the run (stride) or above it
// (distance); where there are axes on both sides, the plan runs once per index of those above.
class CufftRun {
public:
    CufftRun(Precision precision, const std::array<std::size_t, 3>& shape, int first, int last)
        : precision_(precision) {
        const cufftType type = precision == Precision::float64 ? CUFFT_Z2Z : CUFFT_C2C;
        long long n[3];  // row-major for cuFFT: the slowest of the run first
        long long length = 1;
        for (int a = last; a >= first; --a) {
            n[last - a] = static_cast<long long>(shape[std::size_t(a)]);
            length *= n[last - a];
        }
        long long below = 1, above = 1;
        for (int a = 0; a < first; ++a) below *= static_cast<long long>(shape[std::size_t(a)]);
        for (int a = last + 1; a < 3; ++a) above *= static_cast<long long>(shape[std::size_t(a)]);
        const long long batch = below > 1 ? below : above;
        const long long stride = below, distance = below > 1 ? 1 : length;
        repeats_ = below > 1 ? std::size_t(above) : 1;
        step_ = std::size_t(below * length);
        check_cufft(cufftCreate(&plan_), "cufftCreate");
        std::size_t work = 0;
        const cufftResult status = cufftMakePlanMany64(plan_, last - first + 1, n, n, stride,
                                                       distance, n, stride, distance, type, batch,
                                                       &work);
        if (status != CUFFT_SUCCESS) {
            cufftDestroy(plan_);
            throw Unsupported("Fft: cuFFT cannot plan a " + std::to_string(shape[0]) + " x " +
                              std::to_string(shape[1]) + " x " + std::to_string(shape[2]) +
                              " transform along axes " + std::to_string(first) + "-" +
                              std::to_string(last) + " (cuFFT status " +
                              std::to_string(int(status)) + ")");
        }
    }
    ~CufftRun() { cufftDestroy(plan_); }
    CufftRun(const CufftRun&) = delete;
    CufftRun& operator=(const CufftRun&) = delete;

    void run(cudaStream_t stream, MemoryImpl& data, int sign) {
        check_cufft(cufftSetStream(plan_, stream), "cufftSetStream");
        for (std::size_t j = 0; j < repeats_; ++j) {
            if (precision_ == Precision::float64) {
                auto* z = device_address<cufftDoubleComplex>(data) + j * step_;
                check_cufft(cufftExecZ2Z(plan_, z, z, sign), "cufftExecZ2Z");
            } else {
                auto* c = device_address<cufftComplex>(data) + j * step_;
                check_cufft(cufftExecC2C(plan_, c, c, sign), "cufftExecC2C");
            }
        }
    }

private:
    Precision precision_;
    cufftHandle plan_ = 0;
    std::size_t repeats_ = 1, step_ = 0;
};

// One CufftRun per run of adjacent transformed axes (two only for x and z without y): the
// transforms along different axes commute.
class CufftPlan final : public FftPlan {
public:
    CufftPlan(const BackendDevice& device, Precision precision,
              const std::array<std::size_t, 3>& shape, const std::array<bool, 3>& axes) {
        use_device(device.ordinal);
        for (int a = 0; a < 3;) {
            if (!axes[std::size_t(a)] || shape[std::size_t(a)] == 1) {
                ++a;
                continue;
            }
            int last = a;
            while (last + 1 < 3 && axes[std::size_t(last + 1)] && shape[std::size_t(last + 1)] > 1)
                ++last;
            runs_.push_back(std::make_unique<CufftRun>(precision, shape, a, last));
            a = last + 1;
        }
    }

    void run(QueueImpl& queue, MemoryImpl& data, int direction) override {
        const int sign = direction < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
        for (auto& run : runs_) run->run(stream_of(queue), data, sign);
    }

private:
    std::vector<std::unique_ptr<CufftRun>> runs_;
};

template <class T>
double reduce_typed(cudaStream_t stream, const T* values, std::size_t n, Reduction op) {
    switch (op) {
    case Reduction::sum: return reduce_values(stream, values, n, CubReduction::sum);
    case Reduction::min: return reduce_values(stream, values, n, CubReduction::min);
    case Reduction::max: return reduce_values(stream, values, n, CubReduction::max);
    }
    throw Error("reduce: unknown reduction");
}

} // namespace

void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                 const MemoryImpl& values, std::size_t n, unsigned key_bits) {
    auto* v = device_address<std::uint32_t>(values);
    switch (key_type) {
    case SortKey::u32:
        return sort_pairs(stream_of(queue), device_address<std::uint32_t>(keys), v, n, key_bits);
    case SortKey::f32: return sort_pairs(stream_of(queue), device_address<float>(keys), v, n);
    case SortKey::f64: return sort_pairs(stream_of(queue), device_address<double>(keys), v, n);
    }
}

void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out, std::size_t n) {
    exclusive_sum(stream_of(queue), device_address<std::uint32_t>(in),
                  device_address<std::uint32_t>(out), n);
}

double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision, std::size_t n,
              Reduction op) {
    return precision == Precision::float64
               ? reduce_typed(stream_of(queue), device_address<double>(values), n, op)
               : reduce_typed(stream_of(queue), device_address<float>(values), n, op);
}

std::unique_ptr<FftPlan> fft_plan(const BackendDevice& device, Precision precision,
                                  const std::array<std::size_t, 3>& shape,
                                  const std::array<bool, 3>& axes) {
    return std::make_unique<CufftPlan>(device, precision, shape, axes);
}

} // namespace partcl::detail::cuda
