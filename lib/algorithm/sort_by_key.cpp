#include <partcl/algorithm/sort_by_key.hpp>

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

void sort_by_key(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                 std::size_t n, unsigned key_bits) {
    check_lengths(keys.size(), values.size(), n);
    if (key_bits > 32) throw UsageError("sort_by_key: key_bits " + std::to_string(key_bits) + " above 32");
    if (n < 2 || key_bits == 0) return;
    detail::backend(queue.backend())
        .sort_by_key(queue.impl(), *keys.memory().impl(), detail::SortKey::u32, *values.memory().impl(), n,
                     key_bits);
}

void sort_by_key(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values, std::size_t n) {
    check_lengths(keys.size(), values.size(), n);
    if (n < 2) return;
    const auto key_type = keys.precision() == Precision::float64 ? detail::SortKey::f64
                                                                : detail::SortKey::f32;
    detail::backend(queue.backend())
        .sort_by_key(queue.impl(), *keys.memory().impl(), key_type, *values.memory().impl(), n, 0);
}

} // namespace partcl
