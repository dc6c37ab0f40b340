// The scheduler's split and re-weighting, on synthetic timings (no device needed).
#include <doctest/doctest.h>

#include <partcl/runtime/error.hpp>
#include <partcl/sched/scheduler.hpp>

using namespace partcl;

TEST_SUITE("scheduler") {

TEST_CASE("split covers the range contiguously in proportion to the weights") {
    Scheduler s({1.0, 3.0});
    const auto r = s.split(1000);
    REQUIRE(r.size() == 2);
    CHECK(r[0].begin == 0);
    CHECK(r[0].end == 250);
    CHECK(r[1].begin == 250);
    CHECK(r[1].end == 1000);

    // Boundaries on granules, except the end.
    const auto g = s.split(1001, 64);
    CHECK(g[0].end % 64 == 0);
    CHECK(g[1].end == 1001);
    CHECK(g[0].end == 256);

    // Fewer items than devices: some slices are empty, none overlap, all are covered.
    Scheduler three({1.0, 1.0, 1.0});
    const auto small = three.split(2);
    std::size_t covered = 0;
    for (std::size_t d = 0; d < small.size(); ++d) {
        covered += small[d].size();
        if (d > 0) CHECK(small[d].begin == small[d - 1].end);
    }
    CHECK(covered == 2);
    CHECK(three.split(0)[2].end == 0);
}

TEST_CASE("weights follow measured throughput, smoothed") {
    // Device 1 is three times as fast as device 0 but starts with equal weight.
    Scheduler s({1.0, 1.0}, 0.5);
    const double speed[2] = {1e6, 3e6};  // items per second
    for (int launch = 0; launch < 30; ++launch) {
        const auto r = s.split(100000);
        s.record(r, {r[0].size() / speed[0], r[1].size() / speed[1]});
    }
    CHECK(s.weights()[0] == doctest::Approx(0.25).epsilon(1e-3));
    CHECK(s.weights()[1] == doctest::Approx(0.75).epsilon(1e-3));

    // One launch moves the weights only part of the way (smoothing).
    Scheduler t({1.0, 1.0}, 0.5);
    const auto r = t.split(1000);
    t.record(r, {r[0].size() / speed[0], r[1].size() / speed[1]});
    CHECK(t.weights()[1] == doctest::Approx(0.625));
}

TEST_CASE("a device without a measurement keeps its share and is never starved") {
    Scheduler s({1.0, 1.0, 2.0}, 1.0);
    s.record({{0, 10}, {10, 10}, {10, 30}}, {1.0, 0.0, 1.0});
    CHECK(s.weights()[1] == doctest::Approx(0.25));
    // An extremely slow device keeps a floor, so it is measured again later.
    Scheduler f({1.0, 1.0}, 1.0);
    f.record({{0, 500}, {500, 1000}}, {1.0, 1e9});
    CHECK(f.weights()[1] > 0);
    CHECK(f.weights()[0] < 1);
}

TEST_CASE("bad weights and records are refused") {
    CHECK_THROWS_AS(Scheduler(std::vector<double>{}), UsageError);
    CHECK_THROWS_AS(Scheduler({1.0, 0.0}), UsageError);
    CHECK_THROWS_AS(Scheduler({1.0}, 0.0), UsageError);
    Scheduler s({1.0, 1.0});
    CHECK_THROWS_AS(s.record({{0, 1}}, {1.0}), UsageError);
}

}
