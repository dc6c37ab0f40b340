// Explicit MPS against cases with exact answers (issue 25, docs/mps.md "Still water, sloshing
// and pressure noise"): a measurement, not a pass/fail test.
//
//   partcl_bench_mps_validation [--case still,sloshing] [--dims 2,3] [--spacing 0.005]
//       [--depth 0.1] [--width 0.2] [--channel 0.03] [--end-time 20] [--amplitude 0.015]
//       [--sound-speed S] [--weight koshizuka|quadratic] [--gradient koshizuka|corrected]
//       [--artificial-viscosity A] [--re-ratio R] [--precision float|double] [--csv FILE]
//
// still: water as wide as the tank (width x depth, 3-D a channel deep), started on its lattice
// compressed as hydrostatic equilibrium asks (n / n0 - 1 = g (h - y) / c^2) and run to
// --end-time. After the first second: the largest fluid speed over sqrt(g h); the bottom
// pressure (the mean over the bottom row's fluid particles, as `partcl run hydrostatic` samples
// it, against rho g (h - y)) every 5 ms: its mean and its standard deviation over time, both
// over rho g h, and the particles' spread about it (rms over the row and the samples); the
// water's height from its centre of mass against the start.
//
// sloshing: the same tank, settled for 0.2 s, then given the velocity field of the first
// standing mode (k = pi / width, surface elevation a cos(k x) sin(omega t)), run for --end-time
// (default 3 periods). The period from the crossings of the fluid's horizontal centre of mass
// through the tank's middle (each crossing to the next in the same direction), against
// omega^2 = g k tanh(k h); the damping as the ratio of the mode's amplitude one period apart
// (geometric mean over the run).
//
// One JSON line per (case, dims) on stdout; --csv writes the samples (t, x_cm, y_cm, largest
// speed, bottom pressure) of the last case run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;  // the first device it selects runs the cases
    std::vector<std::string> cases{"still", "sloshing"};
    std::vector<int> dims{2};
    double spacing = 0.005, depth = 0.1, width = 0.2, channel = 0.03;
    double end_time = 0, amplitude = 0.015, sound_speed = 0;
    std::string weight = "koshizuka", gradient = "koshizuka";
    double artificial_viscosity = 0, re_ratio = 2.1;
    Precision precision = Precision::float32;
    std::string csv;
};

Options parse(int argc, char** argv) {
    Options o;
    std::string precision = "float";
    CLI::App app{"Explicit MPS: still water and sloshing against their exact answers",
                 "partcl_bench_mps_validation"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--case", o.cases, "still, sloshing")->delimiter(',')->check(CLI::IsMember({"still", "sloshing"}));
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({2, 3}));
    app.add_option("--spacing", o.spacing, "l0 [m]")->check(CLI::PositiveNumber);
    app.add_option("--depth", o.depth, "Water depth h [m]")->check(CLI::PositiveNumber);
    app.add_option("--width", o.width, "Tank width (the sloshing axis) [m]")->check(CLI::PositiveNumber);
    app.add_option("--channel", o.channel, "3-D: the tank's depth across [m]")->check(CLI::PositiveNumber);
    app.add_option("--end-time", o.end_time, "Simulated seconds (still: 20; sloshing: 3 periods)");
    app.add_option("--amplitude", o.amplitude, "Sloshing: surface amplitude a [m]")->check(CLI::PositiveNumber);
    app.add_option("--sound-speed", o.sound_speed, "c [m/s] (default 10.6 sqrt(g h))");
    app.add_option("--weight", o.weight, "koshizuka | quadratic")->check(CLI::IsMember({"koshizuka", "quadratic"}));
    app.add_option("--gradient", o.gradient, "koshizuka | corrected")->check(CLI::IsMember({"koshizuka", "corrected"}));
    app.add_option("--artificial-viscosity", o.artificial_viscosity, "Monaghan's alpha");
    app.add_option("--re-ratio", o.re_ratio, "re / l0 of number density and gradient");
    app.add_option("--precision", precision, "float | double")->check(CLI::IsMember({"float", "double"}));
    app.add_option("--csv", o.csv, "Write the last case's samples here");
    parse_or_exit(app, argc, argv);
    o.precision = precision == "double" ? Precision::float64 : Precision::float32;
    return o;
}

constexpr double g = 9.81, rho = 1000;

struct Sample {
    double t, x_cm, y_cm, max_speed, bottom_pressure, spread2;
};

