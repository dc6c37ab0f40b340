#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/runtime/profile.hpp>

#include "algorithm/radix_sort.hpp"
#include "backend/interface.hpp"

namespace partcl {

namespace {
void check_lengths(std::size_t keys, std::size_t values, std::size_t n) {
    if (keys < n || values < n)
        throw UsageError("sort_by_key: " + std::to_string(n) + " elements asked of buffers of " +
                         std::to_string(keys) + " keys and " + std::to_string(values) + " values");
    if (n > 0xffffffffull) throw UsageError("sort_by_key: more than 2^32 - 1 elements");
}
} // namespace

unsigned bits_for(std::uint64_t bound) noexcept {
    unsigned bits = 0;
    while (bits < 32 && (std::uint64_t(1) << bits) < bound) ++bits;
    return bits;
}

SortMethod sort_method_for(const DeviceInfo& device, std::size_t n, unsigned key_bits) {
    // From partcl_bench_sort and the models' steps (docs/performance.md, "Sorting"). On CUDA,
    // CUB: the radix sort beat it on sorts timed alone up to 8M keys, but made the PIC step and
    // the tree build slower, whose many sorts in a row pay for its three launches a pass. On
    // NVIDIA's OpenCL the radix sort beats Boost.Compute's at every size and key. On PoCL's CPU
    // device it wins on a million keys of 32 bits or fewer and loses on fewer keys and on
    // 64-bit keys (its passes double).
    if (device.backend == Backend::cuda) return SortMethod::library;
    if (device.type != DeviceType::cpu) return SortMethod::radix;
    return n >= (std::size_t(1) << 20) && key_bits <= 32 ? SortMethod::radix
                                                         : SortMethod::library;
}

SortByKey::SortByKey(Context& context, ProgramCache& cache, std::optional<OnDevice> home,
                     SortMethod method)
    : context_(context), cache_(cache), home_(home), method_(method) {
    if (home && home->index >= context.size())
        throw UsageError("sort_by_key: device " + std::to_string(home->index) +
                         " of a context of " + std::to_string(context.size()));
}

SortByKey::~SortByKey() = default;
SortByKey::SortByKey(SortByKey&&) noexcept = default;

SortMethod SortByKey::method(const Queue& queue, std::size_t n, unsigned key_bits) const {
    if (method_ != SortMethod::automatic) return method_;
    return sort_method_for(context_.device(queue.device()).info(), n, key_bits);
}

RadixSort& SortByKey::radix() {
    if (!radix_) radix_ = std::make_unique<RadixSort>(context_, cache_, home_);
    return *radix_;
}

void SortByKey::operator()(Queue& queue, Buffer<std::uint32_t>& keys,
                           Buffer<std::uint32_t>& values, std::size_t n, unsigned key_bits) {
    check_lengths(keys.size(), values.size(), n);
    if (key_bits > 32) throw UsageError("sort_by_key: key_bits " + std::to_string(key_bits) + " above 32");
    if (n < 2 || key_bits == 0) return;
    if (method(queue, n, key_bits) == SortMethod::radix)
        return radix().sort(queue, keys, values, n, key_bits);
    profiled(queue, "sort_by_key (library)", [&] {
        detail::backend(queue.backend())
            .sort_by_key(queue.impl(), *keys.memory().impl(), detail::SortKey::u32,
                         *values.memory().impl(), n, key_bits);
    });
}

void SortByKey::operator()(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values,
                           std::size_t n) {
    check_lengths(keys.size(), values.size(), n);
    if (n < 2) return;
    if (method(queue, n, unsigned(8 * size_of(keys.precision()))) == SortMethod::radix)
        return radix().sort(queue, keys, values, n);
    const auto key_type = keys.precision() == Precision::float64 ? detail::SortKey::f64
                                                                : detail::SortKey::f32;
    profiled(queue, "sort_by_key (library)", [&] {
        detail::backend(queue.backend())
            .sort_by_key(queue.impl(), *keys.memory().impl(), key_type, *values.memory().impl(), n, 0);
    });
}

} // namespace partcl
