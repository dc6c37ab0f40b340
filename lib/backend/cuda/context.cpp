// The CUDA backend's context, queues (streams), memory and events, on the CUDA runtime API
// (linked statically, so a machine without a driver still loads partcl and simply has no CUDA
// devices).
#include "backend/cuda/check.hpp"
#include "backend/cuda/device_functions.hpp"
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

// Device time between two events recorded on a stream around one command.
class CudaEvent final : public EventImpl {
public:
    CudaEvent(int ordinal, cudaStream_t stream) : ordinal_(ordinal) {
        use_device(ordinal_);
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&end_), "cudaEventCreate");
        check(cudaEventRecord(start_, stream), "cudaEventRecord");
    }
    ~CudaEvent() override {
        cudaEventDestroy(start_);
        cudaEventDestroy(end_);
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    void finish(cudaStream_t stream) { check(cudaEventRecord(end_, stream), "cudaEventRecord"); }

    void wait() override { check(cudaEventSynchronize(end_), "cudaEventSynchronize"); }
    double seconds() override {
        wait();
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, end_), "cudaEventElapsedTime");
        return double(ms) * 1e-3;
    }

private:
    int ordinal_;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
};

class CudaMemory final : public MemoryImpl {
public:
    CudaMemory(void* pointer, int ordinal) : pointer(pointer), ordinal(ordinal) {}
    ~CudaMemory() override {
        cudaSetDevice(ordinal);
        cudaFree(pointer);
    }
    CudaMemory(const CudaMemory&) = delete;
    CudaMemory& operator=(const CudaMemory&) = delete;

    void* pointer;
    int ordinal;
};

char* address(const MemoryImpl& memory, std::size_t offset) {
    return static_cast<char*>(static_cast<const CudaMemory&>(memory).pointer) + offset;
}

class CudaQueue final : public QueueImpl {
public:
    explicit CudaQueue(int ordinal) : ordinal(ordinal) {
        use_device(ordinal);
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    ~CudaQueue() override {
        cudaSetDevice(ordinal);
        cudaStreamDestroy(stream);
    }
    CudaQueue(const CudaQueue&) = delete;
    CudaQueue& operator=(const CudaQueue&) = delete;

    void finish() override {
        use_device(ordinal);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    // Runs `command` between the two records of a new event.
    template <class Command>
    std::shared_ptr<EventImpl> timed(Command&& command) {
        auto event = std::make_shared<CudaEvent>(ordinal, stream);
        command();
        event->finish(stream);
        return event;
    }

    std::shared_ptr<EventImpl> write(MemoryImpl& memory, std::size_t offset, std::size_t bytes,
                                     const void* host, bool blocking) override {
        auto event = timed([&] {
            check(cudaMemcpyAsync(address(memory, offset), host, bytes, cudaMemcpyHostToDevice, stream),
                  "cudaMemcpyAsync");
        });
        if (blocking) event->wait();
        return event;
    }

    void read(const MemoryImpl& memory, std::size_t offset, std::size_t bytes, void* host) override {
        use_device(ordinal);
        check(cudaMemcpyAsync(host, address(memory, offset), bytes, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    std::shared_ptr<EventImpl> copy(const MemoryImpl& from, std::size_t from_offset, MemoryImpl& to,
                                    std::size_t to_offset, std::size_t bytes) override {
        return timed([&] {
            check(cudaMemcpyAsync(address(to, to_offset), address(from, from_offset), bytes,
                                  cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpyAsync");
        });
    }

    std::shared_ptr<EventImpl> fill(MemoryImpl& memory, const void* pattern,
                                    std::size_t pattern_size, std::size_t offset,
                                    std::size_t bytes) override {
        return timed([&] {
            check(fill_pattern(stream, address(memory, offset), pattern, pattern_size,
                               bytes / pattern_size),
                  "fill");
        });
    }

    int ordinal;
    cudaStream_t stream = nullptr;
};

class CudaContext final : public ContextImpl {
public:
    explicit CudaContext(const std::vector<Device>& devices) {
        for (const auto& d : devices) {
            ordinals.push_back(d.ordinal());
            queues.push_back(std::make_shared<CudaQueue>(d.ordinal()));
        }
    }

    std::shared_ptr<QueueImpl> queue(std::size_t device) override { return queues.at(device); }

    // One device: its own memory. Several: managed memory, which every device of the context
    // reads and writes, as OpenCL's context-wide buffers are.
    std::shared_ptr<MemoryImpl> allocate(std::size_t bytes) override {
        use_device(ordinals.front());
        void* pointer = nullptr;
        const std::string what = "allocating " + std::to_string(bytes) + " bytes";
        if (ordinals.size() == 1)
            check(cudaMalloc(&pointer, bytes), "cudaMalloc", what);
        else
            check(cudaMallocManaged(&pointer, bytes), "cudaMallocManaged", what);
        return std::make_shared<CudaMemory>(pointer, ordinals.front());
    }

    std::vector<int> ordinals;
    std::vector<std::shared_ptr<CudaQueue>> queues;
};

} // namespace

std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices) {
    return std::make_shared<CudaContext>(devices);
}

void* stream(QueueImpl& queue) { return static_cast<CudaQueue&>(queue).stream; }
int ordinal(QueueImpl& queue) { return static_cast<CudaQueue&>(queue).ordinal; }
void* pointer(const MemoryImpl& memory) { return static_cast<const CudaMemory&>(memory).pointer; }

std::shared_ptr<EventImpl> timed_on(QueueImpl& queue, const std::function<void()>& command) {
    return static_cast<CudaQueue&>(queue).timed(command);
}

} // namespace partcl::detail::cuda
