// The multi-device layer: partitions and the scheduler's re-weighting on synthetic timings
// (suite `scheduler`, no device needed but for the misuse of outputs), and a SoA output of four
// components computed over two PoCL devices, gathered and compared with a float64 reference and
// bit for bit with one device (suite `scheduler_two_devices`, POCL_DEVICES="pthread pthread").
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/ordered_sum.hpp>
#include <partcl/sched/partitioned_output.hpp>
#include <partcl/sched/scheduler.hpp>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// Every part follows the one before, the first starts at 0, the last ends at n.
void check_covers(const Partition& p, std::size_t n) {
    CHECK(p.total() == n);
    CHECK(p[0].begin == 0);
    for (std::size_t d = 1; d < p.parts(); ++d) CHECK(p[d].begin == p[d - 1].end);
    CHECK(p[p.parts() - 1].end == n);
}

// For target i of [begin, end): the sums over all sources j of m_j d / |d|_eps (d = r_j - r_i,
// three components) and of m_j / |d|_eps (the fourth), written as SoA at out[offset + c stride
// + i - begin]. Summed in j order, so a target's values do not depend on the device.
const char* field_source = R"(
#include "common/real.h"
KERNEL void field(const uint begin, const uint end, const uint n, GLOBAL const real* pos,
                  GLOBAL const real* m, GLOBAL real* out, const uint offset, const uint stride) {
    const uint i = begin + global_id(0);
    if (i >= end) return;
    real s[4] = {REAL_C(0.0), REAL_C(0.0), REAL_C(0.0), REAL_C(0.0)};
    for (uint j = 0; j < n; ++j) {
        const real dx = pos[j] - pos[i], dy = pos[n + j] - pos[n + i],
                   dz = pos[2 * n + j] - pos[2 * n + i];
        const real w = m[j] / sqrt(dx * dx + dy * dy + dz * dz + REAL_C(0.01));
        s[0] += w * dx;
        s[1] += w * dy;
        s[2] += w * dz;
        s[3] += w;
    }
    for (uint c = 0; c < 4; ++c) out[offset + c * stride + (i - begin)] = s[c];
}
)";

constexpr std::size_t field_components = 4;

// The field over [0, n) on every device of `context` by `weights`, in groups of `group`, into a
// destination of `gap` guard elements (-7) before, between and after the components. Returns
// the whole destination.
std::vector<double> run_field(Context& context, Precision precision, const std::vector<double>& pos,
                              const std::vector<double>& mass, std::vector<double> weights,
                              std::size_t group, std::size_t gap, int launches = 2) {
    const std::size_t n = mass.size();
    BuildOptions options;
    options.precision = precision;
    const Program program =
        build_program(context, Source::from_string("field.cl", field_source), options, memory_cache());
    std::vector<Kernel> kernels;
    for (std::size_t d = 0; d < context.size(); ++d) kernels.emplace_back(program, "field");
    RealBuffer bpos(context, precision, 3 * n), bmass(context, precision, n);
    bpos.write(context.queue(0), pos);
    bmass.write(context.queue(0), mass);
    const SoaLayout layout{gap, n + gap};
    RealBuffer out(context, precision, gap + field_components * (n + gap));

    MultiDeviceLaunch spread(context, Scheduler(std::move(weights)));
    PartitionedOutput<RealBuffer> parts(context, field_components);
    // Again with the slices of the first launch (and a re-weighted split).
    for (int launch = 0; launch < launches; ++launch) {
        out.fill(context.queue(0), -7.0);
        const Partition p = spread.split(n, group);
        check_covers(p, n);
        for (std::size_t d = 0; d < p.parts(); ++d) CHECK((p[d].end % group == 0 || p[d].end == n));
        parts.assign(p, out, layout);
        spread.run(p, [&](std::size_t d, Range r) {
            const OutputPart<RealBuffer> part = parts.part(d);
            CHECK(part.range == r);
            kernels[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(n), bpos,
                            bmass, part.buffer, std::uint32_t(part.offset),
                            std::uint32_t(part.stride));
            return kernels[d].launch(context.queue(d), r.size(), group);
        });
        parts.gather();
    }
    return out.read(context.queue(0));
}

} // namespace

