// TreePM gravity's evaluation time (models/nbody/tree_pm_gravity.hpp) by part: the tree's build,
// its short-range walk and the mesh (deposit, transforms, interpolation, both interlaced
// meshes), for side^3 bodies on a (mesh-factor x side)^3 mesh (one body a cell by default) in
// a box of edge --box (100).
//
//   partcl_bench_tree_pm [--device FILTER] [--backend auto|opencl|cuda] [--side 64,128,256]
//                        [--precision float] [--theta 0.4] [--bodies uniform,clustered]
//                        [--mesh-factor 1] [--group-size 32] [--leaf-size 8] [--list auto]
//                        [--relative-accuracy 0] [--errors] [--repeat 5]
//   partcl_bench_tree_pm --evolve STEPS [--rebuild-every 1,2,4] [--rebuild-growth 0] [--side 128]
//                        [--box 100] [--relative-accuracy 0] [--errors] ...
//
// "uniform": bodies uniform in the box; "clustered": half of them in 64 Plummer clumps of
// scale box / 200, the rest uniform (a late-time box has most bodies in halos, which the
// short-range walk pays for). One JSON line per (bodies, side, precision) on stdout: the median
// seconds of each part over --repeat evaluations and of the whole, of a comoving leapfrog step
// (one evaluation, two kicks and a drift: step_seconds), and bodies per second. With --errors,
// also the relative error of each body's acceleration against the same TreePM at theta 0 (the
// short range summed pair by pair within the cut, the same mesh): what the walk's opening
// criterion costs in accuracy (median and 99th percentile over all bodies). refit_seconds:
// the tree refitted in place of a build (TreeOptions::rebuild_every). --relative-accuracy:
// TreeOptions::relative_accuracy, each value a line (0: theta alone); its errors are those of a
// second evaluation, which reads the first's |a|.
//
// --evolve: what refitting the tree between builds saves in a real run, where bodies move and
// refitted nodes grow. side^3 bodies from 2LPT at z = 49 in a box of --box Mpc/h (softening
// 1/30 of the spacing, as the cosmology scenario) evolve to z = 0 in STEPS steps uniform in
// ln a, once per --rebuild-every and --rebuild-growth value, each run from the same bodies. One
// JSON line per run: the builds, the mean step and the means of its first and last quarters
// (late steps move clustered bodies farthest), each step's seconds, and how far the bodies end
// from the first run's (median, 90th percentile). Runs go over --rebuild-every x
// --rebuild-growth x --relative-accuracy; with --errors, also the walk's error at z = 0 (the
// last evaluation against theta 0 on the run's final bodies).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<std::size_t> sides{64, 128};
    std::vector<Precision> precisions{Precision::float32};
    std::vector<std::string> bodies{"uniform", "clustered"};
    std::vector<double> thetas{TreePmOptions{}.tree.theta};
    std::size_t mesh_factor = 1;  // mesh nodes per side = mesh_factor * side
    std::vector<std::size_t> group_sizes{TreeOptions{}.group_size};
    std::size_t leaf_size = TreeOptions{}.leaf_size;
    std::optional<std::size_t> list_size;
    bool errors = false;
    int repeat = 5;
    std::size_t evolve = 0;  // steps of --evolve; 0: the static measurements
    std::vector<std::size_t> rebuild_every{1, 2, 4};
    std::vector<double> rebuild_growth{0};
    std::vector<double> relative_accuracy{0};
    double box = 100;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"TreePM gravity's evaluation by part", "partcl_bench_tree_pm"};
    app.add_option("--device", o.device, "Device filter (as partcl --device); the first is used");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--side", o.sides, "Bodies and mesh nodes per side");
    add_precisions(app, o.precisions);
    add_list(app, "--bodies", o.bodies,
             [](const std::string& b) {
                 if (b != "uniform" && b != "clustered")
                     throw UsageError("--bodies: uniform or clustered, not " + b);
                 return b;
             },
             "Body distributions");
    add_numbers(app, "--theta", o.thetas, "Opening angles of the short-range walk");
    add_numbers(app, "--group-size", o.group_sizes, "Walk group sizes");
    app.add_option("--leaf-size", o.leaf_size, "Most bodies in a leaf");
    app.add_option("--list", o.list_size, "List size of the listed walk (default: the model's choice)");
    app.add_flag("--errors", o.errors, "Measure each body's error against theta 0");
    app.add_option("--mesh-factor", o.mesh_factor, "Mesh nodes per side over bodies per side (1, 2)")
        ->check(CLI::Range(1, 4));
    app.add_option("--repeat", o.repeat, "Timed evaluations (the median is taken)");
    app.add_option("--evolve", o.evolve, "Steps of a run from z = 49 to 0 (0: time static bodies)");
    add_numbers(app, "--rebuild-every", o.rebuild_every, "--evolve: evaluations per tree build");
    add_numbers(app, "--rebuild-growth", o.rebuild_growth, "--evolve: leaf growth that makes a refit a build");
    add_numbers(app, "--relative-accuracy", o.relative_accuracy, "The walk's relative criterion (0: theta alone)");
    app.add_option("--box", o.box, "The box's edge (--evolve: in Mpc/h)")->check(CLI::Range(1.0, 1e5));
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    return o;
}

