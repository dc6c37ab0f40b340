#include <partcl/jit/kernel.hpp>

#include "backend/interface.hpp"

namespace partcl {

Kernel::Kernel(const Program& program, const std::string& name)
    : name_(name), precision_(program.precision()), backend_(program.backend()),
      kernel_(program.impl().kernel(name)) {}

Kernel& Kernel::set(cl_uint index, std::size_t size, const void* value) {
    kernel_->set(index, size, value);
    return *this;
}

Kernel& Kernel::set_memory(cl_uint index, const Memory& memory) {
    if (!memory.empty() && memory.impl() && memory.backend() != backend_)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ +
                         "': memory of another backend");
    kernel_->set_memory(index, memory.empty() ? nullptr : memory.impl());
    return *this;
}

Kernel& Kernel::set_local(cl_uint index, std::size_t bytes) {
    kernel_->set_local(index, bytes);
    return *this;
}

Kernel& Kernel::arg(cl_uint index, const RealBuffer& buffer) {
    // An empty buffer is a null pointer, which has no element type to check.
    if (!buffer.empty() && buffer.precision() != precision_)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ + "' is a " +
                         to_string(buffer.precision()) + " buffer, but the program was built for " +
                         to_string(precision_));
    return set_memory(index, buffer.memory());
}

Kernel& Kernel::arg(cl_uint index, Real real) {
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
    return Event(kernel_->launch(queue.impl(), queue.device(), global, local, offset));
}

std::size_t Kernel::max_work_group_size(const Device& device) const {
    return kernel_->max_work_group_size(device);
}

std::size_t Kernel::preferred_multiple(const Device& device) const {
    return kernel_->preferred_multiple(device);
}

} // namespace partcl
