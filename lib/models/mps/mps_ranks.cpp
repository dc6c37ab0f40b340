// MpsFluid over several MPI ranks: the ranks' slabs, the particles each rank owns and the ghosts
// it holds of its neighbours' (mps_fluid.hpp says how the order makes the run one rank's bit for
// bit), and the exchanges between ranks: particles at the start of a step, ghosts' values after
// the kernels whose results the next kernel reads of neighbours.
//
// The particles stay on the devices: at a step's start each device flags its own particles that
// left the rank's slabs (SlabSelection) and keeps the others in place; only the leavers and the
// particles of the slabs at the rank's ends (its neighbours' ghosts) cross the host.
#include <partcl/models/mps/mps_fluid.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <partcl/dist/distributor.hpp>
#include <partcl/runtime/device_array.hpp>

namespace partcl {

// A particle as it travels between ranks.
struct MpsFluid::Traveller {
    double position[3];
    double velocity[3];
    std::uint32_t type;
    std::uint32_t unused;
};

namespace {

// (Templates of the traveller, MpsFluid's own type.)
// Particles laid out component after component (positions and velocities of `dimensions`
// components, of particle j at k * m + j) as travellers, appended.
template <class Traveller>
void append_travellers(const std::vector<double>& r, const std::vector<double>& u,
                       const std::vector<std::uint32_t>& type, std::size_t dimensions,
                       std::vector<Traveller>& out) {
    const std::size_t m = type.size();
    for (std::size_t j = 0; j < m; ++j) {
        Traveller t{};
        for (std::size_t k = 0; k < dimensions; ++k) {
            t.position[k] = r[k * m + j];
            t.velocity[k] = u[k * m + j];
        }
        t.type = type[j];
        out.push_back(t);
    }
}

template <class Traveller>
std::vector<Traveller> travellers(const MpsParticles& p) {
    std::vector<std::uint32_t> type(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) type[i] = std::uint32_t(p.type[i]);
    std::vector<Traveller> out;
    out.reserve(p.size());
    append_travellers(p.position, p.velocity, type, std::size_t(p.dimensions), out);
    return out;
}

// The rank owning slab s.
int owner_of(const Partition& slabs, std::uint32_t s) {
    const auto& cuts = slabs.offsets();
    return int(std::upper_bound(cuts.begin(), cuts.end(), std::size_t(s)) - cuts.begin()) - 1;
}

Range intersect(Range a, Range b) {
    const std::size_t begin = std::max(a.begin, b.begin), end = std::min(a.end, b.end);
    return begin < end ? Range{begin, end} : Range{begin, begin};
}

} // namespace

std::vector<std::uint32_t> MpsFluid::slabs_of(const double* position, std::size_t stride,
                                              std::size_t n) const {
    // As the cell list finds them on the devices, so that every rank agrees with its devices.
    const CellGrid& grid = slabs_.grid();
    const int axis = grid.dimensions - 1;
    const std::uint32_t slabs = grid.cells[std::size_t(axis)];
    std::vector<std::uint32_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double c = slabs_.cells(0).cell_coordinate(position[std::size_t(axis) * stride + i], axis);
        // Outside the grid or NaN: rank 0's, whose cell list refuses it by name.
        out[i] = c >= 0 && c < double(slabs) ? std::uint32_t(c) : 0u;
    }
    return out;
}

std::vector<std::uint32_t> MpsFluid::slabs_of(const MpsParticles& p) const {
    return slabs_of(p.position.data(), p.size(), p.size());
}