class Tank {
public:
    Tank(Context& context, const Options& o, int dims, bool compressed) : o_(o), dims_(dims) {
        MpsTank tank;
        tank.dimensions = dims;
        tank.spacing = o.spacing;
        const double wall = 1.3 * o.depth;  // the walls' height
        tank.tank = dims == 2 ? std::array<double, 3>{o.width, wall, 0}
                              : std::array<double, 3>{o.width, o.channel, wall};
        tank.water = dims == 2 ? std::array<double, 3>{o.width, o.depth, 0}
                               : std::array<double, 3>{o.width, o.channel, o.depth};
        MpsScene scene = mps_tank(tank);
        c_ = o.sound_speed > 0 ? o.sound_speed : 10.6 * std::sqrt(g * o.depth);
        MpsParticles& p = scene.particles;
        const std::size_t n = p.size();
        const int up = dims - 1;
        if (compressed)  // the vertical strain of n / n0 - 1 = g (h - y) / c^2, integrated
            for (std::size_t i = 0; i < n; ++i)
                if (p.type[i] == MpsType::fluid) {
                    double& y = p.position[up * n + i];
                    y -= g / (c_ * c_) * (o.depth * y - y * y / 2);
                }
        MpsParameters m;
        m.dimensions = dims;
        m.spacing = o.spacing;
        m.sound_speed = c_;
        m.gravity = {0, 0, 0};
        m.gravity[up] = -g;
        from_name(mps_weights, o.weight, m.weight);
        from_name(mps_gradients, o.gradient, m.gradient);
        m.artificial_viscosity = o.artificial_viscosity;
        m.re_ratio = o.re_ratio;
        fluid_count_ = p.count(MpsType::fluid);
        const double floor_area = dims == 2 ? o.width : o.width * o.channel;
        depth_ = double(fluid_count_) * std::pow(o.spacing, dims) / floor_area;
        fluid = std::make_unique<MpsFluid>(context, o.precision, m, scene.particles, scene.lower, scene.upper);
    }

    double depth() const { return depth_; }
    double sound_speed() const { return c_; }
    std::size_t fluid_count() const { return fluid_count_; }

    Sample sample() const {
        const MpsParticles now = fluid->particles();
        const std::vector<double> pressure = fluid->pressure();
        const std::size_t n = now.size();
        const int up = dims_ - 1;
        Sample s{fluid->time(), 0, 0, 0, 0, 0};
        double row = 0, row2 = 0;
        std::size_t fluid = 0, bottom = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (now.type[i] != MpsType::fluid) continue;
            ++fluid;
            s.x_cm += now.position[i];
            s.y_cm += now.position[up * n + i];
            double v2 = 0;
            for (int k = 0; k < dims_; ++k) v2 += now.velocity[k * n + i] * now.velocity[k * n + i];
            s.max_speed = std::max(s.max_speed, std::sqrt(v2));
            const double y = now.position[up * n + i];
            if (y < o_.spacing) {  // the bottom row, referred to the floor
                const double p = pressure[i] + rho * g * y;
                row += p;
                row2 += p * p;
                ++bottom;
            }
        }
        if (fluid != fluid_count_) throw Error("the fluid lost particles");
        s.x_cm /= double(fluid);
        s.y_cm /= double(fluid);
        s.bottom_pressure = bottom ? row / double(bottom) : 0;
        s.spread2 = bottom ? row2 / double(bottom) - s.bottom_pressure * s.bottom_pressure : 0;
        return s;
    }

    std::unique_ptr<MpsFluid> fluid;

private:
    const Options& o_;
    int dims_;
    double c_ = 0, depth_ = 0;
    std::size_t fluid_count_ = 0;
};

// A case's result, begun with what every case reports.
nlohmann::json case_result(const char* name, int dims, const Tank& tank) {
    return {{"case", name}, {"dims", dims}, {"fluid", tank.fluid_count()},
            {"steps", tank.fluid->steps()}, {"depth", tank.depth()}};
}

void write_csv(const std::string& file, const std::vector<Sample>& samples) {
    if (file.empty()) return;
    std::ofstream out(file);
    out << "t,x_cm,y_cm,max_speed,bottom_pressure\n";
    for (const Sample& s : samples)
        out << s.t << ',' << s.x_cm << ',' << s.y_cm << ',' << s.max_speed << ',' << s.bottom_pressure << '\n';
}

