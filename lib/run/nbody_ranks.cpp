#include "nbody_ranks.hpp"

#include <algorithm>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>

namespace partcl::detail {

namespace {

std::vector<double> Bodies::*const fields[] = {&Bodies::x,  &Bodies::y,  &Bodies::z, &Bodies::vx,
                                               &Bodies::vy, &Bodies::vz, &Bodies::m};

} // namespace

Partition rank_blocks(std::size_t n, const dist::Communicator& ranks) {
    if (n < std::size_t(ranks.size()))
        throw UsageError(std::to_string(n) + " bodies on " + std::to_string(ranks.size()) +
                         " MPI ranks: every rank needs one body at least");
    return Partition::by_weight(n, std::vector<double>(std::size_t(ranks.size()), 1.0));
}

Bodies slice(const Bodies& all, Range block) {
    Bodies b;
    b.resize(block.size());
    for (const auto field : fields)
        std::copy_n((all.*field).begin() + std::ptrdiff_t(block.begin), block.size(), (b.*field).begin());
    return b;
}

std::vector<double> state_block(const std::vector<double>& all, Range block, std::size_t n) {
    if (all.size() != 6 * n)
        throw UsageError("checkpoint: a vector of " + std::to_string(all.size()) + " values for " +
                         std::to_string(n) + " bodies");
    std::vector<double> mine;
    for (std::size_t c = 0; c < 6; ++c)
        mine.insert(mine.end(), all.begin() + std::ptrdiff_t(c * n + block.begin),
                    all.begin() + std::ptrdiff_t(c * n + block.end));
    return mine;
}

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

Bodies bodies_of_block(const dist::Communicator& ranks, const Partition& blocks, const Bodies& mine,
                       const std::vector<std::uint32_t>& ids) {
    const std::vector<std::size_t>& cuts = blocks.offsets();
    std::vector<int> destinations(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
        destinations[i] = int(std::upper_bound(cuts.begin() + 1, cuts.end(), std::size_t(ids[i])) -
                              (cuts.begin() + 1));
    const TravellingBodies arrived = move_bodies(ranks, destinations, {mine, ids, {}});
    const Range block = blocks[std::size_t(ranks.rank())];
    if (arrived.ids.size() != block.size())
        throw Error("bodies_of_block: rank " + std::to_string(ranks.rank()) + " received " +
                    std::to_string(arrived.ids.size()) + " bodies for its block of " +
                    std::to_string(block.size()));
    Bodies out;
    out.resize(block.size());
    for (std::size_t i = 0; i < block.size(); ++i) {
        const std::size_t at = arrived.ids[i] - block.begin;
        for (const auto field : fields) (out.*field)[at] = (arrived.bodies.*field)[i];
    }
    return out;
}

} // namespace partcl::detail
