#pragma once
// EssentialTreeGravity: Barnes-Hut gravity over the ranks of a communicator by locally essential
// trees (docs/design.md, "Ranks"), where DistributedTreeGravity brings every body to every rank.
// Each evaluation: DeviceTreeTop finds the tree's top levels from the ranks' bodies where they
// are, on their devices, and cuts that level's nodes into one run a rank; a Distributor moves
// each body to its node's rank, where DeviceTreeTop::merge puts the arrivals in the one-rank
// tree's order; each rank builds its run's subtrees (TreeGravity::build_branches), the top
// from every rank's subtree roots (build_top), receives the nodes and bodies its groups may
// meet from the others (EssentialExchange), walks its groups, and sends each result back to
// the rank its body came from, which puts it at its body on the device. The host only packs
// and unpacks messages and runs the top's selection (a few keys and counts a round). A rank holds its share of the bodies and what its groups meet, never all
// N; the accelerations are one rank's bit for bit at any opening angle (ranks on devices of the
// same shapes), since every result is its group's walk of the one-rank tree.
//
// The results of a rank's bodies are computed where their nodes are (walkers()): a run that
// moves each body there (and says where they went, set_directory) makes the next evaluation's
// move small. The tree is built anew every evaluation, from the opening angle alone:
// TreeOptions with rebuild_every > 1, the relative criterion or the short range (TreePM) are
// refused (UsageError at construction), as what they carry between evaluations does not yet
// travel with the bodies. The tree's per-rank memory is still the whole heap's node arrays and
// bodies (docs/scaling.md).
#include <cstdint>
#include <memory>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/index_directory.hpp>
#include <partcl/models/nbody/device_tree_top.hpp>
#include <partcl/models/nbody/essential_exchange.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_over_ranks.hpp>

namespace partcl {

class EssentialTreeGravity : public TreeOverRanks {
public:
    // `local` builds and walks this rank's part on its devices; it must outlive this object.
    EssentialTreeGravity(const dist::Communicator& communicator, TreeGravity& local);

    // Collective: every rank calls it with its own bodies (n, any n, 0 included; in blocks of
    // the global order, rank 0's first, unless set_directory says otherwise). Their
    // accelerations and potentials, in place when it returns.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;

    const GravityParameters& parameters() const noexcept override { return local_.parameters(); }
    double interactions() const noexcept override { return local_.interactions(); }
    LaunchList launches() const override { return local_.launches(); }

    // TreeOverRanks: where every rank's bodies are (null: blocks in rank order), and the rank
    // that walked each of this rank's bodies (its node's).
    void set_directory(const dist::IndexDirectory* directory) noexcept override { directory_ = directory; }
    const std::vector<int>& walkers() const noexcept override { return walkers_; }
    // The level whose nodes the latest evaluation cut between the ranks, and the exchange's
    // counts (EssentialExchange).
    std::size_t level() const noexcept { return level_; }
    // The rounds of the latest evaluation's selection of the top (TreeTop::rounds).
    std::size_t top_rounds() const noexcept { return top_rounds_; }
    const EssentialExchange& exchange() const noexcept { return exchange_; }
    // Bytes received by this rank in the latest evaluation: its bodies' moves to their nodes'
    // ranks, the roots, the exchange and the results coming back.
    double bytes_received() const noexcept { return bytes_received_; }
    // Where the latest evaluation's time went on this rank (host wall time, each piece's device
    // work finished): the top (TreeTop), the bodies' move and order, the branches' build, the
    // roots joined into the top, the exchange, the walk, and the results sent back. All zero
    // on one rank, which evaluates the tree whole.
    struct Seconds {
        double top = 0, move = 0, branches = 0, join = 0, exchange = 0, walk = 0, results = 0;
    };
    const Seconds& seconds() const noexcept { return seconds_; }

    // The level of the top that an evaluation over `ranks` ranks cuts: the first with 8 nodes a
    // rank, or the deepest the tree's leaves and the walk's groups allow.
    static std::size_t level_for(std::size_t total, std::size_t ranks, const TreeOptions& options);

private:
    const dist::Communicator* communicator_;
    TreeGravity& local_;
    EssentialExchange exchange_;
    const dist::IndexDirectory* directory_ = nullptr;
    std::vector<int> walkers_;
    std::size_t level_ = 0, top_rounds_ = 0;
    double bytes_received_ = 0;
    Seconds seconds_;
    std::unique_ptr<DeviceTreeTop> top_;  // made at the first evaluation over ranks
    // The move's records as they leave and arrive, their order, the bodies laid out in it,
    // the walk's results, and the results by arrival and home again.
    RealBuffer records_, arrived_records_, branch_positions_, branch_mass_, walked_, walked_potential_, results_, home_;
    Buffer<std::uint32_t> tags_, arrived_tags_, arrival_;
};

} // namespace partcl
