// The sched layer's ordering and in-place outputs on several devices (split_context: two or
// three PoCL devices, or Oclgrind's one device named twice, where --data-races sees a missing
// dependency): markers order commands across queues, MultiDeviceLaunch::run orders device 0's
// queue after every device's launch with no host wait, and PartitionedOutput writes through
// regions of the destination where their starts are aligned, through slices where not, bit
// for bit the same; Mirror gives every device an input written on device 0, copied or not as
// the context's memory model says.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <partcl/backend/error.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/marker.hpp>
#include <partcl/sched/halo.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/partitioned_output.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// out[offset + i - begin] = value(i) for i in [begin, end); value(i) is a few hundred
// operations, so a queue that did not wait would read before it is written.
const char* fill_source = R"(
#include "common/real.h"
KERNEL void fill(const uint begin, const uint end, GLOBAL uint* out, const uint offset) {
    const uint i = begin + global_id(0);
    if (i >= end) return;
    uint v = i;
    for (uint k = 0; k < 200; ++k) v = v * 1664525u + 1013904223u;
    out[offset + (i - begin)] = v;
})";

std::uint32_t value(std::uint32_t i) {
    std::uint32_t v = i;
    for (int k = 0; k < 200; ++k) v = v * 1664525u + 1013904223u;
    return v;
}

// PoCL checks a sub-buffer's origin against CL_DEVICE_MEM_BASE_ADDR_ALIGN and refuses one 4
// bytes in; Oclgrind and NVIDIA's OpenCL make it, and CUDA's regions are pointer offsets.
bool refuses_unaligned_regions(const Context& context) {
    return context.device(0).info().platform == "Portable Computing Language";
}

std::vector<Kernel> fill_kernels(Context& context) {
    const Program program =
        build_program(context, Source::from_string("fill.cl", fill_source), {}, memory_cache());
    std::vector<Kernel> kernels;
    for (std::size_t d = 0; d < context.size(); ++d) kernels.emplace_back(program, "fill");
    return kernels;
}

} // namespace

