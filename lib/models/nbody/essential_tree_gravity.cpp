#include <partcl/models/nbody/essential_tree_gravity.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/distributor.hpp>

#include "device_room.hpp"

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

using detail::reserve;

// The parts of [0, size) outside `hole`, each with where it starts among the items outside the
// hole packed together: how the items that cross the host line up with the device's, where
// those of the hole stay.
struct Part {
    Range range;
    std::size_t packed;
};
std::vector<Part> around(Range hole, std::size_t size) {
    std::vector<Part> parts;
    if (hole.begin > 0) parts.push_back({{0, hole.begin}, 0});
    if (hole.end < size) parts.push_back({{hole.end, size}, hole.begin});
    return parts;
}

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
    top_rounds_ = 0;
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

    // This rank's bodies' global indices.
    Laps clock;
    std::vector<std::uint64_t> index(n);
    const std::size_t first = std::accumulate(counts.begin(), counts.begin() + std::ptrdiff_t(rank), std::size_t(0));
    for (std::size_t i = 0; i < n; ++i) index[i] = directory_ ? directory_->mine()[i] : first + i;

    // The top, each body to its node's rank, in the tree's order there.
    level_ = level_for(total, ranks, local_.options());
    if (!top_ || top_->precision() != precision) top_ = std::make_unique<DeviceTreeTop>(context, precision, local_.cache());
    const TreeTop top = top_->split(world, positions, index.data(), n, total, level_);
    seconds_.top = clock.lap();
    top_rounds_ = top.rounds();
    const Partition owners = top.owners(ranks);
    walkers_ = top.destinations(owners);
    // In the top's order the bodies are by node, so by the rank they go to; those that stay,
    // places [stay.begin, stay.end), stay on the device, and only the others cross the host.
    std::vector<int> to(n);
    for (std::size_t s = 0; s < n; ++s) to[s] = walkers_[top.order()[s]];
    const Range stay{std::size_t(std::lower_bound(to.begin(), to.end(), int(rank)) - to.begin()),
                     std::size_t(std::upper_bound(to.begin(), to.end(), int(rank)) - to.begin())};
    const std::size_t real = size_of(precision), record = 4 * real, tag = 2 * sizeof(std::uint32_t);
    top_->pack(positions, mass, records_, tags_);
    std::vector<int> away(to.begin(), to.begin() + std::ptrdiff_t(stay.begin));
    away.insert(away.end(), to.begin() + std::ptrdiff_t(stay.end), to.end());
    std::vector<unsigned char> sent_records(record * away.size());
    std::vector<std::uint32_t> sent_tags(2 * away.size());
    for (const Part& part : around(stay, n)) {
        const Range r = part.range;
        records_.memory().read(queue, record * r.begin, record * r.size(), sent_records.data() + record * part.packed);
        tags_.read(queue, sent_tags.data() + 2 * part.packed, 2 * r.size(), 2 * r.begin);
    }
    const dist::Distributor move(world, away);
    const std::size_t arrived = move.received(), held = arrived + stay.size();
    std::vector<unsigned char> arrived_records(record * arrived);
    std::vector<std::uint32_t> arrived_tags(2 * arrived);
    move.distribute(sent_records.data(), record, arrived_records.data());
    move.distribute(sent_tags.data(), tag, arrived_tags.data());
    bytes_received_ += double(arrived) * double(record + tag);
    // The arrivals in runs by sending rank, this rank's own (those that stayed) in its place.
    const std::size_t before = move.sources()[rank].begin;
    const Range stayed{before, before + stay.size()};  // among the held items
    std::vector<std::size_t> runs = move.sources().offsets();
    for (std::size_t r = rank + 1; r < runs.size(); ++r) runs[r] += stay.size();
    reserve(context, precision, arrived_records_, 4 * held);
    reserve(context, arrived_tags_, 2 * held);
    for (const Part& part : around(stayed, held)) {
        const Range r = part.range;
        arrived_records_.memory()
            .write(queue, record * r.begin, record * r.size(), arrived_records.data() + record * part.packed)
            .wait();
        arrived_tags_.write(queue, arrived_tags.data() + 2 * part.packed, 2 * r.size(), 2 * r.begin).wait();
    }
    if (stay.size() > 0) {
        records_.copy_to(queue, arrived_records_, 4 * stay.size(), 4 * stay.begin, 4 * stayed.begin);
        tags_.copy_to(queue, arrived_tags_, 2 * stay.size(), 2 * stay.begin, 2 * stayed.begin);
    }
    top_->merge(runs, arrived_records_, arrived_tags_, arrival_, branch_positions_, branch_mass_);
    reserve(context, precision, walked_, 3 * held);
    reserve(context, precision, walked_potential_, held);
    queue.finish();
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

    // Each result back to the rank it came from, which receives them in the order it sent them;
    // those of the bodies that stayed stay on the device.
    top_->results_by_arrival(held, arrival_, local_.permutation(), walked_, potential ? &walked_potential_ : nullptr,
                             results_);
    std::vector<unsigned char> walked(record * arrived), mine(record * away.size());
    for (const Part& part : around(stayed, held)) {
        const Range r = part.range;
        results_.memory().read(queue, record * r.begin, record * r.size(), walked.data() + record * part.packed);
    }
    std::vector<int> back(arrived);
    const Partition& sources = move.sources();
    for (std::size_t r = 0; r < ranks; ++r) std::fill(back.begin() + std::ptrdiff_t(sources[r].begin),
                                                      back.begin() + std::ptrdiff_t(sources[r].end), int(r));
    const dist::Distributor send_back(world, back);
    if (send_back.received() != away.size())
        throw Error("EssentialTreeGravity: rank " + std::to_string(rank) + " received " +
                    std::to_string(send_back.received()) + " results for the " + std::to_string(away.size()) +
                    " bodies it sent away");
    send_back.distribute(walked.data(), record, mine.data());
    bytes_received_ += double(away.size() * record);
    reserve(context, precision, home_, 4 * n);
    for (const Part& part : around(stay, n)) {
        const Range r = part.range;
        home_.memory().write(queue, record * r.begin, record * r.size(), mine.data() + record * part.packed).wait();
    }
    if (stay.size() > 0) results_.copy_to(queue, home_, 4 * stay.size(), 4 * stayed.begin, 4 * stay.begin);
    if (n > 0) {
        top_->results_home(home_, out, out_offset, potential);
        queue.finish();
    }
    seconds_.results = clock.lap();
}

} // namespace partcl
