#include <partcl/models/mps/mps_validation.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include <partcl/models/mps/mps_tank.hpp>

namespace partcl {

namespace {

constexpr double g = 9.81, rho = 1000;
constexpr double pi = 3.14159265358979323846;

// The tank of a case, its fluid and the measurements every case takes.
class WaterTank {
public:
    WaterTank(Context& context, const MpsTankCase& c, bool compressed)
        : spacing_(c.spacing), dims_(c.dimensions) {
        MpsTank tank;
        tank.dimensions = c.dimensions;
        tank.spacing = c.spacing;
        // The walls rise 30% above the water (rounded up to the lattice).
        const double wall = c.depth + std::ceil(0.3 * c.depth / c.spacing - 1e-9) * c.spacing;
        tank.tank = dims_ == 2 ? std::array<double, 3>{c.width, wall, 0}
                               : std::array<double, 3>{c.width, c.channel, wall};
        tank.water = dims_ == 2 ? std::array<double, 3>{c.width, c.depth, 0}
                                : std::array<double, 3>{c.width, c.channel, c.depth};
        MpsParameters m;
        static_cast<MpsOptions&>(m) = c.method;
        m.dimensions = dims_;
        m.spacing = c.spacing;
        m.density = rho;
        if (!(m.sound_speed > 0)) m.sound_speed = 10.6 * std::sqrt(g * c.depth);
        m.gravity = {0, 0, 0};
        m.gravity[dims_ - 1] = -g;
        if (compressed) tank.hydrostatic_strain = g / (m.sound_speed * m.sound_speed);
        MpsScene scene = mps_tank(tank);
        MpsParticles& p = scene.particles;
        fluid_count_ = p.count(MpsType::fluid);
        const double floor_area = dims_ == 2 ? c.width : c.width * c.channel;
        depth_ = double(fluid_count_) * std::pow(c.spacing, dims_) / floor_area;
        fluid = std::make_unique<MpsFluid>(context, c.precision, m, p, scene.lower, scene.upper);
    }

    double depth() const { return depth_; }
    std::size_t fluid_count() const { return fluid_count_; }

    MpsTankSample sample() const {
        const MpsParticles now = fluid->particles();
        const std::vector<double> pressure = fluid->pressure();
        const std::size_t n = now.size();
        const int up = dims_ - 1;
        MpsTankSample s{fluid->time(), 0, 0, 0, 0, 0, {0, 0, 0}, {0, 0, 0}, 0};
        double row = 0, row2 = 0;
        std::size_t count = 0, bottom = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (now.type[i] != MpsType::fluid) continue;
            ++count;
            s.x_cm += now.position[i];
            s.y_cm += now.position[up * n + i];
            double v2 = 0;
            for (int k = 0; k < dims_; ++k) v2 += now.velocity[k * n + i] * now.velocity[k * n + i];
            if (const double speed = std::sqrt(v2); speed > s.max_speed) {
                s.max_speed = speed;
                for (int k = 0; k < dims_; ++k) {
                    s.fastest_position[k] = now.position[k * n + i];
                    s.fastest_velocity[k] = now.velocity[k * n + i];
                }
                s.fastest_pressure = pressure[i];
            }
            const double y = now.position[up * n + i];
            if (y < spacing_) {  // the bottom row, referred to the floor
                const double p = pressure[i] + rho * g * y;
                row += p;
                row2 += p * p;
                ++bottom;
            }
        }
        if (count != fluid_count_)
            throw Error("mps tank case: " + std::to_string(fluid_count_ - count) +
                        " fluid particles were lost");
        s.x_cm /= double(count);
        s.y_cm /= double(count);
        s.bottom_pressure = bottom ? row / double(bottom) : 0;
        s.bottom_spread =
            bottom ? std::sqrt(std::max(0.0, row2 / double(bottom) - s.bottom_pressure * s.bottom_pressure)) : 0;
        return s;
    }

    std::unique_ptr<MpsFluid> fluid;

private:
    double spacing_;
    int dims_;
    double depth_ = 0;
    std::size_t fluid_count_ = 0;
};

} // namespace

