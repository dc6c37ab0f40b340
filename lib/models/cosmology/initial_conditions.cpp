#include <partcl/models/cosmology/initial_conditions.hpp>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <partcl/algorithm/fft.hpp>
#include <partcl/backend/error.hpp>

namespace partcl::cosmology {

namespace {

constexpr double pi = 3.14159265358979323846;

// Standard normal deviates from a generator whose sequence the C++ standard fixes (Box-Muller
// on 53-bit uniforms): std::normal_distribution's algorithm is the library's choice, and the
// seed alone must decide the field.
class NormalDeviates {
public:
    explicit NormalDeviates(std::uint64_t seed) : rng_(seed) {}
    double operator()() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = (double(rng_() >> 11) + 1) * 0x1p-53, u2 = double(rng_() >> 11) * 0x1p-53;
        const double r = std::sqrt(-2 * std::log(u1));
        spare_ = r * std::sin(2 * pi * u2);
        has_spare_ = true;
        return r * std::cos(2 * pi * u2);
    }

private:
    std::mt19937_64 rng_;
    double spare_ = 0;
    bool has_spare_ = false;
};

// The grid's spectra and fields: interleaved (re, im), x fastest, as Fft takes them.
struct Grid {
    Context& context;
    std::size_t side, points;
    Fft fft;
    RealBuffer work;
    double fundamental;

    // The real part of the inverse transform of `spectrum`, over points.
    std::vector<double> inverse(const std::vector<double>& spectrum) {
        Queue& queue = context.queue(0);
        work.write(queue, spectrum);
        fft.inverse(work);
        std::vector<double> out = work.read(queue), field(points);
        for (std::size_t g = 0; g < points; ++g) field[g] = out[2 * g] / double(points);
        return field;
    }
    std::vector<double> forward(const std::vector<double>& field) {
        std::vector<double> data(2 * points, 0.0);
        for (std::size_t g = 0; g < points; ++g) data[2 * g] = field[g];
        Queue& queue = context.queue(0);
        work.write(queue, data);
        fft.forward(work);
        return work.read(queue);
    }
    // Wave vector of point g; false at the Nyquist planes (their derivatives have no sign) and
    // at k = 0.
    bool wave(std::size_t g, std::array<double, 3>& k) const {
        const std::size_t index[3] = {g % side, g / side % side, g / (side * side)};
        bool inner = false;
        for (int a = 0; a < 3; ++a) {
            if (2 * index[a] == side) return false;
            const double m = double(index[a]) - (2 * index[a] > side ? double(side) : 0.0);
            k[std::size_t(a)] = fundamental * m;
            inner = inner || index[a] != 0;
        }
        return inner;
    }
    // spectrum times c(k) (complex, c = (cr, ci)) into a new spectrum.
    template <class F>
    std::vector<double> times(const std::vector<double>& spectrum, F&& factor) const {
        std::vector<double> out(2 * points, 0.0);
        std::array<double, 3> k{};
        for (std::size_t g = 0; g < points; ++g) {
            if (!wave(g, k)) continue;
            const std::array<double, 2> c = factor(k);
            const double re = spectrum[2 * g], im = spectrum[2 * g + 1];
            out[2 * g] = c[0] * re - c[1] * im;
            out[2 * g + 1] = c[0] * im + c[1] * re;
        }
        return out;
    }
};

double k2_of(const std::array<double, 3>& k) { return k[0] * k[0] + k[1] * k[1] + k[2] * k[2]; }

} // namespace

