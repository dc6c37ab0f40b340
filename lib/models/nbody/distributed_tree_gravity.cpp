#include <partcl/models/nbody/distributed_tree_gravity.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include <partcl/algorithm/scan.hpp>
#include <partcl/dist/distributor.hpp>

namespace partcl {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

DistributedTreeGravity::DistributedTreeGravity(const dist::Communicator& communicator,
                                               TreeGravity& local)
    : communicator_(&communicator), local_(local), routing_([&] {
          BuildOptions options;
          options.precision = local.precision();
          return build_program(local.context(), Source::builtin("nbody/result_routing.cl"), options,
                               local.cache());
      }()),
      routing_local_(routing_, "routing_local"), routing_pack_(routing_, "routing_pack") {}

Partition DistributedTreeGravity::cut(std::size_t groups) {
    // Every rank cuts with the same gathered speeds, so every rank makes the same cut. Until
    // each has walked once (or where one walked nothing), all count as equal.
    std::vector<double> speeds = communicator_->allgather(speed_);
    if (std::any_of(speeds.begin(), speeds.end(), [](double s) { return !(s > 0); }))
        speeds.assign(speeds.size(), 1.0);
    // The last cut stays while no rank's walk would take 10% more than the mean: a cut that
    // moves with every timing's noise would move bodies between ranks as often.
    if (walks_.parts() == speeds.size() && walks_.total() == groups) {
        double longest = 0, sum = 0;
        for (std::size_t r = 0; r < speeds.size(); ++r) {
            const double t = double(walks_[r].size()) / speeds[r];
            longest = std::max(longest, t);
            sum += t;
        }
        if (longest <= 1.1 * sum / double(speeds.size())) return walks_;
    }
    return Partition::by_weight(groups, speeds, local_.granule());
}

void DistributedTreeGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                           std::size_t n, RealBuffer& out, std::size_t out_offset,
                                           RealBuffer* potential) {
    if (communicator_->size() == 1 && (!directory_ || directory_->in_order())) {
        ranks_ = Partition({0, n});
        walkers_.assign(n, 0);
        local_.accelerations(positions, mass, n, out, out_offset, potential);
        walks_ = Partition({0, local_.groups(n)});
        return;
    }
    const dist::Allgather blocks = sources_.gather(*communicator_, local_.context(), positions, mass, n);
    ranks_ = blocks.ranks();
    const std::size_t total = blocks.total();
    if (directory_ && (directory_->total() != total || directory_->mine().size() != n))
        throw UsageError("DistributedTreeGravity: the directory holds " + std::to_string(directory_->mine().size()) +
                         " of " + std::to_string(directory_->total()) + " bodies for rank " +
                         std::to_string(communicator_->rank()) + ", which gave " + std::to_string(n) +
                         " of " + std::to_string(total));
    walkers_.assign(n, communicator_->rank());
    if (total == 0) return;
    Context& context = local_.context();
    const Precision precision = local_.precision();
    Queue& queue = context.queue(0);
    const bool reorder = directory_ && !directory_->in_order();
    if (reorder) {
        // The sources in the global order, where one rank holds them: the same tree.
        if (uploaded_changes_ != directory_changes_) {
            gathered_ids_ = Buffer<std::uint32_t>(context, directory_->gathered());
            uploaded_changes_ = directory_changes_;
        }
        if (ordered_mass_.size() < total || ordered_mass_.precision() != precision) {
            ordered_positions_ = RealBuffer(context, precision, 3 * total);
            ordered_mass_ = RealBuffer(context, precision, total);
        }
        local_.put_in_place(gathered_ids_, sources_.positions(), &sources_.mass(), total,
                            ordered_positions_, 0, total, &ordered_mass_);
    }
    // Every rank holds the same bodies, so each builds or refits as the others do.
    local_.update(reorder ? ordered_positions_ : sources_.positions(),
                  reorder ? ordered_mass_ : sources_.mass(), total);
    // The speeds time the walk alone: a build that every rank does whole, counted in, would make
    // a rank with more groups look faster and take still more (the cut would run away).
    queue.finish();
    walks_ = cut(local_.groups(total));
    const Range mine = walks_[std::size_t(communicator_->rank())];
    const std::size_t first = local_.tree_begin(mine.begin),
                      count = local_.tree_begin(mine.end) - first;
    // (At least one body's room: a rank that walks nothing still passes buffers of its precision.)
    if (walked_.empty() || walked_.size() < 3 * count)
        walked_ = RealBuffer(context, precision, 3 * std::max<std::size_t>(count, 1));
    if (potential && (walked_potential_.empty() || walked_potential_.size() < count))
        walked_potential_ = RealBuffer(context, precision, std::max<std::size_t>(count, 1));
    auto start = std::chrono::steady_clock::now();
    local_.evaluate_in_tree_order(mine, walked_, potential ? &walked_potential_ : nullptr);
    const double walk_seconds = seconds_since(start);
    walk_seconds_ += walk_seconds;
    // Smoothed over evaluations, as the scheduler's weights are: one timing is noisy.
    const double speed = mine.empty() || !(walk_seconds > 0) ? 0.0 : double(mine.size()) / walk_seconds;
    speed_ = speed_ > 0 && speed > 0 ? 0.5 * (speed_ + speed) : speed;

    // Waiting here for the slowest walk, apart from the exchange's own time.
    start = std::chrono::steady_clock::now();
    communicator_->barrier();
    wait_seconds_ += seconds_since(start);
    start = std::chrono::steady_clock::now();
    send_results(first, count, n, out, out_offset, potential);
    if (local_.options().relative_accuracy > 0) {
        // The relative criterion reads every body's |a|, as on one rank: each rank's own
        // block of the results, gathered whole.
        if (own_.size() < 3 * n) own_ = RealBuffer(context, precision, 3 * std::max<std::size_t>(n, 1));
        if (all_.size() < 3 * total) all_ = RealBuffer(context, precision, 3 * total);
        if (n > 0) out.copy_to(queue, own_, 3 * n, out_offset, 0);
        if (reorder) {
            if (all_in_rank_order_.size() < 3 * total) all_in_rank_order_ = RealBuffer(context, precision, 3 * total);
            blocks.gather(queue, own_, n, all_in_rank_order_, total, 3);
            local_.put_in_place(gathered_ids_, all_in_rank_order_, nullptr, total, all_, 0, total, nullptr);
        } else {
            blocks.gather(queue, own_, n, all_, total, 3);
        }
        local_.remember(all_, 0);
    }
    exchange_seconds_ += seconds_since(start);
}

