// TreeTop on 1, 2 and 3 ranks (suite `mpi`): each rank holds a random share of the bodies in a
// random order, and every body's node at the top levels must be the one it has in
// TreeGravity's tree of all of them, built on one device (its perm). Then the bodies move to
// their nodes' owners, and each rank must hold its run of the one-rank tree's positions in
// that tree's order at the level, as a host replay of the build's level-by-level sorts has it
// (itself checked against the device's perm at the deepest level). Plummer spheres, rounded to
// float where float is asked (bodies there share coordinates now and then), and bodies on a
// lattice of four values an axis, whose ties only the ancestors' axes and the indices break.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/models/nbody/tree_layout.hpp>
#include <partcl/models/nbody/device_tree_top.hpp>
#include <partcl/models/nbody/tree_top.hpp>

#include "support.hpp"
#include "tree_check.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

Bodies lattice(std::size_t n, std::uint32_t seed) {
    std::mt19937 random(seed);
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = double(random() % 4);
        b.y[i] = double(random() % 4) * 0.5;
        b.z[i] = double(random() % 4) * 0.25;
        b.m[i] = 1;
    }
    return b;
}

// The one-device tree of `b`, leaves of one body: its perm (tree position -> body).
std::vector<std::uint32_t> one_device_perm(Precision precision, const Bodies& b) {
    TreeSnapshot tree;
    const TreeOptions o{0.5, 1, TreeTraversal::stackless, 1};
    tree_forces(precision, b, {1.0, 0.01}, o, &tree);
    REQUIRE(tree.levels == TreeGravity::levels_for(b.size(), 1));
    return std::vector<std::uint32_t>(tree.perm.begin(), tree.perm.end());
}

// Every level-`levels` node's bodies in that tree: node[g] for body g.
std::vector<std::uint32_t> one_device_nodes(const std::vector<std::uint32_t>& perm, std::size_t levels) {
    const std::size_t count = std::size_t(1) << levels, n = perm.size();
    std::vector<std::uint32_t> node(n);
    for (std::size_t p = 0; p < count; ++p)
        for (std::size_t s = tree_start(p, count, n); s < tree_start(p + 1, count, n); ++s) node[perm[s]] = std::uint32_t(p);
    return node;
}

// The one-rank build's order of every body (global indices by tree position) after the sorts
// of levels 0 .. levels - 1, replayed on the host as tree_build.cl does them: each node's range
// sorted stably along its cell's widest side (ties to the lower axis), the children's cells
// the node's cut at the right child's first body when both children hold bodies.
template <class T>
std::vector<std::uint64_t> replayed_order(const Bodies& b, std::size_t levels) {
    const std::size_t n = b.size();
    const std::vector<double>* c[3] = {&b.x, &b.y, &b.z};
    std::vector<std::uint64_t> order(n);
    std::iota(order.begin(), order.end(), std::uint64_t(0));
    std::vector<std::array<T, 6>> cell{{}, {}};  // heap nodes; element 0 unused
    for (std::size_t a = 0; a < 3; ++a) {
        cell[1][a] = std::numeric_limits<T>::infinity();
        cell[1][3 + a] = -std::numeric_limits<T>::infinity();
        for (std::size_t i = 0; i < n; ++i) {
            cell[1][a] = std::min(cell[1][a], T((*c[a])[i]));
            cell[1][3 + a] = std::max(cell[1][3 + a], T((*c[a])[i]));
        }
    }
    auto start = [n](std::size_t p, std::size_t count) { return std::ptrdiff_t(tree_start(p, count, n)); };
    for (std::size_t level = 0; level < levels; ++level) {
        const std::size_t count = std::size_t(1) << level;
        cell.resize(4 * count);
        for (std::size_t p = 0; p < count; ++p) {
            const std::array<T, 6>& box = cell[count + p];
            const T e[3] = {T(box[3] - box[0]), T(box[4] - box[1]), T(box[5] - box[2])};
            const std::size_t axis = e[0] >= e[1] ? (e[0] >= e[2] ? 0 : 2) : (e[1] >= e[2] ? 1 : 2);
            const auto first = order.begin() + start(p, count), last = order.begin() + start(p + 1, count);
            std::stable_sort(first, last, [&](std::uint64_t i, std::uint64_t j) {
                return T((*c[axis])[i]) < T((*c[axis])[j]);
            });
            const auto mid = order.begin() + start(2 * p + 1, 2 * count);
            cell[2 * (count + p)] = cell[2 * (count + p) + 1] = box;
            if (first < mid && mid < last) {
                const T cut = T((*c[axis])[*mid]);
                cell[2 * (count + p)][3 + axis] = cut;
                cell[2 * (count + p) + 1][axis] = cut;
            }
        }
    }
    return order;
}

