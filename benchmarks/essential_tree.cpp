// Locally essential trees over MPI ranks (TreeTop, TreeGravity::build_branches and build_top,
// EssentialExchange): what each piece costs a rank and what it receives, against the gather
// that tree runs use today (every body to every rank). Start it under mpirun:
//
//   mpirun -np K partcl_bench_essential_tree [--device FILTER] [--backend ...] [--n 65536,262144]
//                                            [--precision float,double] [--theta 0.6] [--repeat 3]
//
// The bodies: a Plummer sphere (G = M = a = 1, softening 0.01), the same on every rank, each
// rank holding an equal block by index. The branches' level: the smallest with at least 8
// nodes a rank, or the walk groups' level where that is smaller. Each rank runs the chain
// --repeat times and rank 0 prints one JSON line per N and precision, each time the slowest
// rank's median (host wall time, the device's work finished): "top_seconds" (TreeTop::split),
// "move_seconds" (the bodies to their nodes' owners, in the tree's order, on the device),
// "branches_seconds" (build_branches), "join_seconds" (the roots gathered, build_top),
// "exchange_seconds" (EssentialExchange::run: the rows read back, the walks of the other
// ranks' roots, the alltoallv, the import), "walk_seconds" (the rank's own groups); and per
// rank at most: "held_bodies", "nodes_received", "bodies_received", "bytes_received" (of the
// exchange), against "gather_bytes" (what the gather brings a rank: the others' bodies, x y z m
// in the precision). "bit_for_bit": every rank's walk equals that of its groups over the tree
// of all N built on one device (checked once, untimed).
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
    app.add_option("--repeat", o.repeat, "Runs of the chain (the median of each piece is taken)");
    parse_or_exit(app, argc, argv);
    return o;
}

// Seconds since the latest lap (or the start).
class Laps {
public:
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        return seconds;
    }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// One run of the chain on this rank's block; the tree and the pieces' seconds.
struct Chain {
    std::unique_ptr<TreeGravity> tree;
    EssentialExchange exchange;
    double top = 0, move = 0, branches = 0, join = 0, exchanged = 0, walk = 0;
    std::vector<double> results;  // the walk's, in tree order (x | y | z)
    explicit Chain(const dist::Communicator& world) : exchange(world) {}
};