TEST_SUITE("scheduler") {

TEST_CASE("split covers the range contiguously in proportion to the weights") {
    Scheduler s({1.0, 3.0});
    const Partition r = s.split(1000);
    REQUIRE(r.parts() == 2);
    CHECK(r[0] == Range{0, 250});
    CHECK(r[1] == Range{250, 1000});

    // Boundaries on granules, except the end: N not a multiple of the group size.
    const Partition g = s.split(1001, 64);
    CHECK(g[0].end % 64 == 0);
    CHECK(g[1].end == 1001);
    CHECK(g[0].end == 256);
    check_covers(g, 1001);

    // Fewer items than devices: some parts are empty, none overlap, all are covered.
    Scheduler three({1.0, 1.0, 1.0});
    const Partition small = three.split(2);
    std::size_t covered = 0;
    for (std::size_t d = 0; d < small.parts(); ++d) covered += small[d].size();
    CHECK(covered == 2);
    check_covers(small, 2);
    // Fewer items than one group: all on the device whose cumulative weight first passes half
    // of the one group, the others empty.
    const Partition one_group = three.split(5, 64);
    check_covers(one_group, 5);
    CHECK(one_group[1] == Range{0, 5});
    // N = 0: every part empty.
    const Partition none = three.split(0, 64);
    check_covers(none, 0);
    for (std::size_t d = 0; d < 3; ++d) CHECK(none[d].empty());

    // Uneven weights: a tiny one rounds to no group at all; the others share the rest.
    const Partition tiny = Partition::by_weight(1000, {0.001, 1.0, 2.0}, 16);
    CHECK(tiny[0].empty());
    CHECK(tiny[1] == Range{0, 336});
    CHECK(tiny[2] == Range{336, 1000});
}

TEST_CASE("a partition is an explicit array of offsets") {
    const Partition p({0, 3, 3, 10});
    CHECK(p.parts() == 3);
    CHECK(p.total() == 10);
    CHECK(p[1].empty());
    CHECK(p[2] == Range{3, 10});
    CHECK_THROWS_AS(p[3], std::out_of_range);
    CHECK(Partition::on_one_device(7, 3, 1) == Partition({0, 0, 7, 7}));
    CHECK(Partition().parts() == 1);
    CHECK(Partition().total() == 0);
    CHECK_THROWS_WITH_AS(Partition({1, 3}), doctest::Contains("starts at 0"), UsageError);
    CHECK_THROWS_WITH_AS(Partition({0, 5, 4}), doctest::Contains("must not decrease"), UsageError);
    CHECK_THROWS_AS(Partition(std::vector<std::size_t>{0}), UsageError);
    CHECK_THROWS_AS(Partition::on_one_device(7, 2, 2), UsageError);
    CHECK_THROWS_AS(Partition::by_weight(7, {}), UsageError);
    CHECK_THROWS_AS(Partition::by_weight(7, {1.0, NAN}), UsageError);
}

TEST_CASE("a split by weight snapped to allowed cuts (slab borders)") {
    const std::vector<std::size_t> cuts{0, 10, 25, 60, 100};
    // 1:1 wants 50: 60 is nearer than 25. 1:3 wants 25, an allowed cut itself.
    CHECK(Partition::by_weight_at(cuts, {1.0, 1.0}) == Partition({0, 60, 100}));
    CHECK(Partition::by_weight_at(cuts, {1.0, 3.0}) == Partition({0, 25, 100}));
    // Equally near: the lower cut.
    CHECK(Partition::by_weight_at({0, 40, 60, 100}, {1.0, 1.0}) == Partition({0, 40, 100}));
    // Several parts wanting the same cut: the later ones empty, never overlapping.
    CHECK(Partition::by_weight_at({0, 7, 9}, {1.0, 1.0, 1.0, 1.0}) == Partition({0, 0, 7, 7, 9}));
    // One block between the cuts: all of it on the part whose cut passes its middle.
    CHECK(Partition::by_weight_at({0, 5}, {1.0, 1.0, 1.0}) == Partition({0, 0, 5, 5}));
    CHECK(Partition::by_weight_at({0, 5}, {1.0}) == Partition({0, 5}));
    // Repeated cuts (empty slabs) and no items.
    CHECK(Partition::by_weight_at({0, 0, 3, 3, 8}, {1.0, 1.0}) == Partition({0, 3, 8}));
    CHECK(Partition::by_weight_at({0}, {1.0, 2.0}) == Partition({0, 0, 0}));
    // Every cut is one of the allowed ones, for random cuts and weights.
    std::mt19937 random(fresh_seed());
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::size_t> allowed{0};
        const int count = int(random() % 20);
        for (int c = 0; c < count; ++c) allowed.push_back(allowed.back() + random() % 50);
        std::vector<double> weights(1 + random() % 4);
        for (double& w : weights) w = 0.1 + double(random() % 100);
        const Partition p = Partition::by_weight_at(allowed, weights);
        check_covers(p, allowed.back());
        for (std::size_t offset : p.offsets())
            CHECK(std::find(allowed.begin(), allowed.end(), offset) != allowed.end());
    }
    CHECK_THROWS_WITH_AS(Partition::by_weight_at({0, 5, 3}, {1.0}), doctest::Contains("ascend"), UsageError);
    CHECK_THROWS_AS(Partition::by_weight_at({1, 5}, {1.0}), UsageError);
    CHECK_THROWS_AS(Partition::by_weight_at({}, {1.0}), UsageError);
    CHECK_THROWS_AS(Partition::by_weight_at({0, 5}, {}), UsageError);
    CHECK_THROWS_AS(Partition::by_weight_at({0, 5}, {1.0, -1.0}), UsageError);
}

