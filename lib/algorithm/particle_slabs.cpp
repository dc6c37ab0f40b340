#include <partcl/algorithm/particle_slabs.hpp>
#include <partcl/runtime/device_array.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace partcl {

namespace {

// Room to spare when a per-device array grows: its particle count changes a little every step.
std::size_t with_room(std::size_t size) { return size + size / 8; }

} // namespace

ParticleSlabs::ParticleSlabs(Context& context, Precision precision, const CellGrid& grid,
                             std::uint32_t width, std::vector<SlabField> reals,
                             std::vector<SlabField> uints, SlabEnds ends, ProgramCache& cache)
    : context_(context), precision_(precision), grid_(grid), width_(width), ends_(ends),
      own_(context.size(), 0), below_(context.size(), 0), above_(context.size(), 0),
      first_slab_(context.size() + 1, 0), slab_starts_(context.size()), direct_(context),
      into_runs_(context), runs_home_(context), ghosts_(context), carried_(context) {
    if (reals.empty() || reals[0].components != std::size_t(grid.dimensions))
        throw UsageError("ParticleSlabs: the first real field is the positions, of " +
                         std::to_string(grid.dimensions) + " components");
    for (const SlabField& f : uints)
        if (f.components != 1)
            throw UsageError("ParticleSlabs: unsigned fields have one component");
    const std::size_t devices = context.size();
    for (const SlabField& f : reals) {
        Field<RealBuffer> field{f, {}, {}, {}, {}, {}};
        for (auto* v : {&field.next, &field.grouped, &field.runs, &field.sorted_runs, &field.local})
            v->resize(devices);
        reals_.push_back(std::move(field));
    }
    for (const SlabField& f : uints) {
        Field<Buffer<std::uint32_t>> field{f, {}, {}, {}, {}, {}};
        for (auto* v : {&field.next, &field.grouped, &field.runs, &field.sorted_runs, &field.local})
            v->resize(devices);
        uints_.push_back(std::move(field));
    }
    for (std::size_t d = 0; d < devices; ++d)
        cells_.push_back(std::make_unique<CellList>(context, precision, grid, cache, OnDevice{d}));
    const std::uint32_t slabs = cells_[0]->slabs();
    for (auto& starts : slab_starts_) starts.assign(std::size_t(slabs) + 1, 0u);
    std::fill(first_slab_.begin() + 1, first_slab_.end(), slabs);
}

template <class B>
B ParticleSlabs::make(const B&, std::size_t size, std::size_t d) const {
    if constexpr (std::is_same_v<B, RealBuffer>)
        return RealBuffer(context_, precision_, size, OnDevice{d});
    else
        return B(context_, size, OnDevice{d});
}

template <class B>
void ParticleSlabs::grow(B& buffer, std::size_t size, std::size_t d) const {
    bool fits = buffer.size() >= size;
    // A buffer never grown is of no precision yet (a device without particles sorts none).
    if constexpr (std::is_same_v<B, RealBuffer>) fits = fits && buffer.precision() == precision_;
    if (!fits) buffer = make(buffer, with_room(size), d);
}

void ParticleSlabs::upload(std::size_t n, const std::vector<std::vector<double>>& reals,
                           const std::vector<std::vector<std::uint32_t>>& uints) {
    if (reals.size() != reals_.size() || uints.size() != uints_.size())
        throw UsageError("ParticleSlabs::upload: " + std::to_string(reals_.size()) + " real and " +
                         std::to_string(uints_.size()) + " unsigned fields expected");
    for (std::size_t f = 0; f < reals.size(); ++f)
        if (reals[f].size() != reals_[f].spec.components * n)
            throw UsageError("ParticleSlabs::upload: real field " + std::to_string(f) + " holds " +
                             std::to_string(reals[f].size()) + " values, not " +
                             std::to_string(reals_[f].spec.components * n));
    for (std::size_t f = 0; f < uints.size(); ++f)
        if (uints[f].size() != n)
            throw UsageError("ParticleSlabs::upload: unsigned field " + std::to_string(f) +
                             " holds " + std::to_string(uints[f].size()) + " values, not " +
                             std::to_string(n));
    if (n > 0xffffffffull / 3) throw UsageError("ParticleSlabs: too many particles");
    Queue& queue = context_.queue(0);
    n_ = n;
    std::fill(own_.begin(), own_.end(), 0);
    own_[0] = n;
    std::fill(below_.begin(), below_.end(), 0);
    std::fill(above_.begin(), above_.end(), 0);
    for (std::size_t f = 0; f < reals.size(); ++f) {
        grow(reals_[f].next[0], reals[f].size(), 0);
        reals_[f].next[0].write(queue, reals[f]);
    }
    for (std::size_t f = 0; f < uints.size(); ++f) {
        grow(uints_[f].next[0], n, 0);
        uints_[f].next[0].write(queue, uints[f]).wait();
    }
    // Sorted at once: particles outside the grid are refused here, and the slabs' counts cut
    // the first arrange().
    cells_[0]->build(queue, reals_[0].next[0], n, n);
    slab_starts_[0] = cells_[0]->slab_starts(queue);
    for (std::size_t d = 1; d < devices(); ++d)
        std::fill(slab_starts_[d].begin(), slab_starts_[d].end(), 0u);
    migrated_ = 0;
}