Bodies make_initial_conditions(Context& context, const Parameters& parameters,
                               const InitialConditions& o) {
    parameters.validate();
    if (o.side < 2 || o.side > 1024)
        throw UsageError("initial conditions: the lattice takes 2 to 1024 bodies a side, not " + std::to_string(o.side));
    if (!(o.box > 0) || !std::isfinite(o.box))
        throw UsageError("initial conditions: the box must be positive and finite");
    if (!(o.redshift > 0 && o.redshift <= 999))
        throw UsageError("initial conditions: the starting redshift must be in (0, 999], not " + std::to_string(o.redshift));
    const Background background(parameters);
    const LinearPower power(parameters);
    const double a = scale_factor(o.redshift), d = background.growth(a);
    const std::size_t side = o.side, points = side * side * side;
    const Precision precision = context.device(0).info().fp64 ? Precision::float64 : Precision::float32;
    Grid grid{context, side, points, Fft(context, precision, {side, side, side}),
              RealBuffer(context, precision, 2 * points), 2 * pi / o.box};

    // The density at a: white noise's spectrum W_k (<|W_k|^2> = points) times
    // sqrt(P(k) D^2 points / V), so that P = V <|delta_k|^2> / points^2 (power_spectrum's
    // normalisation).
    NormalDeviates normal(o.seed);
    std::vector<double> noise(points);
    for (double& w : noise) w = normal();
    const double volume = o.box * o.box * o.box;
    std::vector<double> white = grid.forward(noise);
    if (o.fixed_amplitude) {
        // |W_k|^2 = points, its mean; W_-k = conj(W_k) keeps the field real.
        for (std::size_t g = 0; g < points; ++g) {
            const double amplitude = std::hypot(white[2 * g], white[2 * g + 1]);
            if (amplitude == 0) continue;
            const double scale = std::sqrt(double(points)) / amplitude;
            white[2 * g] *= scale;
            white[2 * g + 1] *= scale;
        }
    }
    const std::vector<double> delta = grid.times(white, [&](const std::array<double, 3>& k) {
        return std::array<double, 2>{std::sqrt(power(std::sqrt(k2_of(k))) * d * d * double(points) / volume), 0.0};
    });

    // First order: psi = -grad phi1, laplacian phi1 = delta, so psi_k = i k delta_k / k^2.
    std::array<std::vector<double>, 3> psi1, psi2;
    for (std::size_t c = 0; c < 3; ++c)
        psi1[c] = grid.inverse(grid.times(delta, [c](const std::array<double, 3>& k) {
            return std::array<double, 2>{0.0, k[c] / k2_of(k)};
        }));
    // Second order: laplacian phi2 = sum_{i<j} (phi1_ii phi1_jj - phi1_ij^2), phi1_ij's
    // spectrum k_i k_j delta_k / k^2; psi2 = grad phi2 times D2 / D1^2 = -3/7 Omega_m(a)^(-1/143).
    const double omega_a = parameters.omega_matter / (a * a * a) / (background.e(a) * background.e(a));
    const double d2 = -3.0 / 7.0 * std::pow(omega_a, -1.0 / 143.0);
    if (o.second_order) {
        auto hessian = [&](std::size_t i, std::size_t j) {
            return grid.inverse(grid.times(delta, [i, j](const std::array<double, 3>& k) {
                return std::array<double, 2>{k[i] * k[j] / k2_of(k), 0.0};
            }));
        };
        std::vector<double> source(points, 0.0);
        {
            const std::vector<double> xx = hessian(0, 0), yy = hessian(1, 1), zz = hessian(2, 2);
            for (std::size_t g = 0; g < points; ++g) source[g] = xx[g] * yy[g] + xx[g] * zz[g] + yy[g] * zz[g];
        }
        for (const auto& [i, j] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
            const std::vector<double> off = hessian(std::size_t(i), std::size_t(j));
            for (std::size_t g = 0; g < points; ++g) source[g] -= off[g] * off[g];
        }
        // phi2_k = -source_k / k^2; grad: i k phi2_k.
        const std::vector<double> source_k = grid.forward(source);
        for (std::size_t c = 0; c < 3; ++c)
            psi2[c] = grid.inverse(grid.times(source_k, [c, d2](const std::array<double, 3>& k) {
                return std::array<double, 2>{0.0, -d2 * k[c] / k2_of(k)};
            }));
    }

    // Positions q + psi1 + psi2, wrapped into the box; velocities u = a^2 dx/dt =
    // a^2 H (f1 psi1 + f2 psi2), f2 = 2 Omega_m(a)^(6/11).
    const double f1 = background.growth_rate(a), f2 = 2 * std::pow(omega_a, 6.0 / 11.0);
    const double velocity = a * a * background.hubble(a);
    const double mass = parameters.omega_matter * critical_density * volume / double(points);
    const double spacing = o.box / double(side);
    Bodies b;
    b.resize(points);
    double* x[3] = {b.x.data(), b.y.data(), b.z.data()};
    double* v[3] = {b.vx.data(), b.vy.data(), b.vz.data()};
    for (std::size_t g = 0; g < points; ++g) {
        const std::size_t index[3] = {g % side, g / side % side, g / (side * side)};
        for (std::size_t c = 0; c < 3; ++c) {
            const double second = o.second_order ? psi2[c][g] : 0.0;
            const double position = double(index[c]) * spacing + psi1[c][g] + second;
            x[c][g] = periodic_image(position, o.box);
            v[c][g] = velocity * (f1 * psi1[c][g] + f2 * second);
        }
        b.m[g] = mass;
    }
    return b;
}

} // namespace partcl::cosmology
