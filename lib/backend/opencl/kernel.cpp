#include "backend/opencl/kernel.hpp"
#include "backend/text.hpp"

#include <algorithm>

#include <partcl/runtime/error.hpp>

namespace partcl::detail::opencl {

namespace {

class OpenclKernel final : public KernelImpl {
public:
    OpenclKernel(const OpenclProgram& program, const std::string& name)
        : name_(name) {
        cl_int status = CL_SUCCESS;
        kernel_ = cl::Kernel(program.program, name.c_str(), &status);
        if (status != CL_SUCCESS) throw ClError(status, "clCreateKernel", "kernel '" + name + "'");
    }

    void set(unsigned index, std::size_t size, const void* value) override {
        const cl_int status = ::clSetKernelArg(kernel_(), index, size, value);
        if (status != CL_SUCCESS)
            throw ClError(status, "clSetKernelArg",
                          "argument " + std::to_string(index) + " of kernel '" + name_ + "'");
    }

    void set_memory(unsigned index, const MemoryImpl* memory) override {
        set(index, sizeof(cl_mem), memory ? &cl_buffer(*memory)() : nullptr);
    }

    void set_local(unsigned index, std::size_t bytes) override { set(index, bytes, nullptr); }

    std::shared_ptr<EventImpl> launch(QueueImpl& queue, std::size_t, std::size_t global,
                                      std::size_t local, std::size_t offset) override {
        cl::Event event;
        const cl_int status = cl_queue(queue).enqueueNDRangeKernel(
            kernel_, offset ? cl::NDRange(offset) : cl::NullRange, cl::NDRange(global),
            local ? cl::NDRange(local) : cl::NullRange, nullptr, &event);
        if (status != CL_SUCCESS)
            throw ClError(status, "clEnqueueNDRangeKernel",
                          "kernel '" + name_ + "', " + std::to_string(global) +
                              " work-items in groups of " +
                              (local ? std::to_string(local) : std::string("any size")));
        return make_event(std::move(event));
    }

    std::size_t max_work_group_size(const Device& device) const override {
        std::size_t size = 0;
        check(kernel_.getWorkGroupInfo(device.cl_device(), CL_KERNEL_WORK_GROUP_SIZE, &size),
              "clGetKernelWorkGroupInfo");
        return size;
    }

    std::size_t preferred_multiple(const Device& device) const override {
        std::size_t size = 0;
        check(kernel_.getWorkGroupInfo(device.cl_device(),
                                       CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, &size),
              "clGetKernelWorkGroupInfo");
        return size;
    }

    std::optional<std::size_t> parameter_size(unsigned) const override { return std::nullopt; }

private:
    std::string name_;
    cl::Kernel kernel_;
};

} // namespace

std::vector<std::string> OpenclProgram::kernel_names() const {
    std::string names;
    check(program.getInfo(CL_PROGRAM_KERNEL_NAMES, &names), "clGetProgramInfo");
    std::vector<std::string> list;
    std::size_t start = 0;
    while (start <= names.size()) {
        const auto end = std::min(names.find(';', start), names.size());
        if (end > start) list.push_back(trim_end(names.substr(start, end - start)));
        start = end + 1;
    }
    return list;
}

std::unique_ptr<KernelImpl> OpenclProgram::kernel(const std::string& name) const {
    return std::make_unique<OpenclKernel>(*this, name);
}

const cl::Program& cl_program(const ProgramImpl& program) {
    return static_cast<const OpenclProgram&>(program).program;
}

} // namespace partcl::detail::opencl
