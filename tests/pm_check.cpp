// nbody/particle_mesh.cl's six kernels one by one against float64 host references on fresh random
// inputs, at a mesh of 5 nodes a side (the deposit's 3 x 3 x 3 cells all distinct, every
// stencil wrapping): the run of the kernel table (tests/test_oclgrind.cpp) for that file. The
// pipeline as a whole is tests/test_tree_pm.cpp's (against Ewald's sum).
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <deque>
#include <random>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

constexpr double pi = 3.14159265358979323846;

double tsc(double d) {
    const double a = std::fabs(d);
    return a < 0.5 ? 0.75 - a * a : a < 1.5 ? 0.5 * (1.5 - a) * (1.5 - a) : 0.0;
}

double sinc(double x) { return x != 0 ? std::sin(x) / x : 1.0; }

// The signed frequency of index i of `nodes`.
double frequency(std::size_t i, std::size_t nodes) {
    return double(i) - (2 * i > nodes ? double(nodes) : 0.0);
}

template <class T>
void run_typed(Precision precision) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const double eps = precision == Precision::float64 ? DBL_EPSILON : double(FLT_EPSILON);
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0), signed_unit(-1.0, 1.0);
    const std::size_t nodes = 5, points = nodes * nodes * nodes, n = 41;
    const double box = 2.5, inverse_h = double(T(nodes / box));
    std::deque<RealBuffer> keep;
    BuildOptions options;
    options.precision = precision;
    const Program program =
        build_program(context, Source::builtin("nbody/particle_mesh.cl"), options, memory_cache());
    auto buffer = [&](const std::vector<double>& values) -> RealBuffer& {
        keep.emplace_back(context, precision, values.size());
        keep.back().write(queue, values);
        return keep.back();
    };

    // pm_wrap: any coordinate to its image in [0, box), shifted.
    std::vector<double> raw(3 * n);
    for (double& x : raw) x = double(T(box * (4 * unit(rng) - 2)));
    raw[0] = double(T(-1e-7)), raw[1] = double(T(box)), raw[2] = 0;
    RealBuffer& raw_buffer = buffer(raw);
    RealBuffer& wrapped = buffer(std::vector<double>(3 * n, -1));
    const double shift = double(T(0.25));
    Kernel(program, "pm_wrap")
        .args(std::uint32_t(n), std::uint32_t(n), raw_buffer, Real{box}, std::uint32_t(nodes),
              Real{inverse_h}, Real{shift}, wrapped)
        .launch(queue, n);
    const auto w = wrapped.read(queue);
    for (std::size_t i = 0; i < 3 * n; ++i) {
        CAPTURE(raw[i]);
        CHECK(w[i] >= 0);
        CHECK(w[i] * inverse_h < double(nodes));
        const double x = raw[i] + shift, expected = x - box * std::floor(x / box);
        // Equal, or the same point across the box's edge (either side of it may round there).
        const double gap = std::fabs(w[i] - expected);
        CHECK(std::min(gap, box - gap) <= 8 * eps * (std::fabs(x) + box));
    }

    // pm_deposit: bodies sorted by cell on the host, cells computed as the kernel computes them.
    std::vector<double> pos(3 * n), mass(n);
    for (double& x : pos) x = double(T(box * unit(rng)));
    for (double& m : mass) m = double(T(0.5 + unit(rng)));
    auto cell_of = [&](std::size_t i, int a) {
        return std::min<std::size_t>(std::size_t(T(T(pos[a * n + i]) * T(inverse_h))), nodes - 1);
    };
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    auto cell_index = [&](std::size_t i) { return cell_of(i, 0) + nodes * (cell_of(i, 1) + nodes * cell_of(i, 2)); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cell_index(a) < cell_index(b); });
    std::vector<double> sorted(3 * n), sorted_mass(n);
    std::vector<std::uint32_t> start(points, 0), end(points, 0);
    for (std::size_t s = 0; s < n; ++s) {
        for (int a = 0; a < 3; ++a) sorted[a * n + s] = pos[a * n + order[s]];
        sorted_mass[s] = mass[order[s]];
    }
    for (std::size_t c = 0, s = 0; c < points; ++c) {
        start[c] = std::uint32_t(s);
        while (s < n && cell_index(order[s]) == c) ++s;
        end[c] = std::uint32_t(s);
    }
    const Buffer<std::uint32_t> start_buffer(context, start), end_buffer(context, end);
    RealBuffer& rho = buffer(std::vector<double>(2 * points, -1));
    RealBuffer& to_below = buffer(std::vector<double>(points, -1));
    RealBuffer& to_level = buffer(std::vector<double>(points, -1));
    RealBuffer& to_above = buffer(std::vector<double>(points, -1));
    RealBuffer& sorted_buffer = buffer(sorted);
    RealBuffer& sorted_mass_buffer = buffer(sorted_mass);
    Kernel(program, "pm_deposit_layer")
        .args(std::uint32_t(0), std::uint32_t(points), std::uint32_t(n), sorted_buffer, sorted_mass_buffer,
              start_buffer, end_buffer, std::uint32_t(nodes),
              Real{inverse_h}, to_below, to_level, to_above)
        .launch(queue, points);
    // Into the imaginary parts (the second interlaced mesh's); the real parts stay as they were.
    Kernel(program, "pm_deposit_sum")
        .args(std::uint32_t(0), std::uint32_t(points), std::uint32_t(nodes), Real{inverse_h}, to_below,
              to_level, to_above, std::uint32_t(1), rho)
        .launch(queue, points);
    std::vector<double> expected(points, 0), magnitude(points, 0);
    const double h3 = inverse_h * inverse_h * inverse_h;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t g = 0; g < points; ++g) {
            const std::size_t c[3] = {g % nodes, g / nodes % nodes, g / (nodes * nodes)};
            double weight = mass[i] * h3;
            for (int a = 0; a < 3; ++a) {
                double d = pos[a * n + i] * inverse_h - 0.5 - double(c[a]);  // the cells' frame
                d -= double(nodes) * std::nearbyint(d / double(nodes));  // nearest image
                weight *= tsc(d);
            }
            expected[g] += weight;
            magnitude[g] += std::fabs(weight);
        }
    const auto density = rho.read(queue);
    for (std::size_t g = 0; g < points; ++g) {
        CAPTURE(g);
        CHECK(std::fabs(density[2 * g + 1] - expected[g]) <= 64 * eps * (magnitude[g] + h3));
        CHECK(density[2 * g] == -1);
    }

    // pm_fields and pm_power on a random spectrum, taken as two meshes' densities' shared one.
    std::vector<double> spectrum(2 * points);
    for (double& v : spectrum) v = double(T(signed_unit(rng)));
    RealBuffer& spectrum_buffer = buffer(spectrum);
    auto mirror = [&](std::size_t g) {
        const std::size_t c[3] = {g % nodes, g / nodes % nodes, g / (nodes * nodes)};
        return (nodes - c[0]) % nodes + nodes * ((nodes - c[1]) % nodes + nodes * ((nodes - c[2]) % nodes));
    };
    // The two densities' spectra at g: (F_g + conj F_-g) / 2 and (F_g - conj F_-g) / 2i.
    auto split_at = [&](std::size_t g, std::complex<double>* rho) {
        const std::complex<double> f(spectrum[2 * g], spectrum[2 * g + 1]);
        const std::complex<double> m(spectrum[2 * mirror(g)], -spectrum[2 * mirror(g) + 1]);
        rho[0] = 0.5 * (f + m);
        rho[1] = (f - m) / std::complex<double>(0, 2);
    };
    {
        const double split = double(T(0.6)), scale = double(T(-4 * pi * 0.75 / double(points)));
        RealBuffer* outs[4];
        for (RealBuffer*& o : outs) o = &buffer(std::vector<double>(2 * points, -1));
        Kernel(program, "pm_fields")
            .args(std::uint32_t(points), std::uint32_t(nodes), Real{inverse_h}, Real{split * split}, Real{scale},
                  spectrum_buffer, *outs[0], *outs[1], *outs[2], *outs[3], std::uint32_t(1))
            .launch(queue, points);
        std::vector<double> got[4];
        for (int o = 0; o < 4; ++o) got[o] = outs[o]->read(queue);
        for (std::size_t g = 0; g < points; ++g) {
            const std::size_t c[3] = {g % nodes, g / nodes % nodes, g / (nodes * nodes)};
            double k2 = 0, window = 1, k[3];
            for (int a = 0; a < 3; ++a) {
                const double m = frequency(c[a], nodes), ka = 2 * pi * m * inverse_h / double(nodes);
                k2 += ka * ka;
                k[a] = 2 * c[a] == nodes ? 0.0 : ka;
                window *= sinc(pi * m / double(nodes));
            }
            const double factor = k2 > 0 ? scale * std::exp(-k2 * split * split) / (k2 * std::pow(window, 6))
                                         : -scale * split * split;
            std::complex<double> rho[2];
            split_at(g, rho);
            const std::complex<double> phi[2] = {factor * rho[0], factor * rho[1]}, minus_i(0, -1);
            // Mesh 0's x, y, z then mesh 1's, two to a buffer, then the potentials.
            std::complex<double> field[6];
            for (int mesh = 0; mesh < 2; ++mesh)
                for (int a = 0; a < 3; ++a) field[3 * mesh + a] = minus_i * k[a] * phi[mesh];
            const std::complex<double> i(0, 1);
            const std::complex<double> expected_out[4] = {field[0] + i * field[1], field[2] + i * field[3],
                                                          field[4] + i * field[5], phi[0] + i * phi[1]};
            const double size = std::fabs(factor) * (std::abs(rho[0]) + std::abs(rho[1])) *
                                (1 + std::fabs(k[0]) + std::fabs(k[1]) + std::fabs(k[2]));
            for (int o = 0; o < 4; ++o) {
                CAPTURE(g);
                CAPTURE(o);
                CHECK(std::fabs(got[o][2 * g] - expected_out[o].real()) <= 64 * eps * size + 1e-300);
                CHECK(std::fabs(got[o][2 * g + 1] - expected_out[o].imag()) <= 64 * eps * size + 1e-300);
            }
        }
    }
    {
        // The second mesh's spectrum turned back by exp(i k.s), s half a cell, and averaged.
        RealBuffer& power = buffer(std::vector<double>(points, -1));
        Kernel(program, "pm_power")
            .args(std::uint32_t(points), std::uint32_t(nodes), spectrum_buffer, power)
            .launch(queue, points);
        const auto got = power.read(queue);
        for (std::size_t g = 0; g < points; ++g) {
            const std::size_t c[3] = {g % nodes, g / nodes % nodes, g / (nodes * nodes)};
            double phase = 0, window = 1;
            for (int a = 0; a < 3; ++a) {
                const double x = pi * frequency(c[a], nodes) / double(nodes);
                phase += x;
                window *= sinc(x);
            }
            std::complex<double> rho[2];
            split_at(g, rho);
            const std::complex<double> mean = 0.5 * (rho[0] + rho[1] * std::polar(1.0, phase));
            const double expected_power = std::norm(mean) / std::pow(window, 6);
            CAPTURE(g);
            CHECK(std::fabs(got[g] - expected_power) <= 64 * eps * (4 / std::pow(window, 6)));
        }
    }

    // pm_interpolate: random fields and potential at the nodes, added to guards, weighted.
    std::vector<double> field[3], phi(2 * points), out(3 * n), pot(n);
    for (auto& f : field) {
        f.resize(2 * points);
        for (double& v : f) v = double(T(signed_unit(rng)));
    }
    for (double& v : phi) v = double(T(signed_unit(rng)));
    for (double& v : out) v = double(T(signed_unit(rng)));
    for (double& v : pot) v = double(T(signed_unit(rng)));
    RealBuffer& out_buffer = buffer(out);
    RealBuffer& pot_buffer = buffer(pot);
    const double self = double(T(0.3)), weight = 0.5;
    const std::uint32_t part[4] = {1, 0, 1, 1};  // which half of each buffer: x, y, z, phi
    // The bodies in cell order, each result written at its own index.
    const Buffer<std::uint32_t> order_buffer(context, std::vector<std::uint32_t>(order.begin(), order.end()));
    Kernel(program, "pm_interpolate")
        .args(std::uint32_t(n), std::uint32_t(n), sorted_buffer, sorted_mass_buffer, order_buffer,
              std::uint32_t(nodes),
              Real{inverse_h}, buffer(field[0]), buffer(field[1]), buffer(field[2]), buffer(phi), part[0],
              part[1], part[2], part[3], out_buffer, std::uint32_t(0), std::uint32_t(n), pot_buffer,
              std::uint32_t(1), Real{self},
              Real{weight})
        .launch(queue, n);
    const auto got_out = out_buffer.read(queue), got_pot = pot_buffer.read(queue);
    for (std::size_t i = 0; i < n; ++i) {
        double sum[4] = {0, 0, 0, 0}, size = 0;
        for (std::size_t g = 0; g < points; ++g) {
            const std::size_t c[3] = {g % nodes, g / nodes % nodes, g / (nodes * nodes)};
            double wg = 1;
            for (int a = 0; a < 3; ++a) {
                double d = pos[a * n + i] * inverse_h - 0.5 - double(c[a]);  // the cells' frame
                d -= double(nodes) * std::nearbyint(d / double(nodes));
                wg *= tsc(d);
            }
            for (int a = 0; a < 3; ++a) sum[a] += wg * field[a][2 * g + part[a]];
            sum[3] += wg * phi[2 * g + part[3]];
            size += wg;
        }
        CAPTURE(i);
        for (int a = 0; a < 3; ++a)
            CHECK(std::fabs(got_out[a * n + i] - (out[a * n + i] + weight * sum[a])) <= 64 * eps * (size + 1));
        CHECK(std::fabs(got_pot[i] - (pot[i] + weight * (sum[3] + self * mass[i]))) <= 64 * eps * (size + 2));
    }
}

} // namespace

void run_particle_mesh_kernel(Precision precision) {
    if (precision == Precision::float64)
        run_typed<double>(precision);
    else
        run_typed<float>(precision);
}

} // namespace partcl_test
