// The OpenCL backend's device algorithms: sort, scan and reduce with Boost.Compute, and FFTs
// with VkFFT (Debian's libvkfft-dev, header-only), whose plans generate and build OpenCL kernels
// for the exact shape and precision.
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/stable_sort_by_key.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/functional/integer.hpp>  // min, max (OpenCL's, for reals too)
#include <boost/compute/functional/operator.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/memory_object.hpp>

#include "backend/opencl/opencl.hpp"

#define VKFFT_BACKEND 3
#include <vkFFT.h>

namespace partcl::detail::opencl {

namespace {

// Views of partcl's OpenCL objects as Boost.Compute ones, retained (not adopted), so the
// library's algorithms run on partcl's queues and buffers without copies.
boost::compute::command_queue boost_queue(QueueImpl& queue) {
    return boost::compute::command_queue(cl_queue(queue)(), true);
}

template <class T>
boost::compute::buffer_iterator<T> boost_iterator(const cl::Buffer& buffer, std::size_t index) {
    return boost::compute::make_buffer_iterator<T>(boost::compute::buffer(buffer(), true), index);
}

// A library's kernels on a context that needs LaunchTurns take one turn for the whole call,
// keyed by the library's name in parentheses (no kernel's name): it waits for the library's
// last call on another queue, and a marker after it is the turn's event.
template <class Run>
void in_turn(QueueImpl& queue, const std::string& library, Run&& run) {
    LaunchTurns* turns = launch_turns(queue);
    if (!turns) return run();
    cl::CommandQueue& q = cl_queue(queue);
    turns->take("(" + library + ")", q, [&](const std::vector<cl::Event>* wait) {
        if (wait)
            check(q.enqueueBarrierWithWaitList(wait), "clEnqueueBarrierWithWaitList");
        run();
        cl::Event done;
        check(q.enqueueMarkerWithWaitList(nullptr, &done), "clEnqueueMarkerWithWaitList");
        return done;
    });
}

template <class Key>
void sort_with_boost_compute(QueueImpl& queue, const cl::Buffer& keys, const cl::Buffer& values,
                             std::size_t n) {
    auto q = boost_queue(queue);
    in_turn(queue, "Boost.Compute", [&] {
        boost::compute::stable_sort_by_key(boost_iterator<Key>(keys, 0),
                                           boost_iterator<Key>(keys, n),
                                           boost_iterator<std::uint32_t>(values, 0), q);
    });
}

template <class T, class Function>
double reduce_with_boost_compute(QueueImpl& queue, const cl::Buffer& values, std::size_t n,
                                 Function function) {
    auto q = boost_queue(queue);
    T result = 0;
    in_turn(queue, "Boost.Compute", [&] {
        boost::compute::reduce(boost_iterator<T>(values, 0), boost_iterator<T>(values, n), &result,
                               function, q);
    });
    return double(result);
}

template <class T>
double reduce_typed(QueueImpl& queue, const cl::Buffer& values, std::size_t n, Reduction op) {
    switch (op) {
    case Reduction::sum:
        return reduce_with_boost_compute<T>(queue, values, n, boost::compute::plus<T>());
    case Reduction::min:
        return reduce_with_boost_compute<T>(queue, values, n, boost::compute::min<T>());
    case Reduction::max:
        return reduce_with_boost_compute<T>(queue, values, n, boost::compute::max<T>());
    }
    throw Error("reduce: unknown reduction");
}

class VkfftPlan final : public FftPlan {
public:
    VkfftPlan(ContextImpl& context, const BackendDevice& device, std::size_t index,
              Precision precision, const std::array<std::size_t, 3>& shape,
              const std::array<bool, 3>& axes)
        : context_(cl_context(context)()), device_(static_cast<cl_device_id>(device.device)),
          queue_(cl_queue(*context.queue(index))()) {
        const std::size_t dims = shape[2] > 1 ? 3 : shape[1] > 1 ? 2 : 1;
        bytes_ = 2 * shape[0] * shape[1] * shape[2] * size_of(precision);
        // VkFFT wants a buffer at plan time (it sizes its scratch from it); the transforms then
        // take the caller's buffer.
        scratch_ = context.allocate(bytes_, index);
        cl_mem buffer = cl_buffer(*scratch_)();
        VkFFTConfiguration configuration{};
        configuration.FFTdim = dims;
        for (std::size_t a = 0; a < 3; ++a) {
            configuration.size[a] = shape[a];
            configuration.omitDimension[a] = a < dims && !axes[a] ? 1 : 0;
        }
        configuration.device = &device_;
        configuration.context = &context_;
        configuration.doublePrecision = precision == Precision::float64;
        configuration.normalize = 0;
        configuration.bufferSize = &bytes_;
        configuration.buffer = &buffer;
        const VkFFTResult result = initializeVkFFT(&app_, configuration);
        if (result != VKFFT_SUCCESS)
            throw Unsupported("Fft: VkFFT cannot plan a " + std::to_string(shape[0]) + " x " +
                              std::to_string(shape[1]) + " x " + std::to_string(shape[2]) + " " +
                              to_string(precision) + " transform (VkFFT error " +
                              std::to_string(int(result)) + ")");
    }
    ~VkfftPlan() override { deleteVkFFT(&app_); }
    VkfftPlan(const VkfftPlan&) = delete;
    VkfftPlan& operator=(const VkfftPlan&) = delete;

