// Tree N-body: build time, force time and their total for TreeGravity against DenseGravity on
// the same device in the same run, and the tree's accuracy against the float64 CPU reference
// (partcl::reference::dense_gravity<double>), as a function of the opening angle theta, on a
// Plummer sphere (G = M = a = 1, softening 0.01).
//
//   partcl_bench_tree [--device FILTER] [--backend auto|opencl|cuda] [--n 16384,65536] [--precision float,double]
//                     [--theta 0.2,0.35,0.5,0.7,0.9] [--leaf-size 8]
//                     [--traversal stackless,nested] [--group-size 1,32] [--list auto,0,128]
//                     [--repeat 3] [--no-dense] [--error-sample 16384] [--split] [--profile]
//                     [--openmp [--openmp-group 32,64]]
//   partcl_bench_tree --evolve STEPS [--dt 0.01] [--relative-accuracy 0,0.001]
//                     [--rebuild-every 1,4] [--rebuild-growth 0.05] [--n ...] [--theta ...]
//
// One JSON line per (device, precision, N, theta, traversal, group size, list size) on
// stdout; progress on stderr. --split times one context of all the selected devices instead of
// each device alone (the walk, and dense, spread over them; the tree built on the first): its
// line names the first device, and gives "walk_weights", the scheduler's weights for the walk
// after the timed runs. "devices" is the context's count. Group size 1 is the per-body walk
// (never listed); where it is measured, the other walks of the same (theta, traversal) report "walk_speedup", its walk
// time over theirs (same run).
// Times are medians of --repeat runs after one untimed run: "build_seconds" the device build
// (TreeGravity::build, waited for), "force_seconds" the walk (TreeGravity::evaluate),
// "dense_seconds" one DenseGravity evaluation, "speedup" dense over build + force. Errors are
// per body |a_tree - a_exact| / |a_exact| over the first --error-sample bodies (independent
// draws, so a fair sample; 0: all): "median_error" and "p99_error" (99th percentile).
//
// --openmp: each line also gives the OpenMP reference of the same tree and walk
// (partcl::reference::BarnesHut, -O3 -ffast-math -march=native) on the same bodies, in the
// line's precision, theta and leaf size, with each of --openmp-group's group sizes (default:
// the line's): device and reference take turns, a block of --repeat builds and walks each,
// three rounds. "reference_seconds" is the fastest group size's median, "ratio" its median
// over rounds of reference time over device time (above 1: the device is faster), and
// "reference_groups" every group size's time (and its build's alone), error and interactions
// per body.
//
// --evolve: what a step of a run costs, where the tree need not be built from nothing each
// time: the Plummer sphere advanced STEPS leapfrog steps of --dt (N-body units: the crossing
// time is about 1) once per (theta, relative accuracy, rebuild every, rebuild growth) and
// first traversal, group and list size, with TreeGravity::accelerations() as a run calls it
// (refitting between builds as TreeOptions say, the relative criterion reading the previous
// evaluation's |a|). One "tree_evolve" line each: every step's seconds (host clock, waited
// for), their mean over the steps after the first ("step_seconds_mean": the first builds from
// nothing and walks by theta alone), "bodies_per_second" = n over that mean, the builds, and
// the errors of one more evaluation at the final positions (the run's next step's) against
// the float64 reference there.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <partcl/io/initial_conditions.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/dense_reference.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_reference.hpp>
#include <partcl/partcl.hpp>

#include "common.hpp"

#include <omp.h>

using namespace partcl;