Bodies make_bodies(const std::string& kind, std::size_t n, double box) {
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Bodies b;
    b.resize(n);
    const auto wrap = [box](double x) { return x - box * std::floor(x / box); };
    std::vector<double> centres(3 * 64);
    for (double& c : centres) c = u(rng) * box;
    for (std::size_t i = 0; i < n; ++i) {
        b.m[i] = 1.0 / double(n);
        if (kind == "clustered" && i % 2 == 0) {
            // Plummer radius for a uniform mass fraction, capped at 10 scales.
            const double q = std::min(u(rng), 0.999), r = std::min(10.0, 1 / std::sqrt(std::pow(q, -2.0 / 3) - 1));
            const double ct = 2 * u(rng) - 1, st = std::sqrt(1 - ct * ct), ph = 2 * 3.141592653589793 * u(rng);
            const std::size_t c = (i / 2) % 64;
            const double s = box / 200 * r;
            b.x[i] = wrap(centres[3 * c] + s * st * std::cos(ph));
            b.y[i] = wrap(centres[3 * c + 1] + s * st * std::sin(ph));
            b.z[i] = wrap(centres[3 * c + 2] + s * ct);
        } else {
            b.x[i] = u(rng) * box, b.y[i] = u(rng) * box, b.z[i] = u(rng) * box;
        }
    }
    return b;
}

TreePmOptions tree_pm_options(const Options& o, std::size_t side, double theta, std::size_t group,
                              double relative_accuracy) {
    TreePmOptions options;
    options.box = o.box;
    options.mesh = o.mesh_factor * side;
    options.tree.theta = theta;
    options.tree.relative_accuracy = relative_accuracy;
    options.tree.group_size = group;
    options.tree.leaf_size = o.leaf_size;
    options.tree.list_size = o.list_size;
    // Built every evaluation: static bodies never loosen a refitted tree, which would flatter
    // it (refit_seconds times the refit; --evolve sets its own).
    options.tree.rebuild_every = 1;
    return options;
}

// One evaluation's accelerations of the bodies (x | y | z).
std::vector<double> accelerations(Context& context, TreePmGravity& gravity, DeviceBodies& bodies) {
    const std::size_t n = bodies.size();
    RealBuffer out(context, bodies.precision(), 3 * n);
    out.fill(context.queue(0), 0.0);
    gravity.accelerations(bodies.state, bodies.mass, n, out, 0);
    return out.read(context.queue(0));
}

// The accelerations of the bodies at theta 0.
std::vector<double> reference_accelerations(Context& context, const Options& o, std::size_t side,
                                            Precision precision, const Bodies& host,
                                            GravityParameters parameters = {}) {
    DeviceBodies bodies(context, precision, host);
    TreePmGravity gravity(context, precision, parameters, tree_pm_options(o, side, 0.0, o.group_sizes.front(), 0));
    return accelerations(context, gravity, bodies);
}

