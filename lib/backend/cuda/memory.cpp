// The CUDA backend's memory: a device allocation, which the other devices of a context reach
// over peer access (or a managed one where they cannot), as OpenCL's context-wide buffers are.
#include <algorithm>

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

namespace {

// The distinct device ordinals of a context (one device may be named more than once).
std::vector<int> distinct_ordinals(const std::vector<BackendDevice>& devices) {
    std::vector<int> ordinals;
    for (const auto& d : devices)
        if (std::find(ordinals.begin(), ordinals.end(), d.ordinal) == ordinals.end())
            ordinals.push_back(d.ordinal);
    return ordinals;
}

bool can_access_peer(int from, int to) {
    int can = 0;
    return cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can;
}

} // namespace

bool enable_peer_access(const std::vector<BackendDevice>& devices) {
    const std::vector<int> ordinals = distinct_ordinals(devices);
    bool all = true;
    for (int from : ordinals)
        for (int to : ordinals) {
            if (from == to) continue;
            if (!can_access_peer(from, to)) {
                all = false;
                continue;
            }
            use_device(from);
            const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
            if (status == cudaErrorPeerAccessAlreadyEnabled) {
                cudaGetLastError();  // clears the error, which is not one here
                continue;
            }
            check(status, "cudaDeviceEnablePeerAccess");
        }
    return all;
}

std::shared_ptr<MemoryImpl> allocate(const std::vector<BackendDevice>& devices,
                                     std::optional<std::size_t> home, std::size_t bytes) {
    for (const auto& d : devices)
        if (bytes > d.info.max_allocation)
            throw Unsupported(std::to_string(bytes) + " bytes asked, but " + d.info.name +
                              " allows at most " + std::to_string(d.info.max_allocation) +
                              " bytes in one buffer");
    const int first = home ? devices.at(*home).ordinal : devices.front().ordinal;
    use_device(first);
    void* pointer = nullptr;
    const std::string what = "allocating " + std::to_string(bytes) + " bytes";
    // Memory on the first device that the others reach over peer access: a device reading
    // another's range pays the link, never page migrations (managed memory moved pages back
    // and forth between two GPUs reading one buffer, slower than either alone).
    const std::vector<int> ordinals = distinct_ordinals(devices);
    bool direct = home || ordinals.size() == 1;
    if (!direct) {
        direct = true;
        for (int from : ordinals)
            for (int to : ordinals)
                if (from != to && !can_access_peer(from, to)) direct = false;
    }
    if (direct)
        check(cudaMalloc(&pointer, bytes), "cudaMalloc", what);
    else
        check(cudaMallocManaged(&pointer, bytes), "cudaMallocManaged", what);
    return std::make_shared<CudaMemory>(pointer, first);
}

void* pointer(const MemoryImpl& memory) { return static_cast<const CudaMemory&>(memory).pointer; }

} // namespace partcl::detail::cuda
