// Suite split_integrate: VectorOps and whole integrations spread over the devices of a context
// (split_context: two or three PoCL devices, or Oclgrind's one device named twice or three
// times) give the one-device answer bit for bit: combinations of 1 to 8 terms in place and
// apart, copies, the error norm, and every integrator the library has advancing an N-body
// system with dense gravity. Fresh random inputs and sizes, sizes below the number of devices
// and 0, the scheduler's own weights and forced weights of 1:3.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <partcl/integrate/integrator.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// One of every two devices three times as heavy: 1:3, 1:3:1.
std::vector<double> uneven_weights(std::size_t devices) {
    std::vector<double> weights(devices);
    for (std::size_t d = 0; d < devices; ++d) weights[d] = d % 2 ? 3.0 : 1.0;
    return weights;
}

std::vector<double> uniform(std::mt19937& rng, std::size_t n, double low = -1, double high = 1) {
    std::uniform_real_distribution<double> u(low, high);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
}

// The sizes each case takes: 0, fewer than the devices, around a work-group, and random ones.
std::vector<std::size_t> sizes(std::mt19937& rng) {
    const std::size_t largest = under_oclgrind() ? 300 : 20000;
    std::uniform_int_distribution<std::size_t> any(1, largest);
    std::vector<std::size_t> n{0, 1, 2, 63, 65, 129};
    for (int k = 0; k < (under_oclgrind() ? 1 : 3); ++k) n.push_back(any(rng));
    return n;
}

// The same vectors in a context: written from the host, read back whole.
struct Vectors {
    std::vector<RealBuffer> buffers;
    Vectors(Context& context, Precision precision, const std::vector<std::vector<double>>& values) {
        for (const auto& v : values) {
            buffers.emplace_back(context, precision, v.size());
            buffers.back().write(context.queue(0), v);
        }
    }
    RealBuffer& operator[](std::size_t i) { return buffers.at(i); }
    std::vector<double> read(Context& context, std::size_t i) { return buffers.at(i).read(context.queue(0)); }
};

// Whether a launch of `ops` put work on a device other than 0 (the split is real); always where
// the devices' memories are separate, where VectorOps does not split.
bool spread(const VectorOps& ops, std::size_t launch) {
    if (!ops.context().shares_memory()) return true;
    const auto& work = ops.launches().at(launch)->work();
    return std::any_of(work.begin() + 1, work.end(), [](const DeviceWork& w) { return w.items > 0; });
}

// What a combination looks like in each context: `out` at out_at from base at base_at plus
// `terms` terms (vector index, offset, coefficient), over n elements.
struct Combination {
    std::size_t n, out, out_at, base, base_at;
    std::vector<std::size_t> vector, at;
    std::vector<double> c;
};

void apply(VectorOps& ops, Vectors& v, const Combination& x) {
    std::vector<VectorOps::Term> t;
    for (std::size_t k = 0; k < x.c.size(); ++k) t.push_back({x.c[k], &v[x.vector[k]], x.at[k]});
    // combine takes an initializer list: one call per count of terms.
    RealBuffer& out = v[x.out];
    const RealBuffer& base = v[x.base];
    switch (t.size()) {
    case 1: ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0]}); break;
    case 2: ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1]}); break;
    case 3: ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1], t[2]}); break;
    case 4: ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1], t[2], t[3]}); break;
    case 5: ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1], t[2], t[3], t[4]}); break;
    case 6:
        ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1], t[2], t[3], t[4], t[5]});
        break;
    case 7:
        ops.combine(x.n, out, x.out_at, base, x.base_at, {t[0], t[1], t[2], t[3], t[4], t[5], t[6]});
        break;
    default:
        ops.combine(x.n, out, x.out_at, base, x.base_at,
                    {t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]});
    }
}

// Calls check(one, split, a, b, parts, precision, n) for every case the VectorOps
// suites take: two and three parts, both precisions, the scheduler's weights or 1:3 forced
// (already set on b), and every size of sizes(); a and b are VectorOps on one device and on the
// split context.
template <class Check>
void for_each_split_case(std::mt19937& rng, Check&& check) {
    for (std::size_t parts : {2, 3}) {
        Context split = split_context(parts);
        Context one(std::vector<Device>{split.device(0)});
        for (Precision precision : {Precision::float32, Precision::float64}) {
            VectorOps a(one, precision, memory_cache()), b(split, precision, memory_cache());
            b.set_min_split_seconds(0);  // every size split, however short
            for (bool forced : {false, true}) {
                for (std::size_t n : sizes(rng)) {
                    CAPTURE(parts);
                    CAPTURE(to_string(precision));
                    CAPTURE(forced);
                    CAPTURE(n);
                    if (forced) b.set_weights(uneven_weights(parts));
                    check(one, split, a, b, parts, precision, n);
                }
            }
        }
    }
}

} // namespace

TEST_SUITE("split_integrate") {

TEST_CASE("combine of 1 to 8 terms, in place and apart, is one device's bit for bit") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for_each_split_case(rng, [&](Context& one, Context& split, VectorOps& a, VectorOps& b,
                                 std::size_t parts, Precision precision, std::size_t n) {
        // Nine vectors of room for n elements at offsets up to 5; vector 0 the output.
        const std::size_t size = n + 5;
        std::vector<std::vector<double>> values;
        for (int i = 0; i < 9; ++i) values.push_back(uniform(rng, size));
        std::uniform_int_distribution<std::size_t> offset(0, 5), vector(1, 8);
        for (std::size_t terms = 1; terms <= 8; ++terms) {
            // Apart: every vector its own offset; in place: the output is the base, or the
            // last term, at the same elements (y = y + h k).
            for (int aliasing : {0, 1, 2}) {
                CAPTURE(terms);
                CAPTURE(aliasing);
                Combination x{n, 0, offset(rng), vector(rng), offset(rng), {}, {}, {}};
                for (std::size_t k = 0; k < terms; ++k) {
                    x.vector.push_back(vector(rng));
                    x.at.push_back(offset(rng));
                    x.c.push_back(uniform(rng, 1, -2, 2)[0]);
                }
                if (aliasing == 1) x.base = x.out, x.base_at = x.out_at;
                if (aliasing == 2) x.vector.back() = x.out, x.at.back() = x.out_at;
                Vectors va(one, precision, values), vb(split, precision, values);
                apply(a, va, x);
                apply(b, vb, x);
                for (std::size_t i = 0; i < values.size(); ++i)
                    CHECK(va.read(one, i) == vb.read(split, i));
                if (n >= 129 * parts) CHECK(spread(b, 0));
            }
        }
    });
}

