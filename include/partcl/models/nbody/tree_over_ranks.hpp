#pragma once
// TreeOverRanks: what the two ways of spreading the tree over ranks (TreeRanks in a scenario:
// DistributedTreeGravity gathers every body to every rank, EssentialTreeGravity builds locally
// essential trees) share with a run: each walks every body on some rank, and takes the bodies
// wherever the run keeps them. A run that moves each body to the rank that walked it
// (walkers()) and says where they went (set_directory) keeps the results where they are
// computed.
#include <vector>

#include <partcl/dist/index_directory.hpp>
#include <partcl/models/nbody/gravity.hpp>

namespace partcl {

class TreeOverRanks : public GravityModel {
public:
    // For each of this rank's bodies, the rank that walked it in the latest evaluation (empty
    // before one).
    virtual const std::vector<int>& walkers() const noexcept = 0;
    // Where every rank's bodies are in the global order (null: blocks in rank order, rank 0's
    // first), set by every rank alike after each move of bodies between ranks; it must outlive
    // the evaluations that use it. UsageError at the next evaluation where it does not describe
    // the bodies given.
    virtual void set_directory(const dist::IndexDirectory* directory) noexcept = 0;
};

} // namespace partcl
