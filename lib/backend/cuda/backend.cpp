// The CUDA backend as one BackendImpl: the files of this folder, and the device algorithms with
// CUB (device_functions.cu) and cuFFT (fft.cpp). It is the whole of libpartcl-cuda, which
// libpartcl loads on first use through partcl_cuda_backend() (backend/loader.cpp).
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_functions.hpp"

namespace partcl::detail::cuda {

namespace {

class CudaBackend final : public BackendImpl {
public:
    std::vector<Device> enumerate_devices(std::size_t first_index,
                                          std::size_t platform_index) override {
        return cuda::enumerate_devices(first_index, platform_index);
    }
    std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices) override {
        return cuda::make_context(devices);
    }
    BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                       ProgramCache& cache) override {
        return cuda::build(context, source, options, cache);
    }

    void sort_by_key(Queue& queue, const MemoryImpl& keys, SortKey key_type,
                     const MemoryImpl& values, std::size_t n, unsigned key_bits) override {
        auto* v = device_address<std::uint32_t>(values);
        switch (key_type) {
        case SortKey::u32:
            return sort_pairs(stream_of(queue), device_address<std::uint32_t>(keys), v, n,
                              key_bits);
        case SortKey::f32: return sort_pairs(stream_of(queue), device_address<float>(keys), v, n);
        case SortKey::f64: return sort_pairs(stream_of(queue), device_address<double>(keys), v, n);
        }
    }
    void exclusive_scan(Queue& queue, const MemoryImpl& in, const MemoryImpl& out,
                        std::size_t n) override {
        exclusive_sum(stream_of(queue), device_address<std::uint32_t>(in),
                      device_address<std::uint32_t>(out), n);
    }
    double reduce_max(Queue& queue, const MemoryImpl& values, Precision precision,
                      std::size_t n) override {
        return precision == Precision::float64
                   ? max_of(stream_of(queue), device_address<double>(values), n)
                   : double(max_of(stream_of(queue), device_address<float>(values), n));
    }
    std::unique_ptr<FftPlan> fft_plan(Context& context, std::size_t device, Precision precision,
                                      const std::array<std::size_t, 3>& shape) override {
        return fft_with_cufft(context, device, precision, shape);
    }
};

} // namespace

} // namespace partcl::detail::cuda

// The one symbol libpartcl looks up in this library.
extern "C" __attribute__((visibility("default"))) partcl::detail::BackendImpl*
partcl_cuda_backend() {
    static partcl::detail::cuda::CudaBackend instance;
    return &instance;
}