namespace {

using namespace partcl_bench;

constexpr double softening = 0.01;

struct Options {
    std::string device;
    std::string backend;
    std::vector<std::size_t> sizes{16384, 65536};
    std::vector<Precision> precisions{Precision::float32};
    std::vector<double> thetas{0.2, 0.35, 0.5, 0.7, 0.9};
    std::size_t leaf_size = 8;
    std::vector<TreeTraversal> traversals{TreeTraversal::stackless, TreeTraversal::nested};
    std::vector<std::size_t> group_sizes{1, 32};
    std::vector<std::optional<std::size_t>> list_sizes{std::nullopt};  // the model's choice
    int repeat = 3;
    bool dense = true;
    std::size_t sample = 16384;  // targets whose error is measured (0: all)
    bool split = false;          // one context of all the selected devices
    bool profile = false;        // each command's device time (partcl::Profile)
    std::size_t evolve = 0;      // leapfrog steps of a run (0: time single evaluations)
    double dt = 0.01;
    std::vector<double> relative_accuracy{0};
    std::vector<std::size_t> rebuild_every{1};
    std::vector<double> rebuild_growth{0};
    bool openmp = false;                   // the OpenMP reference beside each line
    std::vector<std::size_t> openmp_groups;  // its group sizes (empty: the line's)
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Tree N-body against dense and the float64 reference", "partcl_bench_tree"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Body counts");
    add_precisions(app, o.precisions);
    add_numbers(app, "--theta", o.thetas, "Opening angles");
    app.add_option("--leaf-size", o.leaf_size, "Most bodies in a leaf");
    add_list(app, "--traversal", o.traversals, parse_tree_traversal, "stackless, nested");
    add_numbers(app, "--group-size", o.group_sizes, "Walk group sizes (1: per-body walk)");
    add_list(app, "--list", o.list_sizes,
             [](const std::string& s) {
                 if (s == "auto") return std::optional<std::size_t>();
                 std::size_t size = 0;
                 if (!CLI::detail::lexical_cast(s, size))
                     throw UsageError("--list takes auto or a number, not '" + s + "'");
                 return std::optional<std::size_t>(size);
             },
             "List sizes of the listed walk (0: each work-item walks alone), or auto (the model's choice)");
    app.add_option("--repeat", o.repeat, "Timed runs (median)");
    app.add_flag("!--no-dense", o.dense, "Skip the dense comparison");
    app.add_option("--error-sample", o.sample, "Bodies whose error is measured (0: all)");
    app.add_flag("--split", o.split, "Time one context of all the selected devices, the walk split over them");
    app.add_flag("--profile", o.profile, "Each command's device time per build and walk (partcl::Profile)");
    app.add_option("--evolve", o.evolve, "Leapfrog steps of a run (0: time single evaluations)");
    app.add_option("--dt", o.dt, "--evolve: the step")->check(CLI::PositiveNumber);
    add_numbers(app, "--relative-accuracy", o.relative_accuracy, "--evolve: relative opening criteria (0: theta alone)");
    add_numbers(app, "--rebuild-every", o.rebuild_every, "--evolve: evaluations per tree build");
    add_numbers(app, "--rebuild-growth", o.rebuild_growth, "--evolve: leaf growth that makes a refit a build");
    app.add_flag("--openmp", o.openmp, "Time the OpenMP reference of the same tree and walk in turns with each line");
    add_numbers(app, "--openmp-group", o.openmp_groups, "--openmp: the reference's group sizes (default: the line's)");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    // The per-body walk first: the others are compared with it.
    std::sort(o.group_sizes.begin(), o.group_sizes.end());
    return o;
}

// The float64 accelerations of the first m of `b`'s bodies from all of them.
std::vector<double> exact_accelerations(const Bodies& b, std::size_t m) {
    const std::size_t n = b.size();
    std::vector<double> exact(3 * m);
    reference::dense_gravity<double>(n, b.x.data(), b.y.data(), b.z.data(), b.m.data(),
                                     softening * softening, 1.0, 0, m, exact.data(),
                                     exact.data() + m, exact.data() + 2 * m, nullptr);
    return exact;
}

// The OpenMP reference's build and walk of `b` in the line's precision.
struct OpenMpTree {
    virtual ~OpenMpTree() = default;
    virtual void build() = 0;
    virtual void run() = 0;  // build and walk
    virtual std::vector<double> acc() const = 0;  // x | y | z of the latest run
    // Of the latest run: nodes and bodies met per body.
    virtual std::pair<double, double> interactions() const = 0;
};

template <class T>
struct OpenMpTreeOf : OpenMpTree {
    std::vector<T> x, y, z, m, a;
    reference::BarnesHut<T> tree;
    OpenMpTreeOf(const Bodies& b, GravityParameters p, const TreeOptions& o)
        : x(b.x.begin(), b.x.end()), y(b.y.begin(), b.y.end()), z(b.z.begin(), b.z.end()),
          m(b.m.begin(), b.m.end()), a(3 * b.size()), tree(p, o) {}
    void build() override { tree.build(x.size(), x.data(), y.data(), z.data(), m.data()); }
    void run() override {
        build();
        const std::size_t n = x.size();
        tree.evaluate(a.data(), a.data() + n, a.data() + 2 * n);
    }
    std::vector<double> acc() const override { return {a.begin(), a.end()}; }
    std::pair<double, double> interactions() const override {
        const double n = double(std::max<std::size_t>(1, x.size()));
        return {double(tree.node_interactions()) / n, double(tree.body_interactions()) / n};
    }
};