void measure(Context& context, const Options& o, const std::string& kind, std::size_t side,
             Precision precision, double theta, std::size_t group, double relative_accuracy,
             const Bodies& host, const std::vector<double>& reference) {
    const std::size_t n = side * side * side;
    const TreePmOptions options = tree_pm_options(o, side, theta, group, relative_accuracy);
    TreePmGravity gravity(context, precision, {}, options);
    DeviceBodies bodies(context, precision, host);
    RealBuffer out(context, precision, 3 * n);
    Queue& queue = context.queue(0);
    std::vector<double> errors;
    if (!reference.empty()) {
        // The second evaluation: the relative criterion reads the first's |a|.
        if (relative_accuracy > 0) accelerations(context, gravity, bodies);
        errors = relative_errors(accelerations(context, gravity, bodies), n, reference, n);
    }
    const cosmology::Background background{cosmology::Parameters{}};
    cosmology::ComovingLeapfrog leapfrog(context, background, gravity, bodies, 0.5);
    std::vector<double> build, refit, walk, mesh, whole, step;
    for (int r = 0; r <= o.repeat; ++r) {  // the first untimed: programs built, buffers made
        const double b = block_seconds(1, [&] {
            gravity.short_range().build(bodies.state, bodies.mass, n);
            queue.finish();
        });
        const double f = block_seconds(1, [&] {
            gravity.short_range().refit(bodies.state, bodies.mass, n);
            queue.finish();
        });
        const double w = block_seconds(1, [&] { gravity.short_range().evaluate(out, 0); });
        const double m = block_seconds(1, [&] {
            gravity.long_range().add(bodies.state, bodies.mass, n, out, 0);
            queue.finish();
        });
        const double t = block_seconds(1, [&] {
            gravity.accelerations(bodies.state, bodies.mass, n, out, 0);
            queue.finish();
        });
        // Steps of a thousandth in a: the bodies barely move, so every repeat times the same work.
        const double s = block_seconds(1, [&] {
            leapfrog.step(leapfrog.a() + 1e-3);
            queue.finish();
        });
        if (r == 0) continue;
        build.push_back(b), refit.push_back(f), walk.push_back(w), mesh.push_back(m), whole.push_back(t), step.push_back(s);
    }
    const Device& device = context.device(0);
    nlohmann::ordered_json line = json_head("tree_pm", device);
    line["backend"] = to_string(device.backend());
    line["precision"] = to_string(precision);
    line["bodies"] = kind;
    line["n"] = n;
    line["mesh"] = options.mesh;
    line["theta"] = theta;
    line["relative_accuracy"] = relative_accuracy;
    line["group_size"] = group;
    line["leaf_size"] = options.tree.leaf_size;
    line["list_size"] = gravity.short_range().list_size();
    line["split_cells"] = options.split_cells;
    line["cut_splits"] = options.cut_splits;
    if (!errors.empty()) {
        line["error_median"] = significant(median(errors), 3);
        line["error_p99"] = significant(percentile(errors, 0.99), 3);
    }
    line["build_seconds"] = significant(median(build), 4);
    line["refit_seconds"] = significant(median(refit), 4);
    line["walk_seconds"] = significant(median(walk), 4);
    line["mesh_seconds"] = significant(median(mesh), 4);
    line["seconds"] = significant(median(whole), 4);
    line["step_seconds"] = significant(median(step), 4);
    line["bodies_per_s"] = significant(double(n) / median(whole), 4);
    print_json_line(line);
}

