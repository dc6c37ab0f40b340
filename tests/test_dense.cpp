// DenseGravity against the float64 CPU reference on fresh random inputs, and the same answer on
// one device and on several.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>

#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/dense_reference.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

struct Result {
    std::vector<double> acc, pot;
};

Result evaluate(Context& context, Precision precision, const Bodies& b, GravityParameters p,
                std::size_t tile = 0, std::size_t targets = 1, std::size_t parts = 0) {
    const std::size_t n = b.size();
    DenseGravity gravity(context, precision, p, DenseOptions{tile, targets, false, false, parts},
                         memory_cache());
    DeviceBodies bodies(context, precision, b);
    RealBuffer acc(context, precision, 3 * n), pot(context, precision, n);
    gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
    return {acc.read(context.queue(0)), pot.read(context.queue(0))};
}

void compare(Precision precision, std::size_t n, std::size_t tile, std::size_t targets = 1,
             double softening = 0.05, std::size_t parts = 0) {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed << ", N " << n << ", " << to_string(precision) << ", tile " << tile
                  << ", targets " << targets << ", softening " << softening << ", parts "
                  << parts);
    const GravityParameters p{0.75, softening};
    const double eps2 = p.softening * p.softening;
    Bodies b = random_bodies(n, seed);
    if (n >= 3) b.x[2] = b.x[1], b.y[2] = b.y[1], b.z[2] = b.z[1];  // coincident: skipped
    Context& context = test_context();

    // Inputs rounded as the device sees them, so the comparison measures the kernel alone.
    Bodies rounded = b;
    if (precision == Precision::float32)
        for (auto* v : {&rounded.x, &rounded.y, &rounded.z, &rounded.m})
            for (double& value : *v) value = double(float(value));
    std::vector<double> rx(n), ry(n), rz(n), rp(n), abs_acc, abs_pot;
    reference::dense_gravity<double>(n, rounded.x.data(), rounded.y.data(), rounded.z.data(),
                                     rounded.m.data(), eps2, p.G, 0, n, rx.data(), ry.data(),
                                     rz.data(), rp.data());
    absolute_sums(rounded, eps2, p.G, abs_acc, abs_pot);

    const Result r = evaluate(context, precision, b, p, tile, targets, parts);
    // Recursive summation of n terms, each a few ulp off: typically sqrt(n) roundings of the
    // absolute sum; the bound allows 4 ulp per sqrt(n) + 8. Dropping a single interaction out of
    // 4097 would exceed it 10x in float.
    const double eps = precision == Precision::float64 ? DBL_EPSILON : FLT_EPSILON;
    const double bound = 4 * eps * (std::sqrt(double(n)) + 8);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double ex = r.acc[i] - rx[i], ey = r.acc[n + i] - ry[i], ez = r.acc[2 * n + i] - rz[i];
        const double ea = std::sqrt(ex * ex + ey * ey + ez * ez);
        const double ep = std::abs(r.pot[i] - rp[i]);
        if (abs_acc[i] > 0) worst = std::max(worst, ea / abs_acc[i]);
        if (abs_pot[i] > 0) worst = std::max(worst, ep / abs_pot[i]);
        if (abs_acc[i] == 0) {  // N = 1: no partner, exactly zero
            CHECK(ea == 0);
            CHECK(r.pot[i] == 0);
        }
    }
    INFO("worst error / absolute sum " << worst << ", bound " << bound);
    CHECK(worst <= bound);
}

} // namespace

TEST_SUITE("dense") {

TEST_CASE("dense gravity matches the float64 reference for any N") {
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t n : {1, 2, 31, 1000, 4097}) compare(precision, n, 0);
}

TEST_CASE("the tiled form matches too, with a partial last tile and several targets per item") {
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t n : {1, 31, 1000})
            for (std::size_t targets : {1, 3, 8}) compare(precision, n, 16, targets);
}

TEST_CASE("sources split into parts add up to the same forces") {
    // Parts of one tile, of several, a last part shorter than the others, and more parts asked
    // for than there are tiles (then one per tile); the potential is summed the same way.
    for (Precision precision : {Precision::float32, Precision::float64})
        for (std::size_t parts : {1, 2, 3, 7, 1000}) {
            compare(precision, 1000, 16, 3, 0.05, parts);
            compare(precision, 37, 16, 1, 0.0, parts);
        }
}

