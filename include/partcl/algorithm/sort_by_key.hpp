#pragma once
// SortByKey: sorts keys[0, n) ascending and carries a value (usually a particle index) along
// with each key. Stable: equal keys keep their order, so two passes (by a secondary key, then by
// a primary one) sort by the pair, as the tree build's segmented sorts and the cell sorts of PIC
// and MPS need. It holds what it sorts with (programs, scratch buffers), so a model keeps one
// per context (or per device) and sorts with it every step.
//
//   SortByKey sort(context);
//   sort(queue, keys, values, n);                    // uint32 keys, all 32 bits
//   sort(queue, cells, order, n, bits_for(count));   // keys below `count`: fewer passes
//
// How (SortMethod::automatic): partcl's own radix sort (cl/algorithm/radix_sort.cl, 4 bits a
// pass, the same kernels on both backends) or the backend's library (CUB on CUDA,
// Boost.Compute on OpenCL), whichever measured faster for the device, the number of keys and
// their bits (sort_method_for; docs/performance.md, "Sorting").
#include <cstdint>
#include <memory>
#include <optional>

#include <partcl/jit/program_cache.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

enum class SortMethod {
    automatic,  // the faster of the two for the queue's device
    library,    // the backend's library: CUB on CUDA, Boost.Compute on OpenCL
    radix,      // partcl's radix sort, the same kernels on every backend
};

// The method `automatic` picks for a sort of n keys of key_bits bits (reals: 32 or 64) on a
// device.
SortMethod sort_method_for(const DeviceInfo& device, std::size_t n, unsigned key_bits);

// The key_bits that hold every key below `bound` (a count of distinct keys).
unsigned bits_for(std::uint64_t bound) noexcept;

class RadixSort;

class SortByKey {
public:
    // `home`: the one device whose queue sorts with this object, its scratch in that device's
    // memory (a model sorting on each device keeps one per device); without it, any queue.
    explicit SortByKey(Context& context, ProgramCache& cache = ProgramCache::global(),
                       std::optional<OnDevice> home = std::nullopt,
                       SortMethod method = SortMethod::automatic);
    ~SortByKey();
    SortByKey(SortByKey&&) noexcept;
    SortByKey& operator=(SortByKey&&) = delete;

    // key_bits: every key is below 2^key_bits (in [0, 32]), so only those bits need sorting
    // (0 leaves the buffers as they are); the library sort on OpenCL sorts all of them.
    void operator()(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                    std::size_t n, unsigned key_bits = 32);
    // Keys of the buffer's precision (NaN keys are a UsageError's business of the caller: their
    // order is unspecified). -0 and +0 are equal to the radix sort; a library may put -0 first.
    void operator()(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n);

    // The method used for n keys of key_bits bits on the device of `queue`.
    SortMethod method(const Queue& queue, std::size_t n, unsigned key_bits) const;

private:
    RadixSort& radix();

    Context& context_;
    ProgramCache& cache_;
    std::optional<OnDevice> home_;
    SortMethod method_;
    std::unique_ptr<RadixSort> radix_;  // made on first use
};

} // namespace partcl
