// Fft on OpenCL through VkFFT (Debian's libvkfft-dev, header-only), whose plans generate and
// build OpenCL kernels for the exact shape and precision.
#include <partcl/runtime/error.hpp>

#include "backend/opencl/opencl.hpp"

#define VKFFT_BACKEND 3
#include <vkFFT.h>

namespace partcl::detail::opencl {

namespace {

class VkfftPlan final : public FftPlan {
public:
    VkfftPlan(Context& context, std::size_t device, Precision precision,
              const std::array<std::size_t, 3>& shape)
        : context_(context.cl_context()()), device_(context.device(device).cl_device()()),
          queue_(context.queue(device).cl_queue()()) {
        const std::size_t dims = shape[2] > 1 ? 3 : shape[1] > 1 ? 2 : 1;
        bytes_ = 2 * shape[0] * shape[1] * shape[2] * size_of(precision);
        // VkFFT wants a buffer at plan time (it sizes its scratch from it); the transforms then
        // take the caller's buffer.
        scratch_ = RealBuffer(context, precision, 2 * shape[0] * shape[1] * shape[2]);
        cl_mem buffer = scratch_.cl_buffer()();
        VkFFTConfiguration configuration{};
        configuration.FFTdim = dims;
        for (std::size_t a = 0; a < 3; ++a) configuration.size[a] = shape[a];
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

    void run(Queue&, RealBuffer& data, int direction) override {
        cl_mem buffer = data.cl_buffer()();
        VkFFTLaunchParams launch{};
        launch.commandQueue = &queue_;
        launch.buffer = &buffer;
        const VkFFTResult result = VkFFTAppend(&app_, direction, &launch);
        if (result != VKFFT_SUCCESS)
            throw Error("Fft: VkFFT failed to enqueue a transform (VkFFT error " +
                        std::to_string(int(result)) + ")");
    }

private:
    ::cl_context context_;
    cl_device_id device_;
    cl_command_queue queue_;
    std::uint64_t bytes_ = 0;
    RealBuffer scratch_;
    VkFFTApplication app_{};
};

} // namespace

std::unique_ptr<FftPlan> fft_with_vkfft(Context& context, std::size_t device, Precision precision,
                                        const std::array<std::size_t, 3>& shape) {
    return std::make_unique<VkfftPlan>(context, device, precision, shape);
}

} // namespace partcl::detail::opencl
