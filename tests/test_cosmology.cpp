// The cosmological background and linear power spectrum (models/cosmology/cosmology.hpp)
// against closed forms, and ParticleMesh::power_spectrum against densities whose spectrum is
// known: a plane wave on a lattice, and Poisson noise.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <partcl/partcl.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::memory_cache;
using partcl_test::test_context;

namespace {

constexpr double pi = 3.14159265358979323846;

// The growing mode of a flat Lambda-CDM universe in closed form (Heath 1977):
// D(a) proportional to E(a) integral_0^a da' / (a' E(a'))^3, by Simpson's rule in a.
double heath_growth(const cosmology::Background& b, double a) {
    const int steps = 20000;
    const double h = a / steps;
    auto f = [&](double x) { return x <= 0 ? 0.0 : std::pow(x * b.e(x), -3.0); };
    double sum = f(0) + f(a);
    for (int i = 1; i < steps; ++i) sum += (i % 2 ? 4 : 2) * f(i * h);
    return b.e(a) * sum * h / 3;
}

} // namespace

TEST_SUITE("cosmology") {

TEST_CASE("Einstein-de Sitter: D = a, f = 1, and the drift and kick integrals in closed form") {
    cosmology::Parameters p;
    p.omega_matter = 1, p.omega_lambda = 0, p.omega_baryon = 0.04;
    const cosmology::Background b(p);
    for (double a : {0.001, 0.02, 0.1, 0.5, 1.0}) {
        CAPTURE(a);
        CHECK(b.growth(a) == doctest::Approx(a).epsilon(1e-7));
        CHECK(b.growth_rate(a) == doctest::Approx(1).epsilon(1e-6));
        CHECK(b.e(a) == doctest::Approx(std::pow(a, -1.5)).epsilon(1e-12));
    }
    const double h0 = cosmology::hubble_constant;
    // H = H0 a^-3/2: integral da / (a^3 H) = 2 (a0^-1/2 - a1^-1/2) / H0, da / (a^2 H) =
    // 2 (a1^1/2 - a0^1/2) / H0.
    CHECK(b.drift(0.02, 0.5) == doctest::Approx(2 * (1 / std::sqrt(0.02) - 1 / std::sqrt(0.5)) / h0).epsilon(1e-9));
    CHECK(b.kick(0.02, 0.5) == doctest::Approx(2 * (std::sqrt(0.5) - std::sqrt(0.02)) / h0).epsilon(1e-9));
}

TEST_CASE("Lambda-CDM: the growth equation's solution is Heath's integral") {
    cosmology::Parameters p;  // Omega_m 0.3, Omega_Lambda 0.7
    const cosmology::Background b(p);
    const double norm = heath_growth(b, 1.0);
    for (double a : {0.02, 0.1, 0.25, 0.5, 0.8}) {
        CAPTURE(a);
        CHECK(b.growth(a) == doctest::Approx(heath_growth(b, a) / norm).epsilon(1e-6));
    }
    // Growth is suppressed by Lambda: D(1) / D_matter(1) = 0.779 for these densities, and the
    // rate is Omega_m(a)^0.55 to within its 1% (Linder 2005).
    CHECK(b.growth(0.02) / 0.02 == doctest::Approx(1 / 0.7789).epsilon(2e-3));
    CHECK(b.growth_rate(1.0) == doctest::Approx(std::pow(0.3, 0.55)).epsilon(1e-2));
    const double a = 0.5, om = 0.3 / (a * a * a) / (b.e(a) * b.e(a));
    CHECK(b.growth_rate(a) == doctest::Approx(std::pow(om, 0.55)).epsilon(1e-2));
    CHECK_THROWS_AS(b.growth(1e-4), UsageError);
}

TEST_CASE("the linear power spectrum: normalised to sigma8, the transfer function's limits") {
    cosmology::Parameters p;
    const cosmology::LinearPower power(p);
    CHECK(power.sigma(8.0) == doctest::Approx(p.sigma8).epsilon(1e-9));
    // Smaller spheres see more of the spectrum.
    CHECK(power.sigma(4.0) > power.sigma(8.0));
    CHECK(cosmology::transfer_no_wiggle(p, 1e-5) == doctest::Approx(1).epsilon(1e-3));
    double previous = 2;
    for (double k = 1e-4; k < 100; k *= 1.5) {
        const double t = cosmology::transfer_no_wiggle(p, k);
        CHECK(t < previous);
        previous = t;
    }
    // Small scales: T falls as ln(k) / k^2, so doubling k divides it by a little less than 4.
    const double t1 = cosmology::transfer_no_wiggle(p, 50), t2 = cosmology::transfer_no_wiggle(p, 100);
    CHECK(t2 / t1 > 0.25);
    CHECK(t2 / t1 < 0.3);
    cosmology::Parameters bad = p;
    bad.omega_baryon = 0.5;
    CHECK_THROWS_WITH_AS(cosmology::LinearPower{bad}, doctest::Contains("Omega_baryon"), UsageError);
}

TEST_CASE("power_spectrum: a plane wave on a lattice gives its power in its shell, Poisson noise its shot noise") {
    Context& context = test_context();
    const double box = 50.0;
    const std::size_t nodes = 32;
    MeshParameters mp;
    mp.box = box, mp.nodes = nodes, mp.split = 1.25 * box / double(nodes);
    ParticleMesh mesh(context, Precision::float64, mp, memory_cache());

    // A lattice of nodes^3 bodies displaced along x by A sin(k0 q), k0 the fundamental: delta =
    // -A k0 cos(k0 q) to first order (exactly: its mode is the Bessel J1(A k0), 1e-5 less), so
    // the modes +-k0 hold V (A k0)^2 / 4 each. The lattice's harmonics at k0 + 2 K (K the
    // mesh's frequency; the odd ones cancel between the interlaced meshes) alias onto k0: at
    // wave = 3 they add 1.3%, at the fundamental 0.1%.
    const std::size_t side = nodes, n = side * side * side, wave = 1;
    const double k0 = 2 * pi * double(wave) / box, amplitude = 0.01 / k0, spacing = box / double(side);
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double qx = (double(i % side) + 0.5) * spacing;
        b.x[i] = qx + amplitude * std::sin(k0 * qx);
        b.y[i] = (double(i / side % side) + 0.5) * spacing;
        b.z[i] = (double(i / (side * side)) + 0.5) * spacing;
        b.m[i] = 1.0;
    }
    DeviceBodies bodies(context, Precision::float64, b);
    const PowerSpectrum lattice = mesh.power_spectrum(bodies.state, bodies.mass, n);
    const double volume = box * box * box, expected_mode = volume * (amplitude * k0) * (amplitude * k0) / 4;
    CHECK(lattice.shot_noise == doctest::Approx(volume / double(n)));
    for (const PowerBin& bin : lattice.bins) {
        CAPTURE(bin.index);
        if (bin.index == wave)
            CHECK(bin.power * double(bin.modes) / 2 == doctest::Approx(expected_mode).epsilon(2e-3));
        else  // the lattice has none of its own; the wave's harmonics, J_m(m A k0), are tiny
            CHECK(bin.power < 1e-4 * expected_mode);
    }

    // Poisson noise: every shell at the shot noise V / n, within the scatter of its modes (each
    // mode's power is exponentially distributed: the mean of m modes scatters by 1 / sqrt(m)).
    const std::uint32_t seed = partcl_test::fresh_seed();
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, box);
    for (std::size_t i = 0; i < n; ++i) b.x[i] = u(rng), b.y[i] = u(rng), b.z[i] = u(rng);
    bodies.upload(context.queue(0), b);
    const PowerSpectrum noise = mesh.power_spectrum(bodies.state, bodies.mass, n);
    for (const PowerBin& bin : noise.bins) {
        if (bin.index > nodes / 4) break;  // the deconvolved aliases lift the noise near Nyquist
        CAPTURE(bin.index);
        CHECK(bin.power / noise.shot_noise == doctest::Approx(1).epsilon(5 / std::sqrt(double(bin.modes)) + 0.02));
    }
}

