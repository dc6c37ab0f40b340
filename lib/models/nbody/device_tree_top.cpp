#include <partcl/models/nbody/device_tree_top.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/jit/compiler.hpp>

#include "device_room.hpp"
#include "tree_top_split.hpp"

namespace partcl {

namespace {

using detail::reserve;

constexpr std::size_t group = 64;  // top_bounds' work-group, and at most as many groups

template <class T>
void read_reals(Queue& queue, const RealBuffer& buffer, T* host, std::size_t count) {
    if (count > 0) buffer.memory().read(queue, 0, count * sizeof(T), host);
}

template <class T>
void write_reals(Queue& queue, RealBuffer& buffer, const T* host, std::size_t count) {
    if (count > 0) buffer.memory().write(queue, 0, count * sizeof(T), host).wait();
}

void write_uints(Queue& queue, Buffer<std::uint32_t>& buffer, const std::vector<std::uint32_t>& host) {
    if (!host.empty()) buffer.write(queue, host.data(), host.size()).wait();
}

} // namespace

// The split's store on the device (tree_top_split.hpp): this rank's bodies at `positions`,
// their order in perm_, their nodes in node_; T the reals.
template <class T>
struct DeviceTreeTop::Store {
    DeviceTreeTop& top;
    const RealBuffer& positions;
    std::size_t n;
    Queue& queue;

    std::array<T, 6> bounds() {
        std::array<T, 6> b;
        for (std::size_t a = 0; a < 3; ++a) {
            b[a] = std::numeric_limits<T>::infinity();
            b[3 + a] = -std::numeric_limits<T>::infinity();
        }
        if (n == 0) return b;
        const std::size_t groups = std::min(group, (n + group - 1) / group);
        reserve(top.context_, top.precision_, top.partial_, 6 * groups);
        top.kernels_[DeviceTreeTop::bounds].args(std::uint32_t(n), positions, top.partial_).launch(queue, groups * group, group);
        std::vector<T> partial(6 * groups);
        read_reals(queue, top.partial_, partial.data(), partial.size());
        const T largest = std::numeric_limits<T>::max();
        for (std::size_t g = 0; g < groups; ++g)
            for (std::size_t a = 0; a < 3; ++a) {
                // The kernel's flags for a body not finite, as the host store's.
                const T lo = partial[6 * g + a], hi = partial[6 * g + 3 + a];
                b[a] = std::min(b[a], lo <= -largest ? -std::numeric_limits<T>::infinity() : lo);
                b[3 + a] = std::max(b[3 + a], hi >= largest ? std::numeric_limits<T>::infinity() : hi);
            }
        return b;
    }

    void upload_axis(const std::vector<std::uint8_t>& axis) {
        std::vector<std::uint32_t> wide(axis.begin(), axis.end());
        reserve(top.context_, top.axis_, wide.size());
        write_uints(queue, top.axis_, wide);
    }

    void sort_level(std::size_t level, const std::vector<std::uint8_t>& axis) {
        upload_axis(axis);
        if (n == 0) return;
        const std::uint32_t m = std::uint32_t(n), count = std::uint32_t(1) << level;
        top.kernels_[keys].args(m, count, std::uint32_t(0), top.axis_, top.node_, positions, top.perm_, top.real_keys_,
                                top.values_).launch(queue, n);
        top.sort_(queue, top.real_keys_, top.values_, n);
        top.kernels_[groups].args(m, std::uint32_t(0), top.node_, top.values_, top.uint_keys_).launch(queue, n);
        top.sort_(queue, top.uint_keys_, top.values_, n, bits_for(count));
        std::swap(top.perm_, top.values_);
    }

    std::vector<detail::TopKey<T>> keys_at(const std::vector<std::size_t>& places) {
        std::vector<detail::TopKey<T>> keys(places.size());
        if (places.empty()) return keys;
        const std::vector<std::uint32_t> at(places.begin(), places.end());
        reserve(top.context_, top.asks_, at.size());
        write_uints(queue, top.asks_, at);
        reserve(top.context_, top.precision_, top.probe_keys_, 3 * at.size());
        reserve(top.context_, top.found_, at.size());
        top.kernels_[probe].args(std::uint32_t(at.size()), top.asks_, std::uint32_t(n), positions, top.index_, top.perm_,
                                 top.probe_keys_, top.found_).launch(queue, at.size());
        std::vector<T> c(3 * at.size());
        std::vector<std::uint32_t> index(at.size());
        read_reals(queue, top.probe_keys_, c.data(), c.size());
        top.found_.read(queue, index.data(), index.size());
        for (std::size_t o = 0; o < at.size(); ++o) keys[o] = {{c[3 * o], c[3 * o + 1], c[3 * o + 2]}, index[o]};
        return keys;
    }

