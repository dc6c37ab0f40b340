// Part of tests/test_oclgrind.cpp's run of nbody/tree_build.cl: the selection of locally
// essential trees (tree_essential_open and _count, tree_essential_nodes, tree_essential_bodies,
// then the exports), driven level by level as TreeGravity::essential_sends drives it, on fresh random
// inputs: a heap of random node values (an eighth of them massless), random boxes in runs of
// ranks (some not walked, masks of several words), against the host's walk of each box in
// float64 over the same values. A node whose distance lies within 1e-5 of its opening distance
// may go either way (the device rounds in its precision); every other must be as the host has it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

using Item = std::pair<std::uint32_t, int>;  // a node's heap index or a body's place, and a rank

struct Heap {
    std::size_t levels, top, n;
    Range run;  // of level `top`
    std::vector<double> node, box, sorted, boxes;
    std::vector<int> rank;
    std::size_t nodes() const noexcept { return std::size_t(2) << levels; }
    std::size_t leaves() const noexcept { return std::size_t(1) << levels; }
    std::size_t first_body(std::size_t p) const noexcept { return p * n / leaves(); }
};

// What the walks of every box send, opening where g2 <= crit2 * margin * factor.
void host_walks(const Heap& h, double margin, double factor, std::set<Item>& nodes, std::set<Item>& bodies) {
    for (std::size_t j = 0; j < h.rank.size(); ++j) {
        if (h.rank[j] < 0) continue;
        std::vector<std::size_t> stack{1};
        while (!stack.empty()) {
            const std::size_t k = stack.back();
            stack.pop_back();
            std::size_t l = 0;
            while (k >> (l + 1)) ++l;
            if (l >= h.top) {
                const std::size_t p = (k >> (l - h.top)) - (std::size_t(1) << h.top);
                if (p < h.run.begin || p >= h.run.end) continue;
            }
            const std::size_t heap = h.nodes();
            if (!(h.node[3 * heap + k] > 0)) continue;
            double g2 = 0;
            for (std::size_t a = 0; a < 3; ++a) {
                const double c = h.node[a * heap + k];
                const double gap = std::max(std::max(h.boxes[6 * j + a] - c, c - h.boxes[6 * j + 3 + a]), 0.0);
                g2 += gap * gap;
            }
            if (g2 > h.node[4 * heap + k] * margin * factor) continue;
            if (l == h.levels) {
                const std::size_t p = k - h.leaves();
                for (std::size_t b = h.first_body(p); b < h.first_body(p + 1); ++b)
                    bodies.insert({std::uint32_t(b), h.rank[j]});
                continue;
            }
            if (l + 1 > h.top) {
                nodes.insert({std::uint32_t(2 * k), h.rank[j]});
                nodes.insert({std::uint32_t(2 * k + 1), h.rank[j]});
            }
            stack.push_back(2 * k + 1);
            stack.push_back(2 * k);
        }
    }
}

void host_scan(Queue& queue, Buffer<std::uint32_t>& counts, std::size_t size) {
    std::vector<std::uint32_t> c = counts.read(queue);
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < size; ++i) {
        const std::uint32_t v = c[i];
        c[i] = sum;
        sum += v;
    }
    counts.write(queue, c).wait();
}