TEST_CASE("copy and the error norm are one device's bit for bit") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for_each_split_case(rng, [&](Context& one, Context& split, VectorOps& a, VectorOps& b,
                                 std::size_t parts, Precision precision, std::size_t n) {
        std::uniform_int_distribution<std::size_t> offset(0, 5);
        const std::size_t from_at = offset(rng), to_at = offset(rng);
        const std::vector<std::vector<double>> values{uniform(rng, n + 5), uniform(rng, n + 5)};
        Vectors va(one, precision, values), vb(split, precision, values);
        a.copy(n, va[0], from_at, va[1], to_at);
        b.copy(n, vb[0], from_at, vb[1], to_at);
        CHECK(va.read(one, 1) == vb.read(split, 1));
        if (n >= 129 * parts) CHECK(spread(b, 1));

        // err, y, y_new, with the largest error anywhere (and, some times, a NaN, which counts
        // as the largest value of the precision).
        std::vector<std::vector<double>> e{uniform(rng, n, -1e-6, 1e-6), uniform(rng, n),
                                           uniform(rng, n)};
        if (n > 0 && rng() % 3 == 0) e[0][rng() % n] = std::numeric_limits<double>::quiet_NaN();
        Vectors ea(one, precision, e), eb(split, precision, e);
        const double want = a.max_scaled_error(n, ea[0], ea[1], ea[2], 1e-8, 1e-6);
        const double got = b.max_scaled_error(n, eb[0], eb[1], eb[2], 1e-8, 1e-6);
        CHECK(std::memcmp(&want, &got, sizeof want) == 0);
        CHECK(got == want);
        if (n > 0) CHECK(got > 0);
        if (n >= 129 * parts) CHECK(spread(b, 2));
    });
}

TEST_CASE("every integrator advances dense N-body gravity to one device's state bit for bit") {
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    // Oclgrind's checkers take seconds for a few bodies' gravity: there a handful of bodies on
    // two parts, each integrator in one precision (in turn), five steps (ab5's first step of its
    // own after four of rk4).
    const std::size_t largest = under_oclgrind() ? 6 : 700;
    const int steps = under_oclgrind() ? 5 : 6;
    for (std::size_t parts : {2, 3}) {
        if (parts == 3 && under_oclgrind()) break;
        Context split = split_context(parts);
        Context one(std::vector<Device>{split.device(0)});
        for (Precision precision : {Precision::float32, Precision::float64}) {
            for (const std::string& name : integrator_names()) {
                const bool in_turn = (&name - integrator_names().data()) % 2 ==
                                     (precision == Precision::float64 ? 1 : 0);
                if (under_oclgrind() && !in_turn) continue;
                // Oclgrind: one method of each engine (and the chained combines of rkf78).
                const std::vector<std::string> checked{"euler",  "leapfrog", "rk4",  "rkdp5",
                                                       "adams5", "rkf78",    "yoshida4", "trapezoid"};
                if (under_oclgrind() &&
                    std::find(checked.begin(), checked.end(), name) == checked.end())
                    continue;
                const std::size_t n = std::uniform_int_distribution<std::size_t>(2, largest)(rng);
                const bool forced = rng() % 2 == 0;
                CAPTURE(parts);
                CAPTURE(to_string(precision));
                CAPTURE(name);
                CAPTURE(n);
                CAPTURE(forced);
                Bodies bodies = random_bodies(n, rng());
                for (std::size_t i = 0; i < n; ++i) bodies.vx[i] = 0.1 * bodies.y[i];
                // The states, and the steps taken (an adaptive method's depend on its error norm).
                auto integrate = [&](Context& context, bool uneven) {
                    DenseGravity gravity(context, precision, {1.0, 0.05}, {}, memory_cache());
                    DeviceBodies state(context, precision, bodies);
                    NBodySystem system(context, gravity, state);
                    VectorOps ops(context, precision, memory_cache());
                    ops.set_min_split_seconds(0);
                    if (uneven) {
                        gravity.scheduler() = Scheduler(uneven_weights(context.size()));
                        ops.set_weights(uneven_weights(context.size()));
                    }
                    auto integrator = make_integrator(name, ops, 6 * n, {1e-6, 1e-6});
                    const Derivative f = system.derivative();
                    std::vector<double> taken;
                    double t = 0, dt = 1e-2;
                    for (int step = 0; step < steps; ++step) {
                        taken.push_back(integrator->step(f, t, state.state, dt));
                        t += taken.back();
                        if (integrator->adaptive()) dt = integrator->next_dt();
                    }
                    if (context.size() > 1 && 6 * n >= 129 * parts) CHECK(spread(ops, 0));
                    return std::make_pair(state.state.read(context.queue(0)), taken);
                };
                const auto want = integrate(one, false);
                const auto got = integrate(split, forced);
                CHECK(got.second == want.second);
                CHECK(got.first == want.first);
            }
        }
    }
}

}