void ParticleSlabs::arrange(const std::vector<double>& weights) {
    const std::size_t devices = this->devices();
    if (weights.size() != devices)
        throw UsageError("ParticleSlabs::arrange: " + std::to_string(weights.size()) +
                         " weights for " + std::to_string(devices) + " devices");
    const std::uint32_t slabs = cells_[0]->slabs();
    // The slabs cut by the particles each held at the last sort.
    const std::vector<std::size_t> held = counted_starts();
    const Partition cut = Partition::by_weight_at(held, weights);
    for (std::size_t d = 1; d < devices; ++d)
        first_slab_[d] = std::uint32_t(
            std::lower_bound(held.begin(), held.end(), cut.offsets()[d]) - held.begin());
    first_slab_[devices] = slabs;
    if (devices == 1)
        sort_alone();
    else
        place(sort_own());
}

void ParticleSlabs::sort_alone() {
    const std::size_t n = own_[0];
    Queue& queue = context_.queue(0);
    // next() holds the particles in the last sort's order (the model writes its own slots), so
    // only those that changed cell need sorting.
    cells_[0]->resort(queue, reals_[0].next[0], n, n);
    std::vector<SlotCopy> own{{0, 0, 0, 0, n}};
    carried_.plan(own);
    auto sort = [&](auto& f, std::size_t k) {
        grow(f.local[0], k * n, 0);
        if constexpr (std::is_same_v<std::decay_t<decltype(f)>, Field<RealBuffer>>)
            cells_[0]->gather(queue, f.next[0], {0, n}, f.local[0], {0, n}, k);
        else
            cells_[0]->gather(queue, f.next[0], 0, f.local[0], 0);
        if (f.spec.carried) carried_.apply(f.local, own_, f.next, own_, k);
    };
    for (auto& f : reals_) sort(f, f.spec.components);
    for (auto& f : uints_) sort(f, 1);
    below_[0] = above_[0] = 0;
    migrated_ = 0;
}

std::vector<std::vector<std::uint32_t>> ParticleSlabs::sort_own() {
    // Every device's sort is enqueued before the host waits for the first.
    std::vector<std::vector<std::uint32_t>> starts(devices());
    for (std::size_t s = 0; s < devices(); ++s) {
        const std::size_t n = own_[s];
        Queue& queue = context_.queue(s);
        if (n == 0) continue;
        cells_[s]->sort(queue, reals_[0].next[s], n, n);
        for (auto& f : reals_) {
            grow(f.grouped[s], f.spec.components * n, s);
            cells_[s]->gather(queue, f.next[s], {0, n}, f.grouped[s], {0, n}, f.spec.components);
        }
        for (auto& f : uints_) {
            grow(f.grouped[s], n, s);
            cells_[s]->gather(queue, f.next[s], 0, f.grouped[s], 0);
        }
    }
    for (std::size_t s = 0; s < devices(); ++s) {
        Queue& queue = context_.queue(s);
        if (own_[s] == 0) {
            starts[s].assign(std::size_t(cells_[s]->slabs()) + 1, 0u);
            continue;
        }
        cells_[s]->check(queue);  // particles outside the grid
        starts[s] = cells_[s]->slab_starts(queue);
    }
    return starts;
}

