#include <partcl/models/pic/pic_plasma.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl {

namespace {

constexpr double pi = 3.141592653589793;

void check_setup(const PicGrid& grid, std::size_t n, int mode, const char* what) {
    if (grid.dimensions != 1)
        throw UsageError(std::string(what) + ": a 1-D set-up (got a " + std::to_string(grid.dimensions) +
                         "-D grid)");
    if (n == 0) throw UsageError(std::string(what) + ": no particles");
    if (mode < 1) throw UsageError(std::string(what) + ": mode must be at least 1");
}

// x0 displaced by amplitude sin(k x0), wrapped into [0, L).
double displaced(double x0, double amplitude, double k, double length) {
    double x = x0 + amplitude * std::sin(k * x0);
    x -= length * std::floor(x / length);
    return x < length ? x : 0.0;  // floor rounding can leave exactly L
}

} // namespace

std::vector<PicSpecies> unit_plasma_electrons(double length, std::size_t n) {
    return {{-1.0, 1.0, length / double(n)}};
}

PicParticles langmuir_particles(const PicGrid& grid, std::size_t n, double amplitude, int mode) {
    check_setup(grid, n, mode, "Langmuir set-up");
    const double length = grid.length(0), k = 2 * pi * mode / length;
    PicParticles p;
    for (std::size_t i = 0; i < n; ++i) {
        p.position.push_back(displaced((i + 0.5) * length / n, amplitude, k, length));
        p.velocity.push_back(0);
        p.species.push_back(0);
    }
    return p;
}

PicParticles two_stream_particles(const PicGrid& grid, std::size_t n, double beam_speed,
                                  double amplitude, int mode) {
    check_setup(grid, n, mode, "two-stream set-up");
    if (n % 2) throw UsageError("two-stream set-up: an even number of particles (got " + std::to_string(n) + ")");
    const double length = grid.length(0), k = 2 * pi * mode / length;
    PicParticles p;
    for (std::size_t i = 0; i < n; ++i) {
        p.position.push_back(displaced((i / 2 + 0.5) * length / double(n / 2), amplitude, k, length));
        p.velocity.push_back(i % 2 ? beam_speed : -beam_speed);
        p.species.push_back(0);
    }
    return p;
}

double cold_plasma_frequency(const std::vector<PlasmaSpecies>& species) {
    double sum = 0;
    for (const PlasmaSpecies& s : species) sum += s.density * s.charge * s.charge / s.mass;
    return std::sqrt(sum);
}

std::uint64_t lattice_side(std::uint64_t particles_per_cell, int dimensions) {
    const double root = std::round(std::pow(double(particles_per_cell), 1.0 / dimensions));
    const std::uint64_t m = std::uint64_t(root);
    std::uint64_t power = 1;
    for (int k = 0; k < dimensions; ++k) power *= m;
    return m > 0 && power == particles_per_cell ? m : 0;
}

std::vector<PicSpecies> species_of(const PicGrid& grid, const std::vector<PlasmaSpecies>& species) {
    std::vector<PicSpecies> out;
    const double volume = std::pow(grid.spacing, grid.dimensions);
    for (const PlasmaSpecies& s : species)
        out.push_back({s.charge, s.mass, s.density * volume / double(s.particles_per_cell)});
    return out;
}

PicParticles species_particles(const PicGrid& grid, const std::vector<PlasmaSpecies>& species,
                               const std::array<int, 3>& mode, std::uint64_t seed) {
    const int d = grid.dimensions;
    if (species.empty()) throw UsageError("species set-up: no species");
    std::array<double, 3> k{}, unit{};
    double k_norm = 0;
    for (int a = 0; a < d; ++a) {
        k[a] = 2 * pi * mode[a] / grid.length(a);
        k_norm += k[a] * k[a];
    }
    k_norm = std::sqrt(k_norm);
    if (!(k_norm > 0)) throw UsageError("species set-up: the seeded mode is 0 on every axis");
    for (int a = 0; a < d; ++a) unit[a] = k[a] / k_norm;
    const std::size_t cells = grid.points();

    std::size_t total = 0;
    for (std::size_t s = 0; s < species.size(); ++s) {
        if (!lattice_side(species[s].particles_per_cell, d))
            throw UsageError("species set-up: species " + std::to_string(s) + " has " +
                             std::to_string(species[s].particles_per_cell) +
                             " particles per cell, not a lattice of m^" + std::to_string(d));
        total += species[s].particles_per_cell * cells;
    }
    PicParticles p;
    p.dimensions = d;
    p.position.resize(d * total);
    p.velocity.resize(d * total);
    p.species.resize(total);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::size_t i = 0;
    for (std::size_t s = 0; s < species.size(); ++s) {
        const PlasmaSpecies& sp = species[s];
        const std::uint64_t m = lattice_side(sp.particles_per_cell, d);
        for (std::size_t c = 0; c < cells; ++c) {
            const std::size_t cell[3] = {c % grid.nodes[0], c / grid.nodes[0] % grid.nodes[1],
                                         c / (std::size_t(grid.nodes[0]) * grid.nodes[1])};
            for (std::uint64_t j = 0; j < sp.particles_per_cell; ++j, ++i) {
                std::uint64_t rest = j;
                std::array<double, 3> x0{};
                double phase = 0;
                for (int a = 0; a < d; ++a) {
                    x0[a] = (double(cell[a]) + (double(rest % m) + 0.5) / double(m)) * grid.spacing;
                    rest /= m;
                    phase += k[a] * x0[a];
                }
                const double shift = sp.amplitude * std::sin(phase);
                for (int a = 0; a < d; ++a) {
                    const double length = grid.length(a);
                    double x = x0[a] + shift * unit[a];
                    x -= length * std::floor(x / length);
                    p.position[a * total + i] = x < length ? x : 0.0;
                    p.velocity[a * total + i] =
                        sp.drift[a] + (sp.thermal_speed > 0 ? sp.thermal_speed * normal(rng) : 0.0);
                }
                p.species[i] = std::uint32_t(s);
            }
        }
    }
    return p;
}

