// The OpenCL backend as one BackendImpl, assembled from the files of this folder.
#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclBackend final : public BackendImpl {
public:
    std::vector<BackendDevice> enumerate_devices(std::size_t, std::size_t) override {
        return opencl::enumerate_devices();
    }
    std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices,
                                              bool separate_memories) override {
        return opencl::make_context(devices, separate_memories);
    }
    BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                       const ProgramSource& source, const BuildOptions& options,
                       const BinaryCache& cache) override {
        return opencl::build(context, devices, source, options, cache);
    }

    // Boost.Compute sorts every bit of the keys; key_bits only speeds up CUB's radix sort.
    void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                     const MemoryImpl& values, std::size_t n, unsigned) override {
        opencl::sort_by_key(queue, keys, key_type, values, n);
    }
    void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out,
                        std::size_t n) override {
        opencl::exclusive_scan(queue, in, out, n);
    }
    double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision,
                  std::size_t n, Reduction op) override {
        return opencl::reduce(queue, values, precision, n, op);
    }
    std::unique_ptr<FftPlan> fft_plan(ContextImpl& context, const BackendDevice& device,
                                      std::size_t index, Precision precision,
                                      const std::array<std::size_t, 3>& shape,
                                      const std::array<bool, 3>& axes) override {
        return opencl::fft_plan(context, device, index, precision, shape, axes);
    }
};

} // namespace

BackendImpl& backend() {
    static OpenclBackend instance;
    return instance;
}

} // namespace partcl::detail::opencl
