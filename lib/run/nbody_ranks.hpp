#pragma once
// An N-body run over MPI ranks (nbody_run.cpp): the blocks a run starts from, and the bodies of
// a block gathered from wherever ranks hold them. Private to the library.
#include <cstdint>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/models/nbody/travelling_bodies.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl::detail {

// Every rank's first bodies: equal shares of n in rank order (UsageError where a rank would
// have none), and one rank's share of all bodies or of a state-shaped vector (6 components).
Partition rank_blocks(std::size_t n, const dist::Communicator& ranks);
Bodies slice(const Bodies& all, Range block);
std::vector<double> state_block(const std::vector<double>& all, Range block, std::size_t n);

// The bodies of this rank's block of `blocks` in the global order, from wherever the ranks hold
// them (a collective).
Bodies bodies_of_block(const dist::Communicator& ranks, const Partition& blocks, const Bodies& mine,
                       const std::vector<std::uint32_t>& ids);

} // namespace partcl::detail
