#include <partcl/models/pic/pic_plasma.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <partcl/runtime/error.hpp>

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

FieldMode field_mode(const std::vector<double>& field, const PicGrid& grid, int mode) {
    FieldMode m;
    const std::size_t nodes = grid.nodes[0];
    for (std::size_t g = 0; g < nodes && g < field.size(); ++g) {
        const double phase = 2 * pi * double(mode) * double(g) / double(nodes);
        m.sine += field[g] * std::sin(phase);
        m.cosine += field[g] * std::cos(phase);
    }
    return m;
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