namespace {

// The heaviest part of `p` over `weights`, summed as Partition::balanced sums (prefix sums).
double heaviest(const Partition& p, const std::vector<double>& below) {
    double most = 0;
    for (std::size_t r = 0; r < p.parts(); ++r) most = std::max(most, below[p[r].end] - below[p[r].begin]);
    return most;
}

// The least heaviest part of any contiguous cut of the items into `parts`, by dynamic
// programming over every cut.
double least_heaviest(const std::vector<double>& below, std::size_t parts) {
    const std::size_t items = below.size() - 1;
    std::vector<double> best(items + 1, INFINITY);  // best[s]: items < s in the parts so far
    best[0] = 0;
    for (std::size_t r = 0; r < parts; ++r) {
        std::vector<double> next(items + 1, INFINITY);
        for (std::size_t end = 0; end <= items; ++end)
            for (std::size_t begin = 0; begin <= end; ++begin)
                next[end] = std::min(next[end], std::max(best[begin], below[end] - below[begin]));
        best = next;
    }
    return best[items];
}

} // namespace

TEST_CASE("a balanced cut: the least heaviest part any contiguous cut allows") {
    // Equal weights that divide: equal parts. Four items in three parts: 2, 1, 1 is as good as
    // the equal shares' cut, which it keeps.
    CHECK(Partition::balanced(std::vector<double>(12, 1.0), 3) == Partition({0, 4, 8, 12}));
    CHECK(Partition::balanced(std::vector<double>(4, 1.0), 3) == Partition({0, 2, 3, 4}));
    // Equal shares would cut 1, 1, 1, 1, 4 after the third item (weight 3 and 5); the best
    // cut is 4 and 4.
    CHECK(Partition::balanced({1, 1, 1, 1, 4}, 2) == Partition({0, 4, 5}));
    // A heavy item alone, the others shared; no items; more parts than items; zero weights.
    CHECK(Partition::balanced({1, 9, 1, 1}, 3) == Partition({0, 1, 2, 4}));
    CHECK(Partition::balanced({}, 2) == Partition({0, 0, 0}));
    CHECK(Partition::balanced({2.0, 3.0}, 4) == Partition({0, 1, 2, 2, 2}));
    check_covers(Partition::balanced(std::vector<double>(5, 0.0), 2), 5);
    // Random weights, zeros and outliers among them: as good as the best cut, never worse than
    // the equal shares', on every rank alike (a pure function of its input).
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    std::mt19937 random(seed);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> weights(random() % 30);
        for (double& w : weights) {
            const unsigned kind = random() % 10;
            w = kind == 0 ? 0.0 : kind == 1 ? 50.0 + double(random() % 500) : double(random() % 1000) / 97.0;
        }
        const std::size_t parts = 1 + random() % 8;
        std::vector<double> below(weights.size() + 1, 0.0);
        for (std::size_t s = 0; s < weights.size(); ++s) below[s + 1] = below[s] + weights[s];
        const Partition cut = Partition::balanced(weights, parts);
        REQUIRE(cut.parts() == parts);
        check_covers(cut, weights.size());
        const double best = least_heaviest(below, parts);
        CHECK(heaviest(cut, below) <= best * (1 + 1e-12));
        CHECK(cut == Partition::balanced(weights, parts));
    }
    CHECK_THROWS_WITH_AS(Partition::balanced({1.0, -1.0}, 2), doctest::Contains("item 1"), UsageError);
    CHECK_THROWS_AS(Partition::balanced({1.0, NAN}, 2), UsageError);
    CHECK_THROWS_AS(Partition::balanced({1.0, INFINITY}, 2), UsageError);
    CHECK_THROWS_AS(Partition::balanced({1.0}, 0), UsageError);
}

