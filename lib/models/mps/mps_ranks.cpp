// MpsFluid over several MPI ranks: the ranks' slabs, the particles each rank owns and the ghosts
// it holds of its neighbours' (mps_fluid.hpp says how the order makes the run one rank's bit for
// bit), and the exchanges between ranks: particles at the start of a step, ghosts' values after
// the kernels whose results the next kernel reads of neighbours.
#include <partcl/models/mps/mps_fluid.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <partcl/dist/distributor.hpp>

namespace partcl {

namespace {

// A particle as it travels between ranks.
struct Traveller {
    double position[3];
    double velocity[3];
    std::uint32_t type;
    std::uint32_t unused;
};

std::vector<Traveller> travellers(const MpsParticles& p) {
    const std::size_t n = p.size();
    std::vector<Traveller> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        Traveller& t = out[i];
        for (int k = 0; k < 3; ++k) {
            const bool used = k < p.dimensions;
            t.position[k] = used ? p.position[std::size_t(k) * n + i] : 0.0;
            t.velocity[k] = used ? p.velocity[std::size_t(k) * n + i] : 0.0;
        }
        t.type = std::uint32_t(p.type[i]);
        t.unused = 0;
    }
    return out;
}

// Appends travellers to particles laid out component after component: all are rebuilt.
MpsParticles particles_of(const std::vector<Traveller>& all, int dimensions) {
    const std::size_t n = all.size();
    MpsParticles p;
    p.dimensions = dimensions;
    p.position.resize(std::size_t(dimensions) * n);
    p.velocity.resize(std::size_t(dimensions) * n);
    p.type.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < dimensions; ++k) {
            p.position[std::size_t(k) * n + i] = all[i].position[k];
            p.velocity[std::size_t(k) * n + i] = all[i].velocity[k];
        }
        p.type[i] = MpsType(all[i].type);
    }
    return p;
}

// The rank owning slab s.
int owner_of(const Partition& slabs, std::uint32_t s) {
    const auto& cuts = slabs.offsets();
    return int(std::upper_bound(cuts.begin(), cuts.end(), std::size_t(s)) - cuts.begin()) - 1;
}

} // namespace

std::vector<std::uint32_t> MpsFluid::slabs_of(const MpsParticles& p) const {
    // As the cell list finds them on the devices, so that every rank agrees with its devices.
    const CellGrid& grid = slabs_.grid();
    const int axis = grid.dimensions - 1;
    const std::uint32_t slabs = grid.cells[std::size_t(axis)];
    const std::size_t n = p.size();
    std::vector<std::uint32_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double c = slabs_.cells(0).cell_coordinate(p.position[std::size_t(axis) * n + i], axis);
        // Outside the grid or NaN: rank 0's, whose cell list refuses it by name.
        out[i] = c >= 0 && c < double(slabs) ? std::uint32_t(c) : 0u;
    }
    return out;
}

Partition MpsFluid::cut_slabs(const MpsParticles& all) const {
    const std::uint32_t slabs = slabs_.grid().cells[std::size_t(slabs_.grid().dimensions - 1)];
    std::vector<std::size_t> count(slabs + 1, 0);  // count[s + 1]: particles in slab s
    for (std::uint32_t s : slabs_of(all)) ++count[s + 1];
    for (std::size_t s = 1; s <= slabs; ++s) count[s] += count[s - 1];
    // Rank r's slabs begin where the particles below reach r / K of them.
    const std::size_t ranks = std::size_t(ranks_->size()), n = all.size();
    std::vector<std::size_t> cuts{0};
    for (std::size_t r = 1; r < ranks; ++r) {
        const std::size_t share = (n * r + ranks / 2) / ranks;
        const auto at = std::lower_bound(count.begin(), count.end(), share);
        cuts.push_back(std::max(cuts.back(), std::size_t(at - count.begin())));
    }
    cuts.push_back(slabs);
    for (std::size_t& c : cuts) c = std::min<std::size_t>(c, slabs);
    return Partition(std::move(cuts));
}

