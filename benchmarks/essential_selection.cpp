// What locally essential trees' selection (TreeGravity::essential_sends) costs one rank of a run
// over K ranks, as K grows, in one process: how it scales with the ranks at sizes no machine
// here can start. The N bodies (a Plummer sphere, G = M = a = 1, softening 0.01) are split as a
// run over K ranks splits them (TreeTop at EssentialTreeGravity::level_for(N, K), its owners);
// the process builds the branches of one rank, K / 2 (in the middle of the space-filling curve,
// where the bodies are densest), joins them to the top of all N, and selects what the other
// K - 1 ranks' roots' boxes open.
//
//   partcl_bench_essential_selection [--device FILTER] [--backend ...] [--n 1048576]
//                                    [--ranks 2,16,128,1024] [--precision float,double]
//                                    [--theta 0.6] [--repeat 5]
//
// One JSON line per N, precision and K: "level" (the branches'), "boxes" (the others' roots with
// bodies), "held_bodies" (the rank's), "selection_seconds" (the median of --repeat selections,
// blocking), "build_seconds" (the median of as many builds of the rank's branches: the
// reference the selection is measured against, taken in the same run) and their ratio
// "selection_over_build", "nodes_sent" and "bodies_sent" (items, a node or body once for each
// rank it goes to) and "ranks_sent_to".
#include <algorithm>
#include <set>
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
    std::vector<std::size_t> sizes{1048576};
    std::vector<std::size_t> ranks{2, 16, 128, 1024};
    std::vector<Precision> precisions{Precision::float32};
    double theta = 0.6;
    int repeat = 5;
};

Options parse(int argc, char** argv) {
    Options o;
    CLI::App app{"The locally essential trees' selection of one rank of K"};
    app.add_option("--device", o.device, "Device filter (as partcl --device)");
    app.add_option("--backend", o.backend, "auto, opencl or cuda");
    add_numbers(app, "--n", o.sizes, "Bodies (of all ranks together)");
    add_numbers(app, "--ranks", o.ranks, "Ranks the bodies are split over (at least 2)");
    add_precisions(app, o.precisions);
    app.add_option("--theta", o.theta, "The tree's opening angle");
    app.add_option("--repeat", o.repeat, "Timed selections and builds (the median is taken)");
    parse_or_exit(app, argc, argv);
    for (const std::size_t k : o.ranks)
        if (k < 2) {
            std::cerr << "--ranks: " << k << " ranks leave no other rank to send to\n";
            std::exit(2);
        }
    return o;
}

} // namespace

int main(int argc, char** argv) {
    dist::Environment mpi(argc, argv);  // TreeTop splits over a communicator: this process's own
    const Options o = parse(argc, argv);
    try {
        Context context = first_device_context(o.device, o.backend);
        Queue& queue = context.queue(0);
        const dist::Communicator& self = dist::Communicator::self();
        const GravityParameters parameters{1.0, 0.01};
        for (const Precision precision : o.precisions)
            for (const std::size_t n : o.sizes) {
                TreeOptions options;
                options.theta = o.theta;
                Random random(12345);
                const Bodies all = plummer_sphere(n, 1.0, 1.0, 1.0, random);
                const DeviceBodies bodies(context, precision, all);
                TreeGravity whole(context, precision, parameters, options);
                whole.build(bodies.state, bodies.mass, n);
                std::vector<std::uint64_t> index(n);
                for (std::size_t i = 0; i < n; ++i) index[i] = i;
                for (const std::size_t ranks : o.ranks) {
                    const std::size_t level = EssentialTreeGravity::level_for(n, ranks, options);
                    const std::size_t rank = ranks / 2;
                    std::cerr << "essential selection, N " << n << ", rank " << rank << " of " << ranks << ", level "
                              << level << ", " << to_string(precision) << "\n";
                    const TreeTop top = TreeTop::split(self, precision, all.x.data(), all.y.data(), all.z.data(),
                                                       index.data(), n, n, level);
                    const Partition owners = top.owners(ranks);
                    const Range run = owners[rank];
                    std::vector<std::uint32_t> node;
                    std::vector<double> x, y, z, m;
                    std::vector<std::uint64_t> ids;
                    for (std::size_t i = 0; i < n; ++i)
                        if (top.node()[i] >= run.begin && top.node()[i] < run.end) {
                            node.push_back(top.node()[i]);
                            x.push_back(all.x[i]);
                            y.push_back(all.y[i]);
                            z.push_back(all.z[i]);
                            m.push_back(all.m[i]);
                            ids.push_back(i);
                        }
                    const std::size_t held = ids.size();
                    const std::vector<std::size_t> order =
                        top.order_of(node.data(), x.data(), y.data(), z.data(), ids.data(), held);
                    std::vector<double> pos(3 * held), mass(held);
                    for (std::size_t i = 0; i < held; ++i) {
                        pos[i] = x[order[i]];
                        pos[held + i] = y[order[i]];
                        pos[2 * held + i] = z[order[i]];
                        mass[i] = m[order[i]];
                    }
                    const std::size_t room = std::max<std::size_t>(held, 1);
                    RealBuffer positions(context, precision, 3 * room), masses(context, precision, room);
                    if (held > 0) {
                        positions.write(queue, pos);
                        masses.write(queue, mass);
                    }
                    TreeGravity local(context, precision, parameters, options);
                    const double build = median_seconds(o.repeat, [&] {
                        local.build_branches(positions, masses, held, n, level, run, top.cell_boxes());
                        context.finish();
                    });
                    const std::vector<double> rows = whole.node_rows(level, {0, std::size_t(1) << level});
                    local.build_top(level, rows);

                    // The others' roots with bodies, as EssentialExchange walks them.
                    const EssentialExchange::Boxes boxes = EssentialExchange::boxes_for(rank, owners, rows, precision);
                    const auto walked = std::count_if(boxes.rank.begin(), boxes.rank.end(), [](int r) { return r >= 0; });
                    TreeGravity::EssentialSends sends;
                    const double selection = median_seconds(
                        o.repeat, [&] { sends = local.essential_sends(boxes.boxes, boxes.rank, boxes.margin); });
                    const std::set<int> to(sends.node_to.begin(), sends.node_to.end());

                    auto line = json_head("essential_selection", context.device(0));
                    line["n"] = n;
                    line["precision"] = to_string(precision);
                    line["theta"] = o.theta;
                    line["ranks"] = ranks;
                    line["rank"] = rank;
                    line["level"] = level;
                    line["boxes"] = walked;
                    line["held_bodies"] = held;
                    line["selection_seconds"] = significant(selection, 4);
                    line["build_seconds"] = significant(build, 4);
                    line["selection_over_build"] = significant(selection / build, 4);
                    line["nodes_sent"] = sends.nodes.size();
                    line["bodies_sent"] = sends.positions.size();
                    line["ranks_sent_to"] = to.size();
                    print_json_line(line);
                }
            }
    } catch (const std::exception& e) {
        std::cerr << "partcl_bench_essential_selection: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