TEST_CASE("weights follow measured throughput, smoothed") {
    // Device 1 is three times as fast as device 0 but starts with equal weight.
    Scheduler s({1.0, 1.0}, 0.5);
    const double speed[2] = {1e6, 3e6};  // items per second
    for (int launch = 0; launch < 30; ++launch) {
        const Partition r = s.split(100000);
        s.record(r, {r[0].size() / speed[0], r[1].size() / speed[1]});
    }
    CHECK(s.weights()[0] == doctest::Approx(0.25).epsilon(1e-3));
    CHECK(s.weights()[1] == doctest::Approx(0.75).epsilon(1e-3));

    // One launch moves the weights only part of the way (smoothing).
    Scheduler t({1.0, 1.0}, 0.5);
    const Partition r = t.split(1000);
    t.record(r, {r[0].size() / speed[0], r[1].size() / speed[1]});
    CHECK(t.weights()[1] == doctest::Approx(0.625));
}

TEST_CASE("a device without a measurement keeps its share and is never starved") {
    Scheduler s({1.0, 1.0, 2.0}, 1.0);
    s.record(Partition({0, 10, 10, 30}), {1.0, 0.0, 1.0});
    CHECK(s.weights()[1] == doctest::Approx(0.25));
    // An extremely slow device keeps a floor, so it is measured again later.
    Scheduler f({1.0, 1.0}, 1.0);
    f.record(Partition({0, 500, 1000}), {1.0, 1e9});
    CHECK(f.weights()[1] > 0);
    CHECK(f.weights()[0] < 1);
}

TEST_CASE("bad weights and records are refused") {
    CHECK_THROWS_AS(Scheduler(std::vector<double>{}), UsageError);
    CHECK_THROWS_AS(Scheduler({1.0, 0.0}), UsageError);
    CHECK_THROWS_AS(Scheduler({1.0}, 0.0), UsageError);
    Scheduler s({1.0, 1.0});
    CHECK_THROWS_AS(s.record(Partition({0, 1}), {1.0}), UsageError);
}

TEST_CASE("outputs and launches refuse what does not fit") {
    Context& context = test_context();
    const std::size_t devices = context.size();
    CHECK_THROWS_AS(PartitionedOutput<RealBuffer>(context, 0), UsageError);
    CHECK_THROWS_AS(MultiDeviceLaunch(context, Scheduler(std::vector<double>(devices + 1, 1.0))),
                    UsageError);
    PartitionedOutput<RealBuffer> parts(context, 3);
    RealBuffer out(context, Precision::float32, 30);
    const Partition p = Partition::on_one_device(10, devices);
    // Nothing assigned yet, or any more after a gather.
    CHECK_THROWS_WITH_AS(parts.part(0), doctest::Contains("no destination"), UsageError);
    CHECK_THROWS_AS(parts.gather(), UsageError);
    parts.assign(p, out, {0, 10});
    CHECK(parts.part(0).stride == 10);
    CHECK_THROWS_AS(parts.part(devices), UsageError);
    parts.gather();
    CHECK_THROWS_AS(parts.part(0), UsageError);
    // Components that would overlap, a destination too short, a partition of other devices.
    CHECK_THROWS_WITH_AS(parts.assign(p, out, {0, 9}), doctest::Contains("overlap"), UsageError);
    CHECK_THROWS_WITH_AS(parts.assign(p, out, {1, 10}), doctest::Contains("do not fit"), UsageError);
    CHECK_THROWS_AS(parts.assign(Partition::on_one_device(10, devices + 1), out, {0, 10}),
                    UsageError);
    MultiDeviceLaunch spread(context);
    CHECK_THROWS_AS(spread.run(Partition::on_one_device(10, devices + 1),
                               [](std::size_t, Range) { return Event(); }),
                    UsageError);
    // One component takes n as its stride; N = 0 fits anywhere.
    PartitionedOutput<Buffer<float>> single(context, 1);
    Buffer<float> small(context, 10);
    single.assign(p, small, {});
    CHECK(single.part(0).stride == 10);
    single.gather();
    single.assign(Partition::on_one_device(0, devices), small, {10, 0});
    single.gather();
}