TEST_SUITE("split_sched") {

TEST_CASE("a queue waiting for another queue's marker sees what was enqueued there before it") {
    Context context = split_context(2);
    std::vector<Kernel> kernels = fill_kernels(context);
    const std::size_t n = under_oclgrind() ? 300 : 1 << 20;
    Buffer<std::uint32_t> written(context, n), copied(context, n);
    copied.fill(context.queue(0), 0u);
    kernels[1].args(std::uint32_t(0), std::uint32_t(n), written, std::uint32_t(0))
        .launch(context.queue(1), n);
    const Marker filled = mark(context.queue(1));
    CHECK(filled.valid());
    wait_for(context.queue(0), filled);
    written.copy_to(context.queue(0), copied, n);
    const std::vector<std::uint32_t> got = copied.read(context.queue(0));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += got[i] != value(std::uint32_t(i));
    CHECK(wrong == 0);
    // A marker of nothing orders nothing; one of the queue itself changes nothing.
    wait_for(context.queue(0), Marker());
    wait_for(context.queue(0), mark(context.queue(0)));
    context.finish();
}

TEST_CASE("outputs in place through aligned regions, through slices where not, the same bits") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    Context context = split_context(parts);
    std::vector<Kernel> kernels = fill_kernels(context);
    // Groups of 256 uint: 1 KiB, a multiple of every device's base address alignment
    // (CL_DEVICE_MEM_BASE_ADDR_ALIGN is at most the 128 bytes of a long16 on the devices here).
    const std::size_t group = 256;
    std::vector<double> even(parts, 1.0), uneven(parts, 1.0);
    uneven.back() = 3.0;  // 1:3 on two devices
    const std::size_t large = under_oclgrind() ? 1500 : 100001;
    const bool refuses_unaligned = !Buffer<std::uint32_t>(context, 8).region(1, 1);
    CHECK(refuses_unaligned == refuses_unaligned_regions(context));
    MultiDeviceLaunch spread(context, Scheduler(even));
    PartitionedOutput<Buffer<std::uint32_t>> output(context, 1);
    for (const std::vector<double>* weights : {&even, &uneven})
        for (std::size_t n : {std::size_t(0), std::size_t(1), parts - 1, std::size_t(700), large})
            for (std::size_t offset : {std::size_t(0), std::size_t(1), std::size_t(256)})
                for (bool in_place : {true, false}) {
                    CAPTURE(weights->back());
                    CAPTURE(n);
                    CAPTURE(offset);
                    CAPTURE(in_place);
                    const std::uint32_t guard = 0xdeadbeef;
                    Buffer<std::uint32_t> out(context, std::vector<std::uint32_t>(offset + n + 3, guard));
                    spread.scheduler() = Scheduler(*weights);
                    const Partition p = spread.split(n, group);
                    output.assign(p, out, {offset, n}, in_place);
                    // Several parts: regions exactly where asked and every part's start aligned.
                    std::size_t with_part = 0;
                    for (std::size_t d = 0; d < parts; ++d) with_part += !p[d].empty();
                    if (with_part > 1)
                        CHECK(output.in_place() ==
                              (in_place && context.shares_memory() &&
                               (offset % 256 == 0 || !refuses_unaligned)));
                    if (!in_place) CHECK_FALSE(output.in_place());
                    spread.run(p, [&](std::size_t d, Range r) {
                        const auto part = output.part(d);
                        if (output.in_place()) CHECK(part.offset == 0);
                        return kernels[d]
                            .args(std::uint32_t(r.begin), std::uint32_t(r.end), part.buffer,
                                  std::uint32_t(part.offset))
                            .launch(context.queue(d), r.size(), group);
                    });
                    output.gather();
                    const std::vector<std::uint32_t> got = out.read(context.queue(0));
                    std::size_t wrong = 0;
                    for (std::size_t i = 0; i < got.size(); ++i) {
                        const bool inside = i >= offset && i < offset + n;
                        wrong += got[i] != (inside ? value(std::uint32_t(i - offset)) : guard);
                    }
                    CHECK(wrong == 0);
                }
    CHECK(spread.work()[0].launches > 0);
}

// PoCL before 7.0 keeps an entry per kernel and grid width it has run, and aborted here on
// three devices (pocl_release_dlhandle_cache: `found->ref_count > 0') until LaunchTurns: each
// launch is wider than all before it, so each makes a new entry while the others run.
TEST_CASE("one kernel launched on every device at once, each launch wider than the last") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    Context context = split_context(parts);
    const Program program = build_program(context, Source::from_string("stamp.cl", R"(
#include "common/real.h"
KERNEL void stamp(const uint n, GLOBAL uint* out, const uint round) {
    const uint i = global_id(0);
    if (i < n) out[i] = i * 3u + round;
})"),
                                          {}, memory_cache());
    std::vector<Kernel> kernels;
    for (std::size_t d = 0; d < parts; ++d) kernels.emplace_back(program, "stamp");
    const std::size_t group = 64, rounds = under_oclgrind() ? 3 : 300;
    std::vector<Buffer<std::uint32_t>> out;
    for (std::size_t d = 0; d < parts; ++d) out.emplace_back(context, rounds * parts * group);
    std::vector<std::size_t> last(parts);
    std::size_t width = 0;
    for (std::uint32_t round = 0; round < rounds; ++round) {
        for (std::size_t d = 0; d < parts; ++d) {
            last[d] = width += group;
            kernels[d].args(std::uint32_t(last[d]), out[d], round).launch(context.queue(d), last[d], group);
        }
        // From idle queues, every queue's next launch starts at once.
        if (round % 4 == 0) context.finish();
    }
    for (std::size_t d = 0; d < parts; ++d) {
        const std::vector<std::uint32_t> got = out[d].read(context.queue(d));
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < last[d]; ++i) wrong += got[i] != i * 3 + (rounds - 1);
        CHECK(wrong == 0);
    }
}

