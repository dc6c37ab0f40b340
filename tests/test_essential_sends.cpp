// TreeGravity::essential_sends with boxes of many ranks (suite `mpi`, on 1, 2 and 3 ranks): each
// rank's branches and top as a run builds them, then a few hundred boxes of made-up ranks strewn
// over and around the bodies, as a run over hundreds of ranks gives a rank, so that the masks
// span several words and the walk below the branches' level keeps only the boxes that reach it.
// Every node and body sent, and to whom, must lie between float64 host walks of the rank's
// subtrees (read back through node_rows) at margins a hair below and above the one asked, each
// once, with the node's own values.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <cstring>
#include <random>
#include <set>
#include <utility>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include "support.hpp"
#include "tree_check.hpp"
#include "tree_ranks.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

using Items = std::set<std::pair<std::uint32_t, int>>;  // (heap node or tree position, rank)

// What the boxes open, walked on the host from the tree's rows: nodes below level `top` in the
// run only, once for each rank whose box opened their parent; bodies of opened leaves.
struct HostWalk {
    std::size_t levels = 0, top = 0, total = 0;
    Range run;                                // at level top
    std::vector<std::vector<double>> rows;    // per level, row_fields a node, from `from[l]`
    std::vector<std::size_t> from;

    const double* row(std::size_t l, std::size_t p) const {
        return rows[l].data() + TreeGravity::row_fields * (p - from[l]);
    }
    bool in_run(std::size_t l, std::size_t p) const {
        return l < top || (p >= run.begin << (l - top) && p < run.end << (l - top));
    }
    void walk(const double* box, int rank, double margin, Items& nodes, Items& bodies) const {
        std::vector<std::pair<std::size_t, std::size_t>> stack{{0, 0}};
        while (!stack.empty()) {
            const auto [l, p] = stack.back();
            stack.pop_back();
            const double* r = row(l, p);
            double d2 = 0;
            for (std::size_t c = 0; c < 3; ++c) {
                const double g = std::max({box[c] - r[c], r[c] - box[3 + c], 0.0});
                d2 += g * g;
            }
            if (!(r[3] > 0 && d2 <= r[4] * margin)) continue;
            if (l == levels) {
                const std::size_t leaves = std::size_t(1) << levels;
                for (std::size_t q = tree_start(p, leaves, total); q < tree_start(p + 1, leaves, total); ++q)
                    bodies.insert({std::uint32_t(q), rank});
                continue;
            }
            for (const std::size_t c : {2 * p, 2 * p + 1}) {
                if (!in_run(l + 1, c)) continue;
                if (l + 1 > top) nodes.insert({std::uint32_t((std::size_t(1) << (l + 1)) + c), rank});
                stack.push_back({l + 1, c});
            }
        }
    }
};

