// ElectrostaticPic over several ranks: what a rank exchanges with the others (the ghost planes
// of the charge, the potential and the field, the particles that leave its slab). Only the slab
// axis is cut, so a rank's neighbours are the ranks before and after it, the last and the first
// being neighbours across the periodic boundary.
#include <partcl/models/pic/electrostatic_pic.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <partcl/algorithm/scan.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/runtime/device_array.hpp>

namespace partcl {

namespace {

constexpr std::size_t group = 64;  // as electrostatic_pic.cpp's launches

// Bytes to the next rank (r + 1, the last's next the first) and to the previous one; returns
// what the previous and the next sent here, `from_previous` and `from_next` bytes. With two
// ranks the next is the previous: one message, what was sent as to the next first.
std::pair<std::vector<char>, std::vector<char>>
exchange_with_neighbours(const dist::Communicator& ranks, const std::vector<char>& to_next,
                         const std::vector<char>& to_previous, std::size_t from_previous,
                         std::size_t from_next) {
    const std::size_t count = std::size_t(ranks.size()), rank = std::size_t(ranks.rank());
    const std::size_t next = (rank + 1) % count, previous = (rank + count - 1) % count;
    std::vector<std::vector<char>> out(count);
    out[next] = to_next;
    out[previous].insert(out[previous].end(), to_previous.begin(), to_previous.end());
    std::vector<std::size_t> send_counts(count), recv_counts(count);
    std::vector<char> sent;
    for (std::size_t r = 0; r < count; ++r) {
        send_counts[r] = out[r].size();
        sent.insert(sent.end(), out[r].begin(), out[r].end());
    }
    recv_counts[previous] += from_previous;
    recv_counts[next] += from_next;
    std::vector<char> received(from_previous + from_next);
    ranks.alltoallv(sent.data(), send_counts, received.data(), recv_counts);
    // In rank order: the previous rank's bytes come first unless it is ranked after the next.
    const bool previous_first = previous < next || count == 2;
    const auto split = received.begin() + std::ptrdiff_t(previous_first ? from_previous : from_next);
    std::vector<char> first(received.begin(), split), second(split, received.end());
    return previous_first ? std::make_pair(first, second) : std::make_pair(second, first);
}

std::vector<char> bytes_of(const std::vector<double>& values) {
    std::vector<char> bytes(values.size() * sizeof(double));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::vector<double> doubles_of(const std::vector<char>& bytes) {
    std::vector<double> values(bytes.size() / sizeof(double));
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

// A coordinate along the slab axis from the slab's first plane, as the rank's kernels will see
// it: inside [0, planes) cells in the model's precision. Rounding the difference can land it on
// the slab's upper face (or, below, just under 0); it is moved by the least step inside.
double slab_coordinate(double global, double first, double dx, std::size_t planes,
                       Precision precision) {
    double x = std::max(global - first, 0.0);
    if (precision == Precision::float32) {
        float xf = float(x);
        const float inverse = float(1 / dx);
        while (xf > 0 && xf * inverse >= float(planes)) xf = std::nextafter(xf, 0.0f);
        return double(xf);
    }
    const double inverse = 1 / dx;
    while (x > 0 && x * inverse >= double(planes)) x = std::nextafter(x, 0.0);
    return x;
}

// The particle as it travels between ranks: its global position, velocity and species.
struct Traveller {
    double position[3];
    double velocity[3];
    std::uint32_t species;
    std::uint32_t unused;
};

} // namespace

PicParticles ElectrostaticPic::take_slab(const PicParticles& all) const {
    const int d = grid_.dimensions, axis = slab_axis();
    const std::size_t n = all.size();
    const Range mine = planes();
    const double dx = grid_.spacing, first = double(mine.begin) * dx;
    PicParticles p;
    p.dimensions = d;
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < n; ++i) {
        const double x = all.position[std::size_t(axis) * n + i];
        // Outside the box or NaN: kept by rank 0, for its cell list to refuse by name.
        const bool outside = !(x >= 0 && x < grid_.length(axis));
        const double t = outside ? 0 : std::min(slabs_.cells(0).cell_coordinate(x, axis),
                                                double(grid_.nodes[std::size_t(axis)]) - 1);
        const std::size_t plane = outside ? 0 : std::size_t(t);
        if ((outside && ranks_->root()) || (!outside && plane >= mine.begin && plane < mine.end))
            kept.push_back(i);
    }
    p.position.resize(std::size_t(d) * kept.size());
    p.velocity.resize(std::size_t(d) * kept.size());
    for (std::size_t j = 0; j < kept.size(); ++j) {
        const std::size_t i = kept[j];
        for (int k = 0; k < d; ++k) {
            double x = all.position[std::size_t(k) * n + i];
            if (k == axis && std::isfinite(x) && x >= 0 && x < grid_.length(axis))
                x = slab_coordinate(x, first, dx, mine.size(), precision_);
            p.position[std::size_t(k) * kept.size() + j] = x;
            p.velocity[std::size_t(k) * kept.size() + j] = all.velocity[std::size_t(k) * n + i];
        }
        p.species.push_back(all.species[i]);
    }
    return p;
}

dist::RankTraffic ElectrostaticPic::traffic() const noexcept {
    dist::RankTraffic all = traffic_;
    all.seconds += fft_.traffic().seconds;
    all.bytes_sent += fft_.traffic().bytes_sent;
    return all;
}

void ElectrostaticPic::fold_charge(RealBuffer& rho) {
    auto& queue = context_.queue(0);
    dist::TrafficTimer exchange(queue, traffic_);
    const std::size_t plane = 2 * plane_points(), own = planes().size();
    exchange.sent(plane * sizeof(double));
    std::vector<double> ghost(plane), first(plane);
    rho.read(queue, ghost.data(), plane, own * plane);
    const auto [from_previous, from_next] =
        exchange_with_neighbours(*ranks_, bytes_of(ghost), {}, plane * sizeof(double), 0);
    (void)from_next;
    rho.read(queue, first.data(), plane, 0);
    const std::vector<double> added = doubles_of(from_previous);
    for (std::size_t i = 0; i < plane; ++i) first[i] += added[i];
    rho.write(queue, first, 0);
    queue.finish();  // the write reads `first`
}

void ElectrostaticPic::fetch_potential_ghosts() {
    // work_: this rank's planes, then the next rank's first plane, then the previous rank's
    // last plane (which the field kernel reaches by wrapping below plane 0).
    auto& queue = context_.queue(0);
    dist::TrafficTimer exchange(queue, traffic_);
    const std::size_t plane = 2 * plane_points(), own = planes().size();
    exchange.sent(2 * plane * sizeof(double));
    std::vector<double> first(plane), last(plane);
    work_.read(queue, first.data(), plane, 0);
    work_.read(queue, last.data(), plane, (own - 1) * plane);
    const auto [from_previous, from_next] = exchange_with_neighbours(
        *ranks_, bytes_of(last), bytes_of(first), plane * sizeof(double), plane * sizeof(double));
    work_.write(queue, doubles_of(from_next), own * plane);
    work_.write(queue, doubles_of(from_previous), (own + 1) * plane);
    queue.finish();
}

void ElectrostaticPic::fetch_field_ghosts() {
    // Each component of field_: this rank's planes, then the next rank's first plane.
    auto& queue = context_.queue(0);
    dist::TrafficTimer exchange(queue, traffic_);
    const std::size_t d = std::size_t(grid_.dimensions), plane = plane_points();
    const std::size_t own = planes().size(), stride = plane * (own + 1);
    exchange.sent(d * plane * sizeof(double));
    std::vector<double> first(d * plane);
    for (std::size_t k = 0; k < d; ++k) fields_[0].read(queue, first.data() + k * plane, plane, k * stride);
    const auto [from_previous, from_next] = exchange_with_neighbours(
        *ranks_, {}, bytes_of(first), 0, d * plane * sizeof(double));
    (void)from_previous;
    const std::vector<double> ghost = doubles_of(from_next);
    for (std::size_t k = 0; k < d; ++k)
        fields_[0].write(queue, ghost.data() + k * plane, plane, k * stride + own * plane);
    queue.finish();
}

void ElectrostaticPic::migrate() {
    dist::TrafficTimer exchange(context_.queue(0), traffic_);
    const int d = grid_.dimensions, axis = slab_axis();
    const std::size_t devices = context_.size(), components = std::size_t(std::max(d, 2));
    const Range mine = planes();
    const double dx = grid_.spacing;
    // On each device, which of its particles (in next(), as pushed) left the slab: those packed
    // in order, the others kept in order. Every device's kernels are enqueued before the host
    // waits for the first count.
    std::vector<std::size_t> own(devices), leaving(devices, 0);
    for (std::size_t k = 0; k < devices; ++k) {
        own[k] = slabs_.own(k);
        if (own[k] == 0) continue;
        Queue& queue = context_.queue(k);
        if (flags_[k].size() < own[k]) {
            flags_[k] = Buffer<std::uint32_t>(context_, own[k] + own[k] / 4, OnDevice{k});
            offsets_[k] = Buffer<std::uint32_t>(context_, own[k] + own[k] / 4, OnDevice{k});
        }
        leaving_[k].args(std::uint32_t(own[k]), std::uint32_t(own[k]), slabs_.next(0, k),
                         Real{1 / dx}, std::uint32_t(mine.size()), flags_[k]);
        leaving_[k].launch(queue, own[k], group);
        exclusive_scan(queue, flags_[k], offsets_[k], own[k]);
    }
    for (std::size_t k = 0; k < devices; ++k) {
        if (own[k] == 0) continue;
        Queue& queue = context_.queue(k);
        std::uint32_t last_flag = 0, last_offset = 0;
        flags_[k].read(queue, &last_flag, 1, own[k] - 1);
        offsets_[k].read(queue, &last_offset, 1, own[k] - 1);
        leaving[k] = std::size_t(last_flag) + last_offset;
        auto fit = [&](RealBuffer& b, std::size_t size) { fit_on_device(b, context_, precision_, size, OnDevice{k}); };
        auto fit_uint = [&](Buffer<std::uint32_t>& b, std::size_t size) { fit_on_device(b, context_, size, OnDevice{k}); };
        fit(kept_r_[k], components * own[k]);
        fit(kept_v_[k], std::size_t(d) * own[k]);
        fit_uint(kept_species_[k], own[k]);
        fit(pack_[k], 2 * std::size_t(d) * leaving[k]);
        fit_uint(pack_species_[k], leaving[k]);
        // Kept with the stride of the particles before (own[k]); leavers at c * leaving + j.
        partition_[k].args(std::uint32_t(own[k]), std::uint32_t(own[k]), slabs_.next(0, k),
                           slabs_.next(1, k), slabs_.next_uint(0, k), flags_[k], offsets_[k],
                           std::uint32_t(own[k]), kept_r_[k], kept_v_[k], kept_species_[k],
                           std::uint32_t(leaving[k]), pack_[k], pack_species_[k]);
        partition_[k].launch(queue, own[k], group);
    }
    // Each leaver to the rank owning its plane, in global coordinates (the slab axis wrapped),
    // the devices' leavers in device order: the one-device order.
    std::size_t all_leaving = 0;
    for (std::size_t l : leaving) all_leaving += l;
    const double length = grid_.length(axis), first = double(mine.begin) * dx;
    const std::vector<std::size_t>& cuts = planes_.offsets();
    std::vector<Traveller> travellers;
    travellers.reserve(all_leaving);
    std::vector<int> destinations;
    destinations.reserve(all_leaving);
    for (std::size_t k = 0; k < devices; ++k) {
        const std::size_t m = leaving[k];
        if (m == 0) continue;
        std::vector<double> packed(2 * std::size_t(d) * m);
        std::vector<std::uint32_t> packed_species(m);
        pack_[k].read(context_.queue(k), packed.data(), packed.size());
        pack_species_[k].read(context_.queue(k), packed_species.data(), m);
        for (std::size_t j = 0; j < m; ++j) {
            Traveller t{};
            for (int c = 0; c < d; ++c) {
                t.position[c] = packed[std::size_t(c) * m + j];
                t.velocity[c] = packed[std::size_t(d + c) * m + j];
            }
            double& x = t.position[axis];
            x += first;
            x -= length * std::floor(x / length);
            if (!(x < length)) x = 0;  // rounded up to the box's edge: its periodic image 0
            const std::size_t plane = std::min(std::size_t(std::max(x / dx, 0.0)),
                                               std::size_t(grid_.nodes[std::size_t(axis)]) - 1);
            destinations.push_back(
                int(std::upper_bound(cuts.begin(), cuts.end(), plane) - cuts.begin()) - 1);
            t.species = packed_species[j];
            travellers.push_back(t);
        }
    }
    for (int destination : destinations)
        if (destination != ranks_->rank()) {
            exchange.sent(sizeof(Traveller));
            ++traffic_.particles_sent;
        }
    const dist::Distributor plan(*ranks_, destinations);
    const std::vector<Traveller> arrived = plan.distribute(travellers);
    // Each device's next() holds its kept particles again; those that arrived go after the
    // last device's, so the devices' particles in order are one device's (kept, then arrived).
    for (std::size_t k = 0; k < devices; ++k) {
        const std::size_t stay = own[k] - leaving[k];
        const std::size_t m = k + 1 == devices ? arrived.size() : 0, n = stay + m;
        if (own[k] == 0 && m == 0) continue;
        slabs_.set_own(k, n);
        Queue& queue = context_.queue(k);
        for (std::size_t c = 0; c < components && stay > 0; ++c)
            kept_r_[k].copy_to(queue, slabs_.next(0, k), stay, c * own[k], c * n);
        for (std::size_t c = 0; c < std::size_t(d) && stay > 0; ++c)
            kept_v_[k].copy_to(queue, slabs_.next(1, k), stay, c * own[k], c * n);
        if (stay > 0) kept_species_[k].copy_to(queue, slabs_.next_uint(0, k), stay, 0, 0);
        if (m == 0) continue;
        std::vector<double> x(components * m, 0.0), v(std::size_t(d) * m);
        std::vector<std::uint32_t> species(m);
        for (std::size_t j = 0; j < m; ++j) {
            for (int c = 0; c < d; ++c) {
                x[std::size_t(c) * m + j] = arrived[j].position[c];
                v[std::size_t(c) * m + j] = arrived[j].velocity[c];
            }
            x[std::size_t(axis) * m + j] = slab_coordinate(arrived[j].position[axis], first, dx,
                                                           mine.size(), precision_);
            species[j] = arrived[j].species;
        }
        for (std::size_t c = 0; c < components; ++c)
            slabs_.next(0, k).write(queue, x.data() + c * m, m, c * n + stay);
        for (std::size_t c = 0; c < std::size_t(d); ++c)
            slabs_.next(1, k).write(queue, v.data() + c * m, m, c * n + stay);
        slabs_.next_uint(0, k).write(queue, species.data(), m, stay);
        queue.finish();  // the writes read the host arrays
    }
}

} // namespace partcl