void ParticleSlabs::place(const std::vector<std::vector<std::uint32_t>>& sent) {
    const std::size_t devices = this->devices();
    const std::uint32_t slabs = cells_[0]->slabs();
    auto sent_count = [&](std::size_t s, std::size_t a, std::size_t b) {
        return std::size_t(sent[s][b] - sent[s][a]);
    };
    // Every particle goes to its slab's owner: each device's slots per slab, cumulative.
    std::vector<std::size_t> owner(slabs);
    for (std::size_t t = 0; t < devices; ++t) {
        auto& starts = slab_starts_[t];
        starts.assign(std::size_t(slabs) + 1, 0u);
        std::size_t held = 0;
        for (std::uint32_t slab = 0; slab < slabs; ++slab) {
            starts[slab] = std::uint32_t(held);
            if (slab < first_slab_[t] || slab >= first_slab_[t + 1]) continue;
            owner[slab] = t;
            for (std::size_t s = 0; s < devices; ++s) held += sent_count(s, slab, slab + 1);
        }
        starts[slabs] = std::uint32_t(held);
        own_[t] = held;
    }
    auto slab_count = [&](std::size_t slab) {
        const auto& starts = slab_starts_[owner[slab]];
        return std::size_t(starts[slab + 1] - starts[slab]);
    };
    // Each device's ghost slabs, below its own and above them (ascending, so the local layout
    // stays in cell order), for devices with particles.
    std::vector<std::vector<std::uint32_t>> lower(devices), upper(devices);
    std::vector<Range> visited(devices);
    for (std::size_t t = 0; t < devices; ++t) {
        below_[t] = above_[t] = 0;
        const std::uint32_t first = first_slab_[t], end = first_slab_[t + 1];
        // Slabs without particles still have ghosts: a grid model's nodes there read them.
        if (first == end) continue;
        std::vector<std::uint32_t> near = ghost_slabs(first, end, slabs);
        std::uint32_t lo = first, hi = end;
        for (std::uint32_t slab : near) {
            (slab < first ? lower[t] : upper[t]).push_back(slab);
            lo = std::min(lo, slab);
            hi = std::max(hi, slab + 1);
        }
        visited[t] = {lo, hi};
        for (std::uint32_t slab : lower[t]) below_[t] += slab_count(slab);
        for (std::uint32_t slab : upper[t]) above_[t] += slab_count(slab);
    }
    // Each device's own slabs in order: runs of slabs no other device sends into are copied
    // from its sorted particles as they are; runs that receive are gathered from every sender
    // in device order, to be sorted again.
    std::vector<SlotCopy> direct, into_runs, runs_home, ghosts, carried;
    std::vector<std::size_t> run_sizes(devices, 0), totals(devices);
    migrated_ = 0;
    for (std::size_t t = 0; t < devices; ++t) {
        totals[t] = total(t);
        carried.push_back({t, below_[t], t, 0, own_[t]});
        std::uint32_t a = first_slab_[t];
        while (a < first_slab_[t + 1]) {
            auto receives = [&](std::uint32_t slab) {
                for (std::size_t s = 0; s < devices; ++s)
                    if (s != t && sent_count(s, slab, slab + 1) > 0) return true;
                return false;
            };
            const bool run = receives(a);
            std::uint32_t b = a + 1;
            while (b < first_slab_[t + 1] && receives(b) == run) ++b;
            const std::size_t at = below_[t] + slab_starts_[t][a];
            if (!run) {
                direct.push_back({t, sent[t][a], t, at, sent_count(t, a, b)});
            } else {
                const std::size_t begin = run_sizes[t];
                for (std::size_t s = 0; s < devices; ++s) {
                    const std::size_t count = sent_count(s, a, b);
                    if (count == 0) continue;
                    into_runs.push_back({s, sent[s][a], t, run_sizes[t], count});
                    run_sizes[t] += count;
                    if (s != t) migrated_ += count;
                }
                runs_home.push_back({t, begin, t, at, run_sizes[t] - begin});
            }
            a = b;
        }
        for (const bool above : {false, true}) {
            std::size_t slot = above ? below_[t] + own_[t] : 0;
            for (const std::uint32_t slab : above ? upper[t] : lower[t]) {
                const std::size_t o = owner[slab], n = slab_count(slab);
                if (n == 0) continue;
                const std::size_t from = below_[o] + slab_starts_[o][slab];
                SlotCopy* last = ghosts.empty() ? nullptr : &ghosts.back();
                if (last && last->to == t && last->from == o && last->from_slot + last->count == from &&
                    last->to_slot + last->count == slot)
                    last->count += n;  // the next slab of the same owner
                else
                    ghosts.push_back({o, from, t, slot, n});
                slot += n;
            }
        }
    }
    direct_.plan(std::move(direct));
    into_runs_.plan(std::move(into_runs));
    runs_home_.plan(std::move(runs_home));
    ghosts_.plan(std::move(ghosts));
    carried_.plan(std::move(carried));

    std::vector<std::size_t> grouped_strides(devices);
    for (std::size_t s = 0; s < devices; ++s) grouped_strides[s] = std::size_t(sent[s][slabs]);
    auto move = [&](auto& f, std::size_t k) {
        for (std::size_t t = 0; t < devices; ++t) {
            grow(f.local[t], k * totals[t], t);
            grow(f.next[t], k * own_[t], t);
            grow(f.runs[t], k * run_sizes[t], t);
            grow(f.sorted_runs[t], k * run_sizes[t], t);
        }
        direct_.apply(f.grouped, grouped_strides, f.local, totals, k);
        into_runs_.apply(f.grouped, grouped_strides, f.runs, run_sizes, k);
    };
    for (auto& f : reals_) move(f, f.spec.components);
    for (auto& f : uints_) move(f, 1);
    // The runs sorted by cell (each run lies in slabs of its own, so the runs stay apart and
    // in order) and put in place.
    for (std::size_t t = 0; t < devices; ++t) {
        const std::size_t n = run_sizes[t];
        if (n == 0) continue;
        Queue& queue = context_.queue(t);
        cells_[t]->sort(queue, reals_[0].runs[t], n, n);
        for (auto& f : reals_)
            cells_[t]->gather(queue, f.runs[t], {0, n}, f.sorted_runs[t], {0, n}, f.spec.components);
        for (auto& f : uints_) cells_[t]->gather(queue, f.runs[t], 0, f.sorted_runs[t], 0);
    }
    for (auto& f : reals_) runs_home_.apply(f.sorted_runs, run_sizes, f.local, totals, f.spec.components);
    for (auto& f : uints_) runs_home_.apply(f.sorted_runs, run_sizes, f.local, totals, 1);
    // Ghosts from their owners, the carried fields' own slots into next(), the cells the
    // devices' kernels visit (their slabs and ghosts).
    for (auto& f : reals_) {
        ghosts_.exchange(f.local, totals, f.spec.components);
        if (f.spec.carried) carried_.apply(f.local, totals, f.next, own_, f.spec.components);
    }
    for (auto& f : uints_) {
        ghosts_.exchange(f.local, totals, 1);
        if (f.spec.carried) carried_.apply(f.local, totals, f.next, own_, 1);
    }
    const std::size_t plane = grid_.dimensions == 3 ? std::size_t(grid_.cells[0]) * grid_.cells[1]
                                                    : grid_.cells[0];
    for (std::size_t t = 0; t < devices; ++t)
        cells_[t]->index(context_.queue(t), reals_[0].local[t], totals[t], totals[t],
                         Range{visited[t].begin * plane, visited[t].end * plane});
    for (std::size_t t = 0; t < devices; ++t) cells_[t]->check(context_.queue(t));
}