TEST_CASE("initial conditions: the linear spectrum at the start, the seed alone decides, 2LPT a small correction") {
    Context& context = test_context();
    cosmology::Parameters p;
    cosmology::InitialConditions o;
    o.side = 32, o.box = 200, o.redshift = 49;
    o.seed = partcl_test::fresh_seed();
    CAPTURE(o.seed);
    const Bodies b = cosmology::make_initial_conditions(context, p, o);
    const std::size_t n = b.size();
    REQUIRE(n == 32 * 32 * 32);
    // Mass: Omega_m rho_crit V / n, rho_crit = 3 H0^2 / (8 pi G) = 27.7538 (1e10 Msun/h) / (Mpc/h)^3
    // with G = 4.30091e-9 Mpc (km/s)^2 / Msun.
    CHECK(b.m[0] == doctest::Approx(0.3 * 27.7538 * 200.0 * 200.0 * 200.0 / double(n)).epsilon(1e-5));

    // The spectrum measured from the bodies against the linear one times D(a)^2, shell by shell
    // up to half the Nyquist frequency: the ratio r of a shell of M modes (M / 2 independent:
    // +-k are one) scatters with variance 2 / M. Each shell within 4 sigma plus 15% (a shell's
    // spread in k), and chi^2 = sum (r - 1)^2 M / 2 over the shells within 40 (8 shells:
    // exceeded by chance once in 10^6 runs; 5% too much power everywhere adds about 10).
    MeshParameters mp;
    mp.box = o.box, mp.nodes = o.side, mp.split = 1.25 * o.box / double(o.side);
    ParticleMesh mesh(context, Precision::float64, mp, memory_cache());
    DeviceBodies bodies(context, Precision::float64, b);
    const PowerSpectrum measured = mesh.power_spectrum(bodies.state, bodies.mass, n);
    const cosmology::Background background(p);
    const cosmology::LinearPower linear(p);
    const double d = background.growth(cosmology::scale_factor(o.redshift));
    double chi2 = 0;
    int shells = 0;
    for (const PowerBin& bin : measured.bins) {
        if (bin.index > o.side / 4) break;
        const double ratio = bin.power / (linear(bin.k) * d * d);
        CAPTURE(bin.index);
        CHECK(ratio == doctest::Approx(1).epsilon(4 * std::sqrt(2.0 / double(bin.modes)) + 0.15));
        chi2 += (ratio - 1) * (ratio - 1) * double(bin.modes) / 2;
        ++shells;
    }
    MESSAGE("spectrum of the initial conditions: chi^2 " << chi2 << " over " << shells << " shells");
    CHECK(chi2 <= 40);

    // The same seed gives the same bodies; another seed others.
    const Bodies again = cosmology::make_initial_conditions(context, p, o);
    CHECK(again.x == b.x);
    CHECK(again.vz == b.vz);
    cosmology::InitialConditions other = o;
    other.seed = o.seed + 1;
    CHECK(cosmology::make_initial_conditions(context, p, other).x != b.x);

    // 2LPT moves the bodies by a second-order amount: a few percent of the first order's
    // displacement at z = 49.
    cosmology::InitialConditions first_order = o;
    first_order.second_order = false;
    const Bodies za = cosmology::make_initial_conditions(context, p, first_order);
    const double spacing = o.box / double(o.side);
    double psi1 = 0, psi2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double lattice = double(i % o.side) * spacing;
        double d1 = za.x[i] - lattice, d2 = b.x[i] - za.x[i];
        d1 -= o.box * std::nearbyint(d1 / o.box);
        d2 -= o.box * std::nearbyint(d2 / o.box);
        psi1 += d1 * d1, psi2 += d2 * d2;
    }
    const double ratio = std::sqrt(psi2 / psi1);
    MESSAGE("rms displacement at z = 49: " << std::sqrt(psi1 / double(n)) << " Mpc/h; 2LPT's over Zel'dovich's " << ratio);
    CHECK(ratio > 1e-4);
    CHECK(ratio < 0.1);
    cosmology::InitialConditions bad = o;
    bad.redshift = 2000;
    CHECK_THROWS_WITH_AS(cosmology::make_initial_conditions(context, p, bad), doctest::Contains("redshift"), UsageError);
}