nlohmann::json still(Context& context, const Options& o, int dims) {
    Tank tank(context, o, dims, true);
    const double end = o.end_time > 0 ? o.end_time : 20, every = 0.005;
    const double h = tank.depth(), scale = std::sqrt(g * h), rho_g_h = rho * g * h;
    std::vector<Sample> samples;
    const double y0 = tank.sample().y_cm;
    double max_after = 0, sum = 0, sum2 = 0, spread2 = 0, y_end = 0;
    std::size_t counted = 0;
    for (int k = 1; k * every <= end + 1e-9; ++k) {
        tank.fluid->advance_to(k * every);
        const Sample s = tank.sample();
        samples.push_back(s);
        if (s.t >= 1.0 - 1e-9) {
            max_after = std::max(max_after, s.max_speed);
            sum += s.bottom_pressure;
            sum2 += s.bottom_pressure * s.bottom_pressure;
            spread2 += s.spread2;
            ++counted;
        }
        y_end = s.y_cm;
        if (k % 200 == 0) std::fprintf(stderr, "still %d-D: t = %.2f s, largest speed %.3g m/s\n", dims, s.t, s.max_speed);
    }
    write_csv(o.csv, samples);
    const double mean = sum / double(counted);
    const double sd = std::sqrt(std::max(0.0, sum2 / double(counted) - mean * mean));
    nlohmann::json j = case_result("still", dims, tank);
    j["end_time"] = end;
    j["max_speed_after_1s_over_sqrt_gh"] = max_after / scale;
    j["bottom_pressure_mean_over_rho_g_h"] = mean / rho_g_h;
    j["bottom_pressure_sd_over_rho_g_h"] = sd / rho_g_h;
    j["bottom_row_spread_over_rho_g_h"] = std::sqrt(spread2 / double(counted)) / rho_g_h;
    j["height_change"] = y_end / y0 - 1;
    return j;
}

nlohmann::json sloshing(Context& context, const Options& o, int dims) {
    Tank tank(context, o, dims, false);
    const double h = tank.depth(), L = o.width, k = M_PI / L;
    const double omega = std::sqrt(g * k * std::tanh(k * h)), period = 2 * M_PI / omega;
    const double settle = 0.2, end = settle + (o.end_time > 0 ? o.end_time : 3 * period), every = 0.0025;
    tank.fluid->advance_to(settle);
    {  // u = grad phi, phi = B cosh(k y) cos(k x): the mode a quarter period before its crest
        MpsState state = tank.fluid->state();
        MpsParticles& p = state.particles;
        const std::size_t n = p.size();
        const int up = dims - 1;
        const double B = o.amplitude * omega / (k * std::sinh(k * h));
        for (std::size_t i = 0; i < n; ++i) {
            if (p.type[i] != MpsType::fluid) continue;
            const double x = p.position[i], y = std::max(0.0, p.position[up * n + i]);
            p.velocity[i] += -B * k * std::cosh(k * y) * std::sin(k * x);
            p.velocity[up * n + i] += B * k * std::sinh(k * y) * std::cos(k * x);
        }
        tank.fluid->restore(state);
    }
    std::vector<Sample> samples;
    for (int s = 1; settle + s * every <= end + 1e-9; ++s) {
        tank.fluid->advance_to(settle + s * every);
        samples.push_back(tank.sample());
    }
    write_csv(o.csv, samples);
    // Crossings of x_cm through L / 2 (the rest state, by symmetry), linearly interpolated, and
    // the largest |x_cm - L / 2| between each pair of them.
    std::vector<double> crossings, extremes;
    double extreme = 0;
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const double a = samples[i - 1].x_cm - L / 2, b = samples[i].x_cm - L / 2;
        extreme = std::max(extreme, std::fabs(b));
        if ((a < 0) != (b < 0)) {
            crossings.push_back(samples[i - 1].t + (samples[i].t - samples[i - 1].t) * a / (a - b));
            if (crossings.size() > 1) extremes.push_back(extreme);
            extreme = 0;
        }
    }
    nlohmann::json j = case_result("sloshing", dims, tank);
    j["kh"] = k * h;
    j["theory_period"] = period;
    j["crossings"] = crossings.size();
    if (crossings.size() >= 3) {  // same-direction crossings: an offset of the rest state cancels
        double sum = 0;
        for (std::size_t i = 2; i < crossings.size(); ++i) sum += crossings[i] - crossings[i - 2];
        const double measured = sum / double(crossings.size() - 2);
        j["period"] = measured;
        j["period_deviation"] = measured / period - 1;
    }
    if (extremes.size() >= 3)  // half periods apart: two of them make one period
        j["amplitude_ratio_per_period"] =
            std::pow(extremes.back() / extremes.front(), 2.0 / double(extremes.size() - 1));
    return j;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device).select();
        Context context(std::vector<Device>{devices.at(0)});
        for (const std::string& name : o.cases)
            for (int dims : o.dims) {
                const nlohmann::json result =
                    name == "still" ? still(context, o, dims) : sloshing(context, o, dims);
                nlohmann::ordered_json line = json_head("mps_validation", context.device(0));
                line["precision"] = to_string(o.precision);
                line["spacing"] = o.spacing;
                line["weight"] = o.weight;
                line["gradient"] = o.gradient;
                line["artificial_viscosity"] = o.artificial_viscosity;
                line["re_ratio"] = o.re_ratio;
                for (const auto& [key, value] : result.items()) line[key] = value;
                print_json_line(line);
            }
    } catch (const UsageError& e) {
        std::cerr << "partcl_bench_mps_validation: " << e.what() << "\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "partcl_bench_mps_validation: " << e.what() << "\n";
        return 1;
    }
}
