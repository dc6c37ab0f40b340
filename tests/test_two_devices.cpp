// Two PoCL devices in one context (CTest runs this with POCL_DEVICES="pthread pthread").
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <tuple>

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
    CHECK(second[0].cl_device()() == two[1].cl_device()());

    Context context(two);
    REQUIRE(context.size() == 2);
    CHECK(context.cl_context().getInfo<CL_CONTEXT_NUM_DEVICES>() == 2);
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
            kernel->args(cl_uint(m), *bx, *by, *bout);
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

} // TEST_SUITE
