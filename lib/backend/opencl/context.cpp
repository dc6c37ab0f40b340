// The OpenCL backend's context, queues, memory and events: thin holders of the Khronos C++
// bindings' objects, which already count references.
#include <partcl/runtime/error.hpp>

#include <boost/compute/context.hpp>
#include <boost/compute/utility/program_cache.hpp>

#include "backend/interface.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclEvent final : public EventImpl {
public:
    explicit OpenclEvent(cl::Event event) : event_(std::move(event)) {}
    void wait() override { check(event_.wait(), "clWaitForEvents"); }
    double seconds() override {
        wait();
        cl_ulong start = 0, end = 0;
        check(event_.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
        check(event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
        return end > start ? double(end - start) * 1e-9 : 0.0;
    }

private:
    cl::Event event_;
};

class OpenclMemory final : public MemoryImpl {
public:
    explicit OpenclMemory(cl::Buffer buffer) : buffer(std::move(buffer)) {}
    cl::Buffer buffer;
};

const cl::Buffer& buffer_of(const MemoryImpl& memory) {
    return static_cast<const OpenclMemory&>(memory).buffer;
}

std::shared_ptr<EventImpl> wrap(cl::Event event) {
    return std::make_shared<OpenclEvent>(std::move(event));
}

class OpenclQueue final : public QueueImpl {
public:
    explicit OpenclQueue(cl::CommandQueue queue) : queue(std::move(queue)) {}
    // A command still queued when the process exits is compiled or run by the driver's threads
    // while the driver's libraries are being finalised (PoCL crashed so): the last owner waits.
    ~OpenclQueue() override { queue.finish(); }
    OpenclQueue(const OpenclQueue&) = delete;
    OpenclQueue& operator=(const OpenclQueue&) = delete;

    void finish() override { check(queue.finish(), "clFinish"); }

    std::shared_ptr<EventImpl> write(MemoryImpl& memory, std::size_t offset, std::size_t bytes,
                                     const void* host, bool blocking) override {
        cl::Event event;
        check(queue.enqueueWriteBuffer(buffer_of(memory), blocking ? CL_TRUE : CL_FALSE, offset,
                                       bytes, host, nullptr, &event),
              "clEnqueueWriteBuffer");
        return wrap(event);
    }

    void read(const MemoryImpl& memory, std::size_t offset, std::size_t bytes, void* host) override {
        check(queue.enqueueReadBuffer(buffer_of(memory), CL_TRUE, offset, bytes, host),
              "clEnqueueReadBuffer");
    }

    std::shared_ptr<EventImpl> copy(const MemoryImpl& from, std::size_t from_offset, MemoryImpl& to,
                                    std::size_t to_offset, std::size_t bytes) override {
        cl::Event event;
        check(queue.enqueueCopyBuffer(buffer_of(from), buffer_of(to), from_offset, to_offset, bytes,
                                      nullptr, &event),
              "clEnqueueCopyBuffer");
        return wrap(event);
    }

    std::shared_ptr<EventImpl> fill(MemoryImpl& memory, const void* pattern,
                                    std::size_t pattern_size, std::size_t offset,
                                    std::size_t bytes) override {
        cl::Event event;
        check(::clEnqueueFillBuffer(queue(), buffer_of(memory)(), pattern, pattern_size, offset,
                                    bytes, 0, nullptr, &event()),
              "clEnqueueFillBuffer");
        return wrap(event);
    }

    cl::CommandQueue queue;
};

class OpenclContext final : public ContextImpl {
public:
    explicit OpenclContext(const std::vector<Device>& devices) {
        std::vector<cl::Device> handles;
        for (const auto& d : devices) handles.push_back(d.cl_device());
        cl_int status = CL_SUCCESS;
        cl_context_properties properties[] = {
            CL_CONTEXT_PLATFORM,
            reinterpret_cast<cl_context_properties>(devices.front().cl_platform()()), 0};
        context = cl::Context(handles, properties, nullptr, nullptr, &status);
        check(status, "clCreateContext");
        for (const auto& d : devices) {
            cl::CommandQueue queue(context, d.cl_device(), CL_QUEUE_PROFILING_ENABLE, &status);
            check(status, "clCreateCommandQueue");
            queues.push_back(std::make_shared<OpenclQueue>(std::move(queue)));
        }
    }

    // Boost.Compute keeps the programs of its algorithms in a process-wide cache keyed by
    // context, released only by its static destructor at exit, long after the context: Oclgrind
    // aborted there (clReleaseProgram). They go with the context instead, once its queues are
    // idle.
    ~OpenclContext() override {
        for (const auto& q : queues) q->queue.finish();
        release_programs();
        boost::compute::program_cache::get_global_cache(boost::compute::context(context(), true))
            ->clear();
    }
    OpenclContext(const OpenclContext&) = delete;
    OpenclContext& operator=(const OpenclContext&) = delete;

    std::shared_ptr<QueueImpl> queue(std::size_t device) override { return queues.at(device); }

    std::shared_ptr<MemoryImpl> allocate(std::size_t bytes) override {
        cl_int status = CL_SUCCESS;
        cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
        if (status != CL_SUCCESS)
            throw ClError(status, "clCreateBuffer", "allocating " + std::to_string(bytes) + " bytes");
        return std::make_shared<OpenclMemory>(std::move(buffer));
    }

    cl::Context context;
    std::vector<std::shared_ptr<OpenclQueue>> queues;
};

} // namespace

std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices) {
    return std::make_shared<OpenclContext>(devices);
}

const cl::Context& cl_context(const ContextImpl& context) {
    return static_cast<const OpenclContext&>(context).context;
}

cl::CommandQueue& cl_queue(QueueImpl& queue) { return static_cast<OpenclQueue&>(queue).queue; }

const cl::Buffer& cl_buffer(const MemoryImpl& memory) { return buffer_of(memory); }

std::shared_ptr<EventImpl> make_event(cl::Event event) { return wrap(std::move(event)); }

} // namespace partcl::detail::opencl