namespace {

// One walked body's result on its way to the body's rank: its slot there, its acceleration and
// (where asked) its potential, in the model's precision.
template <class T>
struct Result {
    std::uint32_t body;
    T value[4];
};

// Where the body of global index `body` lives: its rank and slot there (blocks in rank order
// without a directory).
struct Owner {
    int rank;
    std::uint32_t slot;
};
Owner owner_of(std::uint32_t body, const dist::IndexDirectory* directory, const Partition& ranks) {
    if (directory) return {directory->rank_of(body), directory->slot_of(body)};
    const std::vector<std::size_t>& offsets = ranks.offsets();
    const int rank = int(std::upper_bound(offsets.begin() + 1, offsets.end(), std::size_t(body)) -
                         (offsets.begin() + 1));
    return {rank, std::uint32_t(body - offsets[std::size_t(rank)])};
}

// The packed results of other ranks' bodies (`packed` of them: their bodies' global indices and
// values, component c of result j at c * packed + j) sent to their ranks, and what arrives here
// put in place, in the buffers' own type. Host arrays are kept between evaluations, so their
// pages are not faulted in again each time. Returns how many arrived.
template <class T>
std::size_t exchange_as(const dist::Communicator& communicator, const Partition& ranks,
                        const dist::IndexDirectory* directory, std::vector<int>& walkers,
                        TreeGravity& tree, const Buffer<std::uint32_t>& packed_bodies,
                        const RealBuffer& packed_values, std::size_t packed, RealBuffer& out,
                        std::size_t out_offset, std::size_t n, RealBuffer* potential,
                        Buffer<std::uint32_t>& arrived_bodies, RealBuffer& arrived_values,
                        RealBuffer& arrived_potentials, double& bytes_received) {
    Context& context = tree.context();
    Queue& queue = context.queue(0);
    const std::size_t components = potential ? 4 : 3;
    thread_local std::vector<std::uint32_t> bodies;
    thread_local std::vector<T> soa;
    thread_local std::vector<Result<T>> results, arrived;
    thread_local std::vector<int> owners;
    bodies.resize(packed);
    soa.resize(components * packed);
    if (packed > 0) {
        packed_bodies.read(queue, bodies.data(), packed);
        packed_values.memory().read(queue, 0, components * packed * sizeof(T), soa.data());
    }
    results.resize(packed);
    owners.resize(packed);
    {
        // (Pointers taken once: each use of a thread_local may go through a call.)
        const std::uint32_t* body = bodies.data();
        const T* value = soa.data();
        Result<T>* result = results.data();
        int* owner = owners.data();
        for (std::size_t j = 0; j < packed; ++j) {
            Result<T>& r = result[j];
            const Owner o = owner_of(body[j], directory, ranks);
            r.body = o.slot;
            for (std::size_t c = 0; c < 4; ++c) r.value[c] = c < components ? value[c * packed + j] : T(0);
            owner[j] = o.rank;
        }
    }
    const dist::Distributor plan(communicator, owners);
    plan.distribute(results, arrived);
    const std::size_t m = plan.received();
    bytes_received += double(m) * double(sizeof(Result<T>));
    if (m == 0) return 0;
    // Each body was walked by the rank its result came from.
    for (std::size_t p = 0; p < plan.sources().parts(); ++p)
        for (std::size_t k = plan.sources()[p].begin; k < plan.sources()[p].end; ++k)
            walkers.at(arrived[k].body) = int(p);
    // In arrival order, structure of arrays again, with the bodies' slots on this rank: the
    // device puts each in its place (random writes, slow on the host).
    soa.resize(components * m);
    bodies.resize(m);
    {
        T* value = soa.data();
        std::uint32_t* body = bodies.data();
        const Result<T>* r = arrived.data();
        for (std::size_t k = 0; k < m; ++k) {
            body[k] = r[k].body;
            for (std::size_t c = 0; c < components; ++c) value[c * m + k] = r[k].value[c];
        }
    }
    if (arrived_bodies.size() < m) {
        arrived_bodies = Buffer<std::uint32_t>(context, m);
        arrived_values = RealBuffer(context, tree.precision(), 3 * m);
        arrived_potentials = RealBuffer(context, tree.precision(), m);
    }
    arrived_bodies.write(queue, bodies.data(), m);
    // (A Memory is a handle: writing through a copy writes the buffer.)
    Memory values = arrived_values.memory();
    values.write(queue, 0, 3 * m * sizeof(T), soa.data());
    if (potential) {
        Memory potentials = arrived_potentials.memory();
        potentials.write(queue, 0, m * sizeof(T), soa.data() + 3 * m);
    }
    tree.put_in_place(arrived_bodies, arrived_values, &arrived_potentials, m, out, out_offset, n, potential);
    queue.finish();  // the writes read the host arrays until they are done
    return m;
}

} // namespace