void check_sends(const dist::Communicator& world, Precision precision, const Bodies& b, const TreeOptions& o,
                 std::size_t level, std::uint32_t seed) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(level);
    CAPTURE(o.theta);
    CAPTURE(o.leaf_size);
    RankBranches rank = build_rank_branches(world, precision, b, o, level, seed);
    TreeGravity& tree = *rank.tree;
    const Range mine = rank.owners[std::size_t(world.rank())];
    tree.build_top(level, world.allgatherv(tree.node_rows(level, mine)));
    if (mine.size() == 0) return;  // a rank without nodes sends nothing (the exchange's tests)

    HostWalk host;
    host.levels = tree.levels();
    host.top = level;
    host.total = n;
    host.run = mine;
    for (std::size_t l = 0; l <= host.levels; ++l) {
        const Range nodes = l <= level ? Range{0, std::size_t(1) << l}
                                       : Range{mine.begin << (l - level), mine.end << (l - level)};
        host.from.push_back(nodes.begin);
        host.rows.push_back(tree.node_rows(l, nodes));
    }

    // Runs of 1 to 24 boxes a made-up rank, some not walked: small boxes about random bodies,
    // boxes as large as the cluster, and boxes far away that open nothing below the top.
    std::mt19937 random(seed + 11);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> boxes;
    std::vector<int> box_rank;
    for (int made_up = 0; box_rank.size() < 400; ++made_up) {
        const std::size_t run = 1 + random() % 24;
        const int to = random() % 7 == 0 ? -1 : 3 * made_up + 1;
        for (std::size_t j = 0; j < run; ++j) {
            const std::size_t g = random() % n;
            const double centre[3] = {b.x[g], b.y[g], b.z[g]};
            const double kind = unit(random), half = kind < 0.05 ? 3.0 : 0.2 * unit(random);
            const double away = kind > 0.9 ? 100.0 : 0.0;
            for (std::size_t c = 0; c < 3; ++c) boxes.push_back(centre[c] + away - half * unit(random));
            for (std::size_t c = 0; c < 3; ++c) boxes.push_back(centre[c] + away + half * unit(random));
            box_rank.push_back(to);
        }
    }
    if (precision == Precision::float32)  // the device's boxes, which the host walks
        for (double& v : boxes) v = double(float(v));
    const double margin = 1 + 64 * std::numeric_limits<float>::epsilon();
    Items lo_nodes, lo_bodies, hi_nodes, hi_bodies;
    for (std::size_t j = 0; j < box_rank.size(); ++j)
        if (box_rank[j] >= 0) {
            host.walk(boxes.data() + 6 * j, box_rank[j], margin * (1 - 1e-5), lo_nodes, lo_bodies);
            host.walk(boxes.data() + 6 * j, box_rank[j], margin * (1 + 1e-5), hi_nodes, hi_bodies);
        }

    const TreeGravity::EssentialSends sends = tree.essential_sends(boxes, box_rank, margin);
    REQUIRE(sends.node_to.size() == sends.nodes.size());
    REQUIRE(sends.body_to.size() == sends.positions.size());
    Items nodes, bodies;
    for (std::size_t i = 0; i < sends.nodes.size(); ++i) nodes.insert({sends.nodes[i], sends.node_to[i]});
    for (std::size_t i = 0; i < sends.positions.size(); ++i) bodies.insert({sends.positions[i], sends.body_to[i]});
    CHECK(nodes.size() == sends.nodes.size());  // each once
    CHECK(bodies.size() == sends.positions.size());
    CHECK(std::includes(nodes.begin(), nodes.end(), lo_nodes.begin(), lo_nodes.end()));
    CHECK(std::includes(hi_nodes.begin(), hi_nodes.end(), nodes.begin(), nodes.end()));
    CHECK(std::includes(bodies.begin(), bodies.end(), lo_bodies.begin(), lo_bodies.end()));
    CHECK(std::includes(hi_bodies.begin(), hi_bodies.end(), bodies.begin(), bodies.end()));
    CHECK(!lo_nodes.empty());  // the case sends something
    // Each node's row: its 11 fields and its radius.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < sends.nodes.size(); ++i) {
        std::size_t l = 0;
        while ((std::size_t(2) << l) <= sends.nodes[i]) ++l;
        const double* want = host.row(l, sends.nodes[i] - (std::size_t(1) << l));
        const double* got = sends.rows.data() + TreeGravity::essential_row_fields * i;
        wrong += std::memcmp(want, got, TreeGravity::node_fields * sizeof(double)) != 0;
        wrong += std::memcmp(want + TreeGravity::row_fields - 1, got + TreeGravity::node_fields, sizeof(double)) != 0;
    }
    CHECK(wrong == 0);
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("TreeGravity::essential_sends: the boxes of hundreds of ranks open what a float64 walk opens") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !test_context().device(0).info().fp64) continue;
        CAPTURE(to_string(precision));
        const Bodies b = rounded(plummer(3001, seed), precision);
        for (const double theta : {0.6, 1.0})
            for (const std::size_t leaf_size : {1, 8}) {
                TreeOptions o;
                o.theta = theta;
                o.leaf_size = leaf_size;
                const std::size_t deepest = std::min(TreeGravity::levels_for(b.size(), leaf_size),
                                                     TreeGravity::levels_for(b.size(), o.group_size));
                for (const std::size_t level : {std::size_t(0), std::size_t(3), deepest})
                    check_sends(world, precision, b, o, level, seed + std::uint32_t(level));
            }
    }
}
}