    void run(QueueImpl& queue, MemoryImpl& data, int direction) override {
        cl_mem buffer = cl_buffer(data)();
        VkFFTLaunchParams launch{};
        launch.commandQueue = &queue_;
        launch.buffer = &buffer;
        VkFFTResult result = VKFFT_SUCCESS;
        in_turn(queue, "VkFFT", [&] { result = VkFFTAppend(&app_, direction, &launch); });
        if (result != VKFFT_SUCCESS)
            throw Error("Fft: VkFFT failed to enqueue a transform (VkFFT error " +
                        std::to_string(int(result)) + ")");
    }

private:
    ::cl_context context_;
    cl_device_id device_;
    cl_command_queue queue_;
    std::uint64_t bytes_ = 0;
    std::shared_ptr<MemoryImpl> scratch_;
    VkFFTApplication app_{};
};

} // namespace

void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                 const MemoryImpl& values, std::size_t n) {
    const cl::Buffer &k = cl_buffer(keys), &v = cl_buffer(values);
    switch (key_type) {
    case SortKey::u32: return sort_with_boost_compute<std::uint32_t>(queue, k, v, n);
    case SortKey::f32: return sort_with_boost_compute<float>(queue, k, v, n);
    case SortKey::f64: return sort_with_boost_compute<double>(queue, k, v, n);
    }
}

void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out, std::size_t n) {
    auto q = boost_queue(queue);
    in_turn(queue, "Boost.Compute", [&] {
        boost::compute::exclusive_scan(boost_iterator<std::uint32_t>(cl_buffer(in), 0),
                                       boost_iterator<std::uint32_t>(cl_buffer(in), n),
                                       boost_iterator<std::uint32_t>(cl_buffer(out), 0), q);
    });
}

double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision, std::size_t n,
              Reduction op) {
    return precision == Precision::float64
               ? reduce_typed<double>(queue, cl_buffer(values), n, op)
               : reduce_typed<float>(queue, cl_buffer(values), n, op);
}

std::unique_ptr<FftPlan> fft_plan(ContextImpl& context, const BackendDevice& device,
                                  std::size_t index, Precision precision,
                                  const std::array<std::size_t, 3>& shape,
                                  const std::array<bool, 3>& axes) {
    return std::make_unique<VkfftPlan>(context, device, index, precision, shape, axes);
}

} // namespace partcl::detail::opencl