    std::vector<detail::TopCount> count_before(const std::vector<detail::TopAsk<T>>& asks,
                                               const std::vector<std::uint8_t>&) {
        std::vector<detail::TopCount> found(asks.size(), detail::TopCount{0, 0});
        if (asks.empty()) return found;
        std::vector<std::uint32_t> ask(4 * asks.size());
        std::vector<T> pivot(3 * asks.size());
        for (std::size_t o = 0; o < asks.size(); ++o) {
            const detail::TopAsk<T>& a = asks[o];
            ask[4 * o] = std::uint32_t(a.lo);
            ask[4 * o + 1] = std::uint32_t(a.hi);
            ask[4 * o + 2] = std::uint32_t(a.k);
            ask[4 * o + 3] = std::uint32_t(a.pivot.index);
            for (std::size_t c = 0; c < 3; ++c) pivot[3 * o + c] = a.pivot.c[c];
        }
        reserve(top.context_, top.asks_, ask.size());
        write_uints(queue, top.asks_, ask);
        reserve(top.context_, top.precision_, top.pivots_, pivot.size());
        write_reals(queue, top.pivots_, pivot.data(), pivot.size());
        reserve(top.context_, top.found_, 2 * asks.size());
        top.kernels_[DeviceTreeTop::count_before].args(std::uint32_t(asks.size()), top.asks_, top.pivots_, top.axis_,
                                                 std::uint32_t(n), positions, top.index_, top.perm_, top.found_)
            .launch(queue, asks.size());
        std::vector<std::uint32_t> out(2 * asks.size());
        top.found_.read(queue, out.data(), out.size());
        for (std::size_t o = 0; o < asks.size(); ++o) found[o] = {out[2 * o], out[2 * o + 1]};
        return found;
    }