std::vector<std::uint64_t> replayed_order(Precision precision, const Bodies& b, std::size_t levels) {
    return precision == Precision::float32 ? replayed_order<float>(b, levels) : replayed_order<double>(b, levels);
}

// The bodies moved to their nodes' owners (node_cost: as TreeTop::owners takes it): this
// rank's arrivals, in order_of's order, must be its run of the replayed one-rank order.
void check_move(const dist::Communicator& world, Precision precision, const Bodies& b, const TreeTop& top,
                const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
                const std::vector<std::uint64_t>& index, const std::vector<double>& node_cost) {
    const std::size_t n = b.size(), count = std::size_t(1) << top.levels();
    const Partition owners = top.owners(std::size_t(world.size()), node_cost);
    REQUIRE(owners.total() == count);
    const dist::Distributor move(world, top.destinations(owners));
    const std::vector<double> mx = move.distribute(x), my = move.distribute(y), mz = move.distribute(z);
    const std::vector<std::uint64_t> mindex = move.distribute(index);
    const std::vector<std::uint32_t> mnode = move.distribute(top.node());
    const std::vector<std::size_t> order =
        top.order_of(mnode.data(), mx.data(), my.data(), mz.data(), mindex.data(), mindex.size());
    const Range mine = owners[std::size_t(world.rank())];
    const std::vector<std::uint64_t> one_rank = replayed_order(precision, b, top.levels());
    const std::size_t begin = tree_start(mine.begin, count, n), end = tree_start(mine.end, count, n);
    REQUIRE(order.size() == end - begin);
    std::size_t wrong = 0;
    for (std::size_t s = 0; s < order.size(); ++s) wrong += mindex[order[s]] != one_rank[begin + s];
    CHECK(wrong == 0);
}

// The device's split must be the host's bit for bit: every body's node, the order, the cells and
// the selection's rounds. Then its move: the records packed in the top's order, sent to their
// nodes' owners and merged there must be this rank's run of the replayed one-rank order, the
// bodies laid out in it.
void check_device_top(const dist::Communicator& world, Precision precision, const Bodies& b, const TreeTop& host,
                      const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
                      const std::vector<std::uint64_t>& index) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::size_t n = index.size(), total = b.size(), levels = host.levels();
    std::vector<double> xyz(x);
    xyz.insert(xyz.end(), y.begin(), y.end());
    xyz.insert(xyz.end(), z.begin(), z.end());
    std::vector<double> m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = b.m[index[i]];
    RealBuffer pos(context, precision, std::max<std::size_t>(3 * n, 1)), mass(context, precision, std::max<std::size_t>(n, 1));
    if (n > 0) {
        pos.write(queue, xyz);
        mass.write(queue, m);
    }
    DeviceTreeTop device(context, precision, memory_cache());
    const TreeTop top = device.split(world, pos, index.data(), n, total, levels);
    CHECK(top.node() == host.node());
    CHECK(top.order() == host.order());
    CHECK(top.rounds() == host.rounds());
    REQUIRE(top.cell_boxes().size() == host.cell_boxes().size());
    CHECK(std::memcmp(top.cell_boxes().data(), host.cell_boxes().data(), host.cell_boxes().size() * sizeof(double)) == 0);

    RealBuffer records;
    Buffer<std::uint32_t> tags;
    device.pack(pos, mass, records, tags);
    const Partition owners = top.owners(std::size_t(world.size()));
    const std::vector<int> to_body = top.destinations(owners);
    std::vector<int> to(n);
    for (std::size_t s = 0; s < n; ++s) to[s] = to_body[top.order()[s]];
    struct Record {
        double v[4];
    };
    struct Tag {
        std::uint32_t v[2];
    };
    std::vector<Record> rec(n);
    std::vector<Tag> tag(n);
    if (n > 0) {
        records.read(queue, &rec[0].v[0], 4 * n);
        tags.read(queue, &tag[0].v[0], 2 * n);
    }
    const dist::Distributor move(world, to);
    const std::vector<Record> arec = move.distribute(rec);
    const std::vector<Tag> atag = move.distribute(tag);
    const std::size_t held = arec.size();
    RealBuffer arrived(context, precision, std::max<std::size_t>(4 * held, 1));
    Buffer<std::uint32_t> arrived_tags(context, std::max<std::size_t>(2 * held, 1));
    if (held > 0) {
        arrived.write(queue, &arec[0].v[0], 4 * held);
        arrived_tags.write(queue, &atag[0].v[0], 2 * held);
    }
    Buffer<std::uint32_t> order;
    RealBuffer bpos, bmass;
    device.merge(move.sources().offsets(), arrived, arrived_tags, order, bpos, bmass);
    const std::size_t count = std::size_t(1) << levels;
    const Range mine = owners[std::size_t(world.rank())];
    const std::size_t begin = tree_start(mine.begin, count, total), end = tree_start(mine.end, count, total);
    REQUIRE(held == end - begin);
    if (held == 0) return;
    const std::vector<std::uint64_t> one_rank = replayed_order(precision, b, levels);
    std::vector<std::uint32_t> placed(held);
    order.read(queue, placed.data(), held);
    std::vector<double> laid(3 * held), laid_mass(held);
    bpos.read(queue, laid.data(), 3 * held);
    bmass.read(queue, laid_mass.data(), held);
    std::size_t wrong = 0;
    for (std::size_t j = 0; j < held; ++j) {
        const std::uint64_t g = atag[placed[j]].v[0];
        wrong += g != one_rank[begin + j];
        wrong += laid[j] != arec[placed[j]].v[0] || laid[held + j] != arec[placed[j]].v[1] ||
                 laid[2 * held + j] != arec[placed[j]].v[2] || laid_mass[j] != b.m[g];
    }
    CHECK(wrong == 0);
}

