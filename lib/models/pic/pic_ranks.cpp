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
        const double t = outside ? 0 : std::min(cells_->cell_coordinate(x, axis),
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
    for (std::size_t k = 0; k < d; ++k) field_.read(queue, first.data() + k * plane, plane, k * stride);
    const auto [from_previous, from_next] = exchange_with_neighbours(
        *ranks_, {}, bytes_of(first), 0, d * plane * sizeof(double));
    (void)from_previous;
    const std::vector<double> ghost = doubles_of(from_next);
    for (std::size_t k = 0; k < d; ++k)
        field_.write(queue, ghost.data() + k * plane, plane, k * stride + own * plane);
    queue.finish();
}

void ElectrostaticPic::grow(std::size_t capacity, std::size_t keep) {
    auto& queue = context_.queue(0);
    const std::size_t d = std::size_t(grid_.dimensions), components = std::max<std::size_t>(d, 2);
    auto regrow = [&](RealBuffer& next, RealBuffer& other, std::size_t count) {
        RealBuffer bigger(context_, precision_, count * capacity);
        bigger.fill(queue, 0);  // a 1-D run's y components stay 0
        for (std::size_t k = 0; k < count && keep > 0; ++k)
            next.copy_to(queue, bigger, keep, k * capacity_, k * capacity);
        next = std::move(bigger);
        other = RealBuffer(context_, precision_, count * capacity);
        other.fill(queue, 0);
    };
    regrow(r_b_, r_, components);
    regrow(v_b_, v_, d);
    Buffer<std::uint32_t> species(context_, capacity);
    if (keep > 0) species_index_b_.copy_to(queue, species, keep, 0, 0);
    species_index_b_ = std::move(species);
    species_index_ = Buffer<std::uint32_t>(context_, capacity);
    queue.finish();
    capacity_ = capacity;
}

void ElectrostaticPic::migrate() {
    auto& queue = context_.queue(0);
    dist::TrafficTimer exchange(queue, traffic_);
    const int d = grid_.dimensions, axis = slab_axis();
    const Range mine = planes();
    const double dx = grid_.spacing;
    // Which particles left the slab, packed in order; the others kept in order in the next
    // arrays.
    std::size_t leaving = 0;
    if (flags_.size() < capacity_) {
        flags_ = Buffer<std::uint32_t>(context_, capacity_);
        offsets_ = Buffer<std::uint32_t>(context_, capacity_);
    }
    if (n_ > 0) {
        leaving_.args(std::uint32_t(n_), std::uint32_t(capacity_), r_, Real{1 / dx},
                      std::uint32_t(mine.size()), flags_);
        leaving_.launch(queue, n_, group);
        exclusive_scan(queue, flags_, offsets_, n_);
        std::uint32_t last_flag = 0, last_offset = 0;
        flags_.read(queue, &last_flag, 1, n_ - 1);
        offsets_.read(queue, &last_offset, 1, n_ - 1);
        leaving = std::size_t(last_flag) + last_offset;
        if (pack_.size() < 2 * std::size_t(d) * leaving || pack_.size() == 0) {
            pack_ = RealBuffer(context_, precision_, std::max<std::size_t>(2 * d * leaving, 1));
            pack_species_ = Buffer<std::uint32_t>(context_, std::max<std::size_t>(leaving, 1));
        }
        partition_.args(std::uint32_t(n_), std::uint32_t(capacity_), r_, v_, species_index_,
                        flags_, offsets_, std::uint32_t(capacity_), r_b_, v_b_, species_index_b_,
                        std::uint32_t(leaving), pack_, pack_species_);
        partition_.launch(queue, n_, group);
    }
    // Each leaver to the rank owning its plane, in global coordinates (the slab axis wrapped).
    std::vector<double> packed(2 * std::size_t(d) * leaving);
    std::vector<std::uint32_t> packed_species(leaving);
    if (leaving > 0) {
        pack_.read(queue, packed.data(), packed.size());
        pack_species_.read(queue, packed_species.data(), leaving);
    }
    const double length = grid_.length(axis), first = double(mine.begin) * dx;
    const std::vector<std::size_t>& cuts = planes_.offsets();
    std::vector<Traveller> travellers(leaving);
    std::vector<int> destinations(leaving);
    for (std::size_t j = 0; j < leaving; ++j) {
        Traveller& t = travellers[j];
        for (int k = 0; k < 3; ++k) t.position[k] = t.velocity[k] = 0;
        for (int k = 0; k < d; ++k) {
            t.position[k] = packed[std::size_t(k) * leaving + j];
            t.velocity[k] = packed[std::size_t(d + k) * leaving + j];
        }
        double& x = t.position[axis];
        x += first;
        x -= length * std::floor(x / length);
        if (!(x < length)) x = 0;  // rounded up to the box's edge: its periodic image 0
        const std::size_t plane = std::min(std::size_t(std::max(x / dx, 0.0)),
                                           std::size_t(grid_.nodes[std::size_t(axis)]) - 1);
        destinations[j] = int(std::upper_bound(cuts.begin(), cuts.end(), plane) - cuts.begin()) - 1;
        t.species = packed_species[j];
        t.unused = 0;
    }
    for (int destination : destinations)
        if (destination != ranks_->rank()) {
            exchange.sent(sizeof(Traveller));
            ++traffic_.particles_sent;
        }
    const dist::Distributor plan(*ranks_, destinations);
    const std::vector<Traveller> arrived = plan.distribute(travellers);
    const std::size_t stay = n_ - leaving, n = stay + arrived.size();
    if (n > capacity_) grow(n + n / 4 + 64, stay);
    if (!arrived.empty()) {
        const std::size_t m = arrived.size();
        std::vector<double> x(std::size_t(d) * m), v(std::size_t(d) * m);
        std::vector<std::uint32_t> species(m);
        for (std::size_t j = 0; j < m; ++j) {
            for (int k = 0; k < d; ++k) {
                x[std::size_t(k) * m + j] = arrived[j].position[k];
                v[std::size_t(k) * m + j] = arrived[j].velocity[k];
            }
            x[std::size_t(axis) * m + j] = slab_coordinate(arrived[j].position[axis], first, dx,
                                                           mine.size(), precision_);
            species[j] = arrived[j].species;
        }
        for (int k = 0; k < d; ++k) {
            r_b_.write(queue, x.data() + std::size_t(k) * m, m, std::size_t(k) * capacity_ + stay);
            v_b_.write(queue, v.data() + std::size_t(k) * m, m, std::size_t(k) * capacity_ + stay);
        }
        species_index_b_.write(queue, species.data(), m, stay);
        queue.finish();  // the writes read the host arrays
    }
    std::swap(r_, r_b_);
    std::swap(v_, v_b_);
    std::swap(species_index_, species_index_b_);
    n_ = n;
}

} // namespace partcl
