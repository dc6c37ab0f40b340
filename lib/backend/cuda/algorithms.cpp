// The CUDA backend's device algorithms: sort, scan and reduce with CUB (algorithms.cu, compiled
// by nvcc), and FFTs with cuFFT, on the queue's stream.
#include <cufft.h>

#include "backend/cuda/algorithms.hpp"
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

void check_cufft(cufftResult status, const char* call) {
    if (status != CUFFT_SUCCESS)
        throw Error(std::string(call) + " failed: cuFFT status " + std::to_string(int(status)));
}

class CufftPlan final : public FftPlan {
public:
    CufftPlan(const BackendDevice& device, Precision precision,
              const std::array<std::size_t, 3>& shape)
        : precision_(precision) {
        use_device(device.ordinal);
        const cufftType type = precision == Precision::float64 ? CUFFT_Z2Z : CUFFT_C2C;
        // cuFFT's arrays are row-major (last index fastest); partcl's grids have x fastest.
        const int nx = int(shape[0]), ny = int(shape[1]), nz = int(shape[2]);
        cufftResult status;
        if (nz > 1)
            status = cufftPlan3d(&plan_, nz, ny, nx, type);
        else if (ny > 1)
            status = cufftPlan2d(&plan_, ny, nx, type);
        else
            status = cufftPlan1d(&plan_, nx, type, 1);
        if (status != CUFFT_SUCCESS)
            throw Unsupported("Fft: cuFFT cannot plan a " + std::to_string(nx) + " x " +
                              std::to_string(ny) + " x " + std::to_string(nz) + " transform " +
                              "(cuFFT status " + std::to_string(int(status)) + ")");
    }
    ~CufftPlan() override { cufftDestroy(plan_); }
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;

    void run(QueueImpl& queue, MemoryImpl& data, int direction) override {
        check_cufft(cufftSetStream(plan_, stream_of(queue)), "cufftSetStream");
        const int sign = direction < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
        if (precision_ == Precision::float64) {
            auto* z = device_address<cufftDoubleComplex>(data);
            check_cufft(cufftExecZ2Z(plan_, z, z, sign), "cufftExecZ2Z");
        } else {
            auto* c = device_address<cufftComplex>(data);
            check_cufft(cufftExecC2C(plan_, c, c, sign), "cufftExecC2C");
        }
    }

private:
    Precision precision_;
    cufftHandle plan_ = 0;
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
                                  const std::array<std::size_t, 3>& shape) {
    return std::make_unique<CufftPlan>(device, precision, shape);
}

} // namespace partcl::detail::cuda
