#include "pic_check.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

constexpr double two_pi = 6.283185307179586;

template <class T>
void check_typed(Precision precision, int dims, unsigned per_axis, std::size_t n) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(dims);
    CAPTURE(per_axis);
    CAPTURE(n);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    const double eps = std::numeric_limits<T>::epsilon();

    // Unequal axes catch a swapped index; dx not a power of 2 makes x / dx round.
    const std::uint32_t nodes[3] = {per_axis, std::uint32_t(dims >= 2 ? per_axis + 1 : 1),
                              std::uint32_t(dims >= 3 ? per_axis + 2 : 1)};
    const std::size_t points = std::size_t(nodes[0]) * nodes[1] * nodes[2];
    const double dx = 0.3, inverse_dx = 1 / dx;
    const std::size_t stride = n + 3;  // padding after the particles must stay untouched

    BuildOptions options;
    options.precision = precision;
    options.define("PIC_DIMENSIONS", dims);
    const Program program = build_program(context, Source::builtin("pic/pic.cl"), options,
                                          memory_cache());
    auto grid_args = [&](Kernel& k, std::uint32_t first) {
        k.arg(first, nodes[0]).arg(first + 1, nodes[1]).arg(first + 2, nodes[2])
            .arg(first + 3, Real{inverse_dx});
    };

    // Particles in the box, three species; a few on cell faces and at the lower edge.
    const double density[3] = {-1.5, 0.75, 2.0}, qm[3] = {-3.0, 0.5, 1.25};
    std::vector<T> x(3 * stride, T(0)), v(3 * stride, T(0));
    std::vector<std::uint32_t> species(n);
    for (std::size_t i = 0; i < n; ++i) {
        species[i] = std::uint32_t(rng() % 3);
        for (int k = 0; k < dims; ++k) {
            const double t = i % 7 == 3 ? double(rng() % nodes[k]) : u01(rng) * nodes[k];
            x[k * stride + i] = T(std::min(t * dx, std::nextafter(nodes[k] * dx, 0.0)));
            v[k * stride + i] = T(2 * u01(rng) - 1);
        }
    }
    // The cell and fraction of a particle as the kernel finds them (t in T), in double.
    auto locate = [&](const std::vector<T>& pos, std::size_t i, int k, double& f) {
        const T t = pos[k * stride + i] * T(inverse_dx);
        const std::uint32_t c = std::min(std::uint32_t(t), nodes[k] - 1);
        f = double(t) - c;
        return c;
    };
    auto corner = [&](const std::uint32_t cell[3], int b) {
        std::size_t node = 0, scale = 1;
        for (int k = 0; k < dims; ++k) {
            const std::uint32_t c = (cell[k] + ((b >> k) & 1)) % nodes[k];
            node += c * scale;
            scale *= nodes[k];
        }
        return node;
    };
    auto weight = [&](const double f[3], int b) {
        double w = 1;
        for (int k = 0; k < dims; ++k) w *= ((b >> k) & 1) ? f[k] : 1 - f[k];
        return w;
    };

    // Host sort by cell (stable), cell ranges.
    std::vector<std::size_t> cell_of(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t c = 0, scale = 1;
        for (int k = 0; k < dims; ++k) {
            double f;
            c += locate(x, i, k, f) * scale;
            scale *= nodes[k];
        }
        cell_of[i] = c;
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cell_of[a] < cell_of[b]; });
    std::vector<T> xs(3 * stride, T(0));
    std::vector<std::uint32_t> ss(n), start(points, 0), end(points, 0);
    for (std::size_t s = 0; s < n; ++s) {
        for (int k = 0; k < 3; ++k) xs[k * stride + s] = x[k * stride + order[s]];
        ss[s] = species[order[s]];
        const std::size_t c = cell_of[order[s]];
        if (s == 0 || cell_of[order[s - 1]] != c) start[c] = std::uint32_t(s);
        end[c] = std::uint32_t(s + 1);
    }

    // Reference density, and the sum of |contributions| per node for the bound.
    std::vector<double> rho(points, 0), magnitude(points, 0);
    std::vector<std::size_t> count(points, 0);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t cell[3] = {0, 0, 0};
        double f[3] = {0, 0, 0};
        for (int k = 0; k < dims; ++k) cell[k] = locate(x, i, k, f[k]);
        const double q = double(T(density[species[i]]));
        total += q;
        for (int b = 0; b < (1 << dims); ++b) {
            const std::size_t g = corner(cell, b);
            rho[g] += q * weight(f, b);
            magnitude[g] += std::abs(q) * weight(f, b);
            ++count[g];
        }
    }
    // Each weight is a product of D factors, each within 2 ulp, so a contribution is within
    // (2 D + 1) eps of |q w| and a sum of m of them adds m eps of the running magnitude:
    // |error| <= (2 D + 1 + m) eps sum |q w|. Twice that for slack.
    auto bound = [&](std::size_t g) { return 2 * (2 * dims + 1 + count[g]) * eps * magnitude[g] + 1e-300; };

    Buffer<T> species_density(context, std::vector<T>{T(density[0]), T(density[1]), T(density[2])});
    Buffer<T> species_qm(context, std::vector<T>{T(qm[0]), T(qm[1]), T(qm[2])});
    std::vector<std::vector<double>> deposits;
    for (const bool atomic : {true, false}) {
        CAPTURE(atomic);
        Buffer<T> positions(context, atomic ? x : xs), out(context, 2 * points + 2);
        out.fill(queue, atomic ? T(0) : T(-7)).wait();
        Buffer<std::uint32_t> sp(context, atomic ? species : ss), bstart(context, start),
            bend(context, end);
        if (atomic) {
            Kernel k(program, "pic_deposit_atomic");
            k.args(std::uint32_t(0), std::uint32_t(n), std::uint32_t(stride), positions, sp,
                   species_density);
            grid_args(k, 6);
            k.arg(10, out);
            k.launch(queue, n, 16).wait();
        } else {
            Kernel k(program, "pic_deposit_gather");
            k.args(std::uint32_t(0), std::uint32_t(points), std::uint32_t(stride), positions, sp,
                   species_density, bstart, bend);
            grid_args(k, 8);
            k.arg(12, out).arg(13, std::uint32_t(0));
            k.launch(queue, points, 16).wait();
        }
        const auto got = out.read(queue);
        std::vector<double> rho_got(points);
        double sum = 0;
        for (std::size_t g = 0; g < points; ++g) {
            CAPTURE(g);
            rho_got[g] = double(got[2 * g]);
            sum += rho_got[g];
            CHECK(std::abs(rho_got[g] - rho[g]) <= bound(g));
            CHECK(got[2 * g + 1] == T(0));
        }
        CHECK(got[2 * points] == (atomic ? T(0) : T(-7)));
        // Charge is conserved: the weights of a particle sum to 1 up to (2 D + 1) eps each.
        double all = 0;
        for (double m : magnitude) all += m;
        CHECK(std::abs(sum - total) <= 2 * (2 * dims + 1 + n) * eps * all + 1e-300);
        deposits.push_back(rho_got);
    }
    for (std::size_t g = 0; g < points; ++g)
        CHECK(std::abs(deposits[0][g] - deposits[1][g]) <= 2 * bound(g));

    // Poisson: random complex data times 1 / (k^2 points), k = 0 zeroed; the whole grid's
    // spectrum, and (over several ranks) a rank's columns of it, the slab axis slowest.
    const std::size_t plane = points / nodes[dims - 1];
    for (const std::size_t first : {std::size_t(0), plane / 3}) {  // all columns in 1-D
        const std::size_t columns = plane - first, count = nodes[dims - 1] * columns;
        CAPTURE(first);
        std::vector<T> data(2 * count);
        for (auto& d : data) d = T(2 * u01(rng) - 1);
        Buffer<T> b(context, data);
        Kernel k(program, "pic_poisson");
        k.args(std::uint32_t(count), std::uint32_t(first), std::uint32_t(columns));
        grid_args(k, 3);
        k.arg(7, b);
        k.launch(queue, count, 16).wait();
        const auto got = b.read(queue);
        for (std::size_t g = 0; g < count; ++g) {
            CAPTURE(g);
            const std::size_t s = g / columns, q = first + g % columns;
            std::size_t index[3] = {q % nodes[0], q / nodes[0] % nodes[1], 0};
            index[dims - 1] = s;
            double k2 = 0;
            for (int a = 0; a < dims; ++a) {
                const long i = long(index[a]);
                const long m = 2 * i > long(nodes[a]) ? i - long(nodes[a]) : i;
                const double kk = two_pi * double(m) / (nodes[a] * dx);
                k2 += kk * kk;
            }
            const double factor = k2 == 0 ? 0 : 1 / (k2 * double(points));
            // A handful of roundings of the factor, each within eps relative.
            for (int c = 0; c < 2; ++c)
                CHECK(std::abs(double(got[2 * g + c]) - double(data[2 * g + c]) * factor) <=
                      10 * eps * std::abs(double(data[2 * g + c]) * factor) + 1e-300);
        }
    }

    // Field: centred differences of the real part.
    std::vector<T> phi(2 * points);
    for (auto& p : phi) p = T(2 * u01(rng) - 1);
    {
        Buffer<T> b(context, phi), field(context, dims * points + 1);
        field.fill(queue, T(-7)).wait();
        Kernel k(program, "pic_field");
        k.args(std::uint32_t(0), std::uint32_t(points), b);
        grid_args(k, 3);
        k.arg(7, field).arg(8, std::uint32_t(0)).arg(9, std::uint32_t(points));
        k.launch(queue, points, 16).wait();
        const auto got = field.read(queue);
        for (std::size_t g = 0; g < points; ++g) {
            std::size_t scale = 1;
            for (int a = 0; a < dims; ++a) {
                CAPTURE(g);
                CAPTURE(a);
                const std::size_t i = (g / scale) % nodes[a];
                const std::size_t below = g - i * scale + ((i + nodes[a] - 1) % nodes[a]) * scale;
                const std::size_t above = g - i * scale + ((i + 1) % nodes[a]) * scale;
                const double want = (double(phi[2 * below]) - double(phi[2 * above])) / (2 * dx);
                // One subtraction and two multiplications of values <= 1 by 1 / (2 dx).
                CHECK(std::abs(double(got[a * points + g]) - want) <= 8 * eps * inverse_dx);
                scale *= nodes[a];
            }
        }
        CHECK(got[dims * points] == T(-7));
    }

    // Push: random field, the gather with the deposit's weights, leapfrog, periodic wrap along
    // every axis, or (over several ranks) along all but the slowest.
    for (const std::uint32_t wrap : {7u, (1u << (dims - 1)) - 1u}) {
        CAPTURE(wrap);
        std::vector<T> field(dims * points);
        for (auto& e : field) e = T(2 * u01(rng) - 1);
        const double dt_v = 0.07, dt_x = 0.11;  // speeds up to ~1.5 cross a cell in 2 steps
        // Some particles leave the box across the lower and upper faces.
        std::vector<T> vv = v;
        for (std::size_t i = 0; i < n; i += 5) vv[i] = T(i % 2 ? 30.0 : -30.0);
        Buffer<T> positions(context, x), velocities(context, vv), bfield(context, field);
        Buffer<std::uint32_t> sp(context, species);
        Kernel k(program, "pic_push");
        k.args(std::uint32_t(0), std::uint32_t(n), std::uint32_t(stride), positions, velocities,
               sp, species_qm, bfield);
        grid_args(k, 8);
        k.arg(12, Real{dt_v}).arg(13, Real{dt_x});
        // In place: the kernel reads each particle before writing it.
        k.arg(14, positions).arg(15, velocities).arg(16, std::uint32_t(0)).arg(17, std::uint32_t(stride));
        k.arg(18, wrap);
        k.launch(queue, n, 16).wait();
        const auto gx = positions.read(queue), gv = velocities.read(queue);
        for (std::size_t i = 0; i < n; ++i) {
            CAPTURE(i);
            std::uint32_t cell[3] = {0, 0, 0};
            double f[3] = {0, 0, 0};
            for (int a = 0; a < dims; ++a) cell[a] = locate(x, i, a, f[a]);
            for (int a = 0; a < dims; ++a) {
                CAPTURE(a);
                double e = 0;
                for (int b = 0; b < (1 << dims); ++b) e += weight(f, b) * double(field[a * points + corner(cell, b)]);
                const double vn = double(vv[a * stride + i]) + double(T(qm[species[i]])) * e * dt_v;
                const double length = nodes[a] * dx;
                double xn = double(x[a * stride + i]) + vn * dt_x;
                // E within (2 D + 3) eps (weights and sum of values <= 1), v then a few eps
                // of |v| + |qm E dt|; x within eps of |x| + |v dt| + length (the wrap).
                const double dv = 4 * (2 * dims + 6) * eps * (std::abs(vn) + 1);
                const double bound = dv * dt_x + 8 * eps * (length + std::abs(vn * dt_x));
                CHECK(std::abs(double(gv[a * stride + i]) - vn) <= dv);
                if (!((wrap >> a) & 1)) {  // left where the step took it
                    CHECK(std::abs(double(gx[a * stride + i]) - xn) <= bound);
                    continue;
                }
                xn -= length * std::floor(xn / length);
                const double got = double(gx[a * stride + i]);
                CHECK(got >= 0);
                CHECK(got < length);
                double dxp = std::abs(got - xn);
                dxp = std::min(dxp, length - dxp);
                CHECK(dxp <= bound);
            }
        }
        for (std::size_t i = n; i < stride; ++i) CHECK(gx[i] == T(0));
    }

    // The particles leaving a slab of the slowest axis's first planes - 1 planes (some of the
    // test's particles lie beyond it, and some below 0 and above the box, put there below),
    // packed in order, the others kept in order.
    {
        const int axis = dims - 1;
        const std::uint32_t planes = nodes[axis] - 1;
        std::vector<T> xl = x;
        for (std::size_t i = 0; i < n; i += 4)
            xl[axis * stride + i] = T(i % 8 ? -0.4 * dx * u01(rng) : (nodes[axis] + u01(rng)) * dx);
        std::vector<std::uint32_t> flags(n), offsets(n);
        std::uint32_t leaving = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const T t = xl[axis * stride + i] * T(inverse_dx);
            flags[i] = t < T(0) || t >= T(planes) ? 1u : 0u;
            offsets[i] = leaving;
            leaving += flags[i];
        }
        CAPTURE(leaving);
        Buffer<T> positions(context, xl), velocities(context, v);
        Buffer<std::uint32_t> sp(context, species), bflags(context, std::vector<std::uint32_t>(n + 1, 7u));
        Kernel flag(program, "pic_leaving");
        flag.args(std::uint32_t(n), std::uint32_t(stride), positions, Real{inverse_dx}, planes, bflags);
        flag.launch(queue, n, 16).wait();
        const auto got_flags = bflags.read(queue);
        for (std::size_t i = 0; i < n; ++i) CHECK(got_flags[i] == flags[i]);
        CHECK(got_flags[n] == 7u);

        const std::size_t kept = n - leaving, out_stride = n + 5;
        Buffer<std::uint32_t> boffsets(context, offsets),
            new_species(context, std::vector<std::uint32_t>(out_stride, 9u)),
            pack_species(context, std::vector<std::uint32_t>(leaving + 1, 9u));
        Buffer<T> new_x(context, std::vector<T>(3 * out_stride, T(-7))),
            new_v(context, std::vector<T>(3 * out_stride, T(-7))),
            pack(context, std::vector<T>(2 * dims * leaving + 1, T(-7)));
        Kernel part(program, "pic_partition");
        part.args(std::uint32_t(n), std::uint32_t(stride), positions, velocities, sp, bflags, boffsets,
                  std::uint32_t(out_stride), new_x, new_v, new_species, leaving, pack, pack_species);
        part.launch(queue, n, 16).wait();
        const auto gx = new_x.read(queue), gv = new_v.read(queue), gp = pack.read(queue);
        const auto gs = new_species.read(queue), gps = pack_species.read(queue);
        std::size_t j = 0, s = 0;
        for (std::size_t i = 0; i < n; ++i) {
            CAPTURE(i);
            for (int k = 0; k < dims; ++k) {
                if (flags[i]) {
                    CHECK(gp[k * leaving + j] == xl[k * stride + i]);
                    CHECK(gp[(dims + k) * leaving + j] == v[k * stride + i]);
                } else {
                    CHECK(gx[k * out_stride + s] == xl[k * stride + i]);
                    CHECK(gv[k * out_stride + s] == v[k * stride + i]);
                }
            }
            if (flags[i]) CHECK(gps[j++] == species[i]);
            else CHECK(gs[s++] == species[i]);
        }
        CHECK(s == kept);
        CHECK(gs[kept] == 9u);
        CHECK(gps[leaving] == 9u);
        CHECK(gp[2 * dims * leaving] == T(-7));
    }
}

} // namespace

void check_pic_kernels(Precision precision, int dimensions, unsigned nodes_per_axis,
                       std::size_t particles) {
    if (precision == Precision::float64)
        check_typed<double>(precision, dimensions, nodes_per_axis, particles);
    else
        check_typed<float>(precision, dimensions, nodes_per_axis, particles);
}

PicParticles random_pic_particles(const PicGrid& grid, std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    PicParticles p;
    p.dimensions = grid.dimensions;
    for (int k = 0; k < grid.dimensions; ++k)
        for (std::size_t i = 0; i < n; ++i) p.position.push_back(u(rng) * grid.length(k));
    for (std::size_t i = 0; i < grid.dimensions * n; ++i) p.velocity.push_back(u(rng) - 0.5);
    for (std::size_t i = 0; i < n; ++i) p.species.push_back(std::uint32_t(i % 3 == 0));
    return p;
}

} // namespace partcl_test
