#include "tree_ranks.hpp"

#include <random>

#include <partcl/dist/distributor.hpp>
#include <partcl/models/nbody/tree_top.hpp>

#include "support.hpp"

using namespace partcl;

namespace partcl_test {

RankBranches build_rank_branches(const dist::Communicator& world, Precision precision, const Bodies& b,
                                 const TreeOptions& o, std::size_t level, std::uint32_t seed) {
    const std::size_t n = b.size();
    Context& context = test_context();
    Queue& queue = context.queue(0);
    std::mt19937 random(seed);
    std::vector<std::uint64_t> index;
    std::vector<double> x, y, z, m;
    for (std::size_t g = 0; g < n; ++g)
        if (random() % std::uint32_t(world.size()) == std::uint32_t(world.rank())) {
            index.push_back(g);
            x.push_back(b.x[g]);
            y.push_back(b.y[g]);
            z.push_back(b.z[g]);
            m.push_back(b.m[g]);
        }
    const TreeTop top = TreeTop::split(world, precision, x.data(), y.data(), z.data(), index.data(), index.size(), n,
                                       level);
    RankBranches out;
    out.owners = top.owners(std::size_t(world.size()));
    const dist::Distributor move(world, top.destinations(out.owners));
    const std::vector<double> ax = move.distribute(x), ay = move.distribute(y), az = move.distribute(z);
    const std::vector<double> am = move.distribute(m);
    const std::vector<std::uint64_t> aindex = move.distribute(index);
    const std::vector<std::uint32_t> anode = move.distribute(top.node());
    const std::vector<std::size_t> order =
        top.order_of(anode.data(), ax.data(), ay.data(), az.data(), aindex.data(), aindex.size());
    const std::size_t held = order.size();
    std::vector<double> pos(3 * held), mass(held);
    out.index.resize(held);
    for (std::size_t i = 0; i < held; ++i) {
        pos[i] = ax[order[i]];
        pos[held + i] = ay[order[i]];
        pos[2 * held + i] = az[order[i]];
        mass[i] = am[order[i]];
        out.index[i] = aindex[order[i]];
    }
    RealBuffer bpos(context, precision, 3 * held), bmass(context, precision, held);
    bpos.write(queue, pos);
    bmass.write(queue, mass);
    out.tree = std::make_unique<TreeGravity>(context, precision, GravityParameters{1.0, 0.01}, o, memory_cache());
    out.tree->build_branches(bpos, bmass, held, n, level, out.owners[std::size_t(world.rank())], top.cell_boxes());
    return out;
}

} // namespace partcl_test
