#include "algorithm/radix_sort.hpp"

#include <algorithm>

namespace partcl {

namespace {

constexpr std::size_t digit_bits = 4, digits = 16;

// The scatter's local memory: a column of digit counts per work-item, the group's scan, the
// tile's keys (at most 8 bytes) and values, and the digits' bases; padded, the counts have a
// spare slot every 16 and the tile every 32 (cl/algorithm/radix_sort.cl says why).
std::size_t scatter_local_bytes(std::size_t group, std::size_t items, bool padded) {
    const std::size_t counts = digits * group, tile = group * items;
    const std::size_t count_slots = padded ? counts + counts / 16 : counts;
    const std::size_t tile_slots = padded ? tile + tile / 32 : tile;
    return 4 * count_slots + 4 * group + tile_slots * (8 + 4) + 4 * digits;
}

} // namespace

RadixSort::RadixSort(Context& context, ProgramCache& cache, std::optional<OnDevice> home)
    : context_(context), cache_(cache), home_(home) {
    // One shape for every device the object may sort on: the smallest of their limits.
    std::uint64_t local = ~std::uint64_t(0);
    std::size_t largest_group = 256;
    for (std::size_t d = 0; d < context.size(); ++d) {
        if (home && home->index != d) continue;
        const DeviceInfo& info = context.device(d).info();
        local = std::min<std::uint64_t>(local, info.local_memory);
        if (info.max_work_group_size > 0)
            largest_group = std::min(largest_group, info.max_work_group_size);
        padded_ = padded_ || info.type == DeviceType::gpu;
    }
    group_ = 256;
    while (group_ > largest_group) group_ /= 2;
    if (group_ < digits)
        throw Unsupported("radix sort: work-groups of at least 16 work-items needed, the device "
                          "allows " + std::to_string(largest_group));
    auto bytes = [&](std::size_t items) { return scatter_local_bytes(group_, items, padded_); };
    for (items_ = 8; items_ > 1 && bytes(items_) > local; items_ /= 2) {}
    if (bytes(items_) > local)
        throw Unsupported("radix sort: " + std::to_string(bytes(items_)) +
                          " bytes of local memory needed, the device has " + std::to_string(local));
}

RadixSort::Kernels& RadixSort::kernels(std::optional<Precision> real_keys) {
    std::optional<Kernels>& slot = real_keys ? real_keys_ : uint_keys_;
    if (real_keys && slot && slot->program.precision() != *real_keys) slot.reset();
    if (!slot) {
        BuildOptions options;
        options.precision = real_keys.value_or(Precision::float32);
        options.define("RADIX_GROUP", std::to_string(group_) + "u");
        options.define("RADIX_ITEMS", std::to_string(items_) + "u");
        options.define("RADIX_REAL_KEYS", real_keys ? 1 : 0);
        options.define("RADIX_PADDED", padded_ ? 1 : 0);
        Program program = build_program(context_, Source::builtin("algorithm/radix_sort.cl"),
                                        options, cache_);
        Kernel count(program, "radix_count"), scan_rows(program, "radix_scan_rows"),
            scatter(program, "radix_scatter");
        slot.emplace(Kernels{std::move(program), std::move(count), std::move(scan_rows),
                             std::move(scatter)});
    }
    return *slot;
}

void RadixSort::reserve_scratch(std::size_t n) {
    auto uints = [&](Buffer<std::uint32_t>& b, std::size_t size) {
        if (b.size() < size) b = allocate<Buffer<std::uint32_t>>(size);
    };
    const std::size_t tiles = (n + tile() - 1) / tile(), counts = digits * tiles;
    uints(spare_values_, n);
    uints(counts_, counts);
    uints(offsets_, counts);
}

template <class KeyBuffer>
void RadixSort::passes(Queue& queue, Kernels& k, KeyBuffer& keys, KeyBuffer& spare_keys,
                       Buffer<std::uint32_t>& values, std::size_t n, unsigned bits) {
    const std::uint32_t un = std::uint32_t(n);
    const std::size_t tiles = (n + tile() - 1) / tile();
    KeyBuffer* in_keys = &keys;
    KeyBuffer* out_keys = &spare_keys;
    Buffer<std::uint32_t>* in_values = &values;
    Buffer<std::uint32_t>* out_values = &spare_values_;
    const unsigned passes = (bits + digit_bits - 1) / digit_bits;
    reserve_scratch(n);
    for (unsigned pass = 0; pass < passes; ++pass) {
        const std::uint32_t shift = std::uint32_t(pass * digit_bits);
        k.count.args(un, shift, *in_keys, counts_).launch(queue, tiles * group_, group_);
        k.scan_rows.args(std::uint32_t(digits * tiles), counts_, offsets_)
            .launch(queue, (digits * tiles + tile() - 1) / tile() * group_, group_);
        k.scatter.args(un, shift, *in_keys, *in_values, offsets_, *out_keys, *out_values)
            .launch(queue, tiles * group_, group_);
        std::swap(in_keys, out_keys);
        std::swap(in_values, out_values);
    }
    if (in_keys != &keys) {  // an odd number of passes: the result is in the spare buffers
        in_keys->copy_to(queue, keys, n);
        in_values->copy_to(queue, values, n);
    }
}

void RadixSort::sort(Queue& queue, Buffer<std::uint32_t>& keys, Buffer<std::uint32_t>& values,
                     std::size_t n, unsigned key_bits) {
    Kernels& k = kernels(std::nullopt);
    if (spare_uint_keys_.size() < n) spare_uint_keys_ = allocate<Buffer<std::uint32_t>>(n);
    passes(queue, k, keys, spare_uint_keys_, values, n, key_bits);
}

void RadixSort::sort(Queue& queue, RealBuffer& keys, Buffer<std::uint32_t>& values,
                     std::size_t n) {
    Kernels& k = kernels(keys.precision());
    if (spare_real_keys_.size() < n || spare_real_keys_.precision() != keys.precision())
        spare_real_keys_ = allocate<RealBuffer>(keys.precision(), n);
    passes(queue, k, keys, spare_real_keys_, values, n, unsigned(8 * size_of(keys.precision())));
}

} // namespace partcl
