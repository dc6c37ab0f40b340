#include <partcl/models/nbody/tree_reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>
#include <partcl/support/error.hpp>

namespace partcl::reference {

namespace {

// Rows of the node array (tree_reference.hpp).
enum Row : std::size_t { CX, CY, CZ, M, CRIT2, SXX, SYY, SZZ, SXY, SXZ, SYZ, LOX, LOY, LOZ, HIX, HIY, HIZ, RADIUS, ROWS };

// Whether v is finite, from its bits: this file is built with -ffast-math, under which
// std::isfinite may fold to true.
template <class T>
bool finite(T v) {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr int mantissa = std::numeric_limits<T>::digits - 1;
    constexpr Bits exponent = ((Bits(1) << (8 * sizeof(T) - 1)) - 1) >> mantissa;
    Bits bits;
    std::memcpy(&bits, &v, sizeof bits);
    return ((bits >> mantissa) & exponent) != exponent;
}

// A group's sources, structure of arrays: nodes taken whole (centre, mass, second moments) and
// the bodies of opened leaves.
template <class T>
struct Sources {
    enum { X, Y, Z, MASS, XX, YY, ZZ, XY, XZ, YZ, NODE_ROWS };
    std::vector<T> node[NODE_ROWS], body[4];
    std::size_t nodes = 0, bodies = 0;