    void children(const std::vector<std::size_t>& cut) {
        if (n == 0) return;
        const std::vector<std::uint32_t> cuts(cut.begin(), cut.end());
        reserve(top.context_, top.asks_, cuts.size());
        write_uints(queue, top.asks_, cuts);
        top.kernels_[DeviceTreeTop::children].args(std::uint32_t(n), top.perm_, top.asks_, top.node_).launch(queue, n);
    }
};

DeviceTreeTop::DeviceTreeTop(Context& context, Precision precision, ProgramCache& cache)
    : context_(context), precision_(precision), sort_(context, cache) {
    BuildOptions options;
    options.precision = precision;
    options.define("TOP_GROUP", static_cast<long long>(group));
    const Program program = build_program(context, Source::builtin("nbody/tree_top.cl"), options, cache);
    for (const char* name : {"top_bounds", "top_start", "top_keys", "top_groups", "top_probe", "top_count_before",
                             "top_children", "top_pack", "top_merge", "top_place", "top_results", "top_home"})
        kernels_.emplace_back(program, name);
}

TreeTop DeviceTreeTop::split(const dist::Communicator& ranks, const RealBuffer& positions, const std::uint64_t* index,
                             std::size_t n, std::size_t total, std::size_t levels) {
    if (positions.precision() != precision_)
        throw UsageError("DeviceTreeTop: positions in " + std::string(to_string(positions.precision())) +
                         ", the top is " + to_string(precision_));
    if (positions.size() < 3 * n)
        throw UsageError("DeviceTreeTop: positions hold " + std::to_string(positions.size()) + " values, not the 3 x " +
                         std::to_string(n) + " of the bodies");
    Queue& queue = context_.queue(0);
    bool index_ok = true;
    std::vector<std::uint32_t> index32(n);
    for (std::size_t i = 0; i < n; ++i) {
        index_ok = index_ok && index[i] < total;
        index32[i] = std::uint32_t(index[i]);
    }
    detail::check_top_levels(levels);  // before the buffers a level's nodes size
    n_ = n;
    levels_ = levels;
    for (Buffer<std::uint32_t>* b : {&index_, &perm_, &values_, &node_, &uint_keys_}) reserve(context_, *b, n);
    reserve(context_, precision_, real_keys_, n);
    // The rounds' small buffers at their largest (a level's nodes), made before the rounds: a
    // buffer remade between kernels would be fresh memory to Oclgrind's checks of what is set.
    // A level's open nodes (half its count at most) each ask about every rank's proposals.
    const std::size_t count = std::size_t(1) << levels, ranks_size = std::size_t(ranks.size());
    const std::size_t probes = detail::top_probes(ranks_size) * std::max<std::size_t>(count / 2, 1);
    const std::size_t asks = ranks_size * probes;
    reserve(context_, axis_, count);
    reserve(context_, asks_, std::max(4 * asks, count));
    reserve(context_, found_, 2 * asks);
    reserve(context_, precision_, probe_keys_, 3 * probes);
    reserve(context_, precision_, pivots_, 3 * asks);
    reserve(context_, precision_, partial_, 6 * group);
    if (n > 0 && index_ok && total < (std::size_t(1) << 32)) {
        write_uints(queue, index_, index32);
        // The root's bodies by index (the order of a tree of no split levels).
        kernels_[start].args(std::uint32_t(n), index_, uint_keys_, values_, node_).launch(queue, n);
        sort_(queue, uint_keys_, values_, n, bits_for(total));
        std::swap(perm_, values_);
    }
    TreeTop::Parts parts;
    detail::TopCells cells;
    if (precision_ == Precision::float32) {
        Store<float> store{*this, positions, n, queue};
        cells = detail::split_top<float>(ranks, store, index_ok, n, total, levels);
    } else {
        Store<double> store{*this, positions, n, queue};
        cells = detail::split_top<double>(ranks, store, index_ok, n, total, levels);
    }
    parts.box = std::move(cells.box);
    parts.axis = std::move(cells.axis);
    parts.rounds = cells.rounds;
    std::vector<std::uint32_t> perm(n);
    parts.node.resize(n);
    if (n > 0) {
        perm_.read(queue, perm.data(), n);
        node_.read(queue, parts.node.data(), n);
    }
    parts.order.assign(perm.begin(), perm.end());
    return TreeTop(precision_, total, levels, std::move(parts));
}

void DeviceTreeTop::pack(const RealBuffer& positions, const RealBuffer& mass, RealBuffer& records,
                         Buffer<std::uint32_t>& tags) {
    reserve(context_, precision_, records, 4 * n_);
    reserve(context_, tags, 2 * n_);
    kernels_[pack_].args(std::uint32_t(n_), perm_, positions, mass, index_, node_, records, tags)
        .launch(context_.queue(0), n_);
}

void DeviceTreeTop::merge(const std::vector<std::size_t>& runs, const RealBuffer& records,
                          const Buffer<std::uint32_t>& tags, Buffer<std::uint32_t>& order, RealBuffer& positions,
                          RealBuffer& mass) {
    if (runs.empty()) throw UsageError("DeviceTreeTop::merge: no runs (their offsets, the first 0)");
    const std::size_t held = runs.back();
    if (records.size() < 4 * held || tags.size() < 2 * held)
        throw UsageError("DeviceTreeTop::merge: records for " + std::to_string(held) + " bodies do not fit the buffers");
    Queue& queue = context_.queue(0);
    reserve(context_, order, held);
    reserve(context_, precision_, positions, 3 * held);
    reserve(context_, precision_, mass, held);
    reserve(context_, axis_, 1);  // a level-0 top uploads no axes
    if (held == 0) return;
    reserve(context_, run_, runs.size());
    write_uints(queue, run_, std::vector<std::uint32_t>(runs.begin(), runs.end()));
    kernels_[merge_].args(std::uint32_t(held), std::uint32_t(runs.size() - 1), run_,
                          std::uint32_t(std::size_t(1) << levels_), axis_, records, tags, order)
        .launch(queue, held);
    kernels_[place].args(std::uint32_t(held), order, records, positions, mass).launch(queue, held);
}

void DeviceTreeTop::results_by_arrival(std::size_t held, const Buffer<std::uint32_t>& order,
                                       const Buffer<std::uint32_t>& perm, const RealBuffer& acc,
                                       const RealBuffer* potential, RealBuffer& results) {
    reserve(context_, precision_, results, 4 * held);
    kernels_[by_arrival].args(std::uint32_t(held), order, perm, acc, std::uint32_t(potential ? 1 : 0),
                              potential ? *potential : acc, results)
        .launch(context_.queue(0), held);
}

void DeviceTreeTop::results_home(const RealBuffer& results, RealBuffer& out, std::size_t offset,
                                 RealBuffer* potential) {
    kernels_[home].args(std::uint32_t(n_), perm_, results, std::uint32_t(offset), out,
                        std::uint32_t(potential ? 1 : 0), potential ? *potential : out)
        .launch(context_.queue(0), n_);
}

} // namespace partcl
