// ParticleSlabs on several devices (split_context: two or three PoCL devices, or Oclgrind's one
// device named twice; suite `split_sched`): each device's own and ghost slots after arrange(),
// periodic ends included, and the own values of ranges of the one-device order packed into and
// unpacked from bytes of the model's precision, as MPI ranks exchange ghosts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <partcl/algorithm/particle_slabs.hpp>
#include <partcl/backend/error.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

TEST_SUITE("split_sched") {

TEST_CASE("periodic particle slabs: each device's ghosts are the slabs beside its own, across "
          "the boundary too, in cell order") {
    // 2-D, 4 x 6 cells of edge 1, slabs along y; particles at random with an index as their
    // carried field, so every slot tells which particle it holds.
    Context context = split_context(under_oclgrind() ? 2 : 3);
    const std::size_t devices = context.size();
    CellGrid grid;
    grid.dimensions = 2;
    grid.cells = {4, 6, 1};
    for (const std::uint32_t width : {1u, 2u}) {
        CAPTURE(width);
        ParticleSlabs slabs(context, Precision::float64, grid, width, {SlabField{2}},
                            {SlabField{1, true}}, SlabEnds::periodic, memory_cache());
        const std::size_t n = under_oclgrind() ? 40 : 300;
        const std::uint32_t seed = fresh_seed();
        CAPTURE(seed);
        std::mt19937 random(seed);
        std::uniform_real_distribution<double> x(0, 4), y(0, 6);
        std::vector<double> r(2 * n);
        std::vector<std::uint32_t> id(n);
        for (std::size_t i = 0; i < n; ++i) {
            r[i] = x(random);
            r[n + i] = y(random);
            id[i] = std::uint32_t(i);
        }
        auto slab_of = [&](std::uint32_t i) { return std::uint32_t(r[n + i]); };
        auto cell_of = [&](std::uint32_t i) { return slab_of(i) * 4 + std::uint32_t(r[i]); };
        slabs.upload(n, {r}, {id});
        // Weights that leave each device at least one slab here, device 0 a small share.
        std::vector<double> weights(devices, 3.0);
        weights[0] = 1.0;
        slabs.arrange(weights);
        // The one-device order: by cell, stably from the upload order.
        std::vector<std::uint32_t> order(id);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return cell_of(a) < cell_of(b); });
        std::size_t first = 0;
        for (std::size_t d = 0; d < devices; ++d) {
            CAPTURE(d);
            const Range own = slabs.slabs(d);
            REQUIRE(own.size() > 0);
            const std::size_t total = slabs.total(d);
            std::vector<std::uint32_t> slots(total);
            if (total > 0) slabs.local_uint(0, d).read(context.queue(d), slots.data(), total);
            // Own slots: the one-device order's particles of [first, first + own).
            const std::vector<std::uint32_t> expected_own(order.begin() + std::ptrdiff_t(first),
                                                          order.begin() + std::ptrdiff_t(first + slabs.own(d)));
            CHECK(std::vector<std::uint32_t>(slots.begin() + std::ptrdiff_t(slabs.below(d)),
                                             slots.begin() + std::ptrdiff_t(slabs.below(d) + slabs.own(d))) ==
                  expected_own);
            for (std::uint32_t i : expected_own) CHECK((slab_of(i) >= own.begin && slab_of(i) < own.end));
            first += slabs.own(d);
            // Ghosts: every particle of the slabs within `width` of the device's own, wrapped,
            // not its own, in the one-device order, those of lower slabs first.
            std::vector<std::uint32_t> near;
            for (std::uint32_t j = 1; j <= width; ++j)
                for (const long slab : {long(own.begin) - long(j), long(own.end) + long(j) - 1}) {
                    const std::uint32_t s = std::uint32_t((slab % 6 + 6) % 6);
                    if (s < own.begin || s >= own.end) near.push_back(s);
                }
            std::vector<std::uint32_t> below, above;
            for (std::uint32_t i : order) {
                const std::uint32_t s = slab_of(i);
                if (std::find(near.begin(), near.end(), s) == near.end()) continue;
                (s < own.begin ? below : above).push_back(i);
            }
            CHECK(std::vector<std::uint32_t>(slots.begin(), slots.begin() + std::ptrdiff_t(slabs.below(d))) == below);
            CHECK(std::vector<std::uint32_t>(slots.begin() + std::ptrdiff_t(slabs.below(d) + slabs.own(d)),
                                             slots.end()) == above);
            // The device's cell list finds each of those cells' particles.
            std::vector<std::uint32_t> start(grid.count()), end(grid.count());
            slabs.cells(d).cell_start().read(context.queue(d), start.data(), start.size());
            slabs.cells(d).cell_end().read(context.queue(d), end.data(), end.size());
            for (std::uint32_t c = 0; c < grid.count(); ++c) {
                const std::uint32_t s = c / 4;
                const bool seen = (s >= own.begin && s < own.end) ||
                                  std::find(near.begin(), near.end(), s) != near.end();
                if (!seen) continue;
                std::vector<std::uint32_t> in_cell, listed;
                for (std::uint32_t i : slots)
                    if (cell_of(i) == c) in_cell.push_back(i);
                for (std::uint32_t k = start[c]; k < end[c]; ++k) listed.push_back(slots.at(k));
                CHECK(listed == in_cell);
            }
        }
        CHECK(first == n);
    }
}

