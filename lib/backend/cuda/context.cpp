// The CUDA backend's context and its queues (streams), on the CUDA runtime API (linked
// statically, so a machine without a driver still loads partcl and simply has no CUDA devices).
#include <algorithm>

#include "backend/cuda/algorithms.hpp"
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

char* address(const MemoryImpl& memory, std::size_t offset) {
    return static_cast<char*>(pointer(memory)) + offset;
}

class CudaQueue final : public QueueImpl {
public:
    explicit CudaQueue(int ordinal) : ordinal(ordinal) {
        use_device(ordinal);
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, ordinal),
              "cudaDeviceGetAttribute");
    }
    ~CudaQueue() override {
        cudaSetDevice(ordinal);
        cudaStreamDestroy(stream);
    }
    CudaQueue(const CudaQueue&) = delete;
    CudaQueue& operator=(const CudaQueue&) = delete;

    void* native() const override { return stream; }

    void finish() override {
        use_device(ordinal);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    // Runs `command` between the two records of a new event.
    std::shared_ptr<EventImpl> timed(const std::function<void()>& command) {
        return cuda::timed(ordinal, stream, command);
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

    std::shared_ptr<EventImpl> copy_rows(const MemoryImpl& from, MemoryImpl& to,
                                         const RowsCopy& r) override {
        return timed([&] {
            // cudaMemcpy2D takes pitches up to cudaDevAttrMaxPitch (2^31 - 1 bytes on NVIDIA's
            // GPUs so far); wider strides go a row at a time.
            if (std::max(r.from_pitch, r.to_pitch) <= std::size_t(max_pitch)) {
                check(cudaMemcpy2DAsync(address(to, r.to_offset), r.to_pitch,
                                        address(from, r.from_offset), r.from_pitch, r.row_bytes,
                                        r.rows, cudaMemcpyDeviceToDevice, stream),
                      "cudaMemcpy2DAsync");
                return;
            }
            for (std::size_t row = 0; row < r.rows; ++row)
                check(cudaMemcpyAsync(address(to, r.to_offset + row * r.to_pitch),
                                      address(from, r.from_offset + row * r.from_pitch),
                                      r.row_bytes, cudaMemcpyDeviceToDevice, stream),
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

    std::shared_ptr<EventImpl> marker() override {
        return timed([] {});
    }

    void wait_for(EventImpl& event) override {
        use_device(ordinal);
        cuda::wait_on(stream, event);
    }

    int ordinal;
    cudaStream_t stream = nullptr;
    int max_pitch = 0;  // cudaMemcpy2D's largest pitch
};

class CudaContext final : public ContextImpl {
public:
    explicit CudaContext(const std::vector<BackendDevice>& devices) : devices(devices) {
        for (const auto& d : devices) queues.push_back(std::make_shared<CudaQueue>(d.ordinal));
        enable_peer_access(devices);
    }

    void* native() const override { return nullptr; }
    std::shared_ptr<QueueImpl> queue(std::size_t device) override { return queues.at(device); }
    std::shared_ptr<MemoryImpl> allocate(std::size_t bytes,
                                         std::optional<std::size_t> home) override {
        return cuda::allocate(devices, home, bytes);
    }

    std::vector<BackendDevice> devices;
    std::vector<std::shared_ptr<CudaQueue>> queues;
};

} // namespace

std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices) {
    return std::make_shared<CudaContext>(devices);
}

cudaStream_t stream(QueueImpl& queue) { return static_cast<CudaQueue&>(queue).stream; }
int ordinal(QueueImpl& queue) { return static_cast<CudaQueue&>(queue).ordinal; }

} // namespace partcl::detail::cuda
