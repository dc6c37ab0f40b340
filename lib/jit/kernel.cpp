#include <partcl/jit/kernel.hpp>

namespace partcl {

Kernel::Kernel(const Program& program, const std::string& name)
    : name_(name), precision_(program.precision()) {
    cl_int status = CL_SUCCESS;
    kernel_ = cl::Kernel(program.cl_program(), name.c_str(), &status);
    if (status != CL_SUCCESS) throw ClError(status, "clCreateKernel", "kernel '" + name + "' in " + program.name());
}

Kernel& Kernel::set(cl_uint index, std::size_t size, const void* value) {
    const cl_int status = ::clSetKernelArg(kernel_(), index, size, value);
    if (status != CL_SUCCESS)
        throw ClError(status, "clSetKernelArg",
                      "argument " + std::to_string(index) + " of kernel '" + name_ + "'");
    return *this;
}

Kernel& Kernel::arg(cl_uint index, const RealBuffer& buffer) {
    // An empty buffer is a null pointer, which has no element type to check.
    if (!buffer.empty() && buffer.precision() != precision_)
        throw UsageError("argument " + std::to_string(index) + " of kernel '" + name_ + "' is a " +
                         to_string(buffer.precision()) + " buffer, but the program was built for " +
                         to_string(precision_));
    return set(index, sizeof(cl_mem), buffer.empty() ? nullptr : &buffer.cl_buffer()());
}

Kernel& Kernel::arg(cl_uint index, Real real) {
    if (precision_ == Precision::float64) return set(index, sizeof(double), &real.value);
    const float value = static_cast<float>(real.value);
    return set(index, sizeof(float), &value);
}

Event Kernel::launch(cl::CommandQueue& queue, std::size_t count, std::size_t local,
                     std::size_t offset) {
    if (count == 0) return Event();
    const std::size_t global = local ? (count + local - 1) / local * local : count;
    cl::Event event;
    const cl_int status = queue.enqueueNDRangeKernel(
        kernel_, offset ? cl::NDRange(offset) : cl::NullRange, cl::NDRange(global),
        local ? cl::NDRange(local) : cl::NullRange, nullptr, &event);
    if (status != CL_SUCCESS)
        throw ClError(status, "clEnqueueNDRangeKernel",
                      "kernel '" + name_ + "', " + std::to_string(global) + " work-items in groups of " +
                          (local ? std::to_string(local) : std::string("any size")));
    return Event(event);
}

std::size_t Kernel::max_work_group_size(const Device& device) const {
    std::size_t size = 0;
    check(kernel_.getWorkGroupInfo(device.cl_device(), CL_KERNEL_WORK_GROUP_SIZE, &size),
          "clGetKernelWorkGroupInfo");
    return size;
}

std::size_t Kernel::preferred_multiple(const Device& device) const {
    std::size_t size = 0;
    check(kernel_.getWorkGroupInfo(device.cl_device(), CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   &size),
          "clGetKernelWorkGroupInfo");
    return size;
}

} // namespace partcl
