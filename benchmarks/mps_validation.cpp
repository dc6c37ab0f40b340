// Explicit MPS against cases with exact answers (issue 25, docs/mps.md "Still water, sloshing
// and pressure noise"): a measurement, not a pass/fail test.
//
//   partcl_bench_mps_validation [--case still,sloshing] [--dims 2,3] [--spacing 0.005]
//       [--depth 0.1] [--width 0.2] [--channel 0.03] [--end-time 20] [--amplitude 0.015]
//       [--sound-speed S] [--weight koshizuka|quadratic] [--gradient koshizuka|corrected]
//       [--artificial-viscosity A] [--viscosity-reconstruction S] [--settle T] [--re-ratio R]
//       [--collision-ratio C] [--wall-collision-ratio W]
//       [--precision float|double] [--csv FILE]
//
// still (mps_still_water): water at rest on its compressed lattice for --end-time (20 s): after
// the first second, the largest speed over sqrt(g h), the bottom pressure's mean and standard
// deviation over time and its spread along the row (over rho g h), and the change in height.
// sloshing (mps_sloshing): the first standing mode for --end-time (3 periods): its period
// against omega^2 = g k tanh(k h) and its amplitude ratio per period.
//
// One JSON line per (case, dims) on stdout; --csv writes the samples (t, x_cm, y_cm, largest
// speed, bottom pressure, and the fastest particle's position, velocity and pressure) of the
// last case run. The cases themselves are the library's
// (include/partcl/models/mps/mps_validation.hpp), which the tests hold to the bounds.
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
    double artificial_viscosity = 0, shifting = 0, re_ratio = 2.1, collision_ratio = 0.5, wall_collision_ratio = 0;
    int surface_sweeps = 0;
    double viscosity_reconstruction = 0, settle = 0;
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
    app.add_option("--weight", o.weight, "koshizuka | quadratic")->check(CLI::IsMember(names_of(mps_weights)));
    app.add_option("--gradient", o.gradient, "koshizuka | corrected")->check(CLI::IsMember(names_of(mps_gradients)));
    app.add_option("--artificial-viscosity", o.artificial_viscosity, "Monaghan's alpha");
    app.add_option("--shifting", o.shifting, "Close-pair shifting's coefficient");
    app.add_option("--surface-sweeps", o.surface_sweeps,
                   "Sweeps giving the free surface's layer a hydrostatic pressure (0: off)");
    app.add_option("--viscosity-reconstruction", o.viscosity_reconstruction,
                   "The share of the way the viscosity's pair velocities are reconstructed to the midpoint");
    app.add_option("--settle", o.settle, "Still water: seconds settled with kinetic damping first");
    app.add_option("--re-ratio", o.re_ratio, "re / l0 of number density and gradient");
    app.add_option("--collision-ratio", o.collision_ratio, "Collision distance / l0");
    app.add_option("--wall-collision-ratio", o.wall_collision_ratio,
                   "Collision distance to walls / l0 (0: the collision ratio)");
    app.add_option("--precision", precision, "float | double")->check(CLI::IsMember({"float", "double"}));
    app.add_option("--csv", o.csv, "Write the last case's samples here");
    parse_or_exit(app, argc, argv);
    o.precision = parse_precision(precision);
    return o;
}

MpsTankCase tank_case(const Options& o, int dims) {
    MpsTankCase c = mps_tank_case();
    c.dimensions = dims;
    c.spacing = o.spacing;
    c.depth = o.depth;
    c.width = o.width;
    c.channel = o.channel;
    c.method.sound_speed = o.sound_speed;
    from_name(mps_weights, o.weight, c.method.weight);
    from_name(mps_gradients, o.gradient, c.method.gradient);
    c.method.artificial_viscosity = o.artificial_viscosity;
    c.method.shifting = o.shifting;
    c.method.surface_sweeps = o.surface_sweeps;
    c.method.viscosity_reconstruction = o.viscosity_reconstruction;
    c.settle_time = o.settle;
    c.method.re_ratio = o.re_ratio;
    c.method.collision_ratio = o.collision_ratio;
    c.method.wall_collision_ratio = o.wall_collision_ratio;
    c.precision = o.precision;
    return c;
}

// Collects the samples for --csv and reports progress every simulated second.
struct Recorder {
    const char* name;
    int dims;
    std::vector<MpsTankSample> samples;
    double next_report = 1;

    MpsSampleObserver observer() {
        return [this](const MpsTankSample& s) {
            samples.push_back(s);
            if (s.t >= next_report) {
                std::fprintf(stderr, "%s %d-D: t = %.2f s, largest speed %.3g m/s\n", name, dims, s.t, s.max_speed);
                next_report += 1;
            }
        };
    }

    void write(const std::string& file) const {
        if (file.empty()) return;
        std::ofstream out(file);
        out << "t,x_cm,y_cm,max_speed,bottom_pressure,fastest_x,fastest_y,fastest_z,fastest_ux,"
               "fastest_uy,fastest_uz,fastest_pressure\n";
        for (const MpsTankSample& s : samples) {
            out << s.t << ',' << s.x_cm << ',' << s.y_cm << ',' << s.max_speed << ',' << s.bottom_pressure;
            for (const double v : s.fastest_position) out << ',' << v;
            for (const double v : s.fastest_velocity) out << ',' << v;
            out << ',' << s.fastest_pressure << '\n';
        }
    }
};

nlohmann::json still(Context& context, const Options& o, int dims) {
    Recorder recorder{"still", dims, {}};
    const MpsStillWater r = mps_still_water(context, tank_case(o, dims), o.end_time > 0 ? o.end_time : 20,
                                            recorder.observer());
    recorder.write(o.csv);
    return {{"case", "still"}, {"dims", dims}, {"fluid", r.fluid}, {"steps", r.steps},
            {"depth", r.depth}, {"end_time", r.end_time},
            {"max_speed_after_1s_over_sqrt_gh", r.max_speed_after_1s_over_sqrt_gh},
            {"bottom_pressure_mean_over_rho_g_h", r.bottom_pressure_mean_over_rho_g_h},
            {"bottom_pressure_sd_over_rho_g_h", r.bottom_pressure_sd_over_rho_g_h},
            {"bottom_row_spread_over_rho_g_h", r.bottom_row_spread_over_rho_g_h},
            {"height_change", r.height_change}};
}

nlohmann::json sloshing(Context& context, const Options& o, int dims) {
    Recorder recorder{"sloshing", dims, {}};
    const MpsSloshing r = mps_sloshing(context, tank_case(o, dims), o.amplitude, o.end_time, recorder.observer());
    recorder.write(o.csv);
    nlohmann::json j = {{"case", "sloshing"}, {"dims", dims}, {"fluid", r.fluid}, {"steps", r.steps},
                        {"depth", r.depth}, {"kh", r.kh}, {"theory_period", r.theory_period},
                        {"second_order_period", r.second_order_period}, {"crossings", r.crossings}};
    if (r.crossings >= 3) {
        j["period"] = r.period;
        j["period_deviation"] = r.period_deviation;
        j["period_deviation_second_order"] = r.period_deviation_second_order;
    }
    if (r.amplitude_ratio_per_period > 0) j["amplitude_ratio_per_period"] = r.amplitude_ratio_per_period;
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
                line["shifting"] = o.shifting;
                line["surface_sweeps"] = o.surface_sweeps;
                line["viscosity_reconstruction"] = o.viscosity_reconstruction;
                line["settle"] = o.settle;
                line["re_ratio"] = o.re_ratio;
                line["collision_ratio"] = o.collision_ratio;
                line["wall_collision_ratio"] = o.wall_collision_ratio;
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
