// The OpenCL backend's context and its queues: thin holders of the Khronos C++ bindings'
// objects, which already count references.
#include <algorithm>
#include <array>

#include <boost/compute/context.hpp>
#include <boost/compute/utility/program_cache.hpp>

#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclQueue final : public QueueImpl {
public:
    OpenclQueue(cl::CommandQueue queue, std::size_t index, std::shared_ptr<LaunchTurns> turns,
                std::shared_ptr<PinnedStaging> staging)
        : queue(std::move(queue)), index(index), turns(std::move(turns)), staging(std::move(staging)) {}
    // A command still queued when the process exits is compiled or run by the driver's threads
    // while the driver's libraries are being finalised (PoCL crashed so): the last owner waits.
    ~OpenclQueue() override { queue.finish(); }
    OpenclQueue(const OpenclQueue&) = delete;
    OpenclQueue& operator=(const OpenclQueue&) = delete;

    void* native() const override { return queue(); }
    void finish() override { check(queue.finish(), "clFinish"); }

    std::shared_ptr<EventImpl> write(MemoryImpl& memory, std::size_t offset, std::size_t bytes,
                                     const void* host, bool blocking) override {
        cl::Event event;
        check(queue.enqueueWriteBuffer(cl_buffer(memory), blocking ? CL_TRUE : CL_FALSE, offset,
                                       bytes, host, nullptr, &event),
              "clEnqueueWriteBuffer");
        return make_event(event);
    }

    void read(const MemoryImpl& memory, std::size_t offset, std::size_t bytes, void* host) override {
        check(queue.enqueueReadBuffer(cl_buffer(memory), CL_TRUE, offset, bytes, host),
              "clEnqueueReadBuffer");
    }

    std::shared_ptr<EventImpl> copy(const MemoryImpl& from, std::size_t from_offset, MemoryImpl& to,
                                    std::size_t to_offset, std::size_t bytes) override {
        // Memory of no one device is the first device's: where a step leaves the state.
        const std::size_t from_home = home_of(from).value_or(0), to_home = home_of(to).value_or(0);
        if (staging && from_home != to_home)
            return make_event(staging->copy(index, cl_buffer(from), from_home, cl_buffer(to),
                                            to_home, {from_offset, bytes, to_offset, bytes, bytes, 1}));
        cl::Event event;
        check(queue.enqueueCopyBuffer(cl_buffer(from), cl_buffer(to), from_offset, to_offset, bytes,
                                      nullptr, &event),
              "clEnqueueCopyBuffer");
        return make_event(event);
    }

    std::shared_ptr<EventImpl> copy_rows(const MemoryImpl& from, MemoryImpl& to,
                                         const RowsCopy& r) override {
        const std::size_t from_home = home_of(from).value_or(0), to_home = home_of(to).value_or(0);
        if (staging && from_home != to_home)
            return make_event(staging->copy(index, cl_buffer(from), from_home, cl_buffer(to),
                                            to_home, r));
        const std::size_t whole = rectangle_rows(cl_buffer(from), cl_buffer(to), r);
        cl::Event event;
        std::size_t row = 0;
        if (whole > 1) {
            const std::array<std::size_t, 3> from_origin{r.from_offset, 0, 0},
                to_origin{r.to_offset, 0, 0}, region{r.row_bytes, whole, 1};
            check(::clEnqueueCopyBufferRect(queue(), cl_buffer(from)(), cl_buffer(to)(),
                                            from_origin.data(), to_origin.data(), region.data(),
                                            r.from_pitch, 0, r.to_pitch, 0, 0, nullptr, &event()),
                  "clEnqueueCopyBufferRect");
            row = whole;
        }
        for (; row < r.rows; ++row)
            check(queue.enqueueCopyBuffer(cl_buffer(from), cl_buffer(to),
                                          r.from_offset + row * r.from_pitch,
                                          r.to_offset + row * r.to_pitch, r.row_bytes, nullptr,
                                          &event),
                  "clEnqueueCopyBuffer");
        return make_event(event);
    }

    std::shared_ptr<EventImpl> fill(MemoryImpl& memory, const void* pattern,
                                    std::size_t pattern_size, std::size_t offset,
                                    std::size_t bytes) override {
        cl::Event event;
        check(::clEnqueueFillBuffer(queue(), cl_buffer(memory)(), pattern, pattern_size, offset,
                                    bytes, 0, nullptr, &event()),
              "clEnqueueFillBuffer");
        return make_event(event);
    }

    std::shared_ptr<EventImpl> marker() override {
        cl::Event event;
        check(::clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &event()),
              "clEnqueueMarkerWithWaitList");
        // Commands of another queue that wait for the marker need this queue's submitted.
        check(queue.flush(), "clFlush");
        return make_event(event);
    }

    void wait_for(EventImpl& event) override {
        const cl_event wait = cl_event_of(event);
        check(::clEnqueueBarrierWithWaitList(queue(), 1, &wait, nullptr),
              "clEnqueueBarrierWithWaitList");
    }

    cl::CommandQueue queue;
    std::size_t index;
    std::shared_ptr<LaunchTurns> turns;
    std::shared_ptr<PinnedStaging> staging;  // null where memories are shared
};

