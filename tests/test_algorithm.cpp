// The device algorithms (SortByKey by both methods, exclusive_scan, reduce) against std:: or a float64 CPU
// reference on fresh random inputs, including lengths that are no power of two, duplicates,
// negative values, n = 0 and 1, and sub-ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// The reals a RealBuffer of `precision` stores for `values` (float -> double is exact).
std::vector<double> as_stored(std::vector<double> values, Precision precision) {
    if (precision == Precision::float32)
        for (auto& v : values) v = double(float(v));
    return values;
}

// Checks reduce's three operations over values[0, n) of a buffer holding `values`, against
// float64 references of the values as stored: min and max exactly, the sum within the bound for
// any summation order that reduce.hpp states (exactly when `exact_sum`).
void check_reductions(Context& context, Precision precision, const std::vector<double>& values,
                      std::size_t n, bool exact_sum = false) {
    CAPTURE(to_string(precision));
    CAPTURE(n);
    Queue& queue = context.queue(0);
    const auto stored = as_stored(values, precision);
    RealBuffer buffer(context, precision, stored.size());
    buffer.write(queue, stored);

    CompensatedSum sum, magnitude;
    for (std::size_t i = 0; i < n; ++i) {
        sum += stored[i];
        magnitude += std::abs(stored[i]);
    }
    const double epsilon = precision == Precision::float64
                               ? std::numeric_limits<double>::epsilon()
                               : double(std::numeric_limits<float>::epsilon());
    const double tolerance = exact_sum ? 0.0 : double(n) * epsilon * magnitude.value();
    const double min = *std::min_element(stored.begin(), stored.begin() + n);
    const double max = *std::max_element(stored.begin(), stored.begin() + n);
    CHECK(std::abs(reduce_sum(queue, buffer, n) - sum.value()) <= tolerance);
    CHECK(reduce(queue, buffer, n, ReduceOp::sum) == reduce_sum(queue, buffer, n));
    CHECK(reduce_min(queue, buffer, n) == min);
    CHECK(reduce_max(queue, buffer, n) == max);
    CHECK(reduce(queue, buffer, n, ReduceOp::min) == min);
    CHECK(reduce(queue, buffer, n, ReduceOp::max) == max);

    // The same values in a Buffer<float> or Buffer<double>.
    const auto check_typed = [&](auto zero) {
        using T = decltype(zero);
        Buffer<T> typed(context, std::vector<T>(stored.begin(), stored.end()));
        CHECK(std::abs(reduce_sum(queue, typed, n) - sum.value()) <= tolerance);
        CHECK(reduce_min(queue, typed, n) == min);
        CHECK(reduce_max(queue, typed, n) == max);
    };
    if (precision == Precision::float64)
        check_typed(0.0);
    else
        check_typed(0.0f);
}

std::vector<Precision> precisions_of(const Context& context) {
    if (context.device(0).info().fp64) return {Precision::float32, Precision::float64};
    return {Precision::float32};
}

} // namespace

TEST_SUITE("algorithm") {

// Both ways SortByKey sorts, whichever `automatic` picks here.
const SortMethod sort_methods[] = {SortMethod::library, SortMethod::radix};

TEST_CASE("SortByKey on 32-bit keys is stable and matches std::stable_sort") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    std::mt19937 rng(seed);
    for (SortMethod method : sort_methods)
    // 300001 keys: more than one work-group scans the radix sort's counts (16 x tiles of up
    // to 2048 keys, a group a tile's worth).
    for (std::size_t n : {0, 1, 2, 3, 1000, 4099, 70001, 300001}) {
        SortByKey sort_by_key(context, ProgramCache::global(), std::nullopt, method);
        CAPTURE(int(method));
        CAPTURE(seed);
        CAPTURE(n);
        // Few distinct keys, so stability is tested; one full-range key to reach the top bits.
        std::uniform_int_distribution<std::uint32_t> key(0, std::uint32_t(n / 8 + 1));
        std::vector<std::uint32_t> keys(n), values(n);
        for (auto& k : keys) k = key(rng);
        if (n > 2) keys[n / 2] = 0xfffffffeu;
        std::iota(values.begin(), values.end(), 0u);
        const auto order = stable_order(keys, n);

        Buffer<std::uint32_t> dkeys(context, keys), dvalues(context, values);
        sort_by_key(queue, dkeys, dvalues, n);
        const auto got_keys = dkeys.read(queue), got_values = dvalues.read(queue);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
            wrong += got_values[i] != order[i] || got_keys[i] != keys[order[i]];
        CHECK(wrong == 0);
    }
}