std::vector<std::uint32_t> ParticleSlabs::ghost_slabs(std::uint32_t first, std::uint32_t end,
                                                      std::uint32_t slabs) const {
    std::vector<std::uint32_t> near;
    for (std::uint32_t j = 1; j <= width_; ++j) {
        // Below `first` and from `end` on, wrapped around the grid where it is periodic.
        const std::int64_t candidates[2] = {std::int64_t(first) - j, std::int64_t(end) + j - 1};
        for (std::int64_t slab : candidates) {
            if (ends_ == SlabEnds::periodic) slab = ((slab % slabs) + slabs) % slabs;
            if (slab < 0 || slab >= slabs || (slab >= first && slab < end)) continue;
            near.push_back(std::uint32_t(slab));
        }
    }
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
    return near;
}

std::vector<std::size_t> ParticleSlabs::held() {
    if (devices() == 1) slab_starts_[0] = cells_[0]->slab_starts(context_.queue(0));
    return counted_starts();
}

std::vector<std::size_t> ParticleSlabs::counted_starts() const {
    const std::size_t slabs = std::size_t(cells_[0]->slabs());
    std::vector<std::size_t> held(slabs + 1, 0);
    for (const auto& starts : slab_starts_)  // every device counts its own
        for (std::size_t s = 0; s <= slabs; ++s) held[s] += starts[s];
    return held;
}