std::vector<std::uint32_t> MpsFluid::slabs_of(const std::vector<Traveller>& t) const {
    std::vector<double> position(3 * t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
        for (std::size_t k = 0; k < 3; ++k) position[k * t.size() + i] = t[i].position[k];
    return slabs_of(position.data(), t.size(), t.size());
}

Partition MpsFluid::cut_slabs(const MpsParticles& all) const {
    const std::uint32_t slabs = slabs_.grid().cells[std::size_t(slabs_.grid().dimensions - 1)];
    std::vector<double> count(slabs, 0.0);
    for (std::uint32_t s : slabs_of(all)) count[s] += 1;
    return cut_slabs(count);
}

Partition MpsFluid::cut_slabs(const std::vector<double>& weights) const {
    return Partition::balanced(weights, std::size_t(ranks_->size()));
}

namespace {

// The largest rank's weight over the mean: 1 for a perfect cut.
double imbalance(const Partition& cut, const std::vector<double>& weights) {
    double total = 0, largest = 0;
    for (std::size_t r = 0; r < cut.parts(); ++r) {
        double w = 0;
        for (std::size_t s = cut[r].begin; s < cut[r].end; ++s) w += weights[s];
        total += w;
        largest = std::max(largest, w);
    }
    return total > 0 ? largest * double(cut.parts()) / total : 1.0;
}

} // namespace

void MpsFluid::rebalance() {
    // Each slab weighs the particles it held at the last sort, times its rank's measured seconds
    // a particle where the work is measured (ranks not measured yet count the others' mean):
    // every rank gathers the same weights and makes the same cut.
    double cost = 1;
    if (rank_work_ == RankWork::measured) {
        const std::vector<double> costs = ranks_->allgather(seconds_per_particle_);
        double known = 0, measured = 0;
        for (double c : costs)
            if (c > 0) {
                known += c;
                ++measured;
            }
        const double mean = measured > 0 ? known / measured : 1.0;
        cost = seconds_per_particle_ > 0 ? seconds_per_particle_ : mean;
    }
    const Range mine = rank_slabs_[std::size_t(ranks_->rank())];
    const std::vector<std::size_t> held = slabs_.held();
    std::vector<double> own;
    for (std::size_t s = mine.begin; s < mine.end; ++s) own.push_back(double(held[s + 1] - held[s]) * cost);
    // The ranks' slabs tile the grid in rank order: their weights gathered are every slab's.
    const std::vector<double> weights = ranks_->allgatherv(own);
    const Partition cut = cut_slabs(weights);
    const double now = imbalance(rank_slabs_, weights), then = imbalance(cut, weights);
    if (now - 1 > rebalance_tolerance_ && then < now) {
        rank_slabs_ = cut;
        ++rebalances_;
    }
}

void MpsFluid::place(const MpsParticles& own) {
    settle(std::vector<std::size_t>(context_.size(), 0), travellers<Traveller>(own), {});
}

std::vector<MpsFluid::Traveller> MpsFluid::take_out(std::size_t device, Range slots, Range slabs, bool inside,
                                          bool keep_others) {
    const std::size_t dims = std::size_t(parameters_.dimensions);
    Queue& queue = context_.queue(device);
    SlabSelection& select = *select_[device];
    RankScratch& s = scratch_[device];
    // The own particles of next(), or those kept from them.
    RealBuffer& r = keep_others ? slabs_.next(0, device) : s.kept_r;
    RealBuffer& u = keep_others ? slabs_.next(1, device) : s.kept_u;
    Buffer<std::uint32_t>& type = keep_others ? slabs_.next_uint(0, device) : s.kept_type;
    const std::size_t stride = keep_others ? slabs_.own(device) : s.kept;
    const std::size_t m = select.flag(queue, r, stride, slots, slabs, inside);
    auto fit = [&](RealBuffer& b, std::size_t size) { fit_on_device(b, context_, precision_, size, OnDevice{device}); };
    auto fit_uint = [&](Buffer<std::uint32_t>& b, std::size_t size) { fit_on_device(b, context_, size, OnDevice{device}); };
    if (keep_others) {
        s.kept = slots.size() - m;
        fit(s.kept_r, dims * s.kept);
        fit(s.kept_u, dims * s.kept);
        fit_uint(s.kept_type, s.kept);
        select.copy(queue, r, stride, dims, false, s.kept_r, s.kept, 0);
        select.copy(queue, u, stride, dims, false, s.kept_u, s.kept, 0);
        select.copy(queue, type, false, s.kept_type, 0);
    }
    std::vector<Traveller> out;
    if (m == 0) return out;
    fit(s.pack_r, dims * m);
    fit(s.pack_u, dims * m);
    fit_uint(s.pack_type, m);
    select.copy(queue, r, stride, dims, true, s.pack_r, m, 0);
    select.copy(queue, u, stride, dims, true, s.pack_u, m, 0);
    select.copy(queue, type, true, s.pack_type, 0);
    std::vector<double> pr(dims * m), pu(dims * m);
    std::vector<std::uint32_t> ptype(m);
    s.pack_r.read(queue, pr.data(), pr.size());
    s.pack_u.read(queue, pu.data(), pu.size());
    s.pack_type.read(queue, ptype.data(), m);
    append_travellers(pr, pu, ptype, dims, out);
    return out;
}

void MpsFluid::rearrange() {
    dist::TrafficTimer exchange(context_.queue(0), traffic_);
    // On each device, this rank's own particles of next() (its ghosts, the slots outside
    // [below, below + own) of the one-device order, are dropped): those that left its slabs
    // packed, in order, the others kept on the device in order.
    const Partition owners = slabs_.owners();
    const Range own{ghosts_.below, ghosts_.below + ghosts_.own};
    const Range mine = rank_slabs_[std::size_t(ranks_->rank())];
    std::vector<Traveller> leaving;
    std::vector<std::size_t> kept(context_.size(), 0);
    for (std::size_t k = 0; k < context_.size(); ++k) {
        const Range part = intersect(owners[k], own);
        const Range slots = part.empty() ? Range{0, 0}
                                         : Range{part.begin - owners[k].begin, part.end - owners[k].begin};
        std::vector<Traveller> out = take_out(k, slots, mine, false, true);
        kept[k] = scratch_[k].kept;
        leaving.insert(leaving.end(), out.begin(), out.end());
    }
    // Each to the rank owning its slab now: what arrives is in the order of all ranks'
    // particles, the lower ranks' before this rank's kept ones and the higher ranks' after.
    const std::vector<std::uint32_t> slab = slabs_of(leaving);
    std::vector<int> destinations(leaving.size());
    for (std::size_t i = 0; i < leaving.size(); ++i) {
        destinations[i] = owner_of(rank_slabs_, slab[i]);
        if (destinations[i] != ranks_->rank()) {
            ++traffic_.particles_sent;
            exchange.sent(sizeof(Traveller));
        }
    }
    const dist::Distributor plan(*ranks_, destinations);
    const std::vector<Traveller> arrived = plan.distribute(leaving);
    // (From itself: a particle outside the grid or NaN, which rank 0's cell list names.)
    const std::size_t split = plan.sources()[std::size_t(ranks_->rank())].end;
    settle(kept, std::vector<Traveller>(arrived.begin(), arrived.begin() + std::ptrdiff_t(split)),
           std::vector<Traveller>(arrived.begin() + std::ptrdiff_t(split), arrived.end()));
}

void MpsFluid::settle(const std::vector<std::size_t>& kept, std::vector<Traveller> lower,
                      std::vector<Traveller> higher) {
    const std::size_t ranks = std::size_t(ranks_->size()), me = std::size_t(ranks_->rank());
    const std::size_t width = slabs_.width(), dims = std::size_t(parameters_.dimensions);
    const std::size_t devices = context_.size();
    const std::uint32_t slabs = slabs_.grid().cells[dims - 1];
    const Range mine = rank_slabs_[me];
    // Rank q's ghost slabs: the `width` below its own and the `width` above.
    auto below_of = [&](std::size_t q) {
        const std::size_t first = rank_slabs_[q].begin;
        return Range{first > width ? first - width : 0, first};
    };
    auto above_of = [&](std::size_t q) {
        const std::size_t end = rank_slabs_[q].end;
        return Range{end, std::min<std::size_t>(end + width, slabs)};
    };
    // The slabs of this rank that lower ranks hold as ghosts are a prefix of its own, those that
    // higher ranks hold a suffix.
    std::size_t prefix_end = mine.begin, suffix_begin = mine.end;
    for (std::size_t q = 0; q < ranks; ++q) {
        if (q < me) prefix_end = std::max(prefix_end, intersect(above_of(q), mine).end);
        const Range r = intersect(below_of(q), mine);
        if (q > me && !r.empty()) suffix_begin = std::min(suffix_begin, r.begin);
    }
    // This rank's particles in a range of its slabs, in its order: the lower ranks' arrivals,
    // each device's kept ones, the higher ranks' arrivals.
    const std::vector<std::uint32_t> lower_slab = slabs_of(lower), higher_slab = slabs_of(higher);
    auto in_slabs = [&](Range range) {
        std::vector<Traveller> out;
        if (range.empty()) return out;
        auto filter = [&](const std::vector<Traveller>& from, const std::vector<std::uint32_t>& slab) {
            for (std::size_t i = 0; i < from.size(); ++i)
                if (slab[i] >= range.begin && slab[i] < range.end) out.push_back(from[i]);
        };
        filter(lower, lower_slab);
        for (std::size_t k = 0; k < devices; ++k) {
            if (kept[k] == 0) continue;
            const std::vector<Traveller> near = take_out(k, {0, kept[k]}, range, true, false);
            out.insert(out.end(), near.begin(), near.end());
        }
        filter(higher, higher_slab);
        return out;
    };
    const std::vector<Traveller> front = in_slabs({mine.begin, prefix_end}),
                                 back = in_slabs({suffix_begin, mine.end});
    const std::vector<std::uint32_t> front_slab = slabs_of(front), back_slab = slabs_of(back);

    // To each other rank, its ghosts among this rank's particles, in this rank's order: list
    // 2 q (below q, for q above this rank) and 2 q + 1 (above q, for q below it).
    std::vector<std::uint64_t> counts(2 * ranks, 0);
    std::vector<Traveller> sent;
    std::vector<std::size_t> send_counts(ranks, 0);
    for (std::size_t q = 0; q < ranks; ++q) {
        if (q == me) continue;
        const bool above_me = q > me;
        const Range ghosts = intersect(above_me ? below_of(q) : above_of(q), mine);
        if (ghosts.empty()) continue;
        const std::vector<Traveller>& from = above_me ? back : front;
        const std::vector<std::uint32_t>& slab = above_me ? back_slab : front_slab;
        std::uint64_t& count = counts[2 * q + (above_me ? 0 : 1)];
        for (std::size_t i = 0; i < from.size(); ++i)
            if (slab[i] >= ghosts.begin && slab[i] < ghosts.end) {
                sent.push_back(from[i]);
                ++count;
            }
        send_counts[q] = std::size_t(count) * sizeof(Traveller);
    }
    // What each rank sends here: counts[2 p], counts[2 p + 1] of rank p's message.
    std::vector<std::uint64_t> arriving(2 * ranks, 0);
    {
        std::vector<std::size_t> bytes(ranks, 2 * sizeof(std::uint64_t));
        ranks_->alltoallv(counts.data(), bytes, arriving.data(), bytes);
    }
    std::vector<std::size_t> recv_counts(ranks, 0);
    std::size_t received_total = 0;
    for (std::size_t p = 0; p < ranks; ++p) {
        recv_counts[p] = std::size_t(arriving[2 * p] + arriving[2 * p + 1]) * sizeof(Traveller);
        received_total += std::size_t(arriving[2 * p] + arriving[2 * p + 1]);
    }
    std::vector<Traveller> received(received_total);
    ranks_->alltoallv(sent.data(), send_counts, received.data(), recv_counts);
    traffic_.bytes_sent += double(sent.size() * sizeof(Traveller));

    // Rank p's message holds its particles in this rank's ghost slabs below (p below this rank)
    // or above (p above it): [ghosts below | own | ghosts above], each in rank order, is the
    // order one rank would hold them in, by cell.
    std::vector<Traveller> below, above;
    std::size_t at = 0;
    std::vector<std::size_t> from_below(ranks), from_above(ranks);
    for (std::size_t p = 0; p < ranks; ++p) {
        const std::size_t first = std::size_t(arriving[2 * p]), second = std::size_t(arriving[2 * p + 1]);
        below.insert(below.end(), received.begin() + std::ptrdiff_t(at),
                     received.begin() + std::ptrdiff_t(at + first));
        above.insert(above.end(), received.begin() + std::ptrdiff_t(at + first),
                     received.begin() + std::ptrdiff_t(at + first + second));
        from_below[p] = first;
        from_above[p] = second;
        at += first + second;
    }
    std::size_t kept_total = 0;
    for (std::size_t k : kept) kept_total += k;
    ghosts_.below = below.size();
    ghosts_.own = lower.size() + kept_total + higher.size();
    ghosts_.above = above.size();
    ghosts_.received_below.assign(ranks, Range{});
    ghosts_.received_above.assign(ranks, Range{});
    std::size_t b = 0, a = ghosts_.below + ghosts_.own;
    for (std::size_t p = 0; p < ranks; ++p) {
        ghosts_.received_below[p] = {b, b + from_below[p]};
        b += from_below[p];
        ghosts_.received_above[p] = {a, a + from_above[p]};
        a += from_above[p];
    }
    // This rank's slots whose values rank q holds as ghosts, in the one-device order (sorted by
    // cell, so by slab): the last of its own for a rank above, the first for a rank below.
    ghosts_.sent_below.assign(ranks, Range{});
    ghosts_.sent_above.assign(ranks, Range{});
    const std::size_t own_end = ghosts_.below + ghosts_.own;
    for (std::size_t q = 0; q < ranks; ++q) {
        ghosts_.sent_below[q] = {own_end - std::size_t(counts[2 * q]), own_end};
        ghosts_.sent_above[q] = {ghosts_.below, ghosts_.below + std::size_t(counts[2 * q + 1])};
    }

    // The devices' particles in order: [ghosts below | lower arrivals | device 0's kept], the
    // middle devices' kept, [the last device's kept | higher arrivals | ghosts above].
    std::vector<Traveller> head = std::move(below), tail = std::move(higher);
    head.insert(head.end(), lower.begin(), lower.end());
    tail.insert(tail.end(), above.begin(), above.end());
    n_ = head.size() + kept_total + tail.size();
    auto soa = [&](const std::vector<Traveller>& t, std::vector<double>& r, std::vector<double>& u,
                   std::vector<std::uint32_t>& type) {
        const std::size_t m = t.size();
        r.resize(dims * m);
        u.resize(dims * m);
        type.resize(m);
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t k = 0; k < dims; ++k) {
                r[k * m + i] = t[i].position[k];
                u[k * m + i] = t[i].velocity[k];
            }
            type[i] = t[i].type;
        }
    };
    if (kept_total == 0) {  // from the host alone: sorted on device 0 at once, as a new fluid
        head.insert(head.end(), tail.begin(), tail.end());
        std::vector<double> r, u;
        std::vector<std::uint32_t> type;
        soa(head, r, u, type);
        slabs_.upload(n_, {r, u}, {type});
        arranged_ = true;
        return;
    }
    std::vector<double> head_r, head_u, tail_r, tail_u;
    std::vector<std::uint32_t> head_type, tail_type;
    soa(head, head_r, head_u, head_type);
    soa(tail, tail_r, tail_u, tail_type);
    for (std::size_t k = 0; k < devices; ++k) {
        const std::size_t before = k == 0 ? head.size() : 0, after = k + 1 == devices ? tail.size() : 0;
        const std::size_t n = before + kept[k] + after;
        slabs_.set_own(k, n);
        if (n == 0) continue;
        Queue& queue = context_.queue(k);
        RankScratch& s = scratch_[k];
        RealBuffer &r = slabs_.next(0, k), &u = slabs_.next(1, k);
        Buffer<std::uint32_t>& type = slabs_.next_uint(0, k);
        for (std::size_t c = 0; c < dims; ++c) {
            if (before > 0) {
                r.write(queue, head_r.data() + c * before, before, c * n);
                u.write(queue, head_u.data() + c * before, before, c * n);
            }
            if (kept[k] > 0) {
                s.kept_r.copy_to(queue, r, kept[k], c * kept[k], c * n + before);
                s.kept_u.copy_to(queue, u, kept[k], c * kept[k], c * n + before);
            }
            if (after > 0) {
                r.write(queue, tail_r.data() + c * after, after, c * n + before + kept[k]);
                u.write(queue, tail_u.data() + c * after, after, c * n + before + kept[k]);
            }
        }
        if (before > 0) type.write(queue, head_type.data(), before, 0);
        if (kept[k] > 0) s.kept_type.copy_to(queue, type, kept[k], 0, before);
        if (after > 0) type.write(queue, tail_type.data(), after, before + kept[k]);
        queue.finish();  // the writes read the host arrays
    }
    arranged_ = true;
}

