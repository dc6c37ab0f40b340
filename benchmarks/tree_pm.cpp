// TreePM gravity's evaluation time (models/nbody/tree_pm_gravity.hpp) by part: the tree's build,
// its short-range walk and the mesh (deposit, transforms, interpolation, both interlaced
// meshes), for side^3 bodies on a (mesh-factor x side)^3 mesh (one body a cell by default).
//
//   partcl_bench_tree_pm [--device FILTER] [--backend auto|opencl|cuda] [--side 64,128,256]
//                        [--precision float] [--theta 0.4] [--bodies uniform,clustered]
//                        [--mesh-factor 1] [--group-size 32] [--leaf-size 8] [--list auto]
//                        [--errors] [--repeat 5]
//
// "uniform": bodies uniform in the box; "clustered": half of them in 64 Plummer clumps of
// scale box / 200, the rest uniform (a late-time box has most bodies in halos, which the
// short-range walk pays for). One JSON line per (bodies, side, precision) on stdout: the median
// seconds of each part over --repeat evaluations and of the whole, of a comoving leapfrog step
// (one evaluation, two kicks and a drift: step_seconds), and bodies per second. With --errors,
// also the relative error of each body's acceleration against the same TreePM at theta 0 (the
// short range summed pair by pair within the cut, the same mesh): what the walk's opening
// criterion costs in accuracy (median and 99th percentile over all bodies).
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

TreePmOptions tree_pm_options(const Options& o, std::size_t side, double theta, std::size_t group) {
    TreePmOptions options;
    options.box = 100.0;
    options.mesh = o.mesh_factor * side;
    options.tree.theta = theta;
    options.tree.group_size = group;
    options.tree.leaf_size = o.leaf_size;
    options.tree.list_size = o.list_size;
    return options;
}

// The accelerations of the bodies at theta 0 (x | y | z).
std::vector<double> reference_accelerations(Context& context, const Options& o, std::size_t side,
                                            Precision precision, const Bodies& host) {
    const std::size_t n = side * side * side;
    DeviceBodies bodies(context, precision, host);
    TreePmGravity gravity(context, precision, {}, tree_pm_options(o, side, 0.0, o.group_sizes.front()));
    RealBuffer out(context, precision, 3 * n);
    out.fill(context.queue(0), 0.0);
    gravity.accelerations(bodies.state, bodies.mass, n, out, 0);
    std::vector<double> a(3 * n);
    out.read(context.queue(0), a.data(), 3 * n);
    return a;
}

void measure(Context& context, const Options& o, const std::string& kind, std::size_t side,
             Precision precision, double theta, std::size_t group, const Bodies& host,
             const std::vector<double>& reference) {
    const std::size_t n = side * side * side;
    const TreePmOptions options = tree_pm_options(o, side, theta, group);
    TreePmGravity gravity(context, precision, {}, options);
    DeviceBodies bodies(context, precision, host);
    RealBuffer out(context, precision, 3 * n);
    Queue& queue = context.queue(0);
    std::vector<double> errors;
    if (!reference.empty()) {
        out.fill(queue, 0.0);
        gravity.accelerations(bodies.state, bodies.mass, n, out, 0);
        std::vector<double> a(3 * n);
        out.read(queue, a.data(), 3 * n);
        errors.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            double diff = 0, size = 0;
            for (std::size_t k = 0; k < 3; ++k) {
                const double r = reference[k * n + i];
                diff += (a[k * n + i] - r) * (a[k * n + i] - r);
                size += r * r;
            }
            errors[i] = std::sqrt(diff / size);
        }
        std::sort(errors.begin(), errors.end());
    }
    const cosmology::Background background{cosmology::Parameters{}};
    cosmology::ComovingLeapfrog leapfrog(context, background, gravity, bodies, 0.5);
    std::vector<double> build, walk, mesh, whole, step;
    for (int r = 0; r <= o.repeat; ++r) {  // the first untimed: programs built, buffers made
        const double b = block_seconds(1, [&] {
            gravity.short_range().build(bodies.state, bodies.mass, n);
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
        build.push_back(b), walk.push_back(w), mesh.push_back(m), whole.push_back(t), step.push_back(s);
    }
    const Device& device = context.device(0);
    nlohmann::ordered_json line = json_head("tree_pm", device);
    line["backend"] = to_string(device.backend());
    line["precision"] = to_string(precision);
    line["bodies"] = kind;
    line["n"] = n;
    line["mesh"] = options.mesh;
    line["theta"] = theta;
    line["group_size"] = group;
    line["leaf_size"] = options.tree.leaf_size;
    line["list_size"] = gravity.short_range().list_size();
    line["split_cells"] = options.split_cells;
    line["cut_splits"] = options.cut_splits;
    if (!errors.empty()) {
        line["error_median"] = significant(errors[n / 2], 3);
        line["error_p99"] = significant(errors[std::min(n - 1, n * 99 / 100)], 3);
    }
    line["build_seconds"] = significant(median(build), 4);
    line["walk_seconds"] = significant(median(walk), 4);
    line["mesh_seconds"] = significant(median(mesh), 4);
    line["seconds"] = significant(median(whole), 4);
    line["step_seconds"] = significant(median(step), 4);
    line["bodies_per_s"] = significant(double(n) / median(whole), 4);
    print_json_line(line);
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        Context context = first_device_context(o.device, o.backend);
        for (const std::string& kind : o.bodies)
            for (std::size_t side : o.sides)
                for (Precision precision : o.precisions) {
                    const std::size_t n = side * side * side;
                    const Bodies bodies = make_bodies(kind, n, 100.0);
                    std::vector<double> reference;
                    if (o.errors) reference = reference_accelerations(context, o, side, precision, bodies);
                    for (double theta : o.thetas)
                        for (std::size_t group : o.group_sizes) {
                            std::cerr << "tree_pm: " << kind << ", " << side << "^3, " << to_string(precision)
                                      << ", theta " << theta << ", groups of " << group << "\n";
                            measure(context, o, kind, side, precision, theta, group, bodies, reference);
                        }
                }
    } catch (const partcl::Error& e) {
        std::cerr << "partcl_bench_tree_pm: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