void MpsFluid::place(const MpsParticles& own) {
    const std::size_t ranks = std::size_t(ranks_->size()), me = std::size_t(ranks_->rank());
    const std::size_t width = slabs_.width();
    const std::vector<std::uint32_t> slab = slabs_of(own);
    const std::uint32_t slabs = slabs_.grid().cells[std::size_t(slabs_.grid().dimensions - 1)];
    // Rank q's ghost slabs: the `width` below its own and the `width` above.
    auto below_of = [&](std::size_t q) {
        const std::size_t first = rank_slabs_[q].begin;
        return Range{first > width ? first - width : 0, first};
    };
    auto above_of = [&](std::size_t q) {
        const std::size_t end = rank_slabs_[q].end;
        return Range{end, std::min<std::size_t>(end + width, slabs)};
    };
    // This rank's own particles by slab (they sort so on the devices): where a range of slabs
    // begins among them.
    std::vector<std::size_t> starts(std::size_t(slabs) + 1, 0);
    for (std::uint32_t s : slab) ++starts[s + 1];
    for (std::size_t s = 1; s <= slabs; ++s) starts[s] += starts[s - 1];
    auto own_slots = [&](Range slab_range) {
        return Range{starts[slab_range.begin], starts[slab_range.end]};
    };

    // To each other rank, its ghosts among this rank's own particles: those below its slabs,
    // then those above, each in this rank's order.
    // Lists 2 q (below q) and 2 q + 1 (above q). Each slab's lists are found once, as offsets
    // into `lists` by slab, so one pass over the particles fills them all: O(N) at any number
    // of ranks, where a pass per list would be O(N K).
    const std::vector<Traveller> mine = travellers(own);
    std::vector<std::size_t> lists_from(std::size_t(slabs) + 1, 0);
    std::vector<std::uint32_t> lists;
    auto each_list = [&](auto&& visit) {
        for (std::size_t q = 0; q < ranks; ++q)
            if (q != me)
                for (std::size_t side = 0; side < 2; ++side) {
                    const Range ghosts = side == 0 ? below_of(q) : above_of(q);
                    for (std::size_t s = ghosts.begin; s < ghosts.end; ++s) visit(s, std::uint32_t(2 * q + side));
                }
    };
    each_list([&](std::size_t s, std::uint32_t) { ++lists_from[s + 1]; });
    for (std::size_t s = 1; s <= slabs; ++s) lists_from[s] += lists_from[s - 1];
    lists.resize(lists_from[slabs]);
    {
        std::vector<std::size_t> fill(lists_from.begin(), lists_from.end() - 1);
        each_list([&](std::size_t s, std::uint32_t list) { lists[fill[s]++] = list; });
    }
    std::vector<std::uint64_t> counts(2 * ranks, 0);  // [2 q]: below q, [2 q + 1]: above q
    for (std::size_t i = 0; i < mine.size(); ++i)
        for (std::size_t k = lists_from[slab[i]]; k < lists_from[slab[i] + 1]; ++k) ++counts[lists[k]];
    // Each list in this rank's order, the lists in order of their numbers.
    std::vector<std::size_t> at_list(2 * ranks + 1, 0);
    for (std::size_t l = 0; l < 2 * ranks; ++l) at_list[l + 1] = at_list[l] + std::size_t(counts[l]);
    std::vector<Traveller> sent(at_list.back());
    for (std::size_t i = 0; i < mine.size(); ++i)
        for (std::size_t k = lists_from[slab[i]]; k < lists_from[slab[i] + 1]; ++k) sent[at_list[lists[k]]++] = mine[i];
    std::vector<std::size_t> send_counts(ranks, 0);
    for (std::size_t q = 0; q < ranks; ++q)
        send_counts[q] = std::size_t(counts[2 * q] + counts[2 * q + 1]) * sizeof(Traveller);
    // What each rank sends here: counts[2 p], counts[2 p + 1] of rank p's message.
    std::vector<std::uint64_t> arriving(2 * ranks, 0);
    {
        std::vector<std::size_t> bytes(ranks, 2 * sizeof(std::uint64_t));
        std::vector<std::uint64_t> mine_for(2 * ranks, 0);
        for (std::size_t q = 0; q < ranks; ++q) {
            mine_for[2 * q] = counts[2 * q];
            mine_for[2 * q + 1] = counts[2 * q + 1];
        }
        ranks_->alltoallv(mine_for.data(), bytes, arriving.data(), bytes);
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

    // Rank p's message holds its particles in this rank's ghost slabs below, then in those
    // above: [ghosts below | own | ghosts above], each in rank order, is the order one rank
    // would hold them in.
    std::vector<Traveller> below, above;
    std::size_t at = 0;
    ghosts_.received_below.assign(ranks, Range{});
    ghosts_.received_above.assign(ranks, Range{});
    std::vector<std::size_t> from_below(ranks), from_above(ranks);
    for (std::size_t p = 0; p < ranks; ++p) {
        // p sent its ghosts "below me" (my slabs above p's: p < me) or "above me" (p > me).
        const std::size_t first = std::size_t(arriving[2 * p]), second = std::size_t(arriving[2 * p + 1]);
        for (std::size_t i = 0; i < first; ++i) below.push_back(received[at + i]);
        for (std::size_t i = 0; i < second; ++i) above.push_back(received[at + first + i]);
        from_below[p] = first;
        from_above[p] = second;
        at += first + second;
    }
    ghosts_.below = below.size();
    ghosts_.own = mine.size();
    ghosts_.above = above.size();
    std::size_t b = 0, a = ghosts_.below + ghosts_.own;
    for (std::size_t p = 0; p < ranks; ++p) {
        ghosts_.received_below[p] = {b, b + from_below[p]};
        b += from_below[p];
        ghosts_.received_above[p] = {a, a + from_above[p]};
        a += from_above[p];
    }
    // This rank's slots whose values rank q holds as ghosts, in the one-device order here.
    ghosts_.sent_below.assign(ranks, Range{});
    ghosts_.sent_above.assign(ranks, Range{});
    for (std::size_t q = 0; q < ranks; ++q) {
        if (q == me) continue;
        for (int side = 0; side < 2; ++side) {
            const Range slots = own_slots(side == 0 ? below_of(q) : above_of(q));
            const Range shifted{ghosts_.below + slots.begin, ghosts_.below + slots.end};
            (side == 0 ? ghosts_.sent_below : ghosts_.sent_above)[q] = shifted;
        }
    }

    std::vector<Traveller> all = std::move(below);
    all.insert(all.end(), mine.begin(), mine.end());
    all.insert(all.end(), above.begin(), above.end());
    const MpsParticles local = particles_of(all, parameters_.dimensions);
    std::vector<std::uint32_t> types(local.size());
    for (std::size_t i = 0; i < local.size(); ++i) types[i] = std::uint32_t(local.type[i]);
    n_ = local.size();
    slabs_.upload(n_, {local.position, local.velocity}, {types});
    arranged_ = true;
}

void MpsFluid::rearrange() {
    dist::TrafficTimer exchange(context_.queue(0), traffic_);
    // This rank's own particles after the last step, in its order, each to the rank owning its
    // slab now (itself included): what arrives is in the order of all ranks' particles.
    const std::size_t d = std::size_t(parameters_.dimensions);
    const Range own{ghosts_.below, ghosts_.below + ghosts_.own};
    auto slice = [&](const std::vector<double>& local, std::size_t components) {
        std::vector<double> out;
        for (std::size_t k = 0; k < components; ++k)
            out.insert(out.end(), local.begin() + std::ptrdiff_t(k * n_ + own.begin),
                       local.begin() + std::ptrdiff_t(k * n_ + own.end));
        return out;
    };
    MpsParticles p;
    p.dimensions = int(d);
    p.position = slice(slabs_.read_next(0), d);
    p.velocity = slice(slabs_.read_next(1), d);
    const std::vector<std::uint32_t> types = slabs_.read_next_uint(0);
    for (std::size_t i = own.begin; i < own.end; ++i) p.type.push_back(MpsType(types[i]));
    const std::vector<std::uint32_t> slab = slabs_of(p);
    std::vector<int> destinations(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        destinations[i] = owner_of(rank_slabs_, slab[i]);
        if (destinations[i] != ranks_->rank()) {
            ++traffic_.particles_sent;
            exchange.sent(sizeof(Traveller));
        }
    }
    const dist::Distributor plan(*ranks_, destinations);
    place(particles_of(plan.distribute(travellers(p)), int(d)));
}

void MpsFluid::update_ghosts(std::vector<RealBuffer>& arrays, std::size_t components) {
    dist::TrafficTimer exchange(context_.queue(0), traffic_);
    const std::size_t ranks = std::size_t(ranks_->size());
    std::vector<double> sent;
    std::vector<std::size_t> send_counts(ranks, 0), recv_counts(ranks, 0);
    for (std::size_t q = 0; q < ranks; ++q) {
        for (const Range slots : {ghosts_.sent_below[q], ghosts_.sent_above[q]}) {
            if (slots.empty()) continue;
            const std::vector<double> values = slabs_.read_own(arrays, components, slots);
            sent.insert(sent.end(), values.begin(), values.end());
        }
        send_counts[q] = components * (ghosts_.sent_below[q].size() + ghosts_.sent_above[q].size()) *
                         sizeof(double);
        // Rank q sends what it holds of this rank's ghosts below, then above (its own order).
        recv_counts[q] = components *
                         (ghosts_.received_below[q].size() + ghosts_.received_above[q].size()) *
                         sizeof(double);
    }
    std::size_t total = 0;
    for (std::size_t c : recv_counts) total += c;
    std::vector<double> received(total / sizeof(double));
    ranks_->alltoallv(sent.data(), send_counts, received.data(), recv_counts);
    exchange.sent(sent.size() * sizeof(double));
    std::size_t at = 0;
    for (std::size_t q = 0; q < ranks; ++q)
        for (const Range slots : {ghosts_.received_below[q], ghosts_.received_above[q]}) {
            if (slots.empty()) continue;
            const std::size_t count = components * slots.size();
            slabs_.write_own(arrays, components, slots,
                             std::vector<double>(received.begin() + std::ptrdiff_t(at),
                                                 received.begin() + std::ptrdiff_t(at + count)));
            at += count;
        }
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