void check_top(const dist::Communicator& world, Precision precision, const Bodies& b, std::uint32_t seed,
               std::size_t levels) {
    const std::size_t n = b.size();
    CAPTURE(n);
    CAPTURE(levels);
    // This rank's share, shuffled.
    std::mt19937 random(seed);
    std::vector<std::uint64_t> index;
    for (std::size_t g = 0; g < n; ++g)
        if (random() % std::uint32_t(world.size()) == std::uint32_t(world.rank())) index.push_back(g);
    std::shuffle(index.begin(), index.end(), std::mt19937(seed + std::uint32_t(world.rank())));
    std::vector<double> x, y, z;
    for (std::uint64_t g : index) {
        x.push_back(b.x[g]);
        y.push_back(b.y[g]);
        z.push_back(b.z[g]);
    }
    const TreeTop top = TreeTop::split(world, precision, x.data(), y.data(), z.data(), index.data(),
                                       index.size(), n, levels);
    REQUIRE(top.node().size() == index.size());
    const std::vector<std::uint32_t> perm = one_device_perm(precision, b);
    const std::vector<std::uint32_t> expected = one_device_nodes(perm, levels);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < index.size(); ++i) wrong += top.node()[i] != expected[index[i]];
    CHECK(wrong == 0);
    // The order: by node; every body in its node's cell; the same cells on every rank.
    const std::vector<std::size_t>& order = top.order();
    REQUIRE(order.size() == index.size());
    for (std::size_t s = 1; s < order.size(); ++s) CHECK(top.node()[order[s - 1]] <= top.node()[order[s]]);
    const std::vector<double>& box = top.cell_boxes();
    const std::size_t nodes = std::size_t(2) << levels, first = nodes / 2;
    for (std::size_t i = 0; i < index.size(); ++i) {
        const std::size_t k = first + top.node()[i];
        const double c[3] = {x[i], y[i], z[i]};
        for (std::size_t a = 0; a < 3; ++a)
            CHECK((box[a * nodes + k] <= c[a] && c[a] <= box[(3 + a) * nodes + k]));
    }
    const std::vector<double> boxes = world.allgatherv(box);
    for (int r = 1; r < world.size(); ++r)
        CHECK(std::memcmp(boxes.data(), boxes.data() + std::size_t(r) * box.size(), box.size() * sizeof(double)) == 0);
    CHECK(top.order_of(top.node().data(), x.data(), y.data(), z.data(), index.data(), index.size()) == order);
    // The replay's deepest level is the device's tree order (a body a leaf, or none).
    if (levels == TreeGravity::levels_for(n, 1)) {
        const std::vector<std::uint64_t> replayed = replayed_order(precision, b, levels);
        CHECK(std::equal(replayed.begin(), replayed.end(), perm.begin(), perm.end()));
    }
    check_device_top(world, precision, b, top, x, y, z, index);
    // Moved by bodies, then by costs that differ from node to node (the same on every rank).
    check_move(world, precision, b, top, x, y, z, index, {});
    std::vector<double> cost(std::size_t(1) << levels);
    std::mt19937 costs(seed + 7);
    for (double& c : cost) c = std::uniform_real_distribution<double>(0.1, 3.0)(costs);
    check_move(world, precision, b, top, x, y, z, index, cost);
}

} // namespace

