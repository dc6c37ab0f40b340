// Locally essential trees over MPI ranks (EssentialTreeGravity): where an evaluation's time
// goes on a rank and what it receives, against one rank evaluating all N alone and against the
// gather that tree runs take by default (every body to every rank). Start it under mpirun:
//
//   mpirun -np K partcl_bench_essential_tree [--device FILTER] [--backend ...] [--n 65536,262144]
//                                            [--precision float,double] [--theta 0.6] [--repeat 3]
//
// The bodies: a Plummer sphere (G = M = a = 1, softening 0.01), the same on every rank, each
// rank holding an equal block by index. Each rank evaluates --repeat times; then rank 0 alone
// evaluates all N with the tree on its device --repeat times (the others waiting). Rank 0
// prints one JSON line per N and precision, each time the median and the slowest rank's:
// "seconds" (an evaluation over the K ranks), "one_rank_seconds" (rank 0 alone, all N),
// "speedup" (their ratio), the pieces of an evaluation (EssentialTreeGravity::Seconds:
// "top_seconds", "move_seconds", "branches_seconds", "join_seconds", "exchange_seconds",
// "walk_seconds", "results_seconds"; none on one rank, which evaluates the tree whole), the
// rounds of the top's selection ("top_rounds"), and
// per rank at most: "held_bodies", "nodes_received", "bodies_received" (by the exchange),
// "bytes_received" (the whole evaluation's) against "gather_bytes" (what the gather brings a
// rank: the others' bodies, x y z m in the precision). "bit_for_bit": every rank's
// accelerations equal those of the tree of all N on one device (checked once, untimed). Before
// the timed evaluations, on K ranks, each body moves to the rank that walked it in a first one
// (EssentialTreeGravity::walkers), as a run moves them.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
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
    std::vector<std::size_t> sizes{65536};
    std::vector<Precision> precisions{Precision::float32};
    double theta = 0.6;
    int repeat = 3;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Locally essential trees over MPI ranks (run under mpirun)"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Bodies (of all ranks together)");
    add_precisions(app, o.precisions);
    app.add_option("--theta", o.theta, "The tree's opening angle");
    app.add_option("--repeat", o.repeat, "Timed evaluations (the median is taken)");
    parse_or_exit(app, argc, argv);
    return o;
}

