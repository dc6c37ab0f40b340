#pragma once
// DistributedTreeGravity: Barnes-Hut gravity over the ranks of a communicator. Each rank holds a
// block of the bodies (contiguous in the global order, rank 0's first) and asks for the
// accelerations of its own block. Every evaluation brings all positions and masses to every
// rank (dist::Allgather), each rank builds the whole tree on its devices, and the walk's groups
// (contiguous ranges of the tree's order: pieces of space, as a space-filling curve cuts it) are
// cut between the ranks by their measured speed; each rank walks its range over its devices
// and sends every result to the rank that holds its body (dist::Distributor).
//
// Every body's result is the walk of its group over the same tree, so the accelerations are one
// rank's bit for bit at any opening angle, whatever the cut (ranks on devices of the same
// shapes, which build the same tree). Ranks may hold their bodies in any order (a run moves each
// body to the rank that walked it, so that results stay where they are computed): a
// dist::IndexDirectory then says where each body is, the gathered sources are put back in the
// global order before the build, and each result goes to its body's rank and slot. The tree is refitted between builds as TreeOptions say,
// and the relative criterion reads every body's |a| from the latest evaluation, gathered to
// every rank, so both keep that equality. What it does not spread is the build and the memory: every
// rank holds and builds the tree of all N bodies, O(N) a rank, which bounds it to what one
// device holds (docs/scaling.md weighs this against locally essential trees).

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/index_directory.hpp>
#include <partcl/models/nbody/gathered_bodies.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_over_ranks.hpp>

namespace partcl {

class DistributedTreeGravity : public TreeOverRanks {
public:
    // `local` builds and walks on this rank's devices; it must outlive this object.
    DistributedTreeGravity(const dist::Communicator& communicator, TreeGravity& local);

    // Collective: every rank calls it with its own block (n bodies, any n, 0 included). The
    // accelerations and potentials of the block's bodies, in place when it returns.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;

    const GravityParameters& parameters() const noexcept override { return local_.parameters(); }
    // This rank's share of the direct-summation equivalent (its bodies walked times N).
    double interactions() const noexcept override { return local_.interactions(); }
    LaunchList launches() const override { return local_.launches(); }

    // Where this rank's time has gone so far (host wall time): bringing the sources here, its
    // walks (the build excluded), waiting for the other ranks' walks, and sending results to
    // their ranks; and bytes received from other ranks by the gathers and the exchanges.
    double gather_seconds() const noexcept { return sources_.seconds(); }
    double walk_seconds() const noexcept { return walk_seconds_; }
    double wait_seconds() const noexcept { return wait_seconds_; }
    double exchange_seconds() const noexcept { return exchange_seconds_; }
    double bytes_received() const noexcept { return sources_.bytes_received() + bytes_received_; }

    // TreeOverRanks: where every rank's bodies are (null, the default: blocks in rank order),
    // and the rank that walked each of this rank's bodies, where its result is computed.
    void set_directory(const dist::IndexDirectory* directory) noexcept override {
        directory_ = directory;
        ++directory_changes_;
    }
    const std::vector<int>& walkers() const noexcept override { return walkers_; }

    const dist::Communicator& communicator() const noexcept { return *communicator_; }
    // The blocks of the latest evaluation (rank r's bodies are [r.begin, r.end) of all), and
    // its cut of the walk's groups (rank r walked groups [r.begin, r.end) of the tree's).
    const Partition& ranks() const noexcept { return ranks_; }
    const Partition& walks() const noexcept { return walks_; }

private:
    // The cut of `groups` for this evaluation: by the ranks' speeds in the latest one.
    Partition cut(std::size_t groups);
    // Sends the walked results (`count` in tree order from tree position `first`) to the ranks
    // of their bodies and writes this rank's n into out / potential.
    void send_results(std::size_t first, std::size_t count, std::size_t n, RealBuffer& out,
                      std::size_t out_offset, RealBuffer* potential);

    const dist::Communicator* communicator_;
    TreeGravity& local_;
    Partition ranks_, walks_;
    double speed_ = 0;  // groups a second of this rank's latest walk (0: none yet)
    GatheredBodies sources_;  // every rank's bodies, in rank order
    const dist::IndexDirectory* directory_ = nullptr;
    std::size_t directory_changes_ = 0, uploaded_changes_ = ~std::size_t(0);
    // With a directory out of order: its gathered indices on device 0, and the sources (and the
    // gathered accelerations of the relative criterion) in the global order.
    Buffer<std::uint32_t> gathered_ids_;
    RealBuffer ordered_positions_, ordered_mass_, all_in_rank_order_;
    std::vector<int> walkers_;
    // The routing of walked results (cl/nbody/result_routing.cl): each body's rank and slot on
    // the device (for the directory and blocks they were made for), the walked results' flags
    // (another rank's body) and their places among the flagged, and those packed.
    Program routing_;
    Kernel routing_local_, routing_pack_;
    Buffer<std::uint32_t> owner_table_, slot_table_, flags_, offsets_, packed_bodies_;
    RealBuffer packed_values_;
    std::size_t routed_changes_ = ~std::size_t(0);
    std::vector<std::size_t> routed_ranks_;
    RealBuffer walked_, walked_potential_;  // this rank's walk's results in tree order
    // The results for this rank's bodies as they arrived, and the bodies they are for.
    Buffer<std::uint32_t> arrived_bodies_;
    RealBuffer arrived_values_, arrived_potentials_;
    // With the relative criterion: this rank's accelerations, and every rank's, in the global
    // order (what TreeGravity::remember reads).
    RealBuffer own_, all_;
    double walk_seconds_ = 0, wait_seconds_ = 0, exchange_seconds_ = 0;
    double bytes_received_ = 0;  // by the exchanges
};

} // namespace partcl
