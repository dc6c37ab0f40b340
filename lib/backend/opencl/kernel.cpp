// The OpenCL backend's programs and their kernels.
#include <algorithm>

#include "backend/opencl/opencl.hpp"
#include "backend/text.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclProgram final : public ProgramImpl {
public:
    explicit OpenclProgram(cl::Program program) : program(std::move(program)) {}
    void* native() const override { return program(); }
    std::vector<std::string> kernel_names() const override;
    std::unique_ptr<KernelImpl> kernel(const std::string& name) const override;

    cl::Program program;
};

class OpenclKernel final : public KernelImpl {
public:
    OpenclKernel(const OpenclProgram& program, const std::string& name)
        : name_(name) {
        cl_int status = CL_SUCCESS;
        kernel_ = cl::Kernel(program.program, name.c_str(), &status);
        if (status != CL_SUCCESS) throw error(status, "clCreateKernel", "kernel '" + name + "'");
    }

    void set(unsigned index, std::size_t size, const void* value) override {
        check_argument(index, ::clSetKernelArg(kernel_(), index, size, value));
    }

    bool set_if_size(unsigned index, std::size_t size, const void* value) override {
        const cl_int status = ::clSetKernelArg(kernel_(), index, size, value);
        if (status == CL_INVALID_ARG_SIZE) return false;
        check_argument(index, status);
        return true;
    }

    void set_memory(unsigned index, const MemoryImpl* memory) override {
        set(index, sizeof(cl_mem), memory ? &cl_buffer(*memory)() : nullptr);
    }

    void set_local(unsigned index, std::size_t bytes) override { set(index, bytes, nullptr); }

    // Without a group size, exactly `global` items run as on CUDA: whole groups of up to 256,
    // then the rest as groups of one. Left to the driver, the group size follows the item count
    // (a prime count allows only 1 or itself), and PoCL compiles a work-group function for each
    // size it meets: a new compile for nearly every new count. Here a kernel meets two sizes.
    std::shared_ptr<EventImpl> launch(QueueImpl& queue, std::size_t, std::size_t global,
                                      std::size_t local, std::size_t offset) override {
        cl::CommandQueue& q = cl_queue(queue);
        std::size_t whole = global, rest = 0;
        if (local == 0) {
            cl::Device device;
            check(q.getInfo(CL_QUEUE_DEVICE, &device), "clGetCommandQueueInfo");
            local = std::clamp<std::size_t>(work_group_info(device, CL_KERNEL_WORK_GROUP_SIZE), 1,
                                            256);
            whole = global / local * local;
            rest = global - whole;
        }
        const auto range = [&](std::size_t at, std::size_t items, std::size_t group,
                               const std::vector<cl::Event>* wait) {
            cl::Event event;
            const cl_int status = q.enqueueNDRangeKernel(
                kernel_, at ? cl::NDRange(at) : cl::NullRange, cl::NDRange(items),
                cl::NDRange(group), wait, &event);
            if (status != CL_SUCCESS)
                throw error(status, "clEnqueueNDRangeKernel",
                            "kernel '" + name_ + "', " + std::to_string(items) +
                                " work-items from item " + std::to_string(at) + " in groups of " +
                                std::to_string(group));
            return event;
        };
        // The rest first, so that the event returned (and profiled) is the bulk's; the queue is
        // in order, so it completes after both.
        const auto enqueue = [&](const std::vector<cl::Event>* wait) {
            if (rest && !whole) return range(offset, rest, 1, wait);
            if (rest) range(offset + whole, rest, 1, wait);
            return range(offset, whole, local, rest ? nullptr : wait);
        };
        LaunchTurns* turns = launch_turns(queue);
        return make_event(turns ? turns->take(name_, q, enqueue) : enqueue(nullptr));
    }

    std::size_t max_work_group_size(const BackendDevice& device) const override {
        return work_group_info(cl_device(device), CL_KERNEL_WORK_GROUP_SIZE);
    }

    std::size_t preferred_multiple(const BackendDevice& device) const override {
        return work_group_info(cl_device(device), CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    }

    std::optional<std::size_t> parameter_size(unsigned) const override { return std::nullopt; }

private:
    std::size_t work_group_info(const cl::Device& device, cl_kernel_work_group_info what) const {
        std::size_t size = 0;
        check(kernel_.getWorkGroupInfo(device, what, &size), "clGetKernelWorkGroupInfo");
        return size;
    }

    void check_argument(unsigned index, cl_int status) const {
        if (status != CL_SUCCESS)
            throw error(status, "clSetKernelArg",
                        "argument " + std::to_string(index) + " of kernel '" + name_ + "'");
    }

    std::string name_;
    cl::Kernel kernel_;
};

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

} // namespace

std::shared_ptr<ProgramImpl> make_program(cl::Program program) {
    return std::make_shared<OpenclProgram>(std::move(program));
}

const cl::Program& cl_program(const ProgramImpl& program) {
    return static_cast<const OpenclProgram&>(program).program;
}

} // namespace partcl::detail::opencl
