#pragma once
// RadixSort: partcl's own stable LSD radix sort by key (cl/algorithm/radix_sort.cl), 4 bits a
// pass; SortByKey's `radix` method. Programs are built on first use per key kind (uint32, or
// the precision's reals); scratch grows to the largest sort asked.
#include <cstdint>
#include <optional>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class RadixSort {
public:
    RadixSort(Context& context, ProgramCache& cache, std::optional<OnDevice> home);

    void sort(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
              std::size_t n, unsigned key_bits);
    void sort(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n);

private:
    std::size_t tile() const noexcept { return group_ * items_; }
    struct Kernels {
        Program program;
        Kernel count, scan_rows, scatter;
    };
    Kernels& kernels(std::optional<Precision> real_keys);
    // A buffer in the home device's memory, or the context's without a home.
    template <class B, class... Args>
    B allocate(Args... args) const {
        return home_ ? B(context_, args..., *home_) : B(context_, args...);
    }
    void reserve_scratch(std::size_t n);
    // The passes over bits [0, bits), the result back in keys and values.
    template <class KeyBuffer>
    void passes(Queue& queue, Kernels& k, KeyBuffer& keys, KeyBuffer& spare_keys,
                Buffer<std::uint32_t>& values, std::size_t n, unsigned bits);

    Context& context_;
    ProgramCache& cache_;
    std::optional<OnDevice> home_;
    std::size_t group_ = 0, items_ = 0;
    bool padded_ = false;  // local arrays padded against bank conflicts: GPUs
    std::optional<Kernels> uint_keys_, real_keys_;
    Buffer<std::uint32_t> spare_uint_keys_, spare_values_, counts_, offsets_;
    RealBuffer spare_real_keys_;
};

} // namespace partcl