void run_chain(Chain& c, Context& context, const dist::Communicator& world, Precision precision,
               const TreeOptions& options, const Bodies& all, Range block, std::size_t level) {
    const std::size_t n = all.size(), mine = block.size();
    Queue& queue = context.queue(0);
    const auto part = [&](const std::vector<double>& v) {
        return std::vector<double>(v.begin() + std::ptrdiff_t(block.begin), v.begin() + std::ptrdiff_t(block.end));
    };
    const std::vector<double> x = part(all.x), y = part(all.y), z = part(all.z), m = part(all.m);
    std::vector<std::uint64_t> index(mine);
    for (std::size_t i = 0; i < mine; ++i) index[i] = block.begin + i;
    world.barrier();
    Laps clock;
    const TreeTop top = TreeTop::split(world, precision, x.data(), y.data(), z.data(), index.data(), mine, n, level);
    c.top = clock.lap();
    const Partition owners = top.owners(std::size_t(world.size()));
    const dist::Distributor move(world, top.destinations(owners));
    const std::vector<double> ax = move.distribute(x), ay = move.distribute(y), az = move.distribute(z);
    const std::vector<double> am = move.distribute(m);
    const std::vector<std::uint64_t> aindex = move.distribute(index);
    const std::vector<std::uint32_t> anode = move.distribute(top.node());
    const std::vector<std::size_t> order =
        top.order_of(anode.data(), ax.data(), ay.data(), az.data(), aindex.data(), aindex.size());
    const std::size_t held = order.size();
    std::vector<double> pos(3 * held), mass(held);
    for (std::size_t i = 0; i < held; ++i) {
        pos[i] = ax[order[i]];
        pos[held + i] = ay[order[i]];
        pos[2 * held + i] = az[order[i]];
        mass[i] = am[order[i]];
    }
    RealBuffer bpos(context, precision, std::max<std::size_t>(3 * held, 1));
    RealBuffer bmass(context, precision, std::max<std::size_t>(held, 1));
    bpos.write(queue, pos);
    bmass.write(queue, mass);
    c.move = clock.lap();
    const Range run = owners[std::size_t(world.rank())];
    c.tree = std::make_unique<TreeGravity>(context, precision, GravityParameters{1.0, 0.01}, options);
    c.tree->build_branches(bpos, bmass, held, n, level, run, top.cell_boxes());
    queue.finish();
    c.branches = clock.lap();
    const std::vector<double> roots = world.allgatherv(c.tree->node_rows(level, run));
    c.tree->build_top(level, roots);
    c.join = clock.lap();
    c.exchange.run(*c.tree, owners, roots);
    c.exchanged = clock.lap();
    RealBuffer out(context, precision, std::max<std::size_t>(3 * held, 1));
    c.tree->evaluate_in_tree_order(c.tree->branch_groups(), out);
    c.walk = clock.lap();
    c.results.resize(3 * held);
    if (held) out.read(queue, c.results.data(), 3 * held);
}

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);
    const Options o = parse(argc, argv);
    const dist::Communicator& world = dist::Communicator::world();
    try {
        Context context = dist::rank_context(DeviceFilter::from_environment(o.device, o.backend), world);
        const std::size_t ranks = std::size_t(world.size());
        for (const Precision precision : o.precisions)
            for (const std::size_t n : o.sizes) {
                TreeOptions options;
                options.theta = o.theta;
                std::size_t level = 0;
                while ((std::size_t(1) << level) < 8 * ranks) ++level;
                level = std::min({level, TreeGravity::levels_for(n, options.group_size),
                                  TreeGravity::levels_for(n, options.leaf_size)});
                Random random(12345);
                const Bodies all = plummer_sphere(n, 1.0, 1.0, 1.0, random);
                const Range block = Partition::by_weight(n, std::vector<double>(ranks, 1.0))[std::size_t(world.rank())];
                if (world.root())
                    std::cerr << "essential trees, N " << n << " on " << ranks << " ranks, " << to_string(precision)
                              << ", level " << level << "\n";
                Chain c(world);
                std::vector<double> top, move, branches, join, exchanged, walk;
                for (int r = 0; r < std::max(o.repeat, 1); ++r) {
                    run_chain(c, context, world, precision, options, all, block, level);
                    top.push_back(c.top);
                    move.push_back(c.move);
                    branches.push_back(c.branches);
                    join.push_back(c.join);
                    exchanged.push_back(c.exchanged);
                    walk.push_back(c.walk);
                }
                // The check: this rank's groups walked over the tree of all N on one device.
                TreeGravity whole(context, precision, GravityParameters{1.0, 0.01}, options);
                const DeviceBodies bodies(context, precision, all);
                whole.build(bodies.state, bodies.mass, n);
                const std::size_t held = c.results.size() / 3;
                RealBuffer out(context, precision, std::max<std::size_t>(3 * held, 1));
                whole.evaluate_in_tree_order(c.tree->branch_groups(), out);
                std::vector<double> want(3 * held);
                if (held) out.read(context.queue(0), want.data(), 3 * held);
                const bool same = std::memcmp(want.data(), c.results.data(), want.size() * sizeof(double)) == 0;
                const double all_same = -world.max(same ? -1.0 : 0.0);
                const double real = precision == Precision::float32 ? 4.0 : 8.0;
                const auto slowest = [&](const std::vector<double>& t) { return significant(world.max(median(t)), 4); };
                auto line = json_head("essential_tree", context.device(0));
                line["ranks"] = ranks;
                line["n"] = n;
                line["precision"] = to_string(precision);
                line["theta"] = o.theta;
                line["level"] = level;
                line["top_seconds"] = slowest(top);
                line["move_seconds"] = slowest(move);
                line["branches_seconds"] = slowest(branches);
                line["join_seconds"] = slowest(join);
                line["exchange_seconds"] = slowest(exchanged);
                line["walk_seconds"] = slowest(walk);
                line["held_bodies"] = world.max(double(held));
                line["nodes_received"] = world.max(double(c.exchange.nodes_received()));
                line["bodies_received"] = world.max(double(c.exchange.bodies_received()));
                line["bytes_received"] = world.max(c.exchange.bytes_received());
                line["gather_bytes"] = double(n - block.size()) * 4 * real;
                line["bit_for_bit"] = all_same == 1.0;
                if (world.root()) print_json_line(line);
            }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
