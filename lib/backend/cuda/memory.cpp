// The CUDA backend's memory: a device allocation, or a managed one that every device of a
// context reads and writes, as OpenCL's context-wide buffers are.
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

class CudaMemory final : public MemoryImpl {
public:
    CudaMemory(void* pointer, int ordinal, std::shared_ptr<MemoryImpl> owner = nullptr)
        : pointer(pointer), ordinal(ordinal), owner(std::move(owner)) {}
    ~CudaMemory() override {
        if (owner) return;  // a region: the allocation is its owner's
        cudaSetDevice(ordinal);
        cudaFree(pointer);
    }
    CudaMemory(const CudaMemory&) = delete;
    CudaMemory& operator=(const CudaMemory&) = delete;

    void* native() const override { return pointer; }
    std::shared_ptr<MemoryImpl> region(std::size_t offset, std::size_t) override {
        return std::make_shared<CudaMemory>(static_cast<char*>(pointer) + offset, ordinal,
                                            shared_from_this());
    }

    void* pointer;
    int ordinal;
    std::shared_ptr<MemoryImpl> owner;  // the allocation a region lies in; null for one
};

} // namespace

std::shared_ptr<MemoryImpl> allocate(const std::vector<BackendDevice>& devices, std::size_t bytes) {
    for (const auto& d : devices)
        if (bytes > d.info.max_allocation)
            throw Unsupported(std::to_string(bytes) + " bytes asked, but " + d.info.name +
                              " allows at most " + std::to_string(d.info.max_allocation) +
                              " bytes in one buffer");
    const int first = devices.front().ordinal;
    use_device(first);
    void* pointer = nullptr;
    const std::string what = "allocating " + std::to_string(bytes) + " bytes";
    if (devices.size() == 1)
        check(cudaMalloc(&pointer, bytes), "cudaMalloc", what);
    else
        check(cudaMallocManaged(&pointer, bytes), "cudaMallocManaged", what);
    return std::make_shared<CudaMemory>(pointer, first);
}

void* pointer(const MemoryImpl& memory) { return static_cast<const CudaMemory&>(memory).pointer; }

} // namespace partcl::detail::cuda