TEST_CASE("SortByKey sorts only the key bits it is told hold the keys") {
    // Keys below 2^bits: sorting those bits is the whole sort (CUB sorts fewer passes;
    // Boost.Compute sorts them all); 0 bits (every key 0) leaves the buffers alone.
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    std::mt19937 rng(seed);
    CHECK(bits_for(0) == 0);
    CHECK(bits_for(1) == 0);
    CHECK(bits_for(2) == 1);
    CHECK(bits_for(1025) == 11);
    CHECK(bits_for(std::uint64_t(1) << 40) == 32);
    for (SortMethod method : sort_methods)
    for (std::uint32_t bound : {1u, 2u, 300u, 1u << 17, 5000001u})
        for (std::size_t n : {1, 1000, 70001}) {
            CAPTURE(seed);
            CAPTURE(bound);
            CAPTURE(n);
            std::uniform_int_distribution<std::uint32_t> key(0, bound - 1);
            std::vector<std::uint32_t> keys(n), values(n);
            for (auto& k : keys) k = key(rng);
            std::iota(values.begin(), values.end(), 0u);
            const auto order = stable_order(keys, n);
            Buffer<std::uint32_t> dkeys(context, keys), dvalues(context, values);
            SortByKey sort_by_key(context, ProgramCache::global(), std::nullopt, method);
            CAPTURE(int(method));
            sort_by_key(queue, dkeys, dvalues, n, bits_for(bound));
            const auto got_keys = dkeys.read(queue), got_values = dvalues.read(queue);
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i)
                wrong += got_values[i] != order[i] || got_keys[i] != keys[order[i]];
            CHECK(wrong == 0);
        }
    Buffer<std::uint32_t> a(context, 4), b(context, 4);
    SortByKey sort_by_key(context);
    CHECK_THROWS_WITH_AS(sort_by_key(queue, a, b, 4, 33), doctest::Contains("key_bits 33"), UsageError);
}

TEST_CASE("SortByKey on real keys, float and double, sorts a prefix only") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    std::mt19937 rng(seed);
    for (SortMethod method : sort_methods)
    for (Precision precision : {Precision::float32, Precision::float64}) {
        SortByKey sort_by_key(context, ProgramCache::global(), std::nullopt, method);
        CAPTURE(int(method));
        if (precision == Precision::float64 && !context.device(0).info().fp64) continue;
        CAPTURE(seed);
        CAPTURE(to_string(precision));
        const std::size_t size = 5003, n = 4001;  // the tail must stay where it is
        std::normal_distribution<double> normal(0.0, 10.0);
        std::vector<double> keys(size);
        for (auto& k : keys) k = normal(rng);
        keys[7] = keys[8] = keys[9];  // ties
        if (method == SortMethod::radix)  // equal numbers, other bits (a library may split them)
            keys[10] = -0.0, keys[11] = 0.0, keys[12] = -0.0;
        keys[13] = std::numeric_limits<double>::infinity(), keys[14] = -keys[13];
        if (precision == Precision::float32)
            for (auto& k : keys) k = double(float(k));
        std::vector<std::uint32_t> values(size);
        std::iota(values.begin(), values.end(), 0u);
        const auto order = stable_order(keys, n);

        RealBuffer dkeys(context, precision, size);
        dkeys.write(queue, keys);
        Buffer<std::uint32_t> dvalues(context, values);
        sort_by_key(queue, dkeys, dvalues, n);
        const auto got_keys = dkeys.read(queue);
        const auto got_values = dvalues.read(queue);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
            wrong += got_values[i] != order[i] || got_keys[i] != keys[order[i]];
        for (std::size_t i = n; i < size; ++i)
            wrong += got_values[i] != i || got_keys[i] != keys[i];
        CHECK(wrong == 0);
    }
}