Partition ParticleSlabs::owners() const {
    std::vector<std::size_t> offsets(devices() + 1, 0);
    for (std::size_t d = 0; d < devices(); ++d) offsets[d + 1] = offsets[d] + own_[d];
    return Partition(std::move(offsets));
}

void ParticleSlabs::set_own(std::size_t d, std::size_t n) {
    if (d >= devices()) throw UsageError("ParticleSlabs::set_own: no device " + std::to_string(d));
    if (n_ - own_[d] + n > 0xffffffffull / 3) throw UsageError("ParticleSlabs: too many particles");
    n_ = n_ - own_[d] + n;
    own_[d] = n;
    for (auto& f : reals_) grow(f.next[d], f.spec.components * n, d);
    for (auto& f : uints_) grow(f.next[d], n, d);
}

void ParticleSlabs::fit(std::vector<RealBuffer>& arrays, std::size_t components) const {
    arrays.resize(devices());
    for (std::size_t d = 0; d < devices(); ++d) {
        if (arrays[d].size() >= components * total(d) && arrays[d].precision() == precision_)
            continue;
        arrays[d] = RealBuffer(context_, precision_, with_room(components * total(d)), OnDevice{d});
    }
}

void ParticleSlabs::exchange(std::vector<RealBuffer>& arrays, std::size_t components) {
    std::vector<std::size_t> totals(devices());
    for (std::size_t d = 0; d < devices(); ++d) totals[d] = total(d);
    ghosts_.exchange(arrays, totals, components);
}

template <class T, class B>
std::vector<T> ParticleSlabs::read(const std::vector<B>& arrays, std::size_t components,
                                   bool local, Range range) const {
    std::vector<T> out(components * range.size());
    std::size_t first = 0;  // device d's first particle in the one-device order
    for (std::size_t d = 0; d < devices(); ++d) {
        const std::size_t begin = std::max(range.begin, first);
        const std::size_t end = std::min(range.end, first + own_[d]);
        const std::size_t stride = local ? total(d) : own_[d], slot = local ? below_[d] : 0;
        for (std::size_t k = 0; k < components && begin < end; ++k)
            arrays[d].read(context_.queue(d), out.data() + k * range.size() + (begin - range.begin),
                           end - begin, k * stride + slot + (begin - first));
        first += own_[d];
    }
    return out;
}

std::vector<double> ParticleSlabs::read_next(std::size_t field) const {
    const auto& f = reals_.at(field);
    return read<double>(f.next, f.spec.components, false, {0, n_});
}

std::vector<std::uint32_t> ParticleSlabs::read_next_uint(std::size_t field) const {
    return read<std::uint32_t>(uints_.at(field).next, 1, false, {0, n_});
}

std::vector<double> ParticleSlabs::read_local(std::size_t field) const {
    const auto& f = reals_.at(field);
    return read<double>(f.local, f.spec.components, true, {0, n_});
}

std::vector<std::uint32_t> ParticleSlabs::read_local_uint(std::size_t field) const {
    return read<std::uint32_t>(uints_.at(field).local, 1, true, {0, n_});
}

std::vector<double> ParticleSlabs::read_own(const std::vector<RealBuffer>& arrays,
                                            std::size_t components) const {
    if (arrays.size() != devices())
        throw UsageError("ParticleSlabs::read_own: one array per device");
    return read<double>(arrays, components, true, {0, n_});
}

std::vector<std::vector<ParticleSlabs::Piece>> ParticleSlabs::pieces(const std::vector<RealBuffer>& arrays,
                                                                      std::size_t components,
                                                                      const std::vector<Range>& ranges,
                                                                      const char* who) const {
    if (arrays.size() != devices())
        throw UsageError(std::string("ParticleSlabs::") + who + ": one array per device");
    std::vector<std::vector<Piece>> out(devices());
    std::vector<std::size_t> staged(devices(), 0);
    std::size_t message = 0;
    for (const Range range : ranges) {
        if (range.end > n_ || range.begin > range.end)
            throw UsageError(std::string("ParticleSlabs::") + who + ": particles [" +
                             std::to_string(range.begin) + ", " + std::to_string(range.end) + ") of " +
                             std::to_string(n_));
        std::size_t first = 0;
        for (std::size_t d = 0; d < devices(); ++d) {
            const std::size_t begin = std::max(range.begin, first), end = std::min(range.end, first + own_[d]);
            if (begin < end) {
                out[d].push_back({message + (begin - range.begin), range.size(), begin - first, end - begin, staged[d]});
                staged[d] += components * (end - begin);
            }
            first += own_[d];
        }
        message += components * range.size();
    }
    return out;
}

