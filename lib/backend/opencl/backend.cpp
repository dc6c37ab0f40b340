// The OpenCL backend as one BackendImpl: the files of this folder, and the device algorithms
// with Boost.Compute (sort, scan, reduce) and VkFFT (fft.cpp).
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/stable_sort_by_key.hpp>
#include <boost/compute/functional/operator.hpp>

#include "backend/opencl/boost_compute.hpp"
#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

template <class Key>
void sort_with_boost_compute(Queue& queue, const cl::Buffer& keys, const cl::Buffer& values,
                             std::size_t n) {
    auto q = boost_queue(queue);
    boost::compute::stable_sort_by_key(boost_iterator<Key>(keys, 0), boost_iterator<Key>(keys, n),
                                       boost_iterator<std::uint32_t>(values, 0), q);
}

template <class T>
double max_with_boost_compute(Queue& queue, const cl::Buffer& values, std::size_t n) {
    auto q = boost_queue(queue);
    T result = 0;
    boost::compute::reduce(boost_iterator<T>(values, 0), boost_iterator<T>(values, n), &result,
                           boost::compute::max<T>(), q);
    return double(result);
}

class OpenclBackend final : public BackendImpl {
public:
    std::vector<Device> enumerate_devices(std::size_t, std::size_t) override {
        return opencl::enumerate_devices();
    }
    std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices) override {
        return opencl::make_context(devices);
    }
    BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                       ProgramCache& cache) override {
        return opencl::build(context, source, options, cache);
    }

    // Boost.Compute sorts every bit of the keys; key_bits only speeds up CUB's radix sort.
    void sort_by_key(Queue& queue, const MemoryImpl& keys, SortKey key_type,
                     const MemoryImpl& values, std::size_t n, unsigned) override {
        const cl::Buffer &k = cl_buffer(keys), &v = cl_buffer(values);
        switch (key_type) {
        case SortKey::u32: return sort_with_boost_compute<std::uint32_t>(queue, k, v, n);
        case SortKey::f32: return sort_with_boost_compute<float>(queue, k, v, n);
        case SortKey::f64: return sort_with_boost_compute<double>(queue, k, v, n);
        }
    }
    void exclusive_scan(Queue& queue, const MemoryImpl& in, const MemoryImpl& out,
                        std::size_t n) override {
        auto q = boost_queue(queue);
        boost::compute::exclusive_scan(boost_iterator<std::uint32_t>(cl_buffer(in), 0),
                                       boost_iterator<std::uint32_t>(cl_buffer(in), n),
                                       boost_iterator<std::uint32_t>(cl_buffer(out), 0), q);
    }
    double reduce_max(Queue& queue, const MemoryImpl& values, Precision precision,
                      std::size_t n) override {
        return precision == Precision::float64
                   ? max_with_boost_compute<double>(queue, cl_buffer(values), n)
                   : max_with_boost_compute<float>(queue, cl_buffer(values), n);
    }
    std::unique_ptr<FftPlan> fft_plan(Context& context, std::size_t device, Precision precision,
                                      const std::array<std::size_t, 3>& shape) override {
        return fft_with_vkfft(context, device, precision, shape);
    }
};

} // namespace

BackendImpl& backend() {
    static OpenclBackend instance;
    return instance;
}

} // namespace partcl::detail::opencl
