// Dense gravity over MPI ranks (DistributedDenseGravity): strong and weak scaling against one
// rank measured in the same run. Start it under mpirun:
//
//   mpirun -np K partcl_bench_dense_ranks [--device FILTER] [--backend ...] [--n 16384,65536]
//                                         [--precision float,double] [--repeat 5] [--weak]
//
// For each N and precision: one rank alone (rank 0, the others waiting) and then all K ranks,
// each timing --repeat evaluations (median), three rounds in turns. Rank 0 prints one JSON line:
// "seconds" (K ranks; a rank's evaluation ends when its block is done, the slowest rank's time
// counts), "one_rank_seconds", "speedup" (one rank's time over K ranks'), "efficiency"
// (speedup / K), "gather_share" (the slowest rank's share of its time spent gathering the
// sources) and "bytes_per_rank" (received per evaluation). --weak scales N by sqrt(K), so that
// each rank computes as many interactions as one rank alone at N ("efficiency" is then the one
// rank's time at N over K ranks' time at N sqrt(K)).
#include <cmath>
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
    std::vector<std::size_t> sizes{16384};
    std::vector<Precision> precisions{Precision::float32};
    int repeat = 5;
    bool weak = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Dense gravity over MPI ranks against one rank", "partcl_bench_dense_ranks"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Bodies (of all ranks together)");
    add_precisions(app, o.precisions);
    app.add_option("--repeat", o.repeat, "Timed evaluations per turn (the median is taken)");
    app.add_flag("--weak", o.weak, "Weak scaling: N times sqrt(ranks) on the ranks");
    parse_or_exit(app, argc, argv);
    o.repeat = std::max(1, o.repeat);
    return o;
}

// One evaluation setting: this rank's block of n random bodies and a model over `ranks`.
struct Side {
    DenseGravity local;
    DistributedDenseGravity spread;
    RealBuffer positions, mass, acc;
    std::size_t mine;

    Side(Context& context, Precision precision, std::size_t n, const dist::Communicator& ranks)
        : local(context, precision, {1.0, 0.01}), spread(ranks, local) {
        const Range block = Partition::by_weight(n, std::vector<double>(std::size_t(ranks.size()), 1.0))
            [std::size_t(ranks.rank())];
        mine = block.size();
        std::mt19937_64 rng(12345 + block.begin);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<double> xyz(3 * mine), m(mine, 1.0 / double(n));
        for (double& v : xyz) v = u(rng);
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
        spread.accelerations(positions, mass, mine, acc, 0);
        context.finish();
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
        for (const Precision precision : o.precisions) {
            for (const std::size_t n0 : o.sizes) {
                const std::size_t n = o.weak ? std::size_t(std::llround(double(n0) * std::sqrt(k))) : n0;
                Side alone(context, precision, n0, dist::Communicator::self());
                Side all(context, precision, n, world);
                if (world.root()) std::cerr << "N " << n << " on " << world.size() << " ranks, " << to_string(precision) << "\n";
                const Turns turns = take_turns(
                    [&] {
                        world.barrier();
                        return world.max(median_seconds(o.repeat, [&] { all.evaluate(context); }));
                    },
                    [&] {
                        world.barrier();
                        double t = 0;
                        if (world.root()) t = median_seconds(o.repeat, [&] { alone.evaluate(context); });
                        return world.max(t);
                    });
                // The share of the K-rank evaluations' time spent gathering, on the slowest rank.
                const double evaluations = double(all.spread.interactions()) /
                                           (double(n) * double(std::max<std::size_t>(all.mine, 1)));
                const double share = world.max(all.spread.gather_seconds() /
                                               std::max(1e-30, turns.device * evaluations));
                const double bytes = world.max(all.spread.bytes_received() / std::max(1.0, evaluations));
                if (!world.root()) continue;
                auto line = json_head("dense_ranks", context.device(0));
                line["ranks"] = world.size();
                line["scaling"] = o.weak ? "weak" : "strong";
                line["n"] = n;
                line["one_rank_n"] = n0;
                line["precision"] = to_string(precision);
                line["seconds"] = significant(turns.device, 6);
                line["one_rank_seconds"] = significant(turns.reference, 6);
                line["speedup"] = significant(turns.ratio, 4);
                line["efficiency"] = significant(o.weak ? turns.ratio : turns.ratio / k, 4);
                line["gather_share"] = significant(share, 3);
                line["bytes_per_rank"] = bytes;
                print_json_line(line);
            }
        }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
