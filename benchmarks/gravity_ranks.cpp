// Gravity over MPI ranks (DistributedDenseGravity, DistributedTreeGravity): strong and weak
// scaling against one rank measured in the same run. Start it under mpirun:
//
//   mpirun -np K partcl_bench_gravity_ranks [--device FILTER] [--backend ...] [--gravity dense,tree]
//                                           [--n 16384,65536] [--precision float,double]
//                                           [--theta 0.6] [--repeat 5] [--weak]
//
// The bodies: a Plummer sphere (G = M = a = 1, softening 0.01), the same on every rank, each
// rank holding an equal block. For each model, N and precision: one rank alone (rank 0, the
// others waiting) and then all K ranks, each timing --repeat evaluations (median), three rounds
// in turns. Rank 0 prints one JSON line: "seconds" (K ranks; a rank's evaluation ends when its
// block is done, the slowest rank's time counts), "one_rank_seconds", "speedup" (one rank's time
// over K ranks'), "efficiency" (speedup / K), "gather_share" (the slowest rank's share of its
// time spent gathering the sources), for the tree "walk_share" (its walks, the build left
// out), "wait_share" (waiting for the slowest walk) and "exchange_share" (sending the results to
// their bodies' ranks), each the largest of any rank, and "bytes_per_rank" (received per evaluation, the slowest rank's).
// For the tree, the K ranks first evaluate once and move each body to the rank that walked it,
// as a run does (each rank then holds pieces of space; "bodies_follow_walks" in the JSON), so
// that the timed evaluations send only the results the walk's cut moved since.
// --weak scales N so that each rank has one rank's work at N: by sqrt(K) for dense (N^2 / K
// interactions a rank), by K for the tree (whose walk is O(N log N); "efficiency" is then the
// one rank's time at N over K ranks' time at the larger N).
#include <cmath>
#include <memory>
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
    std::vector<std::string> gravity{"dense"};
    std::vector<std::size_t> sizes{16384};
    std::vector<Precision> precisions{Precision::float32};
    double theta = 0.6;
    int repeat = 5;
    bool weak = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Gravity over MPI ranks against one rank", "partcl_bench_gravity_ranks"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_list(app, "--gravity", o.gravity,
             [](const std::string& name) {
                 if (name != "dense" && name != "tree")
                     throw UsageError("--gravity: '" + name + "': expected dense or tree");
                 return name;
             },
             "Models: dense, tree");
    add_numbers(app, "--n", o.sizes, "Bodies (of all ranks together)");
    add_precisions(app, o.precisions);
    app.add_option("--theta", o.theta, "The tree's opening angle");
    app.add_option("--repeat", o.repeat, "Timed evaluations per turn (the median is taken)");
    app.add_flag("--weak", o.weak, "Weak scaling: N grown with the ranks (sqrt(K) dense, K tree)");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    return o;
}

// One evaluation setting: this rank's block of n Plummer bodies and a model over `ranks`.
struct Side {
    std::unique_ptr<DenseGravity> dense;
    std::unique_ptr<TreeGravity> tree;
    std::unique_ptr<DistributedDenseGravity> spread_dense;
    std::unique_ptr<DistributedTreeGravity> spread_tree;
    GravityModel* spread = nullptr;
    RealBuffer positions, mass, acc;
    std::size_t mine;