std::unique_ptr<OpenMpTree> openmp_tree(const Bodies& b, Precision precision, GravityParameters p,
                                        const TreeOptions& o) {
    if (precision == Precision::float64) return std::make_unique<OpenMpTreeOf<double>>(b, p, o);
    return std::make_unique<OpenMpTreeOf<float>>(b, p, o);
}

// --openmp: the reference with each group size in turns with `device` (a build and walk);
// the line gets the fastest's figures.
void add_openmp(nlohmann::ordered_json& line, const Options& o, const Bodies& b, Precision precision,
                GravityParameters p, TreeOptions options, const std::function<void()>& device,
                const std::vector<double>& exact, std::size_t m) {
    const std::size_t n = b.size();
    const std::vector<std::size_t> groups =
        o.openmp_groups.empty() ? std::vector<std::size_t>{options.group_size} : o.openmp_groups;
    nlohmann::ordered_json each = nlohmann::ordered_json::array();
    Turns best;
    for (std::size_t group : groups) {
        std::cerr << "  OpenMP reference, group " << group << "...\n";
        options.group_size = group;
        options.list_size = std::nullopt;
        const std::unique_ptr<OpenMpTree> cpu = openmp_tree(b, precision, p, options);
        const Turns turns = take_turns([&] { return median_seconds(o.repeat, device); },
                                       [&] { return median_seconds(o.repeat, [&] { cpu->run(); }); });
        const std::vector<double> errors = relative_errors(cpu->acc(), n, exact, m);
        const auto [nodes, bodies] = cpu->interactions();
        const double build = median_seconds(o.repeat, [&] { cpu->build(); });
        each.push_back({{"group_size", group},
                        {"seconds", significant(turns.reference, 6)},
                        {"build_seconds", significant(build, 6)},
                        {"ratio", decimals(turns.ratio, 3)},
                        {"median_error", significant(median(errors), 4)},
                        {"p99_error", significant(percentile(errors, 0.99), 4)},
                        {"nodes_per_body", decimals(nodes, 1)},
                        {"bodies_per_body", decimals(bodies, 1)}});
        if (best.reference == 0 || turns.reference < best.reference) best = turns;
    }
    line["reference"] = "openmp";
    line["reference_threads"] = omp_get_max_threads();
    line["reference_seconds"] = significant(best.reference, 6);
    line["device_turn_seconds"] = significant(best.device, 6);
    line["ratio"] = decimals(best.ratio, 3);
    line["reference_groups"] = each;
}

// Leapfrog steps of `bodies` under `tree`, as a run takes them: each step's seconds.
std::vector<double> run_steps(Context& context, TreeGravity& tree, DeviceBodies& bodies, std::size_t count,
                              double dt) {
    NBodySystem system(context, tree, bodies);
    VectorOps ops(context, bodies.state.precision());
    auto integrator = make_integrator("leapfrog", ops, bodies.state.size());
    const Derivative f = system.derivative();
    std::vector<double> steps;
    double t = 0;
    for (std::size_t s = 0; s < count; ++s)
        steps.push_back(block_seconds(1, [&] {
            t += integrator->step(f, t, bodies.state, dt);
            context.finish();
        }));
    return steps;
}