std::vector<std::byte> ParticleSlabs::pack_own(const std::vector<RealBuffer>& arrays, std::size_t components,
                                               const std::vector<Range>& ranges) {
    const std::vector<std::vector<Piece>> parts = pieces(arrays, components, ranges, "pack_own");
    const std::size_t size = size_of(precision_);
    std::size_t elements = 0;
    for (const Range range : ranges) elements += components * range.size();
    std::vector<std::byte> out(elements * size);
    staging_.resize(devices());
    // Every device's copies first, then one read a device.
    for (std::size_t d = 0; d < devices(); ++d) {
        if (parts[d].empty()) continue;
        const Piece& last = parts[d].back();
        fit_on_device(staging_[d], context_, precision_, last.staged + components * last.count, OnDevice{d});
        for (const Piece& piece : parts[d])
            arrays[d].copy_rows_to(context_.queue(d), staging_[d], piece.count, components,
                                   below_[d] + piece.slot, total(d), piece.staged, piece.count);
    }
    std::vector<std::byte> host;
    for (std::size_t d = 0; d < devices(); ++d) {
        if (parts[d].empty()) continue;
        const Piece& last = parts[d].back();
        host.resize((last.staged + components * last.count) * size);
        staging_[d].memory().read(context_.queue(d), 0, host.size(), host.data());
        for (const Piece& piece : parts[d])
            for (std::size_t k = 0; k < components; ++k)
                std::memcpy(out.data() + (piece.message + k * piece.range_size) * size,
                            host.data() + (piece.staged + k * piece.count) * size, piece.count * size);
    }
    return out;
}

void ParticleSlabs::unpack_own(std::vector<RealBuffer>& arrays, std::size_t components,
                               const std::vector<Range>& ranges, const std::vector<std::byte>& bytes) {
    const std::vector<std::vector<Piece>> parts = pieces(arrays, components, ranges, "unpack_own");
    const std::size_t size = size_of(precision_);
    std::size_t elements = 0;
    for (const Range range : ranges) elements += components * range.size();
    if (bytes.size() != elements * size)
        throw UsageError("ParticleSlabs::unpack_own: " + std::to_string(bytes.size()) + " bytes for " +
                         std::to_string(elements) + " values of " + to_string(precision_));
    staging_.resize(devices());
    std::vector<std::vector<std::byte>> host(devices());  // alive until the writes are done
    for (std::size_t d = 0; d < devices(); ++d) {
        if (parts[d].empty()) continue;
        const Piece& last = parts[d].back();
        host[d].resize((last.staged + components * last.count) * size);
        for (const Piece& piece : parts[d])
            for (std::size_t k = 0; k < components; ++k)
                std::memcpy(host[d].data() + (piece.staged + k * piece.count) * size,
                            bytes.data() + (piece.message + k * piece.range_size) * size, piece.count * size);
        fit_on_device(staging_[d], context_, precision_, host[d].size() / size, OnDevice{d});
        Queue& queue = context_.queue(d);
        staging_[d].memory().write(queue, 0, host[d].size(), host[d].data());
        for (const Piece& piece : parts[d])
            staging_[d].copy_rows_to(queue, arrays[d], piece.count, components, piece.staged, piece.count,
                                     below_[d] + piece.slot, total(d));
    }
    for (std::size_t d = 0; d < devices(); ++d)
        if (!parts[d].empty()) context_.queue(d).finish();
}

std::vector<std::uint32_t> ParticleSlabs::cell_keys() const {
    std::vector<Buffer<std::uint32_t>> keys;
    for (const auto& cells : cells_) keys.push_back(cells->keys());
    return read<std::uint32_t>(keys, 1, true, {0, n_});
}

} // namespace partcl
