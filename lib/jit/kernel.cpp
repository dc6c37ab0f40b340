#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/profile.hpp>

#include "backend/interface.hpp"

#include <array>
#include <optional>

namespace partcl {

Kernel::Kernel(const Program& program, const std::string& name)
    : name_(name), precision_(program.precision()), backend_(program.backend()),
      kernel_(program.impl().kernel(name)) {}

Kernel& Kernel::set(std::uint32_t index, std::size_t size, const void* value) {
    // CUDA takes any bytes for a parameter; a wrong size would be read as garbage.
    if (const auto want = kernel_->parameter_size(index); want && *want != size)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ + "' takes " +
                         std::to_string(*want) + " bytes, not the " + std::to_string(size) +
                         " of the value given");
    kernel_->set(index, size, value);
    return *this;
}

namespace {

// The value's bytes as an integer of `size` bytes, when it fits in one of its signedness.
std::optional<std::array<unsigned char, 8>> narrowed(long long bits, bool is_signed,
                                                     std::size_t size) {
    if (size < 8) {
        const int width = int(8 * size);
        if (is_signed ? (bits < -(1LL << (width - 1)) || bits >= (1LL << (width - 1)))
                      : static_cast<unsigned long long>(bits) >> width != 0)
            return std::nullopt;
    }
    std::array<unsigned char, 8> bytes{};
    const auto pattern = static_cast<unsigned long long>(bits);
    for (std::size_t b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(pattern >> (8 * b));
    return bytes;  // little-endian, as every device partcl runs on
}

} // namespace

Kernel& Kernel::set_integer(std::uint32_t index, long long bits, bool is_signed, std::size_t size) {
    if (integer_sizes_.size() <= index) integer_sizes_.resize(index + 1, 0);
    // The parameter's size where known (learnt before, or from the backend); else each integer
    // size, the value's own first: OpenCL's driver refuses the sizes that differ.
    std::array<std::size_t, 5> sizes{size, 0, 0, 0, 0};
    std::size_t count = 1;
    if (integer_sizes_[index]) {
        sizes[0] = integer_sizes_[index];
    } else if (const auto want = kernel_->parameter_size(index)) {
        sizes[0] = *want;
    } else {
        for (const std::size_t width : {4, 8, 2, 1})
            if (width != size) sizes[count++] = width;
    }
    auto value = [&] {
        return is_signed ? std::to_string(bits) : std::to_string(static_cast<unsigned long long>(bits));
    };
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t width = sizes[i];
        const auto bytes = width <= 8 ? narrowed(bits, is_signed, width) : std::nullopt;
        if (!bytes) {
            if (count == 1)
                throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ +
                                 "' is an integer of " + std::to_string(width) + " bytes: " +
                                 value() + " does not fit");
            continue;
        }
        if (count == 1)
            kernel_->set(index, width, bytes->data());
        else if (!kernel_->set_if_size(index, width, bytes->data()))
            continue;
        integer_sizes_[index] = std::uint8_t(width);
        return *this;
    }
    throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ +
                     "': the integer " + value() + " fits no integer type the kernel takes there");
}

Kernel& Kernel::set_memory(std::uint32_t index, const Memory& memory) {
    if (!memory.empty() && memory.impl() && memory.backend() != backend_)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ +
                         "': memory of another backend");
    kernel_->set_memory(index, memory.empty() ? nullptr : memory.impl());
    return *this;
}

Kernel& Kernel::set_local(std::uint32_t index, std::size_t bytes) {
    kernel_->set_local(index, bytes);
    return *this;
}

Kernel& Kernel::arg(std::uint32_t index, const RealBuffer& buffer) {
    // An empty buffer is a null pointer, which has no element type to check.
    if (!buffer.empty() && buffer.precision() != precision_)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ + "' is a " +
                         to_string(buffer.precision()) + " buffer, but the program was built for " +
                         to_string(precision_));
    return set_memory(index, buffer.memory());
}

Kernel& Kernel::arg(std::uint32_t index, Real real) {
    if (precision_ == Precision::float64) return set(index, sizeof(double), &real.value);
    const float value = static_cast<float>(real.value);
    return set(index, sizeof(float), &value);
}

Event Kernel::launch(Queue& queue, std::size_t count, std::size_t local, std::size_t offset) {
    if (queue.backend() != backend_)
        throw UsageError("kernel '" + name_ + "' of the " + to_string(backend_) +
                         " backend launched on a queue of the " + to_string(queue.backend()) +
                         " backend");
    if (count == 0) return Event();
    if (local && offset % local)
        throw UsageError("kernel '" + name_ + "' launched at item " + std::to_string(offset) +
                         " in groups of " + std::to_string(local) +
                         ": a launch that shares a range must begin on a multiple of its group "
                         "size, or the whole groups of the launch before it run into its items");
    const std::size_t global = local ? (count + local - 1) / local * local : count;
    Event event(kernel_->launch(queue.impl(), queue.device(), global, local, offset));
    if (Profile::recording()) detail::profile_command(name_.c_str(), queue, event);
    return event;
}

std::size_t Kernel::max_work_group_size(const Device& device) const {
    return kernel_->max_work_group_size(device.backend_device());
}

std::size_t Kernel::preferred_multiple(const Device& device) const {
    return kernel_->preferred_multiple(device.backend_device());
}

} // namespace partcl