FieldMode field_mode(const std::vector<double>& field, const PicGrid& grid,
                     const std::array<int, 3>& mode) {
    FieldMode m;
    const int d = grid.dimensions;
    const std::size_t points = grid.points();
    if (field.size() < d * points) return m;
    std::array<double, 3> unit{};
    double norm = 0;
    for (int a = 0; a < d; ++a) {
        unit[a] = double(mode[a]) / grid.length(a);
        norm += unit[a] * unit[a];
    }
    norm = std::sqrt(norm);
    if (!(norm > 0)) return m;
    for (int a = 0; a < d; ++a) unit[a] /= norm;
    for (std::size_t g = 0; g < points; ++g) {
        const std::size_t node[3] = {g % grid.nodes[0], g / grid.nodes[0] % grid.nodes[1],
                                     g / (std::size_t(grid.nodes[0]) * grid.nodes[1])};
        double phase = 0, along = 0;
        for (int a = 0; a < d; ++a) {
            phase += 2 * pi * double(mode[a]) * double(node[a]) / double(grid.nodes[a]);
            along += unit[a] * field[a * points + g];
        }
        m.sine += along * std::sin(phase);
        m.cosine += along * std::cos(phase);
    }
    return m;
}

FieldMode field_mode(const std::vector<double>& field, const PicGrid& grid, int mode) {
    return field_mode(field, grid, {mode, 0, 0});
}

double zero_crossing_frequency(const std::vector<double>& t, const std::vector<double>& value,
                               std::size_t* count) {
    std::vector<double> crossings;
    for (std::size_t i = 1; i < value.size() && i < t.size(); ++i)
        if ((value[i - 1] < 0) != (value[i] < 0))
            crossings.push_back(t[i] - (t[i] - t[i - 1]) * value[i] / (value[i] - value[i - 1]));
    if (count) *count = crossings.size();
    if (crossings.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    return pi * double(crossings.size() - 1) / (crossings.back() - crossings.front());
}

GrowthFit linear_growth_rate(const std::vector<double>& t, const std::vector<double>& log_e) {
    GrowthFit fit;
    fit.rate = std::numeric_limits<double>::quiet_NaN();
    const std::size_t n = std::min(t.size(), log_e.size());
    if (n == 0) return fit;
    const std::size_t peak = std::max_element(log_e.begin(), log_e.begin() + n) - log_e.begin();
    const double low = log_e[0] + 1.5, high = log_e[peak] - 2;
    std::size_t from = 0;
    while (from < peak && log_e[from] < low) ++from;
    std::size_t to = from;
    while (to < peak && log_e[to] < high) ++to;
    fit.from = t[from];
    fit.to = t[to];
    fit.samples = to - from;
    if (fit.samples < 3) return fit;
    double st = 0, sy = 0, stt = 0, sty = 0;
    const double m = double(fit.samples);
    for (std::size_t i = from; i < to; ++i) {
        st += t[i];
        sy += log_e[i];
        stt += t[i] * t[i];
        sty += t[i] * log_e[i];
    }
    fit.rate = (m * sty - st * sy) / (m * stt - st * st);
    return fit;
}

double two_stream_growth_rate(double k_v0) {
    const double a = k_v0 * k_v0;
    const double omega2 = a + 0.5 - std::sqrt(1 + 8 * a) / 2;
    return omega2 < 0 ? std::sqrt(-omega2) : 0.0;
}

} // namespace partcl
