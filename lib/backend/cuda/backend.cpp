// The CUDA backend as one BackendImpl, assembled from the files of this folder. It is the whole
// of libpartcl-cuda, which libpartcl loads on first use through partcl_cuda_backend()
// (backend/loader.cpp).
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

class CudaBackend final : public BackendImpl {
public:
    std::vector<BackendDevice> enumerate_devices(std::size_t first_index,
                                                 std::size_t platform_index) override {
        return cuda::enumerate_devices(first_index, platform_index);
    }
    // CUDA copies between GPUs directly (peer access, cuda/memory.cpp), whatever the model.
    std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices,
                                              bool) override {
        return cuda::make_context(devices);
    }
    BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                       const ProgramSource& source, const BuildOptions& options,
                       const BinaryCache& cache) override {
        return cuda::build(context, devices, source, options, cache);
    }

    void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                     const MemoryImpl& values, std::size_t n, unsigned key_bits) override {
        cuda::sort_by_key(queue, keys, key_type, values, n, key_bits);
    }
    void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out,
                        std::size_t n) override {
        cuda::exclusive_scan(queue, in, out, n);
    }
    double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision,
                  std::size_t n, Reduction op) override {
        return cuda::reduce(queue, values, precision, n, op);
    }
    std::unique_ptr<FftPlan> fft_plan(ContextImpl&, const BackendDevice& device, std::size_t,
                                      Precision precision,
                                      const std::array<std::size_t, 3>& shape,
                                      const std::array<bool, 3>& axes) override {
        return cuda::fft_plan(device, precision, shape, axes);
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