// --evolve: one run per (theta, relative accuracy, rebuild every, rebuild growth) from the same
// Plummer sphere.
void evolve(Context& context, const Options& o, const Bodies& initial, Precision precision, std::size_t m) {
    const std::size_t n = initial.size();
    const Device& device = context.device(0);
    Queue& queue = context.queue(0);
    const GravityParameters p{1.0, softening};
    for (double theta : o.thetas)
        for (double relative : o.relative_accuracy)
            for (std::size_t every : o.rebuild_every)
                for (double growth : o.rebuild_growth) {
                    if (every == 1 && growth != o.rebuild_growth.front()) continue;  // growth needs refits
                    std::cerr << device.info().name << " " << to_string(precision) << " N=" << n
                              << " evolve " << o.evolve << " steps, theta " << theta << ", relative accuracy "
                              << relative << ", rebuild every " << every << ", growth " << growth << "...\n";
                    TreeOptions options{theta, o.leaf_size, o.traversals.front(), o.group_sizes.back(),
                                        o.list_sizes.front()};
                    options.relative_accuracy = relative;
                    options.rebuild_every = every;
                    options.rebuild_growth = growth;
                    // Untimed first: two steps with these options compile every program the
                    // timed run's steps use (the second is the first to refit and read |a|).
                    {
                        TreeGravity warm(context, precision, p, options);
                        DeviceBodies bodies(context, precision, initial);
                        run_steps(context, warm, bodies, 2, o.dt);
                    }
                    TreeGravity tree(context, precision, p, options);
                    DeviceBodies bodies(context, precision, initial);
                    const std::vector<double> steps = run_steps(context, tree, bodies, o.evolve, o.dt);
                    // The run's next evaluation, its tree and reference as they are.
                    RealBuffer acc(context, precision, 3 * n);
                    tree.accelerations(bodies.state, bodies.mass, n, acc, 0);
                    const std::vector<double> a = acc.read(queue);
                    const std::vector<double> state = bodies.state.read(queue);
                    Bodies end = initial;
                    std::copy_n(state.begin(), n, end.x.begin());
                    std::copy_n(state.begin() + std::ptrdiff_t(n), n, end.y.begin());
                    std::copy_n(state.begin() + std::ptrdiff_t(2 * n), n, end.z.begin());
                    std::cerr << "float64 reference at the run's end, " << m << " targets...\n";
                    const std::vector<double> errors = relative_errors(a, n, exact_accelerations(end, m), m);
                    double later = 0;
                    for (std::size_t s = 1; s < steps.size(); ++s) later += steps[s];
                    later /= double(std::max<std::size_t>(1, steps.size() - 1));
                    auto line = json_head("tree_evolve", device);
                    line["backend"] = to_string(device.backend());
                    line["n"] = n;
                    line["precision"] = to_string(precision);
                    line["theta"] = significant(theta, 6);
                    line["relative_accuracy"] = significant(relative, 6);
                    line["rebuild_every"] = every;
                    line["rebuild_growth"] = significant(growth, 6);
                    line["leaf_size"] = o.leaf_size;
                    line["traversal"] = to_string(options.traversal);
                    line["group_size"] = options.group_size;
                    line["list_size"] = tree.list_size();
                    line["steps"] = o.evolve;
                    line["dt"] = significant(o.dt, 6);
                    line["builds"] = tree.builds();
                    line["first_step_seconds"] = significant(steps.empty() ? 0.0 : steps.front(), 6);
                    line["step_seconds_mean"] = significant(later, 6);
                    line["bodies_per_second"] = significant(later > 0 ? double(n) / later : 0.0, 4);
                    line["error_targets"] = m;
                    line["median_error"] = significant(median(errors), 4);
                    line["p99_error"] = significant(percentile(errors, 0.99), 4);
                    line["each_step_seconds"] = seconds_array(steps);
                    print_json_line(line);
                }
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device, o.backend).select();
        for (std::size_t n : o.sizes) {
            Random random(12345);
            const Bodies b = plummer_sphere(n, 1.0, 1.0, 1.0, random);
            // The bodies are independent draws, so the first `m` are a fair sample of targets.
            const std::size_t m = o.sample ? std::min(n, o.sample) : n;
            std::vector<double> exact;
            if (!o.evolve) {
                std::cerr << "float64 reference, N=" << n << ", " << m << " targets...\n";
                exact = exact_accelerations(b, m);
            }
            std::vector<std::vector<Device>> contexts;
            if (o.split) contexts.push_back(devices);
            else
                for (const auto& device : devices) contexts.push_back({device});
            for (const auto& chosen : contexts) {
                const Device& device = chosen.front();
                Context context(chosen);
                for (Precision precision : o.precisions) {
                    if (precision == Precision::float64 &&
                        !std::all_of(chosen.begin(), chosen.end(), [](const Device& d) { return d.info().fp64; }))
                        continue;
                    if (o.evolve) {
                        evolve(context, o, b, precision, m);
                        continue;
                    }
                    const GravityParameters p{1.0, softening};
                    DeviceBodies bodies(context, precision, b);
                    RealBuffer acc(context, precision, 3 * n);
                    double dense_seconds = 0;
                    if (o.dense) {
                        std::cerr << device.info().name << " " << to_string(precision) << " N=" << n
                                  << " dense...\n";
                        DenseGravity dense(context, precision, p);
                        dense_seconds = median_seconds(o.repeat, [&] {
                            dense.accelerations(bodies.state, bodies.mass, n, acc, 0);
                            context.finish();
                        });
                    }
                    for (double theta : o.thetas)
                        for (TreeTraversal traversal : o.traversals) {
                            double per_body_force_seconds = 0;  // group size 1, when measured
                            for (std::size_t group_size : o.group_sizes) {
                                for (std::optional<std::size_t> list_size :
                                     group_size == 1 ? std::vector<std::optional<std::size_t>>{0}
                                                     : o.list_sizes) {
                                    std::cerr << device.info().name << " " << to_string(precision)
                                              << " N=" << n << " theta " << theta << " "
                                              << to_string(traversal) << " group " << group_size
                                              << " list " << (list_size ? std::to_string(*list_size) : "auto")
                                              << "...\n";
                                    TreeGravity tree(context, precision, p,
                                                     TreeOptions{theta, o.leaf_size, traversal, group_size, list_size});
                                    const double build_seconds = median_seconds(o.repeat, [&] {
                                        tree.build(bodies.state, bodies.mass, n);
                                        context.finish();
                                    });
                                    const double force_seconds =
                                        median_seconds(o.repeat, [&] { tree.evaluate(acc, 0); });
                                    if (group_size == 1) per_body_force_seconds = force_seconds;
                                    const std::vector<double> a = acc.read(context.queue(0));
                                    const std::vector<double> errors = relative_errors(a, n, exact, m);
                                    const double total = build_seconds + force_seconds;
                                    auto line = json_head("tree", device);
                                    line["backend"] = to_string(device.backend());
                                    line["devices"] = chosen.size();
                                    line["n"] = n;
                                    line["precision"] = to_string(precision);
                                    line["theta"] = significant(theta, 6);
                                    line["leaf_size"] = o.leaf_size;
                                    line["traversal"] = to_string(traversal);
                                    line["group_size"] = group_size;
                                    line["list_size"] = tree.list_size();
                                    line["levels"] = tree.levels();
                                    line["softening"] = significant(softening, 6);
                                    line["build_seconds"] = significant(build_seconds, 6);
                                    line["force_seconds"] = significant(force_seconds, 6);
                                    line["total_seconds"] = significant(total, 6);
                                    line["error_targets"] = m;
                                    line["median_error"] = significant(median(errors), 4);
                                    line["p99_error"] = significant(percentile(errors, 0.99), 4);
                                    if (o.split) {
                                        std::vector<double> weights;
                                        for (double w : tree.scheduler().weights()) weights.push_back(decimals(w, 3));
                                        line["walk_weights"] = weights;
                                        add_launch_report(line, tree.launches());
                                    }
                                    if (o.openmp)
                                        add_openmp(line, o, b, precision, p,
                                                   TreeOptions{theta, o.leaf_size, traversal, group_size}, [&] {
                                                       tree.build(bodies.state, bodies.mass, n);
                                                       tree.evaluate(acc, 0);
                                                   }, exact, m);
                                    if (per_body_force_seconds > 0 && group_size != 1)
                                        line["walk_speedup"] = decimals(per_body_force_seconds / force_seconds, 3);
                                    if (o.dense) {
                                        line["dense_seconds"] = significant(dense_seconds, 6);
                                        line["speedup"] = decimals(dense_seconds / total, 3);
                                    }
                                    // "profile": a build and a walk's commands.
                                    if (o.profile)
                                        add_profile(line, o.repeat, [&] {
                                            tree.build(bodies.state, bodies.mass, n);
                                            tree.evaluate(acc, 0);
                                            context.finish();
                                        });
                                    print_json_line(line);
                                }
                            }
                        }
                }
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "partcl_bench_tree: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