TEST_CASE("particle slabs pack and unpack ranges of the one-device order across devices, as bytes of the precision") {
    Context context = split_context(under_oclgrind() ? 2 : 3);
    const std::size_t devices = context.size();
    CellGrid grid;
    grid.dimensions = 2;
    grid.cells = {4, 6, 1};
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        CAPTURE(to_string(precision));
        ParticleSlabs slabs(context, precision, grid, 1, {SlabField{2}}, {SlabField{1, true}},
                            SlabEnds::open, memory_cache());
        const std::size_t n = under_oclgrind() ? 40 : 300;
        std::mt19937 random(seed);
        std::uniform_real_distribution<double> x(0, 4), y(0, 6);
        std::vector<double> r(2 * n);
        std::vector<std::uint32_t> id(n);
        for (std::size_t i = 0; i < n; ++i) {
            r[i] = precision == Precision::float32 ? double(float(x(random))) : x(random);
            r[n + i] = precision == Precision::float32 ? double(float(y(random))) : y(random);
            id[i] = std::uint32_t(i);
        }
        slabs.upload(n, {r}, {id});
        slabs.arrange(std::vector<double>(devices, 1.0));
        // The one-device order's particle at each place: its carried index.
        std::vector<std::uint32_t> order;
        for (std::size_t d = 0; d < devices; ++d) {
            std::vector<std::uint32_t> slots(slabs.total(d));
            if (!slots.empty()) slabs.local_uint(0, d).read(context.queue(d), slots.data(), slots.size());
            order.insert(order.end(), slots.begin() + std::ptrdiff_t(slabs.below(d)),
                         slots.begin() + std::ptrdiff_t(slabs.below(d) + slabs.own(d)));
        }
        REQUIRE(order.size() == n);
        std::vector<RealBuffer> arrays;
        for (std::size_t d = 0; d < devices; ++d) arrays.push_back(slabs.local(0, d));
        // Ranges across the devices' borders, one empty, one the whole.
        std::vector<Range> ranges{{0, 7}, {n / 3 - 5, n / 3 + n / 4}, {n / 2, n / 2}, {0, n}, {n - 9, n}};
        const std::size_t size = size_of(precision);
        auto decode = [&](const std::vector<std::byte>& bytes, std::size_t at) {
            if (precision == Precision::float32) {
                float v;
                std::memcpy(&v, bytes.data() + at * size, size);
                return double(v);
            }
            double v;
            std::memcpy(&v, bytes.data() + at * size, size);
            return v;
        };
        const std::vector<std::byte> packed = slabs.pack_own(arrays, 2, ranges);
        std::size_t at = 0, wrong = 0;
        for (const Range range : ranges)
            for (std::size_t k = 0; k < 2; ++k)
                for (std::size_t i = range.begin; i < range.end; ++i) wrong += decode(packed, at++) != r[k * n + order[i]];
        CHECK(at * size == packed.size());
        CHECK(wrong == 0);
        // Unpacked into place: the ranges' values replaced, every other slot kept.
        const std::vector<Range> into{{2, n / 3}, {n / 2 - 3, n / 2 + n / 5}};
        std::vector<std::byte> values;
        std::vector<double> expected(r);
        for (const Range range : into)
            for (std::size_t k = 0; k < 2; ++k)
                for (std::size_t i = range.begin; i < range.end; ++i) {
                    const double v = double(100 + i) + 0.5 * double(k);
                    expected[k * n + order[i]] = v;
                    const float f = float(v);
                    const std::byte* b = precision == Precision::float32 ? reinterpret_cast<const std::byte*>(&f)
                                                                         : reinterpret_cast<const std::byte*>(&v);
                    values.insert(values.end(), b, b + size);
                }
        slabs.unpack_own(arrays, 2, into, values);
        const std::vector<std::byte> all = slabs.pack_own(arrays, 2, {{0, n}});
        wrong = 0;
        for (std::size_t k = 0; k < 2; ++k)
            for (std::size_t i = 0; i < n; ++i) wrong += decode(all, k * n + i) != expected[k * n + order[i]];
        CHECK(wrong == 0);
        CHECK_THROWS_AS(slabs.pack_own(arrays, 2, {{0, n + 1}}), UsageError);
        CHECK_THROWS_AS(slabs.unpack_own(arrays, 2, into, std::vector<std::byte>(values.size() - 1)), UsageError);
        CHECK_THROWS_AS(slabs.pack_own(std::vector<RealBuffer>(devices + 1), 2, ranges), UsageError);
    }
}

}