    Side(Context& context, const std::string& model, Precision precision, double theta,
         std::size_t n, const dist::Communicator& ranks) {
        const GravityParameters parameters{1.0, 0.01};
        if (model == "dense") {
            dense = std::make_unique<DenseGravity>(context, precision, parameters);
            spread_dense = std::make_unique<DistributedDenseGravity>(ranks, *dense);
            spread = spread_dense.get();
        } else {
            TreeOptions options;
            options.theta = theta;
            tree = std::make_unique<TreeGravity>(context, precision, parameters, options);
            spread_tree = std::make_unique<DistributedTreeGravity>(ranks, *tree);
            spread = spread_tree.get();
        }
        const Range block = Partition::by_weight(n, std::vector<double>(std::size_t(ranks.size()), 1.0))
            [std::size_t(ranks.rank())];
        mine = block.size();
        first = block.begin;
        Random random(12345);
        const Bodies all = plummer_sphere(n, 1.0, 1.0, 1.0, random);
        const auto part = [&](const std::vector<double>& c) {
            return std::vector<double>(c.begin() + std::ptrdiff_t(block.begin), c.begin() + std::ptrdiff_t(block.end));
        };
        std::vector<double> xyz;
        for (const auto* c : {&all.x, &all.y, &all.z}) {
            const std::vector<double> mine_of_c = part(*c);
            xyz.insert(xyz.end(), mine_of_c.begin(), mine_of_c.end());
        }
        const std::vector<double> m = part(all.m);
        const std::size_t k = std::max<std::size_t>(mine, 1);
        positions = RealBuffer(context, precision, 3 * k);
        mass = RealBuffer(context, precision, k);
        acc = RealBuffer(context, precision, 3 * k);
        if (mine) {
            positions.write(context.queue(0), xyz);
            mass.write(context.queue(0), m);
        }
    }
    void evaluate(Context& context) {
        spread->accelerations(positions, mass, mine, acc, 0);
        context.finish();
    }
    // Each of this rank's bodies to the rank that walked it in the latest evaluation (the tree).
    void follow_walks(Context& context, const dist::Communicator& ranks, std::size_t first) {
        Queue& queue = context.queue(0);
        TravellingBodies travelling;
        Bodies& b = travelling.bodies;
        b.resize(mine);
        std::vector<double> xyz(3 * mine);
        if (mine) {
            positions.read(queue, xyz.data(), 3 * mine);
            mass.read(queue, b.m.data(), mine);
        }
        for (std::size_t i = 0; i < mine; ++i) {
            b.x[i] = xyz[i];
            b.y[i] = xyz[mine + i];
            b.z[i] = xyz[2 * mine + i];
        }
        if (ids.empty())
            for (std::size_t i = 0; i < mine; ++i) ids.push_back(std::uint32_t(first + i));
        travelling.ids = ids;
        const TravellingBodies arrived = move_bodies(ranks, spread_tree->walkers(), travelling);
        const Bodies& a = arrived.bodies;
        mine = a.size();
        ids = arrived.ids;
        xyz.resize(3 * mine);
        for (std::size_t i = 0; i < mine; ++i) {
            xyz[i] = a.x[i];
            xyz[mine + i] = a.y[i];
            xyz[2 * mine + i] = a.z[i];
        }
        const std::size_t k = std::max<std::size_t>(mine, 1);
        const Precision precision = positions.precision();
        positions = RealBuffer(context, precision, 3 * k);
        mass = RealBuffer(context, precision, k);
        acc = RealBuffer(context, precision, 3 * k);
        if (mine) {
            positions.write(queue, xyz);
            mass.write(queue, a.m);
        }
        directory = std::make_unique<dist::IndexDirectory>(ranks, ids);
        spread_tree->set_directory(directory.get());
    }
    std::vector<std::uint32_t> ids;  // after follow_walks: this rank's bodies' global indices
    std::unique_ptr<dist::IndexDirectory> directory;
    std::size_t first = 0;  // this rank's first body, in blocks
    double gather_seconds() const {
        return dense ? spread_dense->gather_seconds() : spread_tree->gather_seconds();
    }
    double exchange_seconds() const { return tree ? spread_tree->exchange_seconds() : 0.0; }
    double walk_seconds() const { return tree ? spread_tree->walk_seconds() : 0.0; }
    double wait_seconds() const { return tree ? spread_tree->wait_seconds() : 0.0; }
    double bytes_received() const {
        return dense ? spread_dense->bytes_received() : spread_tree->bytes_received();
    }
};

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);
    const Options o = parse(argc, argv);
    const dist::Communicator& world = dist::Communicator::world();
    try {
        Context context = dist::rank_context(DeviceFilter::from_environment(o.device, o.backend), world);
        const double k = double(world.size());
        for (const std::string& model : o.gravity)
            for (const Precision precision : o.precisions)
                for (const std::size_t n0 : o.sizes) {
                    const double grow = !o.weak ? 1.0 : model == "dense" ? std::sqrt(k) : k;
                    const std::size_t n = std::size_t(std::llround(double(n0) * grow));
                    Side alone(context, model, precision, o.theta, n0, dist::Communicator::self());
                    Side all(context, model, precision, o.theta, n, world);
                    if (all.tree && world.size() > 1) {
                        all.evaluate(context);
                        all.follow_walks(context, world, all.first);
                    }
                    if (world.root())
                        std::cerr << model << ", N " << n << " on " << world.size() << " ranks, "
                                  << to_string(precision) << "\n";
                    int evaluations = 0;
                    const Turns turns = take_turns(
                        [&] {
                            world.barrier();
                            return world.max(median_seconds(o.repeat, [&] {
                                all.evaluate(context);
                                ++evaluations;
                            }));
                        },
                        [&] {
                            world.barrier();
                            double t = 0;
                            if (world.root()) t = median_seconds(o.repeat, [&] { alone.evaluate(context); });
                            return world.max(t);
                        });
                    // Shares of the K-rank evaluations' time, on the slowest rank.
                    const double spent = std::max(1e-30, turns.device * double(evaluations));
                    const double gather = world.max(all.gather_seconds() / spent);
                    const double exchange = world.max(all.exchange_seconds() / spent);
                    const double walk = world.max(all.walk_seconds() / spent);
                    const double wait = world.max(all.wait_seconds() / spent);
                    const double bytes = world.max(all.bytes_received() / std::max(1, evaluations));
                    if (!world.root()) continue;
                    auto line = json_head("gravity_ranks", context.device(0));
                    line["gravity"] = model;
                    if (model == "tree") {
                        line["theta"] = o.theta;
                        line["bodies_follow_walks"] = world.size() > 1;
                    }
                    line["ranks"] = world.size();
                    line["scaling"] = o.weak ? "weak" : "strong";
                    line["n"] = n;
                    line["one_rank_n"] = n0;
                    line["precision"] = to_string(precision);
                    line["seconds"] = significant(turns.device, 6);
                    line["one_rank_seconds"] = significant(turns.reference, 6);
                    line["speedup"] = significant(turns.ratio, 4);
                    line["efficiency"] = significant(o.weak ? turns.ratio : turns.ratio / k, 4);
                    line["gather_share"] = significant(gather, 3);
                    if (model == "tree") {
                        line["walk_share"] = significant(walk, 3);
                        line["wait_share"] = significant(wait, 3);
                        line["exchange_share"] = significant(exchange, 3);
                    }
                    line["bytes_per_rank"] = bytes;
                    print_json_line(line);
                }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
