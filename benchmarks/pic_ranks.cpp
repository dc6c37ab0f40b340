// Electrostatic PIC over MPI ranks (ElectrostaticPic on a communicator): strong and weak
// scaling against one rank measured in the same run. Start it under mpirun:
//
//   mpirun -np K partcl_bench_pic_ranks [--device FILTER] [--backend ...] [--dims 1,2,3]
//                                       [--grid 64] [--n 1000000] [--precision float,double]
//                                       [--deposit gather] [--steps 10] [--weak]
//
// The plasma of partcl_bench_pic: electrons and ions (mass 100) at uniform random positions
// with thermal velocities (0.1 cells a unit time; a step of dt = 0.5 moves a particle about
// 0.05 cells), the same on every rank, each rank keeping those of its slab. For each setting:
// one rank alone (rank 0, the others waiting) and then all K ranks, each timing --steps steps,
// three rounds in turns. Rank 0 prints one JSON line: "seconds" (a step on K ranks),
// "one_rank_seconds", "speedup" (one rank's time over K ranks'), "efficiency" (speedup / K, or
// for --weak one rank's time at N over K ranks' at K N), "exchange_share" (the slowest rank's
// share of its time in exchanges with other ranks: ghost planes, particle moves, the Poisson
// solve's transpositions, host copies included; "transpose_share" the transpositions alone),
// "bytes_per_step" (sent by the rank that sent
// most) and "migrated_per_step" (particles sent to other ranks, summed over the ranks).
// --weak: K times the particles on a grid K times longer along its slowest axis.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"
#include "rank_turns.hpp"
#include "thermal_plasma.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<int> dims{3};
    std::vector<std::uint32_t> grids{64};
    std::vector<std::size_t> sizes{1000000};
    std::vector<Precision> precisions{Precision::float32};
    std::vector<PicDeposit> deposits{PicDeposit::gather};
    int steps = 10;
    bool weak = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Electrostatic PIC over MPI ranks against one rank", "partcl_bench_pic_ranks"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({1, 2, 3}));
    add_numbers(app, "--grid", o.grids, "Grid nodes per axis (one rank's)");
    add_numbers(app, "--n", o.sizes, "Particles (one rank's)");
    add_precisions(app, o.precisions);
    add_deposits(app, o.deposits);
    app.add_option("--steps", o.steps, "Steps per timed block");
    app.add_flag("--weak", o.weak, "Weak scaling: K times the particles and the slowest axis");
    parse_or_exit(app, argc, argv);
    o.steps = std::max(1, o.steps);
    return o;
}


PicGrid grid_of(int dims, std::uint32_t nodes, std::uint32_t slowest) {
    PicGrid grid;
    grid.dimensions = dims;
    grid.nodes = {1, 1, 1};
    for (int k = 0; k < dims; ++k) grid.nodes[std::size_t(k)] = nodes;
    grid.nodes[std::size_t(dims - 1)] = slowest;
    return grid;
}

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);
    const Options o = parse(argc, argv);
    const dist::Communicator& world = dist::Communicator::world();
    try {
        Context context = dist::rank_context(DeviceFilter::from_environment(o.device, o.backend), world);
        const std::size_t k = std::size_t(world.size());
        const double dt = 0.5;
        for (const int dims : o.dims)
            for (const std::uint32_t nodes : o.grids)
                for (const std::size_t n0 : o.sizes)
                    for (const Precision precision : o.precisions)
                        for (const PicDeposit deposit : o.deposits) {
                            const std::size_t grow = o.weak ? k : 1;
                            const PicGrid small = grid_of(dims, nodes, nodes);
                            const PicGrid big = grid_of(dims, nodes, std::uint32_t(nodes * grow));
                            const std::size_t n = n0 * grow;
                            if (world.root())
                                std::cerr << dims << "-D, " << n << " particles on " << world.size()
                                          << " ranks, " << to_string(precision) << ", "
                                          << to_string(deposit) << "\n";
                            ElectrostaticPic alone(context, precision, small, plasma,
                                                   particles(small, n0), deposit,
                                                   ProgramCache::global(), dist::Communicator::self());
                            ElectrostaticPic all(context, precision, big, plasma, particles(big, n),
                                                 deposit, ProgramCache::global(), world);
                            const dist::RankTraffic before = all.traffic();
                            const double transposed_before = all.transpose_seconds();
                            const RankTurns r = rank_turns(
                                world, context, o.steps, [&] { all.step(dt); },
                                [&] { alone.step(dt); });
                            const Turns& turns = r.turns;
                            const TrafficFigures traffic =
                                traffic_figures(world, before, all.traffic(), r);
                            const double transpose_share =
                                world.max((all.transpose_seconds() - transposed_before) /
                                          std::max(1e-30, r.stepping));
                            if (!world.root()) continue;
                            auto line = json_head("pic_ranks", context.device(0));
                            line["ranks"] = world.size();
                            line["scaling"] = o.weak ? "weak" : "strong";
                            line["dims"] = dims;
                            line["grid"] = {big.nodes[0], big.nodes[1], big.nodes[2]};
                            line["n"] = n;
                            line["one_rank_n"] = n0;
                            line["precision"] = to_string(precision);
                            line["deposit"] = to_string(deposit);
                            line["seconds"] = significant(turns.device, 6);
                            line["one_rank_seconds"] = significant(turns.reference, 6);
                            line["speedup"] = significant(turns.ratio, 4);
                            line["efficiency"] =
                                significant(o.weak ? turns.ratio : turns.ratio / double(k), 4);
                            line["exchange_share"] = significant(traffic.share, 3);
                            line["transpose_share"] = significant(transpose_share, 3);
                            line["bytes_per_step"] = significant(traffic.bytes_per_step, 4);
                            line["migrated_per_step"] = significant(traffic.moved_per_step, 4);
                            print_json_line(line);
                        }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