TEST_CASE("the memory model: automatic shares on CPU devices and one device, or as forced") {
    const Device device = split_context(1).device(0);
    CHECK(Context({device}).shares_memory());
    CHECK(Context({device, device}).shares_memory());
    CHECK_FALSE(Context({device, device}, MemoryModel::separate).shares_memory());
    CHECK(Context({device}, MemoryModel::shared).memory_model() == MemoryModel::shared);
    if (!under_oclgrind()) {
        const std::vector<Device> pocl = pocl_devices();
        if (pocl.size() >= 2) CHECK(Context({pocl[0], pocl[1]}).shares_memory());  // CPUs
    }
    // Device-local memory: of an entry the context has, else refused by name.
    Context two({device, device}, MemoryModel::separate);
    CHECK(Buffer<float>(two, 10, OnDevice{1}).size() == 10);
    CHECK(RealBuffer(two, Precision::float32, 0, OnDevice{0}).empty());
    CHECK_THROWS_AS(Buffer<float>(two, 10, OnDevice{2}), UsageError);
}

// Where memories are separate, the OpenCL backend copies between memories of different devices
// through pinned host memory (PinnedStaging), in pieces through a ring of slots: copies of any
// size, out to every device and back, enqueued back to back, each after its queue's earlier
// commands, arrive whole.
TEST_CASE("copies between the memories of devices arrive whole, at any size, back to back") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    Context base = split_context(parts);
    Context context(base.devices(), MemoryModel::separate);
    // 1.2 MB: two pieces; 20 MiB: eight pieces of 2.5 MiB, so the copies after the first reuse
    // slots that other queues' writes empty.
    std::vector<std::size_t> sizes{1, 1000, 300001};
    if (!under_oclgrind()) sizes.push_back(5 << 20);
    for (std::size_t n : sizes) {
        CAPTURE(n);
        auto want = [](std::size_t i) { return std::uint32_t(i * 2654435761u + 12345u); };
        std::vector<std::uint32_t> host(n);
        for (std::size_t i = 0; i < n; ++i) host[i] = want(i);
        Buffer<std::uint32_t> source(context, n + 3), back(context, parts * n);
        std::vector<Buffer<std::uint32_t>> copies;
        for (std::size_t d = 0; d < parts; ++d) copies.emplace_back(context, n, OnDevice{d});
        source.write(context.queue(0), host, 3);
        const Marker written = mark(context.queue(0));
        for (std::size_t d = 1; d < parts; ++d) {
            wait_for(context.queue(d), written);
            source.copy_to(context.queue(d), copies[d], n, 3);
        }
        // Back into device 0's memory, each on device 0's queue after the device's copy.
        for (std::size_t d = 1; d < parts; ++d) {
            wait_for(context.queue(0), mark(context.queue(d)));
            copies[d].copy_to(context.queue(0), back, n, 0, d * n);
        }
        // A copy ordered on a third device's queue, between the memories of two others.
        if (parts == 3) {
            wait_for(context.queue(2), mark(context.queue(0)));
            back.copy_to(context.queue(2), copies[1], n, n);
            wait_for(context.queue(0), mark(context.queue(2)));
            copies[1].copy_to(context.queue(0), back, n, 0, 0);
        } else {
            source.copy_to(context.queue(0), back, n, 3, 0);
        }
        const std::vector<std::uint32_t> got = back.read(context.queue(0));
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < parts * n; ++i) wrong += got[i] != want(i % n);
        CHECK(wrong == 0);
        context.finish();
    }
}

