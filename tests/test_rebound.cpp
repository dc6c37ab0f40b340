// Against a peer code: REBOUND's IAS15 integrated the same initial conditions
// (tests/data/rebound/make_reference.py wrote its final positions): a Kepler orbit with e = 0.9
// for 5 periods and a 64-body Plummer sphere with Plummer softening for one crossing time.
// partcl's adaptive high-order methods at tolerance 1e-12, in double, end within 1e-8 of it in
// every position (relative to the body's distance from the origin, at least 0.1).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <sstream>

#include <partcl/integrate/integrator.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/nbody_system.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

struct Reference {
    double t_end = 0, softening = 0;
    Bodies initial;
    std::vector<double> final_positions;  // x y z of each body
};

Reference read_reference(const std::string& name) {
    std::ifstream in(std::string(PARTCL_SOURCE_DIR) + "/tests/data/rebound/" + name);
    REQUIRE(in);
    Reference r;
    std::string line, hash;
    std::getline(in, line);
    std::istringstream(line) >> hash >> r.t_end >> r.softening;
    std::vector<std::vector<double>> rows;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<double> row;
        for (double v; words >> v;) row.push_back(v);
        rows.push_back(row);
    }
    const std::size_t n = rows.size() / 2;
    REQUIRE(rows.size() == 2 * n);
    r.initial.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(rows[i].size() == 7);
        REQUIRE(rows[n + i].size() == 3);
        r.initial.m[i] = rows[i][0];
        r.initial.x[i] = rows[i][1], r.initial.y[i] = rows[i][2], r.initial.z[i] = rows[i][3];
        r.initial.vx[i] = rows[i][4], r.initial.vy[i] = rows[i][5], r.initial.vz[i] = rows[i][6];
        r.final_positions.insert(r.final_positions.end(), rows[n + i].begin(), rows[n + i].end());
    }
    return r;
}

// The largest position difference from REBOUND's, relative to max(|r_i|, 0.1), and the steps.
std::pair<double, int> compare(const Reference& r, const std::string& method) {
    Context& context = test_context();
    const std::size_t n = r.initial.size();
    DenseGravity gravity(context, Precision::float64, {1.0, r.softening}, {}, memory_cache());
    DeviceBodies bodies(context, Precision::float64, r.initial);
    NBodySystem system(context, gravity, bodies);
    VectorOps ops(context, Precision::float64, memory_cache());
    auto integrator = make_integrator(method, ops, 6 * n, {1e-12, 1e-12});
    const Derivative f = system.derivative();
    double t = 0, dt = 1e-3;
    int steps = 0;
    // Lands on t_end as a run to an end time does: the last step shortened.
    while (r.t_end - t > 1e-12 * r.t_end) {
        t += integrator->step(f, t, bodies.state, std::min(dt, r.t_end - t));
        dt = integrator->next_dt();
        ++steps;
    }
    const Bodies end = bodies.download(context.queue(0));
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double d[3] = {end.x[i] - r.final_positions[3 * i],
                             end.y[i] - r.final_positions[3 * i + 1],
                             end.z[i] - r.final_positions[3 * i + 2]};
        const double distance = std::hypot(r.final_positions[3 * i], r.final_positions[3 * i + 1],
                                           r.final_positions[3 * i + 2]);
        worst = std::max(worst, std::hypot(d[0], d[1], d[2]) / std::max(distance, 0.1));
    }
    return {worst, steps};
}

} // namespace

TEST_SUITE("rebound") {

TEST_CASE("the adaptive methods at 1e-12 end where REBOUND's IAS15 does") {
    for (const std::string file : {"kepler_e09.txt", "plummer64.txt"}) {
        const Reference r = read_reference(file);
        for (const std::string method : {"rkck5", "rkdp5", "rkdverk6", "rkf78"}) {
            CAPTURE(file);
            CAPTURE(method);
            const auto [difference, steps] = compare(r, method);
            INFO(steps << " steps, largest relative position difference " << difference);
            CHECK(difference < 1e-8);
            if (std::getenv("PARTCL_PRINT_ORDERS"))
                MESSAGE(file << " " << method << ": " << steps << " steps, difference "
                             << difference);
        }
    }
}

}
