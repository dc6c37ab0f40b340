#include <partcl/models/nbody/travelling_bodies.hpp>

#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>

namespace partcl {

namespace {

std::vector<double> Bodies::*const fields[] = {&Bodies::x,  &Bodies::y,  &Bodies::z, &Bodies::vx,
                                               &Bodies::vy, &Bodies::vz, &Bodies::m};

} // namespace

TravellingBodies move_bodies(const dist::Communicator& ranks, const std::vector<int>& destinations,
                             const TravellingBodies& mine) {
    const std::size_t n = mine.bodies.size(), vectors = mine.vectors.size();
    if (destinations.size() != n || mine.ids.size() != n)
        throw UsageError("move_bodies: " + std::to_string(destinations.size()) + " destinations and " +
                         std::to_string(mine.ids.size()) + " indices for " + std::to_string(n) + " bodies");
    for (const std::vector<double>& v : mine.vectors)
        if (v.size() != 6 * n)
            throw UsageError("move_bodies: a vector of " + std::to_string(v.size()) + " values for " +
                             std::to_string(n) + " bodies");
    // A body's values side by side: its 7 fields, then 6 of each vector.
    const std::size_t width = 7 + 6 * vectors;
    std::vector<double> records(width * n);
    for (std::size_t i = 0; i < n; ++i) {
        double* r = records.data() + width * i;
        for (std::size_t f = 0; f < 7; ++f) r[f] = (mine.bodies.*fields[f])[i];
        for (std::size_t v = 0; v < vectors; ++v)
            for (std::size_t c = 0; c < 6; ++c) r[7 + 6 * v + c] = mine.vectors[v][c * n + i];
    }
    const dist::Distributor plan(ranks, destinations);
    const std::size_t m = plan.received();
    std::vector<double> arrived(width * m);
    plan.distribute(records.data(), width * sizeof(double), arrived.data());
    TravellingBodies out;
    out.ids = plan.distribute(mine.ids);
    out.bodies.resize(m);
    out.vectors.assign(vectors, std::vector<double>(6 * m));
    for (std::size_t i = 0; i < m; ++i) {
        const double* r = arrived.data() + width * i;
        for (std::size_t f = 0; f < 7; ++f) (out.bodies.*fields[f])[i] = r[f];
        for (std::size_t v = 0; v < vectors; ++v)
            for (std::size_t c = 0; c < 6; ++c) out.vectors[v][c * m + i] = r[7 + 6 * v + c];
    }
    return out;
}

} // namespace partcl