// --evolve: one run per rebuild_every and rebuild_growth value from the same 2LPT bodies.
void evolve(Context& context, const Options& o, std::size_t side, Precision precision) {
    const std::size_t n = side * side * side;
    const cosmology::Parameters cosmos;
    cosmology::InitialConditions ic;
    ic.side = side;
    ic.box = o.box;
    const Bodies initial = cosmology::make_initial_conditions(context, cosmos, ic);
    const cosmology::Background background{cosmos};
    const double a0 = cosmology::scale_factor(ic.redshift);
    const GravityParameters parameters{cosmology::gravitational_constant, o.box / double(side) / 30};
    Queue& queue = context.queue(0);
    {
        // Untimed: the programs compiled and cached, so that the first run's first step times
        // what the others do.
        TreePmGravity warm(context, precision, parameters, tree_pm_options(o, side, o.thetas.front(), o.group_sizes.front(), 0));
        DeviceBodies bodies(context, precision, initial);
        accelerations(context, warm, bodies);
    }
    std::vector<double> first_positions;
    for (double relative : o.relative_accuracy)
    for (std::size_t every : o.rebuild_every)
        for (double growth : o.rebuild_growth) {
            if (every == 1 && growth != o.rebuild_growth.front()) continue;  // growth needs refits
            std::cerr << "tree_pm: evolve " << side << "^3, " << to_string(precision) << ", rebuild every "
                      << every << ", growth " << growth << ", relative accuracy " << relative << "\n";
            TreePmOptions options = tree_pm_options(o, side, o.thetas.front(), o.group_sizes.front(), relative);
            options.tree.rebuild_every = every;
            options.tree.rebuild_growth = growth;
            TreePmGravity gravity(context, precision, parameters, options);
            DeviceBodies bodies(context, precision, initial);
            cosmology::ComovingLeapfrog leapfrog(context, background, gravity, bodies, a0);
            std::vector<double> steps;
            for (std::size_t s = 1; s <= o.evolve; ++s) {
                const double a1 = s == o.evolve ? 1.0 : a0 * std::exp(std::log(1 / a0) * double(s) / double(o.evolve));
                steps.push_back(block_seconds(1, [&] {
                    leapfrog.step(a1);
                    queue.finish();
                }));
            }
            std::vector<double> positions(3 * n);
            bodies.state.read(queue, positions.data(), 3 * n);
            std::vector<double> errors;
            if (o.errors) {
                // The run's next evaluation (its tree and reference as they are) against theta 0.
                Bodies end = initial;
                std::copy_n(positions.begin(), n, end.x.begin());
                std::copy_n(positions.begin() + std::ptrdiff_t(n), n, end.y.begin());
                std::copy_n(positions.begin() + std::ptrdiff_t(2 * n), n, end.z.begin());
                errors = relative_errors(accelerations(context, gravity, bodies), n,
                                         reference_accelerations(context, o, side, precision, end, parameters), n);
            }
            if (first_positions.empty()) first_positions = positions;
            // How far each body ends from where the first run put it (nearest image): in halos
            // any change of rounding grows chaotically, so the median says more than the largest.
            std::vector<double> apart(n);
            for (std::size_t i = 0; i < n; ++i) {
                double d2 = 0;
                for (std::size_t k = 0; k < 3; ++k) {
                    const double d = positions[k * n + i] - first_positions[k * n + i];
                    const double wrapped = d - o.box * std::nearbyint(d / o.box);
                    d2 += wrapped * wrapped;
                }
                apart[i] = std::sqrt(d2);
            }
            const auto mean = [&](std::size_t begin, std::size_t end) {
                double sum = 0;
                for (std::size_t i = begin; i < end; ++i) sum += steps[i];
                return sum / double(std::max<std::size_t>(1, end - begin));
            };
            const std::size_t quarter = std::max<std::size_t>(1, o.evolve / 4);
            const Device& device = context.device(0);
            nlohmann::ordered_json line = json_head("tree_pm_evolve", device);
            line["backend"] = to_string(device.backend());
            line["precision"] = to_string(precision);
            line["n"] = n;
            line["box"] = o.box;
            line["mesh"] = options.mesh;
            line["theta"] = options.tree.theta;
            line["relative_accuracy"] = relative;
            line["group_size"] = options.tree.group_size;
            line["rebuild_every"] = every;
            line["rebuild_growth"] = growth;
            line["steps"] = o.evolve;
            line["builds"] = gravity.short_range().builds();
            line["step_seconds_mean"] = significant(mean(0, o.evolve), 4);
            line["first_quarter_seconds"] = significant(mean(0, quarter), 4);
            line["last_quarter_seconds"] = significant(mean(o.evolve - quarter, o.evolve), 4);
            line["spacing_mpc"] = significant(o.box / double(side), 4);
            line["apart_median_mpc"] = significant(median(apart), 3);
            line["apart_p90_mpc"] = significant(percentile(apart, 0.9), 3);
            if (!errors.empty()) {
                line["error_median"] = significant(median(errors), 3);
                line["error_p99"] = significant(percentile(errors, 0.99), 3);
            }
            line["each_step_seconds"] = seconds_array(steps);
            print_json_line(line);
        }
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        Context context = first_device_context(o.device, o.backend);
        if (o.evolve > 0) {
            for (std::size_t side : o.sides)
                for (Precision precision : o.precisions) evolve(context, o, side, precision);
            return 0;
        }
        for (const std::string& kind : o.bodies)
            for (std::size_t side : o.sides)
                for (Precision precision : o.precisions) {
                    const std::size_t n = side * side * side;
                    const Bodies bodies = make_bodies(kind, n, o.box);
                    std::vector<double> reference;
                    if (o.errors) reference = reference_accelerations(context, o, side, precision, bodies);
                    for (double theta : o.thetas)
                        for (std::size_t group : o.group_sizes)
                            for (double relative : o.relative_accuracy) {
                                std::cerr << "tree_pm: " << kind << ", " << side << "^3, " << to_string(precision)
                                          << ", theta " << theta << ", groups of " << group << ", relative accuracy "
                                          << relative << "\n";
                                measure(context, o, kind, side, precision, theta, group, relative, bodies, reference);
                            }
                }
    } catch (const partcl::Error& e) {
        std::cerr << "partcl_bench_tree_pm: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
