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