void run_essential_with(Precision precision, std::size_t levels, std::size_t top, Range run, std::size_t n,
                        std::size_t boxes, std::size_t ranks) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(levels);
    CAPTURE(top);
    CAPTURE(boxes);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1);
    const bool single = precision == Precision::float32;
    const auto real = [&](double v) { return single ? double(float(v)) : v; };
    Heap h{levels, top, n, run, {}, {}, {}, {}, {}};
    h.node.resize(11 * h.nodes());
    h.box.resize(7 * h.nodes());
    h.sorted.resize(4 * n);
    for (double& v : h.node) v = real(unit(rng));
    for (std::size_t k = 0; k < h.nodes(); ++k) {
        h.node[3 * h.nodes() + k] = rng() % 8 == 0 ? 0.0 : real(1.5 + unit(rng));
        // Opening distances of 0 to 1.7: a box opens about half the nodes it meets.
        h.node[4 * h.nodes() + k] = real(1.5 * (1 + unit(rng)));
    }
    for (double& v : h.box) v = real(unit(rng));
    for (double& v : h.sorted) v = real(unit(rng));
    h.boxes.resize(6 * boxes);
    h.rank.resize(boxes);
    for (std::size_t j = 0; j < boxes; ++j) {
        // Ranks in runs of boxes, ascending; about one box in four walked by none.
        h.rank[j] = rng() % 4 == 0 ? -1 : int(j * ranks / boxes);
        for (std::size_t a = 0; a < 3; ++a) {
            h.boxes[6 * j + a] = real(unit(rng));
            h.boxes[6 * j + 3 + a] = real(h.boxes[6 * j + a] + 0.3 * (1 + unit(rng)));
        }
    }
    const double margin = 1 + 64 * (single ? double(FLT_EPSILON) : DBL_EPSILON);
    std::set<Item> nodes_lo, bodies_lo, nodes_hi, bodies_hi;
    host_walks(h, margin, 1 - 1e-5, nodes_lo, bodies_lo);
    host_walks(h, margin, 1 + 1e-5, nodes_hi, bodies_hi);

    // The driver of TreeGravity::essential_sends, with the scans on the host.
    BuildOptions options;
    options.precision = precision;
    options.define("TREE_GROUP", 16).define("TREE_FINISH", 16);
    const Program program = build_program(context, Source::builtin("nbody/tree_build.cl"), options, memory_cache());
    const std::size_t words = (boxes + 31) / 32;
    std::vector<std::size_t> first(levels + 1), size(levels + 1), base(levels + 2, 0);
    for (std::size_t l = 0; l <= levels; ++l) {
        const Range r = l < top ? Range{0, std::size_t(1) << l} : Range{run.begin << (l - top), run.end << (l - top)};
        first[l] = (std::size_t(1) << l) + r.begin;
        size[l] = r.size();
        base[l + 1] = base[l] + size[l];
    }
    const std::size_t below = base[levels + 1] - base[std::min(top + 1, levels + 1)], leaves = size[levels];
    std::vector<std::uint32_t> rank(boxes), walked(words, 0);
    for (std::size_t j = 0; j < boxes; ++j) {
        rank[j] = std::uint32_t(h.rank[j]);
        if (h.rank[j] >= 0) walked[j / 32] |= std::uint32_t(1) << (j % 32);
    }
    RealBuffer node(context, precision, h.node.size());
    RealBuffer box(context, precision, h.box.size());
    RealBuffer sorted(context, precision, h.sorted.size());
    RealBuffer bbox(context, precision, h.boxes.size());
    node.write(queue, h.node);
    box.write(queue, h.box);
    sorted.write(queue, h.sorted);
    bbox.write(queue, h.boxes);
    Buffer<std::uint32_t> brank(context, rank);
    Buffer<std::uint32_t> bwalked(context, walked);
    Buffer<std::uint32_t> open(context, words * base[levels + 1]);
    Buffer<std::uint32_t> sends(context, std::vector<std::uint32_t>(below + 1, 0));
    Buffer<std::uint32_t> leaf_sends(context, std::vector<std::uint32_t>(leaves + 1, 0));
    const std::uint32_t none = 0xffffffffu;
    for (std::size_t l = 0; l <= levels; ++l) {
        const std::size_t up = l > 0 ? l - 1 : 0;
        Kernel(program, "tree_essential_open")
            .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(base[l]), std::uint32_t(first[up]),
                  std::uint32_t(base[up]), std::uint32_t(h.nodes()), std::uint32_t(words), Real{margin}, bwalked, bbox,
                  node, open)
            .launch(queue, size[l] * words, 4)
            .wait();
        if (l > top || l == levels)
            Kernel(program, "tree_essential_count")
                .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(base[l]), std::uint32_t(first[up]),
                      std::uint32_t(base[up]), std::uint32_t(words),
                      l > top ? std::uint32_t(base[l] - base[top + 1]) : none,
                      std::uint32_t(l == levels), std::uint32_t(h.leaves()), std::uint32_t(n), brank, open, sends,
                      leaf_sends)
                .launch(queue, size[l], 4)
                .wait();
    }
    host_scan(queue, sends, below + 1);
    host_scan(queue, leaf_sends, leaves + 1);
    const std::uint32_t node_items = sends.read(queue)[below], body_items = leaf_sends.read(queue)[leaves];
    Buffer<std::uint32_t> ids(context, std::max<std::uint32_t>(node_items, 1));
    Buffer<std::uint32_t> ids_to(context, std::max<std::uint32_t>(node_items, 1));
    Buffer<std::uint32_t> places(context, std::max<std::uint32_t>(body_items, 1));
    Buffer<std::uint32_t> places_to(context, std::max<std::uint32_t>(body_items, 1));
    for (std::size_t l = top + 1; l <= levels; ++l)
        Kernel(program, "tree_essential_nodes")
            .args(std::uint32_t(size[l]), std::uint32_t(first[l]), std::uint32_t(first[l - 1]), std::uint32_t(base[l - 1]),
                  std::uint32_t(words), std::uint32_t(base[l] - base[top + 1]), brank, open, sends, ids, ids_to)
            .launch(queue, size[l], 4)
            .wait();
    // The window holds the run's bodies from its first one on.
    const std::size_t window = h.first_body(first[levels] - h.leaves());
    Kernel(program, "tree_essential_bodies")
        .args(std::uint32_t(leaves), std::uint32_t(first[levels]), std::uint32_t(base[levels]), std::uint32_t(words),
              std::uint32_t(h.leaves()), std::uint32_t(n), std::uint32_t(window), brank, open, leaf_sends, places,
              places_to)
        .launch(queue, leaves, 4)
        .wait();
    RealBuffer rows(context, precision, std::max<std::size_t>(12 * node_items, 1));
    RealBuffer values(context, precision, std::max<std::size_t>(4 * body_items, 1));
    // The window's bodies: `sorted` from the window's first on.
    RealBuffer window_sorted(context, precision, std::max<std::size_t>(4 * (n - window), 1));
    if (n > window) sorted.copy_to(queue, window_sorted, 4 * (n - window), 4 * window).wait();
    Kernel(program, "tree_export_nodes")
        .args(node_items, std::uint32_t(h.nodes()), ids, node, box, rows)
        .launch(queue, node_items, 4)
        .wait();
    Kernel(program, "tree_export_bodies").args(body_items, places, window_sorted, values).launch(queue, body_items, 4).wait();

    const auto got_ids = ids.read(queue), got_ids_to = ids_to.read(queue);
    const auto got_places = places.read(queue), got_places_to = places_to.read(queue);
    const auto got_rows = rows.read(queue), got_values = values.read(queue);
    // Each item once, between the host's two walks, in the order essential_sends gives: nodes
    // by heap index, each's ranks in order; bodies leaf by leaf, a leaf's once for each rank.
    const auto check_items = [](const std::vector<Item>& items, const std::set<Item>& lo, const std::set<Item>& hi,
                                auto order) {
        const std::set<Item> got(items.begin(), items.end());
        CHECK(got.size() == items.size());
        CHECK(std::includes(got.begin(), got.end(), lo.begin(), lo.end()));
        CHECK(std::includes(hi.begin(), hi.end(), got.begin(), got.end()));
        CHECK(std::is_sorted(items.begin(), items.end(), [&](const Item& a, const Item& b) { return order(a) < order(b); }));
    };
    std::vector<Item> node_list, body_list;
    for (std::size_t i = 0; i < node_items; ++i) node_list.push_back({got_ids[i], int(got_ids_to[i])});
    for (std::size_t i = 0; i < body_items; ++i)
        body_list.push_back({std::uint32_t(got_places[i] + window), int(got_places_to[i])});
    check_items(node_list, nodes_lo, nodes_hi, [](const Item& a) { return a; });
    check_items(body_list, bodies_lo, bodies_hi, [&](const Item& a) {
        const std::size_t leaf = (std::size_t(a.first + 1) * h.leaves() - 1) / n;  // tree.h's tree_node_of
        return std::make_tuple(leaf, a.second, a.first);
    });
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < node_items; ++i) {
        for (std::size_t f = 0; f < 11; ++f) wrong += got_rows[12 * i + f] != h.node[f * h.nodes() + got_ids[i]];
        wrong += got_rows[12 * i + 11] != h.box[6 * h.nodes() + got_ids[i]];
    }
    for (std::size_t i = 0; i < body_items; ++i)
        for (std::size_t c = 0; c < 4; ++c) wrong += got_values[4 * i + c] != h.sorted[4 * (got_places[i] + window) + c];
    CHECK(wrong == 0);
    MESSAGE("essential selection: " << node_items << " nodes and " << body_items << " bodies sent (host: "
                                    << nodes_lo.size() << " to " << nodes_hi.size() << ", " << bodies_lo.size()
                                    << " to " << bodies_hi.size() << ")");
}

} // namespace

// Run by run_tree_build_kernel.
void run_tree_essential_kernels(Precision precision) {
    // Two mask words over three ranks, a run in the middle of level 2 of 5.
    run_essential_with(precision, 5, 2, {1, 3}, 50, 40, 3);
    // The branches' level is the leaves' (no node below it is sent), one word.
    run_essential_with(precision, 3, 3, {2, 6}, 20, 8, 2);
    // The root is the run.
    run_essential_with(precision, 4, 0, {0, 1}, 30, 12, 4);
}

} // namespace partcl_test