    void clear() { nodes = bodies = 0; }
    static void fit(std::vector<T>& row, std::size_t count) {
        if (row.size() < count) row.resize(std::max(count, 2 * row.size()));
    }
    void add_node(const T* table, std::size_t stride, std::size_t k) {
        for (int r = 0; r < NODE_ROWS; ++r) fit(node[r], nodes + 1);
        const std::size_t from[NODE_ROWS] = {CX, CY, CZ, M, SXX, SYY, SZZ, SXY, SXZ, SYZ};
        for (int r = 0; r < NODE_ROWS; ++r) node[r][nodes] = table[from[r] * stride + k];
        ++nodes;
    }
    template <class Body>
    void add_bodies(const Body* first, std::size_t count) {
        for (auto& row : body) fit(row, bodies + count);
        for (std::size_t j = 0; j < count; ++j) {
            body[0][bodies + j] = first[j].x;
            body[1][bodies + j] = first[j].y;
            body[2][bodies + j] = first[j].z;
            body[3][bodies + j] = first[j].m;
        }
        bodies += count;
    }
};

// One target's sum over a group's sources: TREE_INTERACT_NODE and TREE_INTERACT of
// cl/nbody/tree_force.cl, vectorised over the sources.
template <bool Potential, class T>
void sum_sources(const Sources<T>& s, T tx, T ty, T tz, T eps2, T& ax, T& ay, T& az, T& ap) {
    using S = Sources<T>;
    const T* __restrict cx = s.node[S::X].data();
    const T* __restrict cy = s.node[S::Y].data();
    const T* __restrict cz = s.node[S::Z].data();
    const T* __restrict cm = s.node[S::MASS].data();
    const T* __restrict qxx = s.node[S::XX].data();
    const T* __restrict qyy = s.node[S::YY].data();
    const T* __restrict qzz = s.node[S::ZZ].data();
    const T* __restrict qxy = s.node[S::XY].data();
    const T* __restrict qxz = s.node[S::XZ].data();
    const T* __restrict qyz = s.node[S::YZ].data();
    T sx = 0, sy = 0, sz = 0, sp = 0;
#pragma omp simd reduction(+ : sx, sy, sz, sp)
    for (std::size_t j = 0; j < s.nodes; ++j) {
        const T dx = cx[j] - tx, dy = cy[j] - ty, dz = cz[j] - tz;
        const T r2e = eps2 + dx * dx + dy * dy + dz * dz;
        const T inv_r = T(1) / std::sqrt(r2e);
        const T inv_r2 = inv_r * inv_r, inv_r3 = inv_r2 * inv_r, inv_r5 = inv_r3 * inv_r2;
        const T sdx = qxx[j] * dx + qxy[j] * dy + qxz[j] * dz;
        const T sdy = qxy[j] * dx + qyy[j] * dy + qyz[j] * dz;
        const T sdz = qxz[j] * dx + qyz[j] * dy + qzz[j] * dz;
        const T dsd = dx * sdx + dy * sdy + dz * sdz;
        const T trace = qxx[j] + qyy[j] + qzz[j];
        const T f = cm[j] * inv_r3 + inv_r5 * (T(7.5) * dsd * inv_r2 - T(1.5) * trace);
        const T g = T(3) * inv_r5;
        sx += f * dx - g * sdx;
        sy += f * dy - g * sdy;
        sz += f * dz - g * sdz;
        if (Potential) sp += cm[j] * inv_r + inv_r3 * (T(1.5) * dsd * inv_r2 - T(0.5) * trace);
    }
    const T* __restrict bx = s.body[0].data();
    const T* __restrict by = s.body[1].data();
    const T* __restrict bz = s.body[2].data();
    const T* __restrict bm = s.body[3].data();
#pragma omp simd reduction(+ : sx, sy, sz, sp)
    for (std::size_t j = 0; j < s.bodies; ++j) {
        const T dx = bx[j] - tx, dy = by[j] - ty, dz = bz[j] - tz;
        const T r2 = dx * dx + dy * dy + dz * dz;
        const T inv_r = r2 > T(0) ? T(1) / std::sqrt(r2 + eps2) : T(0);
        const T m_inv_r = bm[j] * inv_r;
        const T f = m_inv_r * inv_r * inv_r;
        sx += f * dx;
        sy += f * dy;
        sz += f * dz;
        if (Potential) sp += m_inv_r;
    }
    ax = sx;
    ay = sy;
    az = sz;
    ap = sp;
}

} // namespace

template <class T>
BarnesHut<T>::BarnesHut(GravityParameters parameters, const TreeOptions& options)
    : eps2_(T(parameters.softening * parameters.softening)), G_(T(parameters.G)),
      theta_(T(options.theta)), leaf_size_(options.leaf_size), group_size_(options.group_size) {
    TreeGravity::check_options(parameters, options);
    if (options.relative_accuracy > 0 || options.short_range)
        throw UsageError("tree reference: the relative criterion and TreePM's short range are TreeGravity's alone");
}

template <class T>
void BarnesHut<T>::build(std::size_t n, const T* x, const T* y, const T* z, const T* m) {
    if (n >= (std::size_t(1) << 32))
        throw UsageError("tree reference: " + std::to_string(n) + " bodies; at most 2^32 - 1");
    for (std::size_t i = 0; i < n; ++i)
        if (!finite(x[i]) || !finite(y[i]) || !finite(z[i]))
            throw UsageError("tree reference: body " + std::to_string(i) + "'s position is not finite");
    bodies_.resize(n);
    levels_ = n ? TreeGravity::levels_for(n, leaf_size_) : 0;
    const std::size_t nodes = std::size_t(2) << levels_;
    node_.assign(ROWS * nodes, T(0));
    cell_.assign(6 * nodes, T(0));
    node_interactions_ = body_interactions_ = 0;
    if (n == 0) return;
    T lo[3] = {x[0], y[0], z[0]}, hi[3] = {x[0], y[0], z[0]};
    for (std::size_t i = 0; i < n; ++i) {
        bodies_[i] = Body{x[i], y[i], z[i], m[i], static_cast<std::uint32_t>(i)};
        const T p[3] = {x[i], y[i], z[i]};
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    }
    for (int a = 0; a < 3; ++a) {
        cell_[a * nodes + 1] = lo[a];
        cell_[(3 + a) * nodes + 1] = hi[a];
    }
    for (std::size_t level = 0; level < levels_; ++level) split_level(level);
    fit_leaves();
    for (std::size_t level = levels_; level-- > 0;) fit_level(level);
}

// The nodes of `level`: each range cut at its median along its cell's widest side, and the
// cell cut there into its children's.
template <class T>
void BarnesHut<T>::split_level(std::size_t level) {
    const std::size_t n = bodies_.size(), nodes = std::size_t(2) << levels_;
    const std::size_t count = std::size_t(1) << level;
    T* cell = cell_.data();
    Body* bodies = bodies_.data();
    const long long last = static_cast<long long>(count);
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
    for (long long q = 0; q < last; ++q) {
        const std::size_t p = static_cast<std::size_t>(q), k = count + p;
        const T ex = cell[3 * nodes + k] - cell[k], ey = cell[4 * nodes + k] - cell[nodes + k];
        const T ez = cell[5 * nodes + k] - cell[2 * nodes + k];
        const int axis = ex >= ey ? (ex >= ez ? 0 : 2) : (ey >= ez ? 1 : 2);
        for (int c = 0; c < 6; ++c) cell[c * nodes + 2 * k] = cell[c * nodes + 2 * k + 1] = cell[c * nodes + k];
        const std::size_t begin = tree_start(p, count, n), end = tree_start(p + 1, count, n);
        const std::size_t mid = tree_start(2 * p + 1, 2 * count, n);
        if (!(begin < mid && mid < end)) continue;
        auto coordinate = [axis](const Body& b) { return axis == 0 ? b.x : axis == 1 ? b.y : b.z; };
        auto below = [&](const Body& a, const Body& b) { return coordinate(a) < coordinate(b); };
        // The last split sorts its range, as the device's does: walk groups smaller than
        // leaves are slices of them in that order.
        if (level + 1 == levels_) std::sort(bodies + begin, bodies + end, below);
        else std::nth_element(bodies + begin, bodies + mid, bodies + end, below);
        const T cut = coordinate(bodies[mid]);
        cell[(3 + axis) * nodes + 2 * k] = cut;
        cell[axis * nodes + 2 * k + 1] = cut;
    }
}

namespace {

// crit2 of a node whose bodies lie within `radius` of its centre (tree_build.cl's tree_crit2).
template <class T>
T crit2_of(T radius, T theta) {
    if (theta <= T(0)) return std::numeric_limits<T>::max();
    return radius * radius / (theta * theta) * (T(1) + T(8) * std::numeric_limits<T>::epsilon());
}

template <class T>
T centre_of(T m, T w, T lo, T hi) {
    return m > T(0) ? w / m : (lo > hi ? T(0) : T(0.5) * (lo + hi));
}

// Node k's row entries from its mass, centre, moments, tight box and radius (tree_store).
template <class T>
void store(T* node, std::size_t nodes, std::size_t k, T m, const T* c, const T* s, const T* lo,
           const T* hi, T radius, T theta) {
    const bool massive = m > T(0);
    for (int a = 0; a < 3; ++a) {
        node[(CX + a) * nodes + k] = c[a];
        node[(LOX + a) * nodes + k] = lo[a];
        node[(HIX + a) * nodes + k] = hi[a];
    }
    node[M * nodes + k] = massive ? m : T(0);
    node[CRIT2 * nodes + k] = massive ? crit2_of(radius, theta) : T(0);
    for (int e = 0; e < 6; ++e) node[(SXX + e) * nodes + k] = massive ? s[e] : T(0);
    node[RADIUS * nodes + k] = radius;
}

template <class T>
void add_moments(T* s, T m, T ux, T uy, T uz) {
    s[0] += m * ux * ux;
    s[1] += m * uy * uy;
    s[2] += m * uz * uz;
    s[3] += m * ux * uy;
    s[4] += m * ux * uz;
    s[5] += m * uy * uz;
}

} // namespace

template <class T>
void BarnesHut<T>::fit_leaves() {
    const std::size_t n = bodies_.size(), leaves = std::size_t(1) << levels_, nodes = 2 * leaves;
    const Body* bodies = bodies_.data();
    T* node = node_.data();
    const T grow = T(1) + T(4) * std::numeric_limits<T>::epsilon();
#pragma omp parallel for schedule(static)
    for (long long q = 0; q < static_cast<long long>(leaves); ++q) {
        const std::size_t p = static_cast<std::size_t>(q);
        const std::size_t begin = tree_start(p, leaves, n), end = tree_start(p + 1, leaves, n);
        T m = 0, w[3] = {0, 0, 0};
        T lo[3], hi[3];
        std::fill(lo, lo + 3, std::numeric_limits<T>::max());
        std::fill(hi, hi + 3, -std::numeric_limits<T>::max());
        for (std::size_t i = begin; i < end; ++i) {
            const Body& b = bodies[i];
            const T pos[3] = {b.x, b.y, b.z};
            m += b.m;
            for (int a = 0; a < 3; ++a) {
                w[a] += b.m * pos[a];
                lo[a] = std::min(lo[a], pos[a]);
                hi[a] = std::max(hi[a], pos[a]);
            }
        }
        T c[3];
        for (int a = 0; a < 3; ++a) c[a] = centre_of(m, w[a], lo[a], hi[a]);
        T s[6] = {0, 0, 0, 0, 0, 0}, far2 = 0;
        for (std::size_t i = begin; i < end; ++i) {
            const Body& b = bodies[i];
            const T ux = b.x - c[0], uy = b.y - c[1], uz = b.z - c[2];
            add_moments(s, b.m, ux, uy, uz);
            far2 = std::max(far2, ux * ux + uy * uy + uz * uz);
        }
        store(node, nodes, leaves + p, m, c, s, lo, hi, std::sqrt(far2) * grow, theta_);
    }
}

// The nodes of `level` from their children (tree_build.cl's tree_nodes).
template <class T>
void BarnesHut<T>::fit_level(std::size_t level) {
    const std::size_t nodes = std::size_t(2) << levels_, count = std::size_t(1) << level;
    T* node = node_.data();
    const T grow = T(1) + T(4) * std::numeric_limits<T>::epsilon();
#pragma omp parallel for schedule(static) if (count >= 1024)
    for (long long q = 0; q < static_cast<long long>(count); ++q) {
        const std::size_t k = count + static_cast<std::size_t>(q);
        const std::size_t child[2] = {2 * k, 2 * k + 1};
        T m = 0, w[3] = {0, 0, 0}, lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(node[(LOX + a) * nodes + child[0]], node[(LOX + a) * nodes + child[1]]);
            hi[a] = std::max(node[(HIX + a) * nodes + child[0]], node[(HIX + a) * nodes + child[1]]);
        }
        for (std::size_t c : child) {
            const T mc = node[M * nodes + c];
            m += mc;
            for (int a = 0; a < 3; ++a) w[a] += mc * node[(CX + a) * nodes + c];
        }
        T centre[3];
        for (int a = 0; a < 3; ++a) centre[a] = centre_of(m, w[a], lo[a], hi[a]);
        T s[6] = {0, 0, 0, 0, 0, 0}, reach = 0;
        for (std::size_t c : child) {
            for (int e = 0; e < 6; ++e) s[e] += node[(SXX + e) * nodes + c];
            const T ux = node[CX * nodes + c] - centre[0], uy = node[CY * nodes + c] - centre[1];
            const T uz = node[CZ * nodes + c] - centre[2];
            add_moments(s, node[M * nodes + c], ux, uy, uz);
            if (node[LOX * nodes + c] <= node[HIX * nodes + c])
                reach = std::max(reach, std::sqrt(ux * ux + uy * uy + uz * uz) + node[RADIUS * nodes + c]);
        }
        T corner2 = 0;
        for (int a = 0; a < 3; ++a) {
            const T r = std::max(hi[a] - centre[a], centre[a] - lo[a]);
            corner2 += r * r;
        }
        const T radius = std::min(std::sqrt(corner2), reach) * grow;
        store(node, nodes, k, m, centre, s, lo, hi, radius, theta_);
    }
}

