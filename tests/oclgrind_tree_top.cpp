// The run of tests/test_oclgrind.cpp's kernel table for nbody/tree_top.cl, on fresh random
// inputs: DeviceTreeTop on one rank against the host's TreeTop (the split bit for bit), then its
// part of the move (records packed in the top's order; cut into runs that each keep that
// order and merged back into it) and of the results' way back, against the host.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/device_tree_top.hpp>
#include <partcl/models/nbody/tree_top.hpp>

#include "oclgrind_kernels.hpp"
#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

std::vector<double> random_values(std::mt19937& rng, std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
    return v;
}

void run_tree_top_with(Precision precision, std::size_t n, std::size_t levels) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(n);
    CAPTURE(levels);
    std::mt19937 rng(seed);
    // A coarse lattice, so that ties along an axis are common, in a random order of indices.
    std::vector<double> xyz(3 * n), m(n);
    for (double& c : xyz) c = double(rng() % 5) * 0.5 - 1.0;
    for (double& w : m) w = 0.5 + double(rng() % 7);
    std::vector<std::uint64_t> index(n);
    std::iota(index.begin(), index.end(), std::uint64_t(0));
    std::shuffle(index.begin(), index.end(), rng);
    const dist::Communicator& self = dist::Communicator::self();
    const TreeTop host =
        TreeTop::split(self, precision, xyz.data(), xyz.data() + n, xyz.data() + 2 * n, index.data(), n, n, levels);

    RealBuffer pos(context, precision, 3 * n);
    RealBuffer mass(context, precision, n);
    pos.write(queue, xyz);
    mass.write(queue, m);
    DeviceTreeTop device(context, precision, memory_cache());
    const TreeTop top = device.split(self, pos, index.data(), n, n, levels);
    CHECK(top.node() == host.node());
    CHECK(top.order() == host.order());
    CHECK(top.rounds() == host.rounds());
    REQUIRE(top.cell_boxes().size() == host.cell_boxes().size());
    CHECK(std::memcmp(top.cell_boxes().data(), host.cell_boxes().data(), host.cell_boxes().size() * sizeof(double)) == 0);

    // The records in the top's order.
    const std::vector<double> seen = pos.read(queue), seen_mass = mass.read(queue);  // rounded
    RealBuffer records(context, precision, 4 * n);
    Buffer<std::uint32_t> tags(context, 2 * n);
    device.pack(pos, mass, records, tags);
    std::vector<double> rec(4 * n);
    std::vector<std::uint32_t> tag(2 * n);
    records.read(queue, rec.data(), rec.size());
    tags.read(queue, tag.data(), tag.size());
    std::size_t wrong = 0;
    for (std::size_t s = 0; s < n; ++s) {
        const std::size_t b = top.order()[s];
        for (std::size_t c = 0; c < 3; ++c) wrong += rec[4 * s + c] != seen[c * n + b];
        wrong += rec[4 * s + 3] != seen_mass[b];
        wrong += tag[2 * s] != index[b] || tag[2 * s + 1] != top.node()[b];
    }
    CHECK(wrong == 0);

    // Cut into four runs (the last empty), each in the top's order, and merged.
    std::vector<std::vector<std::size_t>> runs(4);
    for (std::size_t s = 0; s < n; ++s) runs[rng() % 3].push_back(s);
    std::vector<std::size_t> offsets = {0}, came;  // came[a]: the place of arrival a
    for (const auto& run : runs) {
        came.insert(came.end(), run.begin(), run.end());
        offsets.push_back(came.size());
    }
    std::vector<double> arec(4 * n);
    std::vector<std::uint32_t> atag(2 * n);
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t c = 0; c < 4; ++c) arec[4 * a + c] = rec[4 * came[a] + c];
        for (std::size_t c = 0; c < 2; ++c) atag[2 * a + c] = tag[2 * came[a] + c];
    }
    RealBuffer arrived(context, precision, 4 * n);
    Buffer<std::uint32_t> arrived_tags(context, 2 * n);
    arrived.write(queue, arec);
    arrived_tags.write(queue, atag).wait();
    Buffer<std::uint32_t> order(context, n);
    RealBuffer laid(context, precision, 3 * n);
    RealBuffer laid_mass(context, precision, n);
    device.merge(offsets, arrived, arrived_tags, order, laid, laid_mass);
    const std::vector<std::uint32_t> placed = order.read(queue);
    const std::vector<double> lp = laid.read(queue), lm = laid_mass.read(queue);
    wrong = 0;
    for (std::size_t j = 0; j < n; ++j) {
        wrong += came[placed[j]] != j;
        for (std::size_t c = 0; c < 3; ++c) wrong += lp[c * n + j] != rec[4 * j + c];
        wrong += lm[j] != rec[4 * j + 3];
    }
    CHECK(wrong == 0);

    // The results by arrival, from a build whose perm is a random permutation.
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    Buffer<std::uint32_t> build_perm(context, n);
    build_perm.write(queue, perm).wait();
    RealBuffer acc(context, precision, 3 * n);
    RealBuffer potential(context, precision, n);
    acc.write(queue, random_values(rng, 3 * n));
    potential.write(queue, random_values(rng, n));
    const std::vector<double> a = acc.read(queue), phi = potential.read(queue);
    for (const bool with_potential : {true, false}) {
        CAPTURE(with_potential);
        RealBuffer results(context, precision, 4 * n);
        device.results_by_arrival(n, order, build_perm, acc, with_potential ? &potential : nullptr, results);
        const std::vector<double> r = results.read(queue);
        wrong = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t at = placed[perm[j]];
            for (std::size_t c = 0; c < 3; ++c) wrong += r[4 * at + c] != a[c * n + j];
            wrong += r[4 * at + 3] != (with_potential ? phi[j] : 0.0);
        }
        CHECK(wrong == 0);

        // Home: each body's results at its body, past an offset of 2.
        RealBuffer out(context, precision, 3 * n + 2);
        RealBuffer home_potential(context, precision, n);
        out.fill(queue, 7.0);
        home_potential.fill(queue, 7.0);
        device.results_home(results, out, 2, with_potential ? &home_potential : nullptr);
        const std::vector<double> o = out.read(queue), hp = home_potential.read(queue);
        wrong = o[0] != 7.0 || o[1] != 7.0;
        for (std::size_t s = 0; s < n; ++s) {
            const std::size_t b = top.order()[s];
            for (std::size_t c = 0; c < 3; ++c) wrong += o[2 + c * n + b] != r[4 * s + c];
            wrong += hp[b] != (with_potential ? r[4 * s + 3] : 7.0);
        }
        CHECK(wrong == 0);
    }
}

} // namespace

void run_tree_top_kernel(Precision precision) {
    run_tree_top_with(precision, 37, 3);
    run_tree_top_with(precision, 5, 0);
}

} // namespace partcl_test
