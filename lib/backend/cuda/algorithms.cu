#include "backend/cuda/algorithms.hpp"

#include <algorithm>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "backend/cuda/error.hpp"

namespace partcl::detail::cuda {

namespace {

template <class T>
__global__ void fill_kernel(T* target, T value, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        target[i] = value;
}

template <class T>
cudaError_t fill_typed(cudaStream_t stream, void* target, const void* pattern, std::size_t count) {
    T value;
    std::memcpy(&value, pattern, sizeof value);
    const unsigned blocks = unsigned(std::min<std::size_t>((count + 255) / 256, 65535));
    fill_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(target), value, count);
    return cudaGetLastError();
}

// Stream-ordered scratch memory, freed in stream order when it goes out of scope.
class Scratch {
public:
    Scratch(cudaStream_t stream, std::size_t bytes) : stream_(stream) {
        if (bytes) check(cudaMallocAsync(&pointer_, bytes, stream_), "cudaMallocAsync");
    }
    ~Scratch() {
        if (pointer_) cudaFreeAsync(pointer_, stream_);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    template <class T>
    T* as() const noexcept { return static_cast<T*>(pointer_); }

private:
    cudaStream_t stream_;
    void* pointer_ = nullptr;
};

template <class Key>
void sort_pairs_typed(cudaStream_t stream, Key* keys, std::uint32_t* values, std::size_t n,
                      int key_bits = int(sizeof(Key) * 8)) {
    if (n < 2) return;
    Scratch alternate_keys(stream, n * sizeof(Key)), alternate_values(stream, n * sizeof(std::uint32_t));
    cub::DoubleBuffer<Key> k(keys, alternate_keys.as<Key>());
    cub::DoubleBuffer<std::uint32_t> v(values, alternate_values.as<std::uint32_t>());
    std::size_t bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, int(n), 0, key_bits, stream),
          "cub::DeviceRadixSort::SortPairs");
    Scratch temp(stream, bytes);
    check(cub::DeviceRadixSort::SortPairs(temp.as<void>(), bytes, k, v, int(n), 0, key_bits, stream),
          "cub::DeviceRadixSort::SortPairs");
    // The result lands in either buffer; the caller's must hold it.
    if (k.Current() != keys)
        check(cudaMemcpyAsync(keys, k.Current(), n * sizeof(Key), cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync");
    if (v.Current() != values)
        check(cudaMemcpyAsync(values, v.Current(), n * sizeof(std::uint32_t),
                              cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync");
}

// One CUB device reduction (`call`: DeviceReduce::Sum, Min or Max through a lambda, `name` for
// its errors) of values[0, n), returned to the host.
template <class T, class Call>
T reduce_typed(cudaStream_t stream, const T* values, std::size_t n, Call call, const char* name) {
    Scratch result(stream, sizeof(T));
    std::size_t bytes = 0;
    check(call(nullptr, bytes, values, result.as<T>(), int(n), stream), name);
    Scratch temp(stream, bytes);
    check(call(temp.as<void>(), bytes, values, result.as<T>(), int(n), stream), name);
    T host{};
    check(cudaMemcpyAsync(&host, result.as<T>(), sizeof(T), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return host;
}

template <class T>
double reduce_by(cudaStream_t stream, const T* values, std::size_t n, CubReduction op) {
    switch (op) {
    case CubReduction::sum:
        return reduce_typed(stream, values, n, [](auto&&... a) { return cub::DeviceReduce::Sum(a...); },
                            "cub::DeviceReduce::Sum");
    case CubReduction::min:
        return reduce_typed(stream, values, n, [](auto&&... a) { return cub::DeviceReduce::Min(a...); },
                            "cub::DeviceReduce::Min");
    case CubReduction::max:
        break;
    }
    return reduce_typed(stream, values, n, [](auto&&... a) { return cub::DeviceReduce::Max(a...); },
                        "cub::DeviceReduce::Max");
}

} // namespace

cudaError_t fill_pattern(cudaStream_t stream, void* target, const void* pattern,
                         std::size_t pattern_size, std::size_t count) {
    if (count == 0) return cudaSuccess;
    switch (pattern_size) {
    case 1: return cudaMemsetAsync(target, *static_cast<const unsigned char*>(pattern), count, stream);
    case 2: return fill_typed<std::uint16_t>(stream, target, pattern, count);
    case 4: return fill_typed<std::uint32_t>(stream, target, pattern, count);
    default: return fill_typed<std::uint64_t>(stream, target, pattern, count);
    }
}

void sort_pairs(cudaStream_t stream, std::uint32_t* keys, std::uint32_t* values, std::size_t n,
                unsigned key_bits) {
    sort_pairs_typed(stream, keys, values, n, int(key_bits));
}
void sort_pairs(cudaStream_t stream, float* keys, std::uint32_t* values, std::size_t n) {
    sort_pairs_typed(stream, keys, values, n);
}
void sort_pairs(cudaStream_t stream, double* keys, std::uint32_t* values, std::size_t n) {
    sort_pairs_typed(stream, keys, values, n);
}

void exclusive_sum(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
    if (n == 0) return;
    std::size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, int(n), stream),
          "cub::DeviceScan::ExclusiveSum");
    Scratch temp(stream, bytes);
    check(cub::DeviceScan::ExclusiveSum(temp.as<void>(), bytes, in, out, int(n), stream),
          "cub::DeviceScan::ExclusiveSum");
}

double reduce_values(cudaStream_t stream, const float* values, std::size_t n, CubReduction op) {
    return reduce_by(stream, values, n, op);
}
double reduce_values(cudaStream_t stream, const double* values, std::size_t n, CubReduction op) {
    return reduce_by(stream, values, n, op);
}

} // namespace partcl::detail::cuda