MpsStillWater mps_still_water(Context& context, const MpsTankCase& c, double end_time,
                              const MpsSampleObserver& observe) {
    if (!(end_time > 1) || !std::isfinite(end_time))
        throw UsageError("mps still water: the end time must exceed the first second");
    if (!(c.settle_time >= 0) || !std::isfinite(c.settle_time))
        throw UsageError("mps still water: the settling time must be finite and not negative");
    WaterTank tank(context, c, true);
    const double every = 0.005;
    const long settle_samples = long(c.settle_time / every + 1e-9);
    for (long k = 1; k <= settle_samples; ++k) {
        tank.fluid->advance_to(double(k) * every);
        MpsState state = tank.fluid->state();
        std::fill(state.particles.velocity.begin(), state.particles.velocity.end(), 0.0);
        if (k == settle_samples) state.time = 0;  // the clock starts after the settling
        tank.fluid->restore(state);
    }
    const double h = tank.depth(), rho_g_h = rho * g * h;
    const double y0 = tank.sample().y_cm;
    double max_after = 0, sum = 0, sum2 = 0, spread2 = 0, y_end = y0;
    std::size_t counted = 0;
    for (long k = 1; double(k) * every <= end_time + 1e-9; ++k) {
        tank.fluid->advance_to(double(k) * every);
        const MpsTankSample s = tank.sample();
        if (observe) observe(s);
        if (s.t >= 1.0 - 1e-9) {
            max_after = std::max(max_after, s.max_speed);
            sum += s.bottom_pressure;
            sum2 += s.bottom_pressure * s.bottom_pressure;
            spread2 += s.bottom_spread * s.bottom_spread;
            ++counted;
        }
        y_end = s.y_cm;
    }
    const double mean = sum / double(counted);
    MpsStillWater r;
    r.fluid = tank.fluid_count();
    r.steps = tank.fluid->steps();
    r.depth = h;
    r.end_time = end_time;
    r.max_speed_after_1s_over_sqrt_gh = max_after / std::sqrt(g * h);
    r.bottom_pressure_mean_over_rho_g_h = mean / rho_g_h;
    r.bottom_pressure_sd_over_rho_g_h = std::sqrt(std::max(0.0, sum2 / double(counted) - mean * mean)) / rho_g_h;
    r.bottom_row_spread_over_rho_g_h = std::sqrt(spread2 / double(counted)) / rho_g_h;
    r.height_change = y_end / y0 - 1;
    return r;
}

MpsSloshing mps_sloshing(Context& context, const MpsTankCase& c, double amplitude, double duration,
                         const MpsSampleObserver& observe) {
    if (!(amplitude > 0) || !(amplitude < c.depth))
        throw UsageError("mps sloshing: the amplitude lies between 0 and the depth");
    WaterTank tank(context, c, false);
    const double h = tank.depth(), L = c.width, k = pi / L;
    const double omega = std::sqrt(g * k * std::tanh(k * h)), period = 2 * pi / omega;
    const double settle = 0.2, end = settle + (duration > 0 ? duration : 3 * period), every = 0.0025;
    tank.fluid->advance_to(settle);
    {  // u = grad phi, phi = B cosh(k y) cos(k x): the mode a quarter period before its crest
        MpsState state = tank.fluid->state();
        MpsParticles& p = state.particles;
        const std::size_t n = p.size();
        const int up = c.dimensions - 1;
        const double B = amplitude * omega / (k * std::sinh(k * h));
        for (std::size_t i = 0; i < n; ++i) {
            if (p.type[i] != MpsType::fluid) continue;
            const double x = p.position[i], y = std::max(0.0, p.position[up * n + i]);
            p.velocity[i] += -B * k * std::cosh(k * y) * std::sin(k * x);
            p.velocity[up * n + i] += B * k * std::sinh(k * y) * std::cos(k * x);
        }
        tank.fluid->restore(state);
    }
    // Crossings of x_cm through L / 2 (the rest state, by symmetry), linearly interpolated, and
    // the largest |x_cm - L / 2| between each pair of them.
    std::vector<double> crossings, extremes;
    // The mode starts at a crossing (t = settle), which the samples begin just after.
    double extreme = 0, before = 0, t_before = settle;
    for (long s = 1; settle + double(s) * every <= end + 1e-9; ++s) {
        tank.fluid->advance_to(settle + double(s) * every);
        const MpsTankSample now = tank.sample();
        if (observe) observe(now);
        const double after = now.x_cm - L / 2;
        extreme = std::max(extreme, std::fabs(after));
        if (s > 1 && (before < 0) != (after < 0)) {
            crossings.push_back(t_before + (now.t - t_before) * before / (before - after));
            if (crossings.size() > 1) extremes.push_back(extreme);
            extreme = 0;
        }
        before = after;
        t_before = now.t;
    }
    MpsSloshing r;
    r.fluid = tank.fluid_count();
    r.steps = tank.fluid->steps();
    r.depth = h;
    r.kh = k * h;
    r.theory_period = period;
    const double T2 = std::pow(std::tanh(k * h), 2), ka = k * amplitude;
    r.second_order_period = period / (1 + ka * ka * (9 / (T2 * T2) - 12 / T2 - 3 - 2 * T2) / 64);
    r.crossings = crossings.size();
    if (crossings.size() >= 3) {
        double sum = 0;
        for (std::size_t i = 2; i < crossings.size(); ++i) sum += crossings[i] - crossings[i - 2];
        r.period = sum / double(crossings.size() - 2);
        r.period_deviation = r.period / period - 1;
        r.period_deviation_second_order = r.period / r.second_order_period - 1;
    }
    if (extremes.size() >= 3)  // half periods apart: two of them make one period
        r.amplitude_ratio_per_period =
            std::pow(extremes.back() / extremes.front(), 2.0 / double(extremes.size() - 1));
    return r;
}

} // namespace partcl
