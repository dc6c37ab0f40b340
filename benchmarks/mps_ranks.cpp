// Explicit MPS over MPI ranks (MpsFluid on a communicator): strong or weak scaling against one
// rank measured in the same run. Start it under mpirun:
//
//   mpirun -np K partcl_bench_mps_ranks [--device FILTER] [--backend ...] [--dims 2,3]
//                                       [--n 100000] [--precision float,double] [--steps 10]
//                                       [--weak]
//
// --weak: the K ranks run the dam break of K times the particles (the same tank at a finer
// spacing), one rank that of N; "efficiency" is then one rank's step over the K ranks' step.
// The dam break of partcl_bench_mps (about N fluid particles, run 50 steps first so that the
// flow moves), the same on every rank, each rank keeping the particles of its slabs. For each
// setting: one rank alone (rank 0, the others waiting) and then all K ranks, each timing
// --steps steps, three rounds in turns. Rank 0 prints one JSON line: "seconds" (a step on K
// ranks), "one_rank_seconds", "speedup", "efficiency" (speedup / K), "exchange_share" (the
// slowest rank's share of its time in exchanges with other ranks: the particles at a step's
// start and the ghosts' values after three kernels, host copies included), "bytes_per_step"
// (sent by the rank that sent most) and "moved_per_step" (particles that changed rank, over
// every rank), "rebalances" (the times the ranks' slabs were cut again, MpsFluid::rebalance_every's
// default). "identical" (strong scaling only) says whether the K ranks' particles at the end are
// one rank's bit for bit (both ran the same steps).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#include "common.hpp"
#include "dam_break_scene.hpp"
#include "rank_turns.hpp"

using namespace partcl;

namespace {

using namespace partcl_bench;

struct Options {
    std::string device;
    std::string backend;
    std::vector<int> dims{3};
    std::vector<std::size_t> sizes{100000};
    std::vector<Precision> precisions{Precision::float32};
    int steps = 10;
    bool weak = false;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"Explicit MPS over MPI ranks against one rank", "partcl_bench_mps_ranks"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--dims", o.dims, "Dimensions")->check(CLI::IsMember({2, 3}));
    add_numbers(app, "--n", o.sizes, "Fluid particles (about)");
    add_precisions(app, o.precisions);
    app.add_option("--steps", o.steps, "Steps per timed block");
    app.add_flag("--weak", o.weak, "Weak scaling: K times the particles on K ranks");
    parse_or_exit(app, argc, argv);
    o.steps = std::max(1, o.steps);
    return o;
}

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);
    const Options o = parse(argc, argv);
    const dist::Communicator& world = dist::Communicator::world();
    try {
        Context context = dist::rank_context(DeviceFilter::from_environment(o.device, o.backend), world);
        const double k = double(world.size());
        for (const int dims : o.dims)
            for (const std::size_t target : o.sizes)
                for (const Precision precision : o.precisions) {
                    MpsParameters p, q;
                    const MpsScene s = dam_break_scene(dims, target, p);
                    const MpsScene& w = o.weak ? dam_break_scene(dims, target * world.size(), q) : s;
                    if (!o.weak) q = p;
                    if (world.root())
                        std::cerr << dims << "-D, " << w.particles.size() << " particles on "
                                  << world.size() << " ranks, " << to_string(precision) << "\n";
                    MpsFluid alone(context, precision, p, s.particles, s.lower, s.upper,
                                   ProgramCache::global(), dist::Communicator::self());
                    MpsFluid all(context, precision, q, w.particles, w.lower, w.upper,
                                 ProgramCache::global(), world);
                    for (int step = 0; step < 50; ++step) {
                        all.step();
                        if (world.root()) alone.step();
                    }
                    const dist::RankTraffic before = all.traffic();
                    const RankTurns r = rank_turns(world, context, o.steps, [&] { all.step(); },
                                                   [&] { alone.step(); });
                    const Turns& turns = r.turns;
                    const TrafficFigures traffic = traffic_figures(world, before, all.traffic(), r);
                    // Both took 50 + 3 (--steps + 1) steps; the particles are one rank's order.
                    const MpsParticles a = all.particles();
                    bool identical = false;
                    if (world.root() && !o.weak) {
                        const MpsParticles b = alone.particles();
                        identical = a.position.size() == b.position.size() &&
                                    std::memcmp(a.position.data(), b.position.data(),
                                                a.position.size() * sizeof(double)) == 0;
                    }
                    if (!world.root()) continue;
                    auto line = json_head("mps_ranks", context.device(0));
                    line["ranks"] = world.size();
                    line["dims"] = dims;
                    line["scaling"] = o.weak ? "weak" : "strong";
                    line["n"] = w.particles.size();
                    line["one_rank_n"] = s.particles.size();
                    line["precision"] = to_string(precision);
                    line["seconds"] = significant(turns.device, 6);
                    line["one_rank_seconds"] = significant(turns.reference, 6);
                    line["speedup"] = significant(turns.ratio, 4);
                    line["efficiency"] = significant(o.weak ? turns.ratio : turns.ratio / k, 4);
                    line["exchange_share"] = significant(traffic.share, 3);
                    line["bytes_per_step"] = significant(traffic.bytes_per_step, 4);
                    line["moved_per_step"] = significant(traffic.moved_per_step, 4);
                    line["rebalances"] = all.rebalances();
                    if (!o.weak) line["identical"] = identical;
                    print_json_line(line);
                }
    } catch (const std::exception& e) {
        dist::Environment::fail(e.what());
    }
    return 0;
}