TEST_CASE("a Zel'dovich pancake: TreePM and the comoving leapfrog follow the exact solution to shell crossing") {
    // One plane wave along x in Lambda-CDM: x = q - D(a) / (D_c k) sin(k q) is exact for a
    // planar wave until its sheets cross at D = D_c (here D_c = D(1) = 1), the velocities
    // u = a^2 H f D psi0. From z = 49 to D = 0.25 in 50 steps uniform in ln a; 8 sheets of
    // 16 x 16 bodies, a 16^3 mesh; the bound, 1e-3 of the amplitude, for positions and
    // velocities (measured 5.5e-4 and 5.6e-4). The sheets are twice as far apart as their
    // bodies: sheets that come as close as their bodies' spacing feel each other's granularity,
    // which moved bodies by 4.5e-3 of the amplitude with 16^3 bodies (docs/cosmology.md).
    cosmology::Parameters p;
    const cosmology::Background background(p);
    const double box = 64, k = 2 * pi / box, a_start = cosmology::scale_factor(49), d_end = 0.25;
    double lo = a_start, hi = 1;  // a at which D = d_end
    for (int i = 0; i < 60; ++i) (background.growth(0.5 * (lo + hi)) < d_end ? lo : hi) = 0.5 * (lo + hi);
    const double a_end = 0.5 * (lo + hi);
    const std::size_t sheets = 8, across = 16, n = sheets * across * across;
    const double rho_crit = 3 * cosmology::hubble_constant * cosmology::hubble_constant /
                            (8 * pi * cosmology::gravitational_constant);
    auto exact = [&](double a, Bodies& b) {
        const double d = background.growth(a), u = a * a * background.hubble(a) * background.growth_rate(a) * d;
        for (std::size_t i = 0; i < n; ++i) {
            const double q = double(i % sheets) * box / double(sheets), psi0 = -std::sin(k * q) / k;
            b.x[i] = q + d * psi0;
            b.y[i] = double(i / sheets % across) * box / double(across);
            b.z[i] = double(i / (sheets * across)) * box / double(across);
            b.vx[i] = u * psi0, b.vy[i] = 0, b.vz[i] = 0;
            b.m[i] = p.omega_matter * rho_crit * box * box * box / double(n);
        }
    };
    Bodies start, end;
    start.resize(n), end.resize(n);
    exact(a_start, start);
    exact(a_end, end);
    Context& context = test_context();
    for (Precision precision : {Precision::float64, Precision::float32}) {
        CAPTURE(to_string(precision));
        TreePmOptions o;
        o.box = box, o.mesh = 16;
        TreePmGravity gravity(context, precision, {cosmology::gravitational_constant, 0.0}, o, memory_cache());
        DeviceBodies bodies(context, precision, start);
        cosmology::ComovingLeapfrog leapfrog(context, background, gravity, bodies, a_start, memory_cache());
        const int steps = 50;
        for (int s = 1; s <= steps; ++s)
            leapfrog.step(s == steps ? a_end : a_start * std::pow(a_end / a_start, double(s) / steps));
        CHECK(leapfrog.steps() == std::size_t(steps));
        const Bodies got = bodies.download(context.queue(0));
        const double amplitude = d_end / k,
                     speed = a_end * a_end * background.hubble(a_end) * background.growth_rate(a_end) * d_end / k;
        double position_error = 0, velocity_error = 0, transverse = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double dx = got.x[i] - end.x[i];
            dx -= box * std::nearbyint(dx / box);
            position_error = std::max(position_error, std::fabs(dx));
            velocity_error = std::max(velocity_error, std::fabs(got.vx[i] - end.vx[i]));
            transverse = std::max({transverse, std::fabs(got.vy[i]), std::fabs(got.vz[i])});
        }
        MESSAGE(std::string(to_string(precision))
                << ": largest position error " << position_error / amplitude << " of the amplitude, velocity "
                << velocity_error / speed << ", transverse velocity " << transverse / speed);
        CHECK(position_error <= 1e-3 * amplitude);
        CHECK(velocity_error <= 1e-3 * speed);
        CHECK(transverse <= 1e-5 * speed);  // the wave is along x: nothing moves across it (but rounding)
    }
}

} // TEST_SUITE