TEST_CASE("one device named three times: a split launch on its three queues, every item once") {
    Context context = split_context(3);
    REQUIRE(context.size() == 3);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    const std::size_t n = under_oclgrind() ? 77 : 1001;
    const Bodies b = random_bodies(n, seed);
    std::vector<double> pos(b.x);
    pos.insert(pos.end(), b.y.begin(), b.y.end());
    pos.insert(pos.end(), b.z.begin(), b.z.end());
    // Weights 1:3:2 with groups of 8: every device gets a part, none a multiple of the others.
    const auto split = run_field(context, Precision::float64, pos, b.m, {1.0, 3.0, 2.0}, 8, 2, 1);
    Context one(std::vector<Device>{context.device(0)});
    const auto whole = run_field(one, Precision::float64, pos, b.m, {1.0}, 8, 2, 1);
    CHECK(split == whole);
}

TEST_CASE("OrderedSum adds the parts of the devices with work in device order") {
    Context context = split_context(3);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    const Partition all(std::vector<std::size_t>{0, 4, 9, 10});
    const Partition middle_empty(std::vector<std::size_t>{0, 4, 4, 10});
    const Partition last_only = Partition::on_one_device(10, 3, 2);
    const Partition none = Partition::on_one_device(0, 3);
    for (std::size_t size : {std::size_t(1), std::size_t(257), std::size_t(under_oclgrind() ? 300 : 40000)}) {
        for (const Partition* p : {&all, &middle_empty, &last_only, &none}) {
            check_ordered_sum(context, Precision::float32, *p, size, seed);
            if (context.device(0).info().fp64)
                check_ordered_sum(context, Precision::float64, *p, size, seed + 1);
        }
    }
}

TEST_CASE("OrderedSum refuses what does not fit") {
    Context context = split_context(2);
    OrderedSum sum(context, Precision::float32, memory_cache());
    sum.resize(10);
    CHECK_THROWS_WITH_AS(sum.part(2), doctest::Contains("device 2 of a context of 2"), UsageError);
    RealBuffer small(context, Precision::float32, 12), other(context, Precision::float64, 12);
    const Partition p = Partition::on_one_device(4, 2);
    CHECK_THROWS_WITH_AS(sum.sum_into(small, p, 3), doctest::Contains("do not fit"), UsageError);
    CHECK_THROWS_WITH_AS(sum.sum_into(other, p), doctest::Contains("double destination"), UsageError);
    CHECK_THROWS_AS(sum.sum_into(small, Partition::on_one_device(4, 3)), UsageError);
    sum.part(0).write(context.queue(0), std::vector<double>(10, 0.5));
    sum.sum_into(small, p, 2);  // fits exactly
    std::vector<double> got(10);
    small.read(context.queue(0), got.data(), 10, 2);
    CHECK(got == std::vector<double>(10, 0.5));
}

TEST_CASE("on the tests' context: every item written once, the guards around them kept") {
    Context& context = test_context();
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    const Bodies b = random_bodies(257, seed);
    std::vector<double> pos(b.x);
    pos.insert(pos.end(), b.y.begin(), b.y.end());
    pos.insert(pos.end(), b.z.begin(), b.z.end());
    const auto got = run_field(context, Precision::float64, pos, b.m,
                               std::vector<double>(context.size(), 1.0), 64, 3, 1);
    CHECK(got.front() == -7.0);
    CHECK(got.back() == -7.0);
    std::size_t unwritten = 0;
    for (std::size_t c = 0; c < field_components; ++c)
        for (std::size_t i = 0; i < 257; ++i) unwritten += got[3 + c * 260 + i] == -7.0;
    CHECK(unwritten == 0);
}

}