// This rank's bodies on the device.
struct Held {
    RealBuffer positions, mass, acc;
    Held(Context& context, Precision precision, const Bodies& b) {
        const std::size_t k = std::max<std::size_t>(b.size(), 1);
        positions = RealBuffer(context, precision, 3 * k);
        mass = RealBuffer(context, precision, k);
        acc = RealBuffer(context, precision, 3 * k);
        std::vector<double> xyz(b.x);
        xyz.insert(xyz.end(), b.y.begin(), b.y.end());
        xyz.insert(xyz.end(), b.z.begin(), b.z.end());
        if (b.size() > 0) {
            positions.write(context.queue(0), xyz);
            mass.write(context.queue(0), b.m);
        }
    }
};

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);
    const Options o = parse(argc, argv);
    const dist::Communicator& world = dist::Communicator::world();
    try {
        Context context = dist::rank_context(DeviceFilter::from_environment(o.device, o.backend), world);
        Queue& queue = context.queue(0);
        const std::size_t ranks = std::size_t(world.size());
        const GravityParameters parameters{1.0, 0.01};
        for (const Precision precision : o.precisions)
            for (const std::size_t n : o.sizes) {
                TreeOptions options;
                options.theta = o.theta;
                Random random(12345);
                const Bodies all = plummer_sphere(n, 1.0, 1.0, 1.0, random);
                // This rank's block, moved after a first evaluation to the ranks that walk its
                // bodies, as a run moves them: the timed evaluations move only what crossed since.
                const Range block = Partition::by_weight(n, std::vector<double>(ranks, 1.0))[std::size_t(world.rank())];
                TravellingBodies mine;
                mine.bodies.resize(block.size());
                for (std::size_t i = 0; i < block.size(); ++i) {
                    mine.ids.push_back(std::uint32_t(block.begin + i));
                    mine.bodies.x[i] = all.x[block.begin + i];
                    mine.bodies.y[i] = all.y[block.begin + i];
                    mine.bodies.z[i] = all.z[block.begin + i];
                    mine.bodies.m[i] = all.m[block.begin + i];
                }
                if (world.root())
                    std::cerr << "essential trees, N " << n << " on " << ranks << " ranks, " << to_string(precision)
                              << "\n";
                TreeGravity local(context, precision, parameters, options);
                EssentialTreeGravity gravity(world, local);
                std::unique_ptr<Held> held = std::make_unique<Held>(context, precision, mine.bodies);
                std::unique_ptr<dist::IndexDirectory> directory;
                if (ranks > 1) {
                    gravity.accelerations(held->positions, held->mass, mine.ids.size(), held->acc, 0);
                    mine = move_bodies(world, gravity.walkers(), mine);
                    held = std::make_unique<Held>(context, precision, mine.bodies);
                    directory = std::make_unique<dist::IndexDirectory>(world, mine.ids);
                    gravity.set_directory(directory.get());
                }
                const std::size_t count = mine.ids.size();
                std::vector<double> total, top, move, branches, join, exchanged, walk, results;
                for (int r = 0; r < std::max(o.repeat, 1); ++r) {
                    world.barrier();
                    total.push_back(block_seconds(1, [&] {
                        gravity.accelerations(held->positions, held->mass, count, held->acc, 0);
                        context.finish();
                    }));
                    const EssentialTreeGravity::Seconds& t = gravity.seconds();
                    top.push_back(t.top);
                    move.push_back(t.move);
                    branches.push_back(t.branches);
                    join.push_back(t.join);
                    exchanged.push_back(t.exchange);
                    walk.push_back(t.walk);
                    results.push_back(t.results);
                }
                // One rank alone, all N, and the check against its accelerations.
                TreeGravity whole(context, precision, parameters, options);
                const DeviceBodies bodies(context, precision, all);
                RealBuffer acc(context, precision, 3 * n);
                world.barrier();
                double alone = 0;
                if (world.root())
                    alone = median_seconds(o.repeat, [&] {
                        whole.accelerations(bodies.state, bodies.mass, n, acc, 0);
                        context.finish();
                    });
                alone = world.max(alone);
                whole.accelerations(bodies.state, bodies.mass, n, acc, 0);
                std::vector<double> want(3 * n), got(3 * count);
                acc.read(queue, want.data(), 3 * n);
                if (count) held->acc.read(queue, got.data(), 3 * count);
                bool same = true;
                for (std::size_t i = 0; i < count; ++i)
                    for (std::size_t c = 0; c < 3; ++c)
                        same = same && std::memcmp(&got[c * count + i], &want[c * n + mine.ids[i]], sizeof(double)) == 0;
                const bool all_same = world.max(same ? 0.0 : 1.0) == 0.0;
                const double real = precision == Precision::float32 ? 4.0 : 8.0;
                const auto slowest = [&](const std::vector<double>& t) { return significant(world.max(median(t)), 4); };
                const double seconds = world.max(median(total));
                const EssentialExchange& exchange = gravity.exchange();
                auto line = json_head("essential_tree", context.device(0));
                line["ranks"] = ranks;
                line["n"] = n;
                line["precision"] = to_string(precision);
                line["theta"] = o.theta;
                line["level"] = gravity.level();
                line["top_rounds"] = gravity.top_rounds();
                line["seconds"] = significant(seconds, 4);
                line["one_rank_seconds"] = significant(alone, 4);
                line["speedup"] = significant(alone / seconds, 4);
                if (ranks > 1) {
                    line["top_seconds"] = slowest(top);
                    line["move_seconds"] = slowest(move);
                    line["branches_seconds"] = slowest(branches);
                    line["join_seconds"] = slowest(join);
                    line["exchange_seconds"] = slowest(exchanged);
                    line["walk_seconds"] = slowest(walk);
                    line["results_seconds"] = slowest(results);
                }
                line["held_bodies"] = world.max(double(local.size()));
                line["nodes_received"] = world.max(double(exchange.nodes_received()));
                line["bodies_received"] = world.max(double(exchange.bodies_received()));
                line["bytes_received"] = world.max(gravity.bytes_received());
                line["gather_bytes"] = double(n - n / ranks) * 4 * real;
                line["bit_for_bit"] = all_same;
                if (world.root()) print_json_line(line);
            }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
