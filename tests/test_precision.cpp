// cl/common/real.h in float and double: real_check against a host float64 computation.
#include <doctest/doctest.h>

#include <cfloat>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

void check_precision(Precision precision) {
    Context& context = test_context();
    BuildOptions options;
    options.precision = precision;
    const Program program = build_program(context, real_check_source(), options, memory_cache());
    REQUIRE(program.precision() == precision);
    for (std::size_t device = 0; device < context.size(); ++device) {
        if (precision == Precision::float64 && !context.device(device).info().fp64) {
            MESSAGE("skipping double on " << context.device(device).info().name << " (no fp64)");
            continue;
        }
        for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1001)}) {
            for (std::size_t local : {std::size_t(0), std::size_t(1), std::size_t(64)}) {
                const std::uint32_t seed = fresh_seed();
                INFO("device " << context.device(device).info().name << ", seed " << seed
                               << ", n " << n << ", local " << local);
                const auto run =
                    run_real_check(context, device, program, real_check_input(n, seed), local);
                check_real_check(run, precision, seed);
            }
        }
    }
}

} // namespace

TEST_SUITE("precision") {

TEST_CASE("real.h in float matches float64 at float tolerance; REAL_EPSILON is FLT_EPSILON") {
    check_precision(Precision::float32);
}

TEST_CASE("real.h in double matches float64 at double tolerance; REAL_EPSILON is DBL_EPSILON") {
    check_precision(Precision::float64);
}

TEST_CASE("the two precisions really differ") {
    // The same inputs through both builds: the float results are float-rounded (and so differ
    // from the double ones in some element), the double ones are not.
    Context& context = test_context();
    if (!context.device(0).info().fp64) return;
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    const auto input = real_check_input(101, seed);
    BuildOptions single, twice;
    twice.precision = Precision::float64;
    const auto f = run_real_check(context, 0, build_program(context, real_check_source(), single,
                                                            memory_cache()), input);
    const auto d = run_real_check(context, 0, build_program(context, real_check_source(), twice,
                                                            memory_cache()), input);
    CHECK(f.out[7 * 101] == double(FLT_EPSILON));
    CHECK(d.out[7 * 101] == DBL_EPSILON);
    std::size_t differ = 0, not_float = 0;
    for (std::size_t i = 0; i < 101; ++i) {
        if (f.out[1 * 101 + i] != d.out[1 * 101 + i]) ++differ;               // sqrt(x)
        if (double(float(d.out[1 * 101 + i])) != d.out[1 * 101 + i]) ++not_float;
    }
    CHECK(differ > 50);
    CHECK(not_float > 50);
}

} // TEST_SUITE
