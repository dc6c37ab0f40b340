#include <partcl/algorithm/particle_slabs.hpp>

#include <algorithm>
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
                             std::vector<SlabField> uints, ProgramCache& cache)
    : context_(context), precision_(precision), grid_(grid), width_(width),
      own_(context.size(), 0), below_(context.size(), 0), above_(context.size(), 0),
      first_slab_(context.size() + 1, 0), slab_starts_(context.size()), moves_(context),
      ghosts_(context) {
    if (reals.empty() || reals[0].components != std::size_t(grid.dimensions))
        throw UsageError("ParticleSlabs: the first real field is the positions, of " +
                         std::to_string(grid.dimensions) + " components");
    for (const SlabField& f : uints)
        if (f.components != 1)
            throw UsageError("ParticleSlabs: unsigned fields have one component");
    const std::size_t devices = context.size();
    for (const SlabField& f : reals) {
        Field<RealBuffer> field{f, {}, {}, {}, {}};
        field.next.resize(devices), field.grouped.resize(devices);
        field.assembled.resize(devices), field.local.resize(devices);
        reals_.push_back(std::move(field));
    }
    for (const SlabField& f : uints) {
        Field<Buffer<std::uint32_t>> field{f, {}, {}, {}, {}};
        field.next.resize(devices), field.grouped.resize(devices);
        field.assembled.resize(devices), field.local.resize(devices);
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
    // The slabs cut by the particles each held at the last sort (every device counts its own).
    std::vector<std::size_t> held(std::size_t(slabs) + 1, 0);
    for (const auto& starts : slab_starts_)
        for (std::size_t s = 0; s <= slabs; ++s) held[s] += starts[s];
    const Partition cut = Partition::by_weight_at(held, weights);
    for (std::size_t d = 1; d < devices; ++d)
        first_slab_[d] = std::uint32_t(
            std::lower_bound(held.begin(), held.end(), cut.offsets()[d]) - held.begin());
    first_slab_[devices] = slabs;
    migrate();
    sort_and_count();
    fill_ghosts();
}

void ParticleSlabs::migrate() {
    const std::size_t devices = this->devices();
    migrated_ = 0;
    if (devices == 1) {  // nothing moves: the particles are sorted where they are
        for (auto& f : reals_) std::swap(f.next[0], f.assembled[0]);
        for (auto& f : uints_) std::swap(f.next[0], f.assembled[0]);
        return;
    }
    // Each source sorts its particles by cell: grouped by the slabs, so by their new device.
    std::vector<std::vector<std::uint32_t>> starts(devices);
    for (std::size_t s = 0; s < devices; ++s) {
        const std::size_t n = own_[s];
        Queue& queue = context_.queue(s);
        if (n == 0) {
            starts[s].assign(std::size_t(cells_[s]->slabs()) + 1, 0u);
            continue;
        }
        cells_[s]->build(queue, reals_[0].next[s], n, n);
        for (auto& f : reals_) {
            grow(f.grouped[s], f.spec.components * n, s);
            cells_[s]->gather(queue, f.next[s], {0, n}, f.grouped[s], {0, n}, f.spec.components);
        }
        for (auto& f : uints_) {
            grow(f.grouped[s], n, s);
            cells_[s]->gather(queue, f.next[s], 0, f.grouped[s], 0);
        }
        starts[s] = cells_[s]->slab_starts(queue);
    }
    // Device t gathers the particles of its slabs from every source in device order.
    std::vector<SlotCopy> pieces;
    std::vector<std::size_t> arriving(devices, 0);
    for (std::size_t t = 0; t < devices; ++t)
        for (std::size_t s = 0; s < devices; ++s) {
            const std::size_t from = starts[s][first_slab_[t]];
            const std::size_t count = starts[s][first_slab_[t + 1]] - from;
            if (count == 0) continue;
            pieces.push_back({s, from, t, arriving[t], count});
            arriving[t] += count;
            if (s != t) migrated_ += count;
        }
    moves_.plan(std::move(pieces));
    auto move = [&](auto& field) {
        for (std::size_t t = 0; t < devices; ++t)
            grow(field.assembled[t], field.spec.components * arriving[t], t);
        moves_.apply(field.grouped, own_, field.assembled, arriving, field.spec.components);
    };
    for (auto& f : reals_) move(f);
    for (auto& f : uints_) move(f);
    own_ = arriving;
}

void ParticleSlabs::sort_and_count() {
    for (std::size_t t = 0; t < devices(); ++t) {
        Queue& queue = context_.queue(t);
        grow(reals_[0].assembled[t], 0, t);
        cells_[t]->build(queue, reals_[0].assembled[t], own_[t], own_[t]);
        slab_starts_[t] = cells_[t]->slab_starts(queue);
    }
}

void ParticleSlabs::fill_ghosts() {
    const std::size_t devices = this->devices();
    const std::uint32_t slabs = cells_[0]->slabs();
    std::vector<std::size_t> owner(slabs);
    for (std::size_t d = 0; d < devices; ++d)
        for (std::uint32_t s = first_slab_[d]; s < first_slab_[d + 1]; ++s) owner[s] = d;
    auto count = [&](std::uint32_t s) {
        const auto& starts = slab_starts_[owner[s]];
        return std::size_t(starts[s + 1] - starts[s]);
    };
    // Ghost slabs [lo, first) and [end, hi) around each device's own, for devices with particles.
    std::vector<Range> lower(devices), upper(devices);
    for (std::size_t t = 0; t < devices; ++t) {
        below_[t] = above_[t] = 0;
        if (own_[t] == 0) continue;
        const std::uint32_t first = first_slab_[t], end = first_slab_[t + 1];
        lower[t] = {first >= width_ ? first - width_ : 0, first};
        upper[t] = {end, std::min<std::size_t>(std::size_t(end) + width_, slabs)};
        for (std::size_t s = lower[t].begin; s < lower[t].end; ++s) below_[t] += count(std::uint32_t(s));
        for (std::size_t s = upper[t].begin; s < upper[t].end; ++s) above_[t] += count(std::uint32_t(s));
    }
    std::vector<SlotCopy> pieces;
    for (std::size_t t = 0; t < devices; ++t) {
        for (const bool above : {false, true}) {
            const Range ghosts = above ? upper[t] : lower[t];
            std::size_t slot = above ? below_[t] + own_[t] : 0;
            for (std::size_t s = ghosts.begin; s < ghosts.end; ++s) {
                const std::size_t o = owner[s], n = count(std::uint32_t(s));
                if (n == 0) continue;
                const std::size_t from = below_[o] + slab_starts_[o][s];
                SlotCopy* last = pieces.empty() ? nullptr : &pieces.back();
                if (last && last->to == t && last->from == o && last->from_slot + last->count == from &&
                    last->to_slot + last->count == slot)
                    last->count += n;  // the next slab of the same owner
                else
                    pieces.push_back({o, from, t, slot, n});
                slot += n;
            }
        }
    }
    // Own particles into the local layout (and the carried fields into next()).
    std::vector<std::size_t> totals(devices);
    for (std::size_t t = 0; t < devices; ++t) {
        const std::size_t own = own_[t], total = this->total(t);
        totals[t] = total;
        Queue& queue = context_.queue(t);
        for (auto& f : reals_) {
            const std::size_t k = f.spec.components;
            grow(f.local[t], k * total, t);
            grow(f.next[t], k * own, t);
            if (own == 0) continue;
            cells_[t]->gather(queue, f.assembled[t], {0, own}, f.local[t], {below_[t], total}, k);
            if (f.spec.carried)
                cells_[t]->gather(queue, f.assembled[t], {0, own}, f.next[t], {0, own}, k);
        }
        for (auto& f : uints_) {
            grow(f.local[t], total, t);
            grow(f.next[t], own, t);
            if (own == 0) continue;
            cells_[t]->gather(queue, f.assembled[t], 0, f.local[t], below_[t]);
            if (f.spec.carried) cells_[t]->gather(queue, f.assembled[t], 0, f.next[t], 0);
        }
    }
    ghosts_.plan(std::move(pieces));
    for (auto& f : reals_) ghosts_.exchange(f.local, totals, f.spec.components);
    for (auto& f : uints_) ghosts_.exchange(f.local, totals, 1);
    // With ghosts, the cells of the local slots (own and ghosts are each in cell order, and the
    // ghosts below lie in lower slabs, those above in higher ones).
    for (std::size_t t = 0; t < devices; ++t)
        if (below_[t] + above_[t] > 0)
            cells_[t]->index(context_.queue(t), reals_[0].local[t], totals[t], totals[t]);
}

Partition ParticleSlabs::owners() const {
    std::vector<std::size_t> offsets(devices() + 1, 0);
    for (std::size_t d = 0; d < devices(); ++d) offsets[d + 1] = offsets[d] + own_[d];
    return Partition(std::move(offsets));
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
                                   bool local) const {
    std::vector<T> out(components * n_);
    std::size_t offset = 0;
    for (std::size_t d = 0; d < devices(); ++d) {
        const std::size_t own = own_[d];
        const std::size_t stride = local ? total(d) : own, first = local ? below_[d] : 0;
        Queue& queue = context_.queue(d);
        for (std::size_t k = 0; k < components && own > 0; ++k)
            arrays[d].read(queue, out.data() + k * n_ + offset, own, k * stride + first);
        offset += own;
    }
    return out;
}

std::vector<double> ParticleSlabs::read_next(std::size_t field) const {
    const auto& f = reals_.at(field);
    return read<double>(f.next, f.spec.components, false);
}

std::vector<std::uint32_t> ParticleSlabs::read_next_uint(std::size_t field) const {
    return read<std::uint32_t>(uints_.at(field).next, 1, false);
}

std::vector<double> ParticleSlabs::read_own(const std::vector<RealBuffer>& arrays,
                                            std::size_t components) const {
    if (arrays.size() != devices())
        throw UsageError("ParticleSlabs::read_own: one array per device");
    return read<double>(arrays, components, true);
}

std::vector<std::uint32_t> ParticleSlabs::cell_keys() const {
    std::vector<Buffer<std::uint32_t>> keys;
    for (const auto& cells : cells_) keys.push_back(cells->keys());
    return read<std::uint32_t>(keys, 1, true);
}

} // namespace partcl