// A structure of arrays' components in one command (Halo's pieces): strided rows out of device
// 0's memory into every device's (pinned staging where memories are separate, in one piece up
// to 8 MiB and a row at a time above; rows past what NVIDIA's OpenCL takes in one rectangle
// as plain copies), within one memory, and refused where rows overlap.
TEST_CASE("rows copies: every component of a range in one command, to every device") {
    const std::size_t parts = under_oclgrind() ? 2 : 3;
    Context base = split_context(parts);
    Context context(base.devices(), MemoryModel::separate);
    std::vector<std::size_t> counts{1, 1000, 100003};
    if (!under_oclgrind()) counts.push_back(std::size_t(1) << 20);  // 12 MiB: a row at a time
    const std::size_t rows = 3;
    auto want = [](std::size_t i) { return std::uint32_t(i * 2654435761u + 777u); };
    for (std::size_t count : counts) {
        CAPTURE(count);
        const std::size_t stride = count + 7, target_stride = count + 11;
        std::vector<std::uint32_t> host(rows * stride);
        for (std::size_t i = 0; i < host.size(); ++i) host[i] = want(i);
        Buffer<std::uint32_t> source(context, host.size(), OnDevice{0});
        source.write(context.queue(0), host);
        const Marker written = mark(context.queue(0));
        std::vector<Buffer<std::uint32_t>> copies;
        for (std::size_t d = 0; d < parts; ++d) {
            copies.emplace_back(context, 5 + rows * target_stride, OnDevice{d});
            wait_for(context.queue(d), written);
            source.copy_rows_to(context.queue(d), copies[d], count, rows, 2, stride, 5,
                                target_stride);
        }
        for (std::size_t d = 0; d < parts; ++d) {
            const std::vector<std::uint32_t> got = copies[d].read(context.queue(d));
            std::size_t wrong = 0;
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t i = 0; i < count; ++i)
                    wrong += got[5 + r * target_stride + i] != host[2 + r * stride + i];
            CHECK(wrong == 0);
        }
        // Within one memory: the rows of the first half into the second.
        Buffer<std::uint32_t> both(context, 2 * host.size(), OnDevice{1});
        both.write(context.queue(1), host);
        both.copy_rows_to(context.queue(1), both, count, rows, 0, stride, host.size(), stride);
        const std::vector<std::uint32_t> got = both.read(context.queue(1));
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t i = 0; i < count; ++i)
                wrong += got[host.size() + r * stride + i] != host[r * stride + i];
        CHECK(wrong == 0);
        context.finish();
    }
    Buffer<std::uint32_t> a(context, 100), b(context, 100);
    CHECK_THROWS_AS(a.copy_rows_to(context.queue(0), b, 10, 3, 0, 9, 0, 10), UsageError);
    CHECK_THROWS_WITH(a.copy_rows_to(context.queue(0), b, 10, 3, 0, 10, 0, 50),
                      doctest::Contains("outside memory of 400 bytes"));
    CHECK_NOTHROW(a.copy_rows_to(context.queue(0), b, 10, 3, 0, 45, 0, 45).wait());
}