TEST_SUITE("mpi") {
TEST_CASE("TreeTop puts every body in the node it has in the one-device tree of all of them") {
    const dist::Communicator& world = dist::Communicator::world();
    const std::uint32_t seed = shared_seed(world);
    INFO("seed " << seed << ", rank " << world.rank() << " of " << world.size());
    for (const Precision precision : {Precision::float32, Precision::float64}) {
        CAPTURE(to_string(precision));
        for (const std::size_t n : {1, 2, 7, 100, 3001}) {
            const std::size_t deepest = TreeGravity::levels_for(n, 1);
            for (const std::size_t levels : {std::size_t(0), std::size_t(1), std::size_t(4), deepest}) {
                if (levels > deepest) continue;
                check_top(world, precision, rounded(plummer(n, seed + std::uint32_t(n)), precision), seed, levels);
                check_top(world, precision, lattice(n, seed + std::uint32_t(n)), seed + 1, levels);
            }
        }
    }
    // No bodies: the root's cell is empty, and nothing to place.
    const TreeTop none = TreeTop::split(world, Precision::float32, nullptr, nullptr, nullptr, nullptr, 0, 0, 2);
    CHECK(none.node().empty());
}

TEST_CASE("TreeTop refuses bad bodies on every rank alike") {
    const dist::Communicator& world = dist::Communicator::world();
    const double zero = 0, nan = NAN;
    const std::uint64_t mine = std::uint64_t(world.rank());
    const std::size_t total = std::size_t(world.size());
    // Rank 0's coordinate is NaN: every rank throws.
    const double* x = world.rank() == 0 ? &nan : &zero;
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, x, &zero, &zero, &mine, 1, total, 1),
                         doctest::Contains("NaN"), UsageError);
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &mine, 1, total + 1, 1),
                         doctest::Contains("hold"), UsageError);
    const std::uint64_t past = total;
    CHECK_THROWS_WITH_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &past, 1, total, 1),
                         doctest::Contains("index"), UsageError);
    CHECK_THROWS_AS(TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &mine, 1, total, 32), UsageError);
    // The device's split alike.
    {
        Context& context = test_context();
        DeviceTreeTop device(context, Precision::float64, memory_cache());
        RealBuffer at(context, Precision::float64, 3);
        at.write(context.queue(0), {*x, zero, zero});
        CHECK_THROWS_WITH_AS(device.split(world, at, &mine, 1, total, 1), doctest::Contains("NaN"), UsageError);
        at.write(context.queue(0), {zero, zero, zero});
        CHECK_THROWS_WITH_AS(device.split(world, at, &past, 1, total, 1), doctest::Contains("index"), UsageError);
        CHECK_THROWS_WITH_AS(device.split(world, at, &mine, 1, total + 1, 1), doctest::Contains("hold"), UsageError);
        CHECK_THROWS_WITH_AS(device.split(world, at, &mine, 2, total, 1), doctest::Contains("positions hold 3"),
                             UsageError);
    }
    // Owners, destinations and orders of the wrong shape.
    const TreeTop top = TreeTop::split(world, Precision::float64, &zero, &zero, &zero, &mine, 1, total, 2);
    CHECK_THROWS_WITH_AS(top.owners(0), doctest::Contains("no ranks"), UsageError);
    CHECK_THROWS_WITH_AS(top.owners(2, {1.0, 1.0}), doctest::Contains("2 node costs for the 4 nodes"), UsageError);
    CHECK_THROWS_WITH_AS(top.owners(2, {1.0, -1.0, 1.0, 1.0}), doctest::Contains("node 1's cost"), UsageError);
    CHECK_THROWS_WITH_AS(top.owners(2, {1.0, 1.0, nan, 1.0}), doctest::Contains("node 2's cost"), UsageError);
    CHECK_THROWS_WITH_AS(top.destinations(Partition({0, 3})), doctest::Contains("owners of 3 nodes"), UsageError);
    const std::uint32_t past_node = 4;
    CHECK_THROWS_WITH_AS(top.order_of(&past_node, &zero, &zero, &zero, &mine, 1), doctest::Contains("node 4"),
                         UsageError);
}
}