TEST_CASE("without softening, and with a softening too small for the precision") {
    // eps = 0 and eps = 1e-30 (eps^2 underflows float) take the form that tests each pair for
    // zero separation before dividing; coincident bodies then feel nothing from each other.
    for (Precision precision : {Precision::float32, Precision::float64})
        for (double softening : {0.0, 1e-30})
            for (std::size_t n : {2, 31, 1000}) {
                compare(precision, n, 0, 1, softening);
                compare(precision, n, 16, 3, softening);
            }
}

TEST_CASE("bad use is refused with a clear error") {
    Context& context = test_context();
    CHECK_THROWS_AS(DenseGravity(context, Precision::float32, {0.0, 0.1}), UsageError);
    CHECK_THROWS_AS(DenseGravity(context, Precision::float32, {1.0, -1.0}), UsageError);
    DenseGravity gravity(context, Precision::float32, {}, {}, memory_cache());
    RealBuffer short_buffer(context, Precision::float32, 5), doubles(context, Precision::float64, 30);
    CHECK_THROWS_AS(gravity.accelerations(short_buffer, short_buffer, 10, short_buffer, 0),
                    UsageError);
    CHECK_THROWS_AS(gravity.accelerations(doubles, doubles, 10, doubles, 0), UsageError);
    Bodies none;
    CHECK_THROWS_WITH_AS(none.validate(), doctest::Contains("N = 0"), UsageError);
    Bodies nan = random_bodies(4, 1);
    nan.vy[2] = std::nan("");
    CHECK_THROWS_WITH_AS(nan.validate(), doctest::Contains("vy of body 2"), UsageError);
    Bodies inf = random_bodies(4, 1);
    inf.m[1] = INFINITY;
    CHECK_THROWS_AS(DeviceBodies(context, Precision::float32, inf), UsageError);
}

}

TEST_SUITE("dense_two_devices" * doctest::skip()) {

TEST_CASE("two devices give the one-device answer, in shared memory and in separate ones") {
    const auto devices = pocl_devices();
    REQUIRE_MESSAGE(devices.size() >= 2, "run with POCL_DEVICES=\"pthread pthread\"");
    Context one(std::vector<Device>{devices[0]});
    // Separate: positions and masses copied to the second device, its results written there.
    for (MemoryModel model : {MemoryModel::automatic, MemoryModel::separate}) {
    CAPTURE(int(model));
    Context both(std::vector<Device>{devices[0], devices[1]}, model);
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    // The CPU form, and tiles of 16 with 3 targets per work-item and their sources in parts
    // (chosen for all n, so each device's slice sums the same parts in the same order).
    for (std::size_t tile : {0, 16})
    for (Precision precision : {Precision::float32, Precision::float64}) {
        for (std::size_t n : {3, 1000, 4097}) {
            CAPTURE(tile);
            CAPTURE(n);
            const Bodies b = random_bodies(n, seed);
            const Result a = evaluate(one, precision, b, {1.0, 0.05}, tile, 3);
            // Several launches, so the re-weighted split moves between them.
            DenseGravity gravity(both, precision, {1.0, 0.05}, DenseOptions{tile, 3, false, false, 0},
                                 memory_cache());
            if (tile && n >= 1000) CHECK(gravity.source_parts(0, n) > 1);
            DeviceBodies bodies(both, precision, b);
            RealBuffer acc(both, precision, 3 * n), pot(both, precision, n);
            for (int launch = 0; launch < 3; ++launch) {
                acc.fill(both.queue(0), -1.0);
                gravity.accelerations(bodies.state, bodies.mass, n, acc, 0, &pot);
                const Partition split = gravity.scheduler().split(n, gravity.granule());
                if (n >= 1000) CHECK(!split[1].empty());
                // Each target's sum runs the same code in the same order on either device.
                CHECK(acc.read(both.queue(0)) == a.acc);
                CHECK(pot.read(both.queue(0)) == a.pot);
            }
        }
    }
    }
}

}