TEST_CASE("a mirror gives every device the input as device 0 last wrote it, under either model") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    for (MemoryModel model : {MemoryModel::shared, MemoryModel::separate}) {
        CAPTURE(int(model));
        Context base = split_context(parts);
        Context context(base.devices(), model);
        std::vector<Kernel> kernels = fill_kernels(context);
        const std::size_t n = under_oclgrind() ? 200 : 50000;
        Buffer<std::uint32_t> source(context, n), mirrored(context, parts * n);
        Mirror<Buffer<std::uint32_t>> mirror(context);
        CHECK(mirror.copies() == (model == MemoryModel::separate));
        CHECK_THROWS_AS(mirror.on(0), UsageError);
        CHECK_THROWS_AS(mirror.update(source, n + 1), UsageError);
        MultiDeviceLaunch spread(context);
        for (std::uint32_t round = 0; round < 3; ++round) {
            CAPTURE(round);
            // Device 0 writes the source (a value shifted by the round), then every device
            // copies what it reads of the mirror into its own block of `mirrored`.
            kernels[0].args(round, std::uint32_t(n) + round, source, std::uint32_t(0))
                .launch(context.queue(0), n);
            mirror.update(source, n);
            spread.share_inputs();
            for (std::size_t d = 0; d < parts; ++d) {
                CHECK((&mirror.on(d) == &source) == (d == 0 || !mirror.copies()));
                mirror.on(d).copy_to(context.queue(d), mirrored, n, 0, d * n);
            }
            for (std::size_t d = 1; d < parts; ++d)
                wait_for(context.queue(0), mark(context.queue(d)));
            const std::vector<std::uint32_t> got = mirrored.read(context.queue(0));
            std::size_t wrong = 0;
            for (std::size_t d = 0; d < parts; ++d)
                for (std::size_t i = 0; i < n; ++i)
                    wrong += got[d * n + i] != value(std::uint32_t(i) + round);
            CHECK(wrong == 0);
        }
        context.finish();
    }
}

TEST_CASE("a mirror's collect brings each device's items, written into its copy, back to the "
          "source") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    for (MemoryModel model : {MemoryModel::shared, MemoryModel::separate}) {
        CAPTURE(int(model));
        Context base = split_context(parts);
        Context context(base.devices(), model);
        std::vector<Kernel> kernels = fill_kernels(context);
        const std::size_t n = under_oclgrind() ? 240 : 60000;
        Buffer<std::uint32_t> source(context, n), other(context, n);
        Mirror<Buffer<std::uint32_t>> mirror(context);
        MultiDeviceLaunch spread(context);
        for (std::size_t per_item : {1, 2, 3}) {
            CAPTURE(per_item);
            source.fill(context.queue(0), 7u);
            mirror.update(source, n);
            spread.share_inputs();
            // Items of per_item elements each; device d writes the elements of its items only.
            const Partition p = spread.split(n / per_item, 1);
            spread.run(p, [&](std::size_t d, Range r) {
                const auto first = std::uint32_t(r.begin * per_item);
                const auto end = std::uint32_t(r.end * per_item);
                return kernels[d].args(first, end, mirror.on(d), first)
                    .launch(context.queue(d), end - first);
            });
            mirror.collect(p, source, per_item);
            const std::vector<std::uint32_t> got = source.read(context.queue(0));
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i)
                wrong += got[i] != (i < p.total() * per_item ? value(std::uint32_t(i)) : 7u);
            CHECK(wrong == 0);
            CHECK_THROWS_AS(mirror.collect(p, other, per_item), UsageError);
            CHECK_THROWS_AS(mirror.collect(Partition::on_one_device(n, parts + 1), source, 1),
                            UsageError);
            if (mirror.copies())
                CHECK_THROWS_AS(mirror.collect(p, source, per_item + 1), UsageError);
        }
        context.finish();
    }
}