TEST_SUITE("scheduler_two_devices" * doctest::skip()) {

TEST_CASE("a run re-weights the scheduler from its kernels' profiled times") {
    const auto devices = pocl_devices();
    REQUIRE_MESSAGE(devices.size() >= 2, "run with POCL_DEVICES=\"pthread pthread\"");
    Context context(std::vector<Device>{devices[0], devices[1]});
    const Program program = build_program(
        context, Source::from_string("fill.cl", R"(
            __kernel void fill(const uint begin, const uint end, __global float* out) {
                const uint i = begin + get_global_id(0);
                if (i < end) out[i - begin] = (float)i;
            })"),
        {}, memory_cache());
    std::vector<Kernel> kernels{Kernel(program, "fill"), Kernel(program, "fill")};
    MultiDeviceLaunch spread(context, Scheduler({1.0, 2.0}, 0.5));
    PartitionedOutput<Buffer<float>> parts(context, 1);
    for (std::size_t n : {0, 5000, 100000}) {
        CAPTURE(n);
        Buffer<float> out(context, n);
        const Scheduler before = spread.scheduler();
        const Partition p = spread.split(n, 16);
        parts.assign(p, out, {});
        std::vector<Event> events(2);
        spread.run(p, [&](std::size_t d, Range r) {
            const auto part = parts.part(d);
            kernels[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), part.buffer);
            return events[d] = kernels[d].launch(context.queue(d), r.size(), 16);
        });
        parts.gather();
        // Exactly what the scheduler makes of those times; nothing to learn from N = 0.
        Scheduler expected = before;
        expected.record(p, {events[0].seconds(), events[1].seconds()});
        CHECK(spread.scheduler().weights() == expected.weights());
        if (n == 0) CHECK(spread.scheduler().weights() == before.weights());
        std::size_t wrong = 0;
        const auto got = out.read(context.queue(0));
        for (std::size_t i = 0; i < n; ++i) wrong += got[i] != float(i);
        CHECK(wrong == 0);
    }
}

TEST_CASE("a partitioned SoA output over two devices: the float64 reference, bit for bit one device") {
    const auto devices = pocl_devices();
    REQUIRE_MESSAGE(devices.size() >= 2, "run with POCL_DEVICES=\"pthread pthread\"");
    Context both(std::vector<Device>{devices[0], devices[1]});
    Context one(std::vector<Device>{devices[0]});
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t n : {0, 1, 63, 1001}) {
            CAPTURE(to_string(precision));
            CAPTURE(n);
            const Bodies b = random_bodies(n, seed);
            std::vector<double> pos(b.x), mass(b.m);
            pos.insert(pos.end(), b.y.begin(), b.y.end());
            pos.insert(pos.end(), b.z.begin(), b.z.end());
            if (precision == Precision::float32)
                for (auto* v : {&pos, &mass})
                    for (double& value : *v) value = double(float(value));
            const std::size_t gap = 5, stride = n + gap;
            const auto single = run_field(one, precision, pos, mass, {1.0}, 64, gap);

            // float64 reference, and the sums of magnitudes its error is bounded by.
            std::vector<double> expected(field_components * n, 0.0), magnitude(expected);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double d[3];
                    for (std::size_t a = 0; a < 3; ++a) d[a] = pos[a * n + j] - pos[a * n + i];
                    const double w = mass[j] / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01);
                    for (std::size_t c = 0; c < field_components; ++c) {
                        const double term = c < 3 ? w * d[c] : w;
                        expected[c * n + i] += term;
                        magnitude[c * n + i] += std::abs(term);
                    }
                }
            const double eps = precision == Precision::float64 ? DBL_EPSILON : FLT_EPSILON;
            const double bound = 4 * eps * (std::sqrt(double(n)) + 8);

            // Even, uneven both ways, and device 0 with no part at all; groups of 7 and 64.
            for (const std::vector<double>& weights :
                 {std::vector<double>{1.0, 1.0}, {1.0, 2.7}, {3.0, 1.0}, {1e-4, 1.0}})
                for (std::size_t group : {7, 64}) {
                    CAPTURE(weights[0]);
                    CAPTURE(weights[1]);
                    CAPTURE(group);
                    const auto got = run_field(both, precision, pos, mass, weights, group, gap);
                    CHECK(got == single);
                    std::size_t guards = 0, outside = 0;
                    for (std::size_t k = 0; k < got.size(); ++k) {
                        const bool value = k >= gap && (k - gap) % stride < n;
                        guards += !value && got[k] == -7.0;
                        if (!value) continue;
                        const std::size_t c = (k - gap) / stride, i = (k - gap) % stride;
                        const double error = std::abs(got[k] - expected[c * n + i]);
                        outside += !(error <= bound * magnitude[c * n + i]);
                    }
                    CHECK(guards == gap + field_components * gap);
                    CHECK(outside == 0);
                }
        }
}

}
