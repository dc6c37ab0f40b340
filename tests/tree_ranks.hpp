#pragma once
// What the suites of locally essential trees share (test_tree_branches.cpp,
// test_essential_tree.cpp): a rank's random share of the bodies, moved to the ranks that own
// their nodes of a level of the tree (TreeTop) and built there into that rank's branches.
#include <cstdint>
#include <memory>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl_test {

struct RankBranches {
    std::unique_ptr<partcl::TreeGravity> tree;  // build_branches done, on the tests' device
    partcl::Partition owners;                   // of the level's nodes, rank r's at owners[r]
    std::vector<std::uint64_t> index;           // global index of each body the tree was given
};

// Every rank calls it with the same bodies, options, level and seed; the seed picks each body's
// first rank.
RankBranches build_rank_branches(const partcl::dist::Communicator& world, partcl::Precision precision,
                                 const partcl::Bodies& b, const partcl::TreeOptions& o, std::size_t level,
                                 std::uint32_t seed);

} // namespace partcl_test
