// Runs of tests/test_oclgrind.cpp's kernel table for the kernels that move particles' data
// between MPI ranks: nbody/result_routing.cl (DistributedTreeGravity's walked results, this
// rank's bodies' put in place, the others packed) and algorithm/slab_selection.cl
// (slab_selection_check.hpp), each against the host on fresh random inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include <partcl/algorithm/scan.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>

#include "oclgrind_kernels.hpp"
#include "slab_selection_check.hpp"
#include "support.hpp"

using namespace partcl;

namespace partcl_test {

namespace {

template <class T>
void run_result_routing_typed(Precision precision, bool with_potential) {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    BuildOptions options;
    options.precision = precision;
    const Program program =
        build_program(context, Source::builtin("nbody/result_routing.cl"), options, memory_cache());
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    CAPTURE(with_potential);
    std::mt19937 rng(seed);
    // 23 bodies on 3 ranks at random; this rank (1) walked tree positions [4, 17).
    const std::size_t total = 23, first = 4, count = 13, offset = 2;
    const std::uint32_t me = 1;
    std::vector<std::uint32_t> perm(total), owner(total), slot(total);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::uniform_int_distribution<std::uint32_t> rank(0, 2);
    std::vector<std::uint32_t> held(3, 0);
    for (std::size_t b = 0; b < total; ++b) {
        owner[b] = rank(rng);
        slot[b] = held[owner[b]]++;
    }
    const std::size_t n = held[me], stride = n + 3;
    std::uniform_real_distribution<double> value(-1, 1);
    std::vector<T> walked(3 * count), walked_potential(count);
    for (T& v : walked) v = T(value(rng));
    for (T& v : walked_potential) v = T(value(rng));
    const T sentinel = T(-7);
    Buffer<std::uint32_t> bperm(context, perm);
    Buffer<std::uint32_t> bowner(context, owner);
    Buffer<std::uint32_t> bslot(context, slot);
    Buffer<T> bwalked(context, walked);
    Buffer<T> bwalked_potential(context, walked_potential);
    Buffer<T> acc(context, std::vector<T>(offset + 3 * stride, sentinel));
    Buffer<T> pot(context, std::vector<T>(n + 1, sentinel));
    Buffer<std::uint32_t> flags(context, std::vector<std::uint32_t>(count + 1, 9u));
    Buffer<std::uint32_t> offsets(context, count + 1);

    Kernel local(program, "routing_local");
    local.args(std::uint32_t(count), std::uint32_t(first), bperm, bowner, bslot, me, bwalked,
               bwalked_potential, std::uint32_t(with_potential), acc, std::uint32_t(offset),
               std::uint32_t(stride), pot, flags);
    local.launch(queue, count).wait();
    exclusive_scan(queue, flags, offsets, count);
    const std::vector<std::uint32_t> got_flags = flags.read(queue), got_offsets = offsets.read(queue);
    std::size_t packed = 0;
    for (std::size_t j = 0; j < count; ++j) packed += owner[perm[first + j]] != me;
    Buffer<std::uint32_t> bodies(context, std::vector<std::uint32_t>(packed + 1, 9u));
    Buffer<T> values(context, std::vector<T>(4 * packed + 1, sentinel));
    Kernel pack(program, "routing_pack");
    pack.args(std::uint32_t(count), std::uint32_t(first), bperm, flags, offsets, bwalked,
              bwalked_potential, std::uint32_t(with_potential), std::uint32_t(packed), bodies, values);
    pack.launch(queue, count).wait();

    const std::vector<T> got_acc = acc.read(queue), got_pot = pot.read(queue), got_values = values.read(queue);
    const std::vector<std::uint32_t> got_bodies = bodies.read(queue);
    std::vector<bool> written(n, false);
    std::size_t o = 0;
    for (std::size_t j = 0; j < count; ++j) {
        CAPTURE(j);
        const std::uint32_t b = perm[first + j];
        CHECK(got_flags[j] == (owner[b] != me ? 1u : 0u));
        if (owner[b] == me) {
            written[slot[b]] = true;
            for (std::size_t c = 0; c < 3; ++c)
                CHECK(got_acc[offset + c * stride + slot[b]] == walked[c * count + j]);
            CHECK(got_pot[slot[b]] == (with_potential ? walked_potential[j] : sentinel));
            continue;
        }
        CHECK(got_offsets[j] == o);
        CHECK(got_bodies[o] == b);
        for (std::size_t c = 0; c < 3; ++c) CHECK(got_values[c * packed + o] == walked[c * count + j]);
        CHECK(got_values[3 * packed + o] == (with_potential ? walked_potential[j] : sentinel));
        ++o;
    }
    // Nothing else written: the slots of this rank's bodies walked elsewhere, past the packs.
    for (std::size_t s = 0; s < n; ++s)
        if (!written[s])
            for (std::size_t c = 0; c < 3; ++c) CHECK(got_acc[offset + c * stride + s] == sentinel);
    CHECK(got_acc[0] == sentinel);
    CHECK(got_flags[count] == 9u);
    CHECK(got_bodies[packed] == 9u);
    CHECK(got_values[4 * packed] == sentinel);
}

} // namespace

void run_result_routing_kernel(Precision precision) {
    for (const bool with_potential : {true, false}) {
        if (precision == Precision::float64)
            run_result_routing_typed<double>(precision, with_potential);
        else
            run_result_routing_typed<float>(precision, with_potential);
    }
}

void run_slab_selection_kernel(Precision precision) {
    Context& context = test_context();
    for (const int dims : {2, 3})
        for (const bool inside : {true, false})
            check_slab_selection(context, precision, dims, 29, inside, fresh_seed(), memory_cache());
}

} // namespace partcl_test
