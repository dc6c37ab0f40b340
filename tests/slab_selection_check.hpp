#pragma once
// One SlabSelection call checked against the host: slots of fresh random particles (some on a
// slab's edge, some outside the grid, one NaN) flagged by their slab, the flagged ones and the
// others copied out (positions, a second real field, an unsigned field) at an offset and
// stride of their own; every copied value is the input's, in order, and nothing else is
// written. The host's slab of a particle is the cell list's, where rounding cannot move it.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include <partcl/algorithm/slab_selection.hpp>

namespace partcl_test {

inline void check_slab_selection(partcl::Context& context, partcl::Precision precision,
                                 int dimensions, std::size_t n, bool inside, std::uint32_t seed,
                                 partcl::ProgramCache& cache = partcl::ProgramCache::global()) {
    using namespace partcl;
    CAPTURE(seed);
    CAPTURE(dimensions);
    CAPTURE(n);
    CAPTURE(inside);
    std::mt19937 rng(seed);
    Queue& queue = context.queue(0);
    const double lower = -1, upper = 1;
    const CellGrid grid = CellGrid::covering(dimensions, {lower, lower, lower}, {upper, upper, upper}, 0.25);
    const std::size_t axis = std::size_t(dimensions - 1), slabs = grid.cells[axis];
    const std::size_t stride = n + 3, d = std::size_t(dimensions);
    std::uniform_real_distribution<double> inner(lower, upper), outer(-1.5, 1.5);
    std::uniform_int_distribution<int> slab_edge(0, int(slabs) - 1);
    std::vector<double> r(d * stride, 0.0), u(2 * stride, 0.0);
    std::vector<std::uint32_t> tag(stride, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < d; ++k) r[k * stride + i] = inner(rng);
        if (i % 5 == 1) r[axis * stride + i] = grid.origin[axis] + slab_edge(rng) * grid.cell_size;
        if (i % 7 == 3) r[axis * stride + i] = outer(rng);
        u[i] = inner(rng);
        u[stride + i] = inner(rng);
        tag[i] = std::uint32_t(1000 + i);
    }
    if (n > 4) r[axis * stride + 4] = std::numeric_limits<double>::quiet_NaN();
    for (double& x : r) x = precision == Precision::float32 ? double(float(x)) : x;
    for (double& x : u) x = precision == Precision::float32 ? double(float(x)) : x;

    // Slots [1, n) when there are some (a selection of part of an array), slabs [2, slabs - 3).
    const Range slots{n > 1 ? 1u : 0u, n};
    const Range chosen{2, slabs - 3};
    // The host's answer: none where rounding could put a particle in either slab.
    auto slab_of = [&](std::size_t i) -> std::optional<long> {
        const double x = r[axis * stride + i];
        if (std::isnan(x)) return -1;
        const double t = (x - grid.origin[axis]) / grid.cell_size;
        if (std::abs(t - std::round(t)) < 1e-4) return std::nullopt;
        return t >= 0 && t < double(slabs) ? long(t) : -1;
    };

    RealBuffer dr(context, precision, d * stride), du(context, precision, 2 * stride);
    Buffer<std::uint32_t> dtag(context, stride);
    dr.write(queue, r);
    du.write(queue, u);
    dtag.write(queue, tag).wait();
    SlabSelection select(context, precision, grid, cache);
    const std::size_t flagged = select.flag(queue, dr, stride, slots, chosen, inside);
    CHECK(select.flagged() == flagged);
    CHECK(select.slots().begin == slots.begin);
    CHECK(select.slots().end == slots.end);
    // Out arrays larger than needed, filled with a sentinel that must survive outside the copy.
    const std::size_t others = slots.size() - flagged, out_first = 2;
    const std::size_t flagged_stride = flagged + 5, others_stride = others + 4;
    const double sentinel = -7;
    RealBuffer fr(context, precision, d * flagged_stride), fu(context, precision, 2 * flagged_stride);
    RealBuffer kr(context, precision, d * others_stride);
    Buffer<std::uint32_t> ftag(context, flagged_stride), ktag(context, others_stride);
    fr.write(queue, std::vector<double>(fr.size(), sentinel));
    fu.write(queue, std::vector<double>(fu.size(), sentinel));
    kr.write(queue, std::vector<double>(kr.size(), sentinel));
    // (A write reads the host array until it is done.)
    ftag.write(queue, std::vector<std::uint32_t>(ftag.size(), 7u)).wait();
    ktag.write(queue, std::vector<std::uint32_t>(ktag.size(), 7u)).wait();
    if (flagged + out_first <= flagged_stride) {
        select.copy(queue, dr, stride, d, true, fr, flagged_stride, out_first);
        select.copy(queue, du, stride, 2, true, fu, flagged_stride, out_first);
        select.copy(queue, dtag, true, ftag, out_first);
    }
    if (others + out_first <= others_stride) {
        select.copy(queue, dr, stride, d, false, kr, others_stride, out_first);
        select.copy(queue, dtag, false, ktag, out_first);
    }
    const std::vector<double> got_fr = fr.read(queue), got_fu = fu.read(queue), got_kr = kr.read(queue);
    const std::vector<std::uint32_t> got_ftag = ftag.read(queue), got_ktag = ktag.read(queue);

    // Flagged and other slots in order, by the tags they carried.
    std::vector<std::size_t> yes, no;
    for (std::size_t j = 0; j < flagged; ++j) yes.push_back(got_ftag[out_first + j] - 1000u);
    for (std::size_t j = 0; j < others; ++j) no.push_back(got_ktag[out_first + j] - 1000u);
    REQUIRE(yes.size() + no.size() == slots.size());
    std::size_t a = 0, b = 0;
    for (std::size_t i = slots.begin; i < slots.end; ++i) {
        CAPTURE(i);
        const bool went_yes = a < yes.size() && yes[a] == i;
        REQUIRE((went_yes || (b < no.size() && no[b] == i)));
        if (const auto s = slab_of(i)) {
            const bool in_range = *s >= long(chosen.begin) && *s < long(chosen.end);
            CHECK(went_yes == (inside ? in_range : !in_range));
        }
        if (went_yes) {
            for (std::size_t k = 0; k < d; ++k) {
                const double want = r[k * stride + i], got = got_fr[k * flagged_stride + out_first + a];
                CHECK((got == want || (std::isnan(got) && std::isnan(want))));
            }
            for (std::size_t k = 0; k < 2; ++k)
                CHECK(got_fu[k * flagged_stride + out_first + a] == u[k * stride + i]);
            ++a;
        } else {
            for (std::size_t k = 0; k < d; ++k) {
                const double want = r[k * stride + i], got = got_kr[k * others_stride + out_first + b];
                CHECK((got == want || (std::isnan(got) && std::isnan(want))));
            }
            ++b;
        }
    }
    // Nothing written outside the copies.
    for (std::size_t k = 0; k < d; ++k)
        for (std::size_t j = 0; j < flagged_stride; ++j)
            if (j < out_first || j >= out_first + flagged) CHECK(got_fr[k * flagged_stride + j] == sentinel);
    for (std::size_t j = 0; j < others_stride; ++j)
        if (j < out_first || j >= out_first + others) {
            CHECK(got_ktag[j] == 7u);
            for (std::size_t k = 0; k < d; ++k) CHECK(got_kr[k * others_stride + j] == sentinel);
        }
}

} // namespace partcl_test
