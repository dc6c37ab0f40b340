// Two PoCL devices in one context (CTest runs this with POCL_DEVICES="pthread pthread").
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <tuple>

#include <partcl/backend/opencl/interop.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

TEST_SUITE("two_devices" * doctest::skip()) {

TEST_CASE("one context over two PoCL devices, a queue each, half the range on each") {
    const char* pocl_devices_env = std::getenv("POCL_DEVICES");
    const std::string pocl_setting = pocl_devices_env ? pocl_devices_env : "(unset)";
    INFO("POCL_DEVICES=" << pocl_setting << " (CTest runs this with POCL_DEVICES=\"pthread pthread\")");
    const auto devices = pocl_devices();
    REQUIRE(devices.size() >= 2);
    const std::vector<Device> two{devices[0], devices[1]};
    CHECK(two[0].info().index != two[1].info().index);

    // The filter grammar sees both, and an index picks exactly one.
    CHECK(DeviceFilter("pthread").select().size() >= 2);
    const auto second = DeviceFilter(std::to_string(two[1].info().index)).select();
    REQUIRE(second.size() == 1);
    CHECK(opencl::native(second[0])() == opencl::native(two[1])());

    Context context(two);
    REQUIRE(context.size() == 2);
    CHECK(opencl::native(context).getInfo<CL_CONTEXT_NUM_DEVICES>() == 2);
    CHECK(make_contexts(two).size() == 1);

    // Through the disk cache: both devices' binaries come back in a fresh cache.
    {
        TempDir dir("two-devices");
        ProgramCache cold(ProgramCache::Settings{true, dir.path()});
        const Program first = build_program(context, real_check_source(), {}, cold);
        for (const auto& b : first.builds()) CHECK(b.origin == DeviceBuild::Origin::compiled);
        ProgramCache warm(ProgramCache::Settings{true, dir.path()});
        const Program program = build_program(context, real_check_source(), {}, warm);
        REQUIRE(program.builds().size() == 2);
        for (const auto& b : program.builds()) CHECK(b.origin == DeviceBuild::Origin::disk_cache);
        for (std::size_t d = 0; d < 2; ++d) {
            const std::uint32_t seed = fresh_seed();
            check_real_check(run_real_check(context, d, program, real_check_input(101, seed)),
                             Precision::float32, seed);
        }
    }

    for (Precision precision : {Precision::float32, Precision::float64}) {
        CAPTURE(to_string(precision));
        BuildOptions options;
        options.precision = precision;
        ProgramCache cache(ProgramCache::Settings{false, {}});
        const Program program = build_program(context, real_check_source(), options, cache);
        REQUIRE(program.builds().size() == 2);
        CHECK(program.builds()[0].device == two[0].info().name);
        CHECK(program.builds()[1].device == two[1].info().name);

        const std::size_t n = 1001;
        const std::uint32_t seed = fresh_seed();
        INFO("seed " << seed);
        const auto input = real_check_input(n, seed);

        // Reference: device 0 over everything.
        const auto whole = run_real_check(context, 0, program, input, 0);
        check_real_check(whole, precision, seed);

        // Each device gets its half (its own buffers), launched before either is waited on.
        const std::size_t half = n / 2;
        RealCheckInput parts[2];
        parts[0].xs.assign(input.xs.begin(), input.xs.begin() + half);
        parts[0].ys.assign(input.ys.begin(), input.ys.begin() + half);
        parts[1].xs.assign(input.xs.begin() + half, input.xs.end());
        parts[1].ys.assign(input.ys.begin() + half, input.ys.end());
        auto run_half = [&](auto tag, std::size_t d) {
            using T = decltype(tag);
            const std::size_t m = parts[d].xs.size();
            auto& queue = context.queue(d);
            std::vector<T> xs(parts[d].xs.begin(), parts[d].xs.end());
            std::vector<T> ys(parts[d].ys.begin(), parts[d].ys.end());
            auto bx = std::make_shared<Buffer<T>>(context, m);
            auto by = std::make_shared<Buffer<T>>(context, m);
            auto bout = std::make_shared<Buffer<T>>(context, real_check_rows * m);
            bx->write(queue, xs).wait();
            by->write(queue, ys).wait();
            bout->fill(queue, T(-7)).wait();
            auto kernel = std::make_shared<Kernel>(program, "real_check");
            kernel->args(std::uint32_t(m), *bx, *by, *bout);
            kernel->launch(queue, m, 32);
            return std::make_tuple(bx, by, bout, kernel);
        };
        auto compare = [&](auto tag) {
            using T = decltype(tag);
            auto first = run_half(tag, 0);
            auto second_half = run_half(tag, 1);
            context.finish();
            std::vector<double> out[2];
            for (std::size_t d = 0; d < 2; ++d) {
                auto& bout = d == 0 ? std::get<2>(first) : std::get<2>(second_half);
                const std::vector<T> o = bout->read(context.queue(d));
                out[d].assign(o.begin(), o.end());
            }
            // The halves together equal the single-device run, bit for bit (same driver).
            std::size_t mismatches = 0;
            for (std::size_t row = 0; row < real_check_rows; ++row)
                for (std::size_t i = 0; i < n; ++i) {
                    const std::size_t d = i < half ? 0 : 1;
                    const std::size_t m = parts[d].xs.size();
                    const std::size_t j = i < half ? i : i - half;
                    if (out[d][row * m + j] != whole.out[row * n + i]) ++mismatches;
                }
            CHECK(mismatches == 0);
            // And each half is right on its own.
            for (std::size_t d = 0; d < 2; ++d) {
                RealCheckRun run;
                run.xs.assign(parts[d].xs.begin(), parts[d].xs.end());
                run.ys.assign(parts[d].ys.begin(), parts[d].ys.end());
                for (auto& v : run.xs) v = double(T(v));
                for (auto& v : run.ys) v = double(T(v));
                run.out = out[d];
                CAPTURE(d);
                check_real_check(run, precision, seed);
            }
        };
        if (precision == Precision::float64)
            compare(double{});
        else
            compare(float{});
    }
}

TEST_CASE("MultiDeviceLaunch over two devices: a read-modify-write kernel sees every item once") {
    // As a user's program would: its own kernel, bounds-checked against the total n only, one
    // buffer shared by the context, each device launching its slice at an offset. Odd n and
    // group sizes of 1, 7 and 64 (a slice end rounded up to whole groups must not run into the
    // next device's items, which would apply y = a x + y twice there). (OpenCL leaves two
    // devices writing one buffer at once undefined; PoCL's devices share host memory, where
    // disjoint writes are well defined, and the test is about the slices being disjoint.)
    const auto devices = pocl_devices();
    REQUIRE(devices.size() >= 2);
    Context context(std::vector<Device>{devices[0], devices[1]});
    const Source source = Source::from_string("saxpy.cl", R"(
        __kernel void saxpy(const uint n, const float a, __global const float* x,
                            __global float* y) {
            const uint i = get_global_id(0);
            if (i < n) y[i] = a * x[i] + y[i];
        })");
    const Program program = build_program(context, source, {}, memory_cache());
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    // Multiples of 1/64 below 2 in size: 2.5 x + y is exact, so a fused multiply-add on the
    // device and the host's two roundings agree, and any other value means a wrong count.
    std::uniform_int_distribution<int> sixty_fourths(-127, 127);
    auto uniform = [&](std::mt19937& r) { return float(sixty_fourths(r)) / 64.0f; };
    for (const std::size_t n : {1, 63, 1001, 4099}) {
        for (const std::size_t group : {1, 7, 64}) {
            CAPTURE(n);
            CAPTURE(group);
            std::vector<float> x(n), y(n);
            for (std::size_t i = 0; i < n; ++i) x[i] = uniform(rng), y[i] = uniform(rng);
            Buffer<float> bx(context, x), by(context, y);
            context.finish();
            Kernel kernel(program, "saxpy");
            kernel.args(std::uint32_t(n), 2.5f, bx, by);
            // Uneven weights put the cut at an odd place.
            MultiDeviceLaunch spread(context, Scheduler({1.0, 2.7}));
            const Partition p = spread.split(n, group);
            spread.run(p, [&](std::size_t d, Range r) {
                return kernel.launch(context.queue(d), r.size(), group, r.begin);
            });
            CHECK(p[0].begin == 0);
            CHECK(p[1].end == n);
            context.finish();
            const auto got = by.read(context.queue(0));
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i) wrong += got[i] != 2.5f * x[i] + y[i];
            CHECK(wrong == 0);
        }
    }
    // A launch in groups other than the split's is refused, not run twice over some items.
    Buffer<float> bx(context, 1001), by(context, 1001);
    Kernel kernel(program, "saxpy");
    kernel.args(std::uint32_t(1001), 2.5f, bx, by);
    MultiDeviceLaunch spread(context, Scheduler({1.0, 1.0}));
    CHECK_THROWS_WITH_AS(spread.run(spread.split(1001, 7),
                                    [&](std::size_t d, Range r) {
                                        return kernel.launch(context.queue(d), r.size(), 64,
                                                             r.begin);
                                    }),
                         doctest::Contains("multiple of its group size"), UsageError);
    context.finish();
}

} // TEST_SUITE
