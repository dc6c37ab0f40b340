#include <partcl/models/nbody/essential_tree_gravity.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/models/nbody/tree_top.hpp>

namespace partcl {

namespace {

// Seconds since the latest lap.
class Laps {
public:
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        return seconds;
    }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// A walked body's result on its way back: its slot on the rank it came from, its acceleration
// and potential (exact as doubles in either precision).
struct Result {
    std::uint64_t slot;
    double value[4];
};

} // namespace

EssentialTreeGravity::EssentialTreeGravity(const dist::Communicator& communicator, TreeGravity& local)
    : communicator_(&communicator), local_(local), exchange_(communicator) {
    const TreeOptions& o = local.options();
    const std::string what = "EssentialTreeGravity: ";
    if (o.rebuild_every > 1)
        throw UsageError(what + "the tree is built anew every evaluation (rebuild_every " +
                         std::to_string(o.rebuild_every) + " asks for refits between builds)");
    if (o.relative_accuracy > 0)
        throw UsageError(what + "the relative criterion's |a| of each body does not travel with the bodies yet "
                                "(relative_accuracy " + std::to_string(o.relative_accuracy) + ")");
    if (o.short_range) throw UsageError(what + "the short-range walk of TreePM is not over ranks yet");
}

std::size_t EssentialTreeGravity::level_for(std::size_t total, std::size_t ranks, const TreeOptions& options) {
    std::size_t level = 0;
    while ((std::size_t(1) << level) < 8 * ranks) ++level;
    return std::min({level, TreeGravity::levels_for(total, options.group_size),
                     TreeGravity::levels_for(total, options.leaf_size)});
}

void EssentialTreeGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                                         RealBuffer& out, std::size_t out_offset, RealBuffer* potential) {
    const dist::Communicator& world = *communicator_;
    seconds_ = Seconds{};
    if (world.size() == 1 && (!directory_ || directory_->in_order())) {
        walkers_.assign(n, 0);
        local_.accelerations(positions, mass, n, out, out_offset, potential);
        return;
    }
    const std::vector<std::size_t> counts = world.allgather(n);
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t(0));
    const std::size_t rank = std::size_t(world.rank()), ranks = counts.size();
    if (directory_ && (directory_->total() != total || directory_->mine().size() != n))
        throw UsageError("EssentialTreeGravity: the directory holds " + std::to_string(directory_->mine().size()) +
                         " of " + std::to_string(directory_->total()) + " bodies for rank " + std::to_string(rank) +
                         ", which gave " + std::to_string(n) + " of " + std::to_string(total));
    walkers_.assign(n, int(rank));
    bytes_received_ = 0;
    if (total == 0) return;
    Context& context = local_.context();
    const Precision precision = local_.precision();
    Queue& queue = context.queue(0);
    if (out.size() < out_offset + 3 * n || (potential && potential->size() < n))
        throw UsageError("EssentialTreeGravity: buffers too short for " + std::to_string(n) + " bodies");

    // This rank's bodies on the host, with their global indices.
    Laps clock;
    std::vector<double> xyz(3 * n), m(n);
    if (n > 0) {
        positions.read(queue, xyz.data(), 3 * n);
        mass.read(queue, m.data(), n);
    }
    std::vector<std::uint64_t> index(n);
    const std::size_t first = std::accumulate(counts.begin(), counts.begin() + std::ptrdiff_t(rank), std::size_t(0));
    for (std::size_t i = 0; i < n; ++i) index[i] = directory_ ? directory_->mine()[i] : first + i;
    std::vector<double> x(xyz.begin(), xyz.begin() + std::ptrdiff_t(n));
    std::vector<double> y(xyz.begin() + std::ptrdiff_t(n), xyz.begin() + std::ptrdiff_t(2 * n));
    std::vector<double> z(xyz.begin() + std::ptrdiff_t(2 * n), xyz.end());

    // The top, each body to its node's rank, in the tree's order there.
    level_ = level_for(total, ranks, local_.options());
    const TreeTop top = TreeTop::split(world, precision, x.data(), y.data(), z.data(), index.data(), n, total, level_);
    seconds_.top = clock.lap();
    const Partition owners = top.owners(ranks);
    const std::vector<int> destinations = top.destinations(owners);
    for (std::size_t i = 0; i < n; ++i) walkers_[i] = destinations[i];
    const dist::Distributor move(world, destinations);
    std::vector<std::uint64_t> slot(n);
    std::iota(slot.begin(), slot.end(), std::uint64_t(0));
    const std::vector<double> ax = move.distribute(x), ay = move.distribute(y), az = move.distribute(z);
    const std::vector<double> am = move.distribute(m);
    const std::vector<std::uint64_t> aindex = move.distribute(index), aslot = move.distribute(slot);
    const std::vector<std::uint32_t> anode = move.distribute(top.node());
    const std::size_t held = aindex.size();
    // (A rank's items to itself are copies, not traffic.)
    bytes_received_ += double(held - move.sources()[rank].size()) *
                       (5 * sizeof(double) + 2 * sizeof(std::uint64_t) + sizeof(std::uint32_t));
    const std::vector<std::size_t> order = top.order_of(anode.data(), ax.data(), ay.data(), az.data(), aindex.data(), held);
    std::vector<double> bpos(3 * held), bmass(held);
    for (std::size_t i = 0; i < held; ++i) {
        bpos[i] = ax[order[i]];
        bpos[held + i] = ay[order[i]];
        bpos[2 * held + i] = az[order[i]];
        bmass[i] = am[order[i]];
    }
    const std::size_t room = std::max<std::size_t>(held, 1);
    if (branch_mass_.size() < room || branch_mass_.precision() != precision) {
        branch_positions_ = RealBuffer(context, precision, 3 * room);
        branch_mass_ = RealBuffer(context, precision, room);
        walked_ = RealBuffer(context, precision, 3 * room);
        walked_potential_ = RealBuffer(context, precision, room);
    }
    if (held > 0) {
        branch_positions_.write(queue, bpos);
        branch_mass_.write(queue, bmass);
    }

    seconds_.move = clock.lap();
    // This rank's subtrees, the top, the others' essential nodes, and the walk of its groups.
    const Range run = owners[rank];
    local_.build_branches(branch_positions_, branch_mass_, held, total, level_, run, top.cell_boxes());
    seconds_.branches = clock.lap();
    const std::vector<double> roots = world.allgatherv(local_.node_rows(level_, run));
    bytes_received_ += double((roots.size() - TreeGravity::row_fields * run.size()) * sizeof(double));
    local_.build_top(level_, roots);
    seconds_.join = clock.lap();
    exchange_.run(local_, owners, roots);
    bytes_received_ += exchange_.bytes_received();
    seconds_.exchange = clock.lap();
    local_.evaluate_in_tree_order(local_.branch_groups(), walked_, potential ? &walked_potential_ : nullptr);
    seconds_.walk = clock.lap();

    // Each result back to the rank and slot its body came from.
    std::vector<double> walked(3 * held), walked_potential(held, 0.0);
    std::vector<std::uint32_t> perm(held);
    if (held > 0) {
        walked_.read(queue, walked.data(), 3 * held);
        if (potential) walked_potential_.read(queue, walked_potential.data(), held);
        local_.permutation().read(queue, perm.data(), held);
    }
    std::vector<Result> results(held);
    std::vector<int> back(held);
    const Partition& sources = move.sources();
    for (std::size_t j = 0; j < held; ++j) {
        const std::size_t arrived = order[perm[j]];
        results[j].slot = aslot[arrived];
        for (std::size_t c = 0; c < 3; ++c) results[j].value[c] = walked[c * held + j];
        results[j].value[3] = walked_potential[j];
        back[j] = int(std::upper_bound(sources.offsets().begin() + 1, sources.offsets().end(), arrived) -
                      (sources.offsets().begin() + 1));
    }
    const dist::Distributor send_back(world, back);
    const std::vector<Result> mine = send_back.distribute(results);
    bytes_received_ += double((mine.size() - send_back.sources()[rank].size()) * sizeof(Result));
    if (mine.size() != n)
        throw Error("EssentialTreeGravity: rank " + std::to_string(rank) + " received " + std::to_string(mine.size()) +
                    " results for its " + std::to_string(n) + " bodies");
    std::vector<double> acc(3 * n), pot(n);
    for (const Result& r : mine) {
        for (std::size_t c = 0; c < 3; ++c) acc[c * n + r.slot] = r.value[c];
        pot[r.slot] = r.value[3];
    }
    if (n > 0) {
        out.write(queue, acc.data(), 3 * n, out_offset);
        if (potential) potential->write(queue, pot);
    }
    seconds_.results = clock.lap();
}

} // namespace partcl