void DistributedTreeGravity::send_results(std::size_t first, std::size_t count, std::size_t n,
                                          RealBuffer& out, std::size_t out_offset,
                                          RealBuffer* potential) {
    Context& context = local_.context();
    Queue& queue = context.queue(0);
    const Precision precision = local_.precision();
    const std::size_t total = ranks_.total();
    // Each body's rank and slot on the device, made again where they changed.
    if (routed_changes_ != directory_changes_ || routed_ranks_ != ranks_.offsets()) {
        std::vector<std::uint32_t> owner(total), slot(total);
        for (std::size_t b = 0; b < total; ++b) {
            const Owner o = owner_of(std::uint32_t(b), directory_, ranks_);
            owner[b] = std::uint32_t(o.rank);
            slot[b] = o.slot;
        }
        owner_table_ = Buffer<std::uint32_t>(context, owner);
        slot_table_ = Buffer<std::uint32_t>(context, slot);
        routed_changes_ = directory_changes_;
        routed_ranks_ = ranks_.offsets();
    }
    // This rank's bodies' results into place on the device; the others flagged and packed.
    std::size_t packed = 0;
    if (count > 0) {
        if (flags_.size() < count) {
            flags_ = Buffer<std::uint32_t>(context, count + count / 8);
            offsets_ = Buffer<std::uint32_t>(context, count + count / 8);
        }
        const std::uint32_t with_potential = potential ? 1 : 0;
        routing_local_.args(std::uint32_t(count), std::uint32_t(first), local_.permutation(), owner_table_,
                            slot_table_, std::uint32_t(communicator_->rank()), walked_,
                            potential ? walked_potential_ : RealBuffer(), with_potential, out,
                            std::uint32_t(out_offset), std::uint32_t(n), potential ? *potential : RealBuffer(),
                            flags_);
        routing_local_.launch(queue, count);
        exclusive_scan(queue, flags_, offsets_, count);
        std::uint32_t last_flag = 0, last_offset = 0;
        flags_.read(queue, &last_flag, 1, count - 1);
        offsets_.read(queue, &last_offset, 1, count - 1);
        packed = std::size_t(last_flag) + last_offset;
        if (packed > 0) {
            if (packed_bodies_.size() < packed) {
                packed_bodies_ = Buffer<std::uint32_t>(context, packed + packed / 8);
                packed_values_ = RealBuffer(context, precision, 4 * (packed + packed / 8));
            }
            routing_pack_.args(std::uint32_t(count), std::uint32_t(first), local_.permutation(), flags_, offsets_,
                               walked_, potential ? walked_potential_ : RealBuffer(), with_potential,
                               std::uint32_t(packed), packed_bodies_, packed_values_);
            routing_pack_.launch(queue, count);
        }
    }
    const std::size_t arrived =
        precision == Precision::float64
            ? exchange_as<double>(*communicator_, ranks_, directory_, walkers_, local_, packed_bodies_,
                                  packed_values_, packed, out, out_offset, n, potential, arrived_bodies_,
                                  arrived_values_, arrived_potentials_, bytes_received_)
            : exchange_as<float>(*communicator_, ranks_, directory_, walkers_, local_, packed_bodies_,
                                 packed_values_, packed, out, out_offset, n, potential, arrived_bodies_,
                                 arrived_values_, arrived_potentials_, bytes_received_);
    if (count - packed + arrived != n)
        throw Error("DistributedTreeGravity: rank " + std::to_string(communicator_->rank()) + " has " +
                    std::to_string(count - packed + arrived) + " results for its " + std::to_string(n) +
                    " bodies (the ranks' blocks disagree)");
    queue.finish();
}

} // namespace partcl