TEST_SUITE("dense_autotune") {

TEST_CASE("autotuning picks a shape once per device and remembers it") {
    TempDir dir("autotune");
    Context& context = test_context();
    const GravityParameters p{1.0, 0.05};
    auto notes = [&] {
        std::size_t count = 0;
        for (const auto& entry : fs::directory_iterator(dir.path()))
            count += entry.path().extension() == ".note";
        return count;
    };
    DenseShape chosen;
    {
        ProgramCache cache(ProgramCache::Settings{true, dir.path()});
        DenseGravity tuned(context, Precision::float32, p, DenseOptions{0, 1, true}, cache);
        CHECK(tuned.shape_origin(0) == "autotuned");
        chosen = tuned.shape(0);
        CHECK(notes() == 1);
        // Whatever shape won computes the same sums as the default one, to rounding.
        const Bodies b = random_bodies(301, fresh_seed());
        DeviceBodies bodies(context, Precision::float32, b);
        DenseGravity plain(context, Precision::float32, p, {}, memory_cache());
        RealBuffer a(context, Precision::float32, 3 * 301), c(context, Precision::float32, 3 * 301);
        tuned.accelerations(bodies.state, bodies.mass, 301, a, 0);
        plain.accelerations(bodies.state, bodies.mass, 301, c, 0);
        const auto x = a.read(context.queue(0)), y = c.read(context.queue(0));
        for (std::size_t i = 0; i < x.size(); ++i)
            CHECK(std::abs(x[i] - y[i]) <= 1e-4 * (std::abs(y[i]) + 1));
    }
    {
        ProgramCache cache(ProgramCache::Settings{true, dir.path()});
        DenseGravity again(context, Precision::float32, p, DenseOptions{0, 1, true}, cache);
        CHECK(again.shape_origin(0) == "autotuned (cached)");
        CHECK(again.shape(0) == chosen);
    }
    // A damaged note is ignored and replaced, like a damaged binary.
    for (const auto& entry : fs::directory_iterator(dir.path()))
        if (entry.path().extension() == ".note") write_file(entry.path(), "sha256: 0\ntile 7 lanes 3 unroll 1 targets 1\n");
    {
        ProgramCache cache(ProgramCache::Settings{true, dir.path()});
        DenseGravity retuned(context, Precision::float32, p, DenseOptions{0, 1, true}, cache);
        CHECK(retuned.shape_origin(0) == "autotuned");
        CHECK(retuned.shape(0).tile != 7);
        CHECK(notes() == 1);
    }
}

}

TEST_SUITE("dense") {

TEST_CASE("fast math stays within float's bound against the float64 reference") {
    // The same bound as the exact form: native_rsqrt and mad may cost a few ulp per
    // interaction, which the bound's 4 ulp per sqrt(N) + 8 allows, and nothing more. Untiled and
    // tiled; a coincident pair and a massless body are in the set.
    for (std::size_t tile : {0, 16}) {
        const std::uint32_t seed = fresh_seed();
        INFO("seed " << seed << ", tile " << tile);
        const std::size_t n = 1000;
        const GravityParameters p{1.0, 0.05};
        Bodies b = random_bodies(n, seed);
        b.x[2] = b.x[1], b.y[2] = b.y[1], b.z[2] = b.z[1];
        b.m[7] = 0;
        Context& context = test_context();
        DenseOptions fast{tile, 3, false, true, 0};
        DenseGravity gravity(context, Precision::float32, p, fast, memory_cache());
        DeviceBodies bodies(context, Precision::float32, b);
        RealBuffer acc(context, Precision::float32, 3 * n);
        gravity.accelerations(bodies.state, bodies.mass, n, acc, 0);
        const auto a = acc.read(context.queue(0));
        Bodies rounded = b;
        for (auto* v : {&rounded.x, &rounded.y, &rounded.z, &rounded.m})
            for (double& value : *v) value = double(float(value));
        std::vector<double> rx(n), ry(n), rz(n), abs_acc, abs_pot;
        reference::dense_gravity<double>(n, rounded.x.data(), rounded.y.data(), rounded.z.data(),
                                         rounded.m.data(), 0.0025, 1.0, 0, n, rx.data(), ry.data(),
                                         rz.data(), nullptr);
        absolute_sums(rounded, 0.0025, 1.0, abs_acc, abs_pot);
        const double bound = 4 * FLT_EPSILON * (std::sqrt(double(n)) + 8);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double ex = a[i] - rx[i], ey = a[n + i] - ry[i], ez = a[2 * n + i] - rz[i];
            worst = std::max(worst, std::sqrt(ex * ex + ey * ey + ez * ez) / abs_acc[i]);
        }
        INFO("worst " << worst << ", bound " << bound);
        CHECK(worst <= bound);
    }
}

}