class OpenclContext final : public ContextImpl {
public:
    OpenclContext(const std::vector<BackendDevice>& devices, bool separate_memories)
        : devices(devices) {
        // A device named twice (two queues on one device, as the tests split launches under
        // Oclgrind's one device) enters the context once.
        std::vector<cl::Device> handles;
        for (const auto& d : devices)
            if (std::none_of(handles.begin(), handles.end(),
                             [&](const cl::Device& h) { return h() == cl_device(d)(); }))
                handles.push_back(cl_device(d));
        cl_int status = CL_SUCCESS;
        cl_context_properties properties[] = {
            CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(devices.front().platform),
            0};
        context = cl::Context(handles, properties, nullptr, nullptr, &status);
        check(status, "clCreateContext");
        const auto turns =
            LaunchTurns::needed(devices) ? std::make_shared<LaunchTurns>() : nullptr;
        std::vector<cl::CommandQueue> handles_of_queues;
        for (const auto& d : devices) {
            handles_of_queues.emplace_back(context, cl_device(d), CL_QUEUE_PROFILING_ENABLE, &status);
            check(status, "clCreateCommandQueue");
        }
        const auto staging = separate_memories && devices.size() > 1
                                 ? std::make_shared<PinnedStaging>(context, handles_of_queues)
                                 : nullptr;
        for (std::size_t d = 0; d < devices.size(); ++d)
            queues.push_back(
                std::make_shared<OpenclQueue>(handles_of_queues[d], d, turns, staging));
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

    void* native() const override { return context(); }
    std::shared_ptr<QueueImpl> queue(std::size_t device) override { return queues.at(device); }
    // A buffer of one device is a buffer of the context that only that device's queue uses:
    // drivers of several GPUs (NVIDIA's) keep it where it is used.
    std::shared_ptr<MemoryImpl> allocate(std::size_t bytes, std::optional<std::size_t> home) override {
        return opencl::allocate(context, devices, bytes, home);
    }

    std::vector<BackendDevice> devices;
    cl::Context context;
    std::vector<std::shared_ptr<OpenclQueue>> queues;
};

} // namespace

bool LaunchTurns::needed(const std::vector<BackendDevice>& devices) {
    if (devices.size() < 2 || devices.front().info.platform != "Portable Computing Language")
        return false;
    // CL_DRIVER_VERSION is PoCL's own version, "3.1+debian" on Debian 12.
    const std::string& version = devices.front().info.driver_version;
    const auto digits = version.find_first_not_of("0123456789");
    return digits != 0 && std::stoi(version.substr(0, digits)) < 7;
}

std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices,
                                          bool separate_memories) {
    return std::make_shared<OpenclContext>(devices, separate_memories);
}

const cl::Context& cl_context(const ContextImpl& context) {
    return static_cast<const OpenclContext&>(context).context;
}

cl::CommandQueue& cl_queue(QueueImpl& queue) { return static_cast<OpenclQueue&>(queue).queue; }

LaunchTurns* launch_turns(QueueImpl& queue) {
    return static_cast<OpenclQueue&>(queue).turns.get();
}

} // namespace partcl::detail::opencl