void MpsFluid::update_ghosts(std::vector<RealBuffer>& arrays, std::size_t components) {
    dist::TrafficTimer exchange(context_.queue(0), traffic_);
    const std::size_t ranks = std::size_t(ranks_->size()), size = size_of(precision_);
    // Rank q is sent what it holds as ghosts below this rank's slabs, then above (this rank's
    // own order), and sends the same of this rank's ghosts: values of the model's precision.
    std::vector<Range> sending, receiving;
    std::vector<std::size_t> send_counts(ranks, 0), recv_counts(ranks, 0);
    for (std::size_t q = 0; q < ranks; ++q) {
        for (const Range slots : {ghosts_.sent_below[q], ghosts_.sent_above[q]})
            if (!slots.empty()) {
                sending.push_back(slots);
                send_counts[q] += components * slots.size() * size;
            }
        for (const Range slots : {ghosts_.received_below[q], ghosts_.received_above[q]})
            if (!slots.empty()) {
                receiving.push_back(slots);
                recv_counts[q] += components * slots.size() * size;
            }
    }
    const std::vector<std::byte> sent = slabs_.pack_own(arrays, components, sending);
    std::size_t total = 0;
    for (std::size_t c : recv_counts) total += c;
    std::vector<std::byte> received(total);
    ranks_->alltoallv(sent.data(), send_counts, received.data(), recv_counts);
    exchange.sent(sent.size());
    slabs_.unpack_own(arrays, components, receiving, received);
}

template <class T>
std::vector<T> MpsFluid::gather_own(const std::vector<T>& local, std::size_t components) const {
    if (!several()) return local;
    std::vector<T> own;
    for (std::size_t k = 0; k < components; ++k) {
        const auto begin = local.begin() + std::ptrdiff_t(k * n_ + ghosts_.below);
        own.insert(own.end(), begin, begin + std::ptrdiff_t(ghosts_.own));
    }
    return ranks_->allgatherv_components(own, components);
}

template std::vector<double> MpsFluid::gather_own(const std::vector<double>&, std::size_t) const;
template std::vector<std::uint32_t> MpsFluid::gather_own(const std::vector<std::uint32_t>&,
                                                         std::size_t) const;

} // namespace partcl