TEST_CASE("SortByKey and exclusive_scan refuse ranges longer than their buffers") {
    Context& context = test_context();
    Buffer<std::uint32_t> a(context, 10), b(context, 5);
    SortByKey sort_by_key(context);
    CHECK_THROWS_AS(sort_by_key(context.queue(0), a, b, 6), UsageError);
    CHECK_THROWS_AS(exclusive_scan(context.queue(0), a, b, 6), UsageError);
}

TEST_CASE("exclusive_scan matches std::exclusive_scan, in place too") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    std::mt19937 rng(seed);
    for (std::size_t n : {0, 1, 5, 1000, 65537}) {
        CAPTURE(seed);
        CAPTURE(n);
        std::uniform_int_distribution<std::uint32_t> count(0, 9);
        std::vector<std::uint32_t> in(n), expected(n);
        for (auto& c : in) c = count(rng);
        std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0u);

        Buffer<std::uint32_t> din(context, in), dout(context, n);
        exclusive_scan(queue, din, dout, n);
        CHECK(dout.read(queue) == expected);
        exclusive_scan(queue, din, din, n);
        CHECK(din.read(queue) == expected);
    }
}

TEST_CASE("reduce: sum, min and max of random reals match a float64 reference") {
    Context& context = test_context();
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (Precision precision : precisions_of(context)) {
        for (std::size_t n : {1, 2, 3, 1000, 4099, 70001, 1000000}) {
            // Mostly negative, so the sum is far from zero and a max of 0 would be wrong.
            std::uniform_real_distribution<double> real(-3.0, 1.0);
            std::vector<double> values(n + 5);
            for (auto& v : values) v = real(rng);
            // Past n: a value no reduction of [0, n) may see.
            for (std::size_t i = n; i < values.size(); ++i) values[i] = 1e6;
            check_reductions(context, precision, values, n);
        }
    }
}

TEST_CASE("reduce sums exactly where every partial sum is representable, in any order") {
    // Multiples of 1/4 of magnitude at most 4: any partial sum of up to 1e6 of them is a
    // multiple of 1/4 of magnitude at most 4e6 < 2^22, which a float holds exactly, so the sum
    // is exact whatever the order and a single lost or doubled element shows.
    Context& context = test_context();
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> quarters(-16, 16);
    for (Precision precision : precisions_of(context)) {
        for (std::size_t n : {1, 5, 4099, 1000000}) {
            std::vector<double> values(n);
            for (auto& v : values) v = quarters(rng) / 4.0;
            check_reductions(context, precision, values, n, true);
        }
    }
}

TEST_CASE("reduce refuses n = 0, n beyond the buffer and an unknown operation") {
    Context& context = test_context();
    RealBuffer values(context, Precision::float32, 10), none;
    Queue& queue = context.queue(0);
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max}) {
        const std::string name = std::string("reduce_") + to_string(op);
        CHECK(usage_error([&] { reduce(queue, values, 0, op); }).find(name + ": 0 elements") == 0);
        CHECK(usage_error([&] { reduce(queue, values, 11, op); }) ==
              name + ": 11 elements asked of a buffer of 10");
        CHECK(usage_error([&] { reduce(queue, none, 1, op); }).find("of a buffer of 0") !=
              std::string::npos);
    }
    CHECK_THROWS_AS(reduce_max(queue, values, 0), UsageError);
    Buffer<float> floats(context, 10);
    CHECK(usage_error([&] { reduce_sum(queue, floats, 11); }) ==
          "reduce_sum: 11 elements asked of a buffer of 10");
    CHECK(usage_error([&] { reduce(queue, values, 1, ReduceOp(7)); }) ==
          "reduce: unknown operation 7");
}

}