TEST_CASE("a halo copies each planned range of every component after its sender's writes") {
    const std::size_t parts = under_oclgrind() ? 2 : pocl_devices().size() >= 3 ? 3 : 2;
    for (MemoryModel model : {MemoryModel::shared, MemoryModel::separate}) {
        CAPTURE(int(model));
        Context base = split_context(parts);
        Context context(base.devices(), model);
        std::vector<Kernel> kernels = fill_kernels(context);
        // Device d's field: `owned` slots it writes (value(d * 1000 + i)) between `ghost`
        // slots on either side, components `stride` apart; two components.
        const std::size_t owned = under_oclgrind() ? 40 : 4000, ghost = 7;
        const std::size_t stride = ghost + owned + ghost;
        std::vector<Buffer<std::uint32_t>> field;
        std::vector<std::size_t> strides(parts, stride);
        const std::vector<std::uint32_t> guards(2 * stride, 0xdeadbeefu);
        for (std::size_t d = 0; d < parts; ++d) {
            field.emplace_back(context, 2 * stride, OnDevice{d});
            field.back().write(context.queue(d), guards).wait();
        }
        // Each device's ghosts: the last `ghost` owned slots of the device before and the
        // first of the device after (none at the ends), in two pieces where it helps.
        std::vector<SlotCopy> pieces;
        for (std::size_t d = 0; d < parts; ++d) {
            if (d > 0) {
                pieces.push_back({d - 1, ghost + owned - ghost, d, 0, 3});
                pieces.push_back({d - 1, ghost + owned - ghost + 3, d, 3, ghost - 3});
            }
            if (d + 1 < parts) pieces.push_back({d + 1, ghost, d, ghost + owned, ghost});
        }
        pieces.push_back({0, ghost, 0, ghost, 0});  // an empty piece copies nothing
        Halo halo(context);
        halo.plan(pieces);
        CHECK(halo.pieces().size() == pieces.size());
        CHECK_THROWS_AS(halo.plan({{0, 0, parts, 0, 1}}), UsageError);
        halo.plan(pieces);
        for (std::uint32_t round = 0; round < 2; ++round) {
            for (std::size_t d = 0; d < parts; ++d)
                for (std::uint32_t c = 0; c < 2; ++c) {
                    const std::uint32_t first = std::uint32_t(d) * 1000u + c * 100000u + round;
                    kernels[d].args(first, first + std::uint32_t(owned), field[d],
                                    std::uint32_t(c * stride + ghost))
                        .launch(context.queue(d), owned);
                }
            halo.exchange(field, strides, 2);
            std::size_t wrong = 0;
            for (std::size_t d = 0; d < parts; ++d) {
                const std::vector<std::uint32_t> got = field[d].read(context.queue(d));
                for (std::uint32_t c = 0; c < 2; ++c)
                    for (std::size_t i = 0; i < stride; ++i) {
                        // The device whose slot this is, and its index among that one's own.
                        std::size_t from = d, j = i - ghost;
                        if (i < ghost) {
                            if (d == 0) continue;  // no ghosts below device 0
                            from = d - 1, j = owned - ghost + i;
                        } else if (i >= ghost + owned) {
                            if (d + 1 == parts) continue;
                            from = d + 1, j = i - ghost - owned;
                        }
                        const std::uint32_t want = value(std::uint32_t(from) * 1000u + c * 100000u +
                                                         round + std::uint32_t(j));
                        wrong += got[c * stride + i] != want;
                    }
            }
            CHECK(wrong == 0);
        }
        std::vector<Buffer<std::uint32_t>> too_few(parts - 1);
        CHECK_THROWS_AS(halo.exchange(too_few, strides, 1), UsageError);
        context.finish();
    }
}

TEST_CASE("regions of buffers: in range, aligned or refused") {
    Context context = split_context(2);
    RealBuffer real(context, Precision::float32, 1000);
    Buffer<std::uint32_t> plain(context, 1000);
    CHECK_THROWS_AS(real.region(990, 11), UsageError);
    CHECK_THROWS_AS(plain.region(1001, 0), UsageError);
    const auto whole = real.region(0, 1000);
    auto tail = plain.region(512, 488);
    REQUIRE(whole);
    REQUIRE(tail);
    CHECK(whole->size() == 1000);
    CHECK(whole->precision() == Precision::float32);
    CHECK(tail->size() == 488);
    const auto none = plain.region(3, 0);
    REQUIRE(none);
    CHECK(none->empty());
    CHECK(bool(plain.region(1, 10)) == !refuses_unaligned_regions(context));
    // Written through the region, read through the buffer.
    plain.fill(context.queue(0), 0u);
    tail->fill(context.queue(0), 7u);
    const std::vector<std::uint32_t> got = plain.read(context.queue(0));
    CHECK(got[511] == 0u);
    CHECK(got[512] == 7u);
    CHECK(got[999] == 7u);
}

}