template <class T>
void BarnesHut<T>::evaluate(T* ax, T* ay, T* az, T* pot) {
    if (pot) walk<true>(ax, ay, az, pot);
    else walk<false>(ax, ay, az, pot);
}

// Each group lists the sources its one path meets (depth first, as the device walks), then
// each of its bodies sums over the lists.
template <class T>
template <bool Potential>
void BarnesHut<T>::walk(T* ax, T* ay, T* az, T* pot) {
    const std::size_t n = bodies_.size();
    node_interactions_ = body_interactions_ = 0;
    if (n == 0) return;
    const std::size_t leaves = std::size_t(1) << levels_, nodes = 2 * leaves;
    const std::size_t groups = std::size_t(1) << TreeGravity::levels_for(n, group_size_);
    const Body* bodies = bodies_.data();
    const T* node = node_.data();
    const T eps2 = eps2_, G = G_;
    std::uint64_t listed_nodes = 0, listed_bodies = 0;
#pragma omp parallel reduction(+ : listed_nodes, listed_bodies)
    {
        Sources<T> sources;
        std::vector<std::uint32_t> stack;
#pragma omp for schedule(dynamic, 4)
        for (long long q = 0; q < static_cast<long long>(groups); ++q) {
            const std::size_t g = static_cast<std::size_t>(q);
            const std::size_t first = tree_start(g, groups, n), last = tree_start(g + 1, groups, n);
            if (first == last) continue;
            T lo[3] = {bodies[first].x, bodies[first].y, bodies[first].z};
            T hi[3] = {lo[0], lo[1], lo[2]};
            for (std::size_t i = first + 1; i < last; ++i) {
                const T p[3] = {bodies[i].x, bodies[i].y, bodies[i].z};
                for (int a = 0; a < 3; ++a) {
                    lo[a] = std::min(lo[a], p[a]);
                    hi[a] = std::max(hi[a], p[a]);
                }
            }
            sources.clear();
            stack.assign(1, 1u);
            while (!stack.empty()) {
                const std::size_t k = stack.back();
                stack.pop_back();
                if (!(node[M * nodes + k] > T(0))) continue;
                T g2 = 0;
                for (int a = 0; a < 3; ++a) {
                    const T c = node[(CX + a) * nodes + k];
                    const T gap = std::max(std::max(lo[a] - c, c - hi[a]), T(0));
                    g2 += gap * gap;
                }
                if (g2 > node[CRIT2 * nodes + k]) {
                    sources.add_node(node, nodes, k);
                } else if (k >= leaves) {
                    const std::size_t p = k - leaves;
                    const std::size_t begin = tree_start(p, leaves, n);
                    sources.add_bodies(bodies + begin, tree_start(p + 1, leaves, n) - begin);
                } else {
                    stack.push_back(static_cast<std::uint32_t>(2 * k + 1));
                    stack.push_back(static_cast<std::uint32_t>(2 * k));
                }
            }
            listed_nodes += sources.nodes * (last - first);
            listed_bodies += sources.bodies * (last - first);
            for (std::size_t i = first; i < last; ++i) {
                T sx, sy, sz, sp;
                sum_sources<Potential>(sources, bodies[i].x, bodies[i].y, bodies[i].z, eps2, sx, sy, sz, sp);
                const std::uint32_t b = bodies[i].index;
                ax[b] = G * sx;
                ay[b] = G * sy;
                az[b] = G * sz;
                if (Potential) pot[b] = -G * sp;
            }
        }
    }
    node_interactions_ = listed_nodes;
    body_interactions_ = listed_bodies;
}

template class BarnesHut<float>;
template class BarnesHut<double>;

} // namespace partcl::reference
