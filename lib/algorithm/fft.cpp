#include <partcl/algorithm/fft.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/runtime/profile.hpp>

#include "backend/interface.hpp"

namespace partcl {

Fft::Fft(Context& context, Precision precision, std::array<std::size_t, 3> shape,
         std::size_t device, FftAxes axes)
    : context_(&context), precision_(precision), shape_(shape), axes_(axes), device_(device) {
    if (device >= context.size())
        throw UsageError("Fft: device " + std::to_string(device) + " of a context of " +
                         std::to_string(context.size()));
    for (std::size_t n : shape)
        if (n == 0 || n > 0x7fffffffull)
            throw UsageError("Fft: grid sizes must be in [1, 2^31), got " +
                             std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " x " +
                             std::to_string(shape[2]));
    if (!axes.along[0] && !axes.along[1] && !axes.along[2])
        throw UsageError("Fft: no axis to transform along");
    const DeviceInfo& info = context.device(device).info();
    if (precision == Precision::float64 && !info.fp64)
        throw Unsupported("Fft: double precision asked for, but " + info.name + " has no fp64");
    // The grid is one buffer (and VkFFT plans with a scratch buffer as large): refused here, by
    // name, rather than as an allocation failure inside the driver or the FFT library.
    const double bytes = 2.0 * double(shape[0]) * double(shape[1]) * double(shape[2]) *
                         double(size_of(precision));
    if (info.max_allocation > 0 && bytes > double(info.max_allocation))
        throw Unsupported("Fft: a " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) +
                          " x " + std::to_string(shape[2]) + " " + to_string(precision) +
                          " grid needs " + std::to_string(static_cast<long long>(bytes / 1048576)) +
                          " MiB in one buffer, but " + info.name + " allows at most " +
                          std::to_string(info.max_allocation >> 20) + " MiB");
    // Axes of one point change nothing in the layout: the libraries get the grid without them
    // (VkFFT refuses a leading axis of one point), and transforms of length 1 need no plan.
    std::array<std::size_t, 3> squeezed{1, 1, 1};
    std::array<bool, 3> along{false, false, false};
    std::size_t axis = 0;
    bool identity = true;
    for (std::size_t a = 0; a < 3; ++a) {
        if (shape[a] == 1) continue;
        squeezed[axis] = shape[a];
        along[axis++] = axes.along[a];
        identity = identity && !axes.along[a];
    }
    if (identity) return;
    plan_ = detail::backend(context.backend())
                .fft_plan(context.impl(), context.device(device).backend_device(), device, precision,
                          squeezed, along);
}

Fft::~Fft() = default;
Fft::Fft(Fft&&) noexcept = default;
Fft& Fft::operator=(Fft&&) noexcept = default;

void Fft::check(const RealBuffer& data) const {
    if (data.precision() != precision_)
        throw UsageError("Fft: a " + std::string(to_string(data.precision())) +
                         " buffer given to a " + to_string(precision_) + " plan");
    if (data.size() < 2 * points())
        throw UsageError("Fft: the buffer holds " + std::to_string(data.size()) + " reals, the " +
                         "grid needs " + std::to_string(2 * points()) + " (interleaved complex)");
}

void Fft::forward(RealBuffer& data) {
    check(data);
    Queue& queue = context_->queue(device_);
    if (plan_) profiled(queue, "fft (library)", [&] { plan_->run(queue.impl(), *data.memory().impl(), -1); });
}

void Fft::inverse(RealBuffer& data) {
    check(data);
    Queue& queue = context_->queue(device_);
    if (plan_) profiled(queue, "fft (library)", [&] { plan_->run(queue.impl(), *data.memory().impl(), +1); });
}

} // namespace partcl
