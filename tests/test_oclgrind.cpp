// Every kernel of partcl's cl/ tree at small N, in float and double: run under Oclgrind by
// CTest (tests/oclgrind.sh, label `oclgrind`; the simulator is then the only device, so CTest
// sets PARTCL_DEVICE=all and keeps the disk cache out of it) and, as suite tree_kernels, on the
// default device. A kernel that joins cl/ must join the table below, or the coverage check
// fails. The runs of the N-body kernels are in oclgrind_nbody.cpp, those of the kernels
// the models share in oclgrind_shared.cpp.
#include <doctest/doctest.h>

#include <functional>
#include <map>

#include "mps_check.hpp"
#include "oclgrind_kernels.hpp"
#include "pic_check.hpp"
#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

void run_real_check_kernel(Precision precision) {
    Context& context = test_context();
    BuildOptions options;
    options.precision = precision;
    const Program program = build_program(context, real_check_source(), options, memory_cache());
    for (std::size_t n : {std::size_t(37), std::size_t(1)}) {
        for (std::size_t local : {std::size_t(0), std::size_t(8)}) {
            const std::uint32_t seed = fresh_seed();
            CAPTURE(n);
            CAPTURE(local);
            check_real_check(run_real_check(context, 0, program, real_check_input(n, seed), local),
                             precision, seed);
        }
    }
}


// mps/mps.cl: tests/mps_check.cpp at 5 x 5 (2-D) and 3 x 3 x 3 (3-D) particles.
void run_mps_kernel(Precision precision) {
    check_mps_kernels(precision, 2, 5);
    check_mps_kernels(precision, 3, 3);
}

// pic/pic.cl: tests/pic_check.cpp on 5 nodes (1-D), 3 x 4 (2-D) and 3 x 4 x 5 (3-D).
void run_pic_kernel(Precision precision) {
    check_pic_kernels(precision, 1, 5, 13);
    check_pic_kernels(precision, 2, 3, 17);
    check_pic_kernels(precision, 3, 3, 11);
}

const std::map<std::string, std::function<void(Precision)>>& tree_kernels() {
    static const std::map<std::string, std::function<void(Precision)>> table{
        {"algorithm/cell_list.cl", run_cell_list_kernel},
        {"algorithm/radix_sort.cl", run_radix_sort_kernel},
        {"algorithm/slab_selection.cl", run_slab_selection_kernel},
        {"common/real_check.cl", run_real_check_kernel},
        {"integrate/combine.cl", run_combine_kernel},
        {"mps/mps.cl", run_mps_kernel},
        {"nbody/dense.cl", run_dense_kernel},
        {"nbody/tree_build.cl", run_tree_build_kernel},
        {"nbody/tree_force.cl", run_tree_force_kernel},
        {"nbody/tree_top.cl", run_tree_top_kernel},
        {"nbody/particle_mesh.cl", run_particle_mesh_kernel},
        {"nbody/result_routing.cl", run_result_routing_kernel},
        {"pic/pic.cl", run_pic_kernel},
        {"sched/ordered_sum.cl", run_ordered_sum_kernel},
    };
    return table;
}

void run_all(Precision precision) {
    Context& context = test_context();
    INFO("device " << context.device(0).info().name);
    REQUIRE((precision == Precision::float32 || context.device(0).info().fp64));
    for (const auto& [path, run] : tree_kernels()) {
        CAPTURE(path);
        run(precision);
    }
}

void check_coverage() {
    std::vector<std::string> missing;
    for (const auto& path : builtin_kernels())
        if (!tree_kernels().count(path)) missing.push_back(path);
    INFO("kernels of cl/ without a run in tests/test_oclgrind.cpp: " << doctest::toString(missing));
    CHECK(missing.empty());
}

// y[i] = x[i] for i < n: a store of an undefined value, which Oclgrind reports.
Source copy_floats_source() {
    return Source::from_string("copy_floats.cl",
                               "#include \"common/real.h\"\n"
                               "KERNEL void copy_floats(const uint n, GLOBAL const float* x,\n"
                               "                        GLOBAL float* y)\n"
                               "{\n"
                               "    const uint i = global_id(0);\n"
                               "    if (i < n) y[i] = x[i];\n"
                               "}\n");
}

// `to` = `from` by copy_floats, on the context's first queue.
void copy_floats(Context& context, Buffer<float>& from, Buffer<float>& to) {
    const Program program = build_program(context, copy_floats_source(), {}, memory_cache());
    Kernel kernel(program, "copy_floats");
    kernel.args(std::uint32_t(from.size()), from, to);
    kernel.launch(context.queue(0), from.size()).wait();
}

} // namespace

TEST_SUITE("oclgrind" * doctest::skip()) {

TEST_CASE("the device is Oclgrind's simulator") {
    // This suite is meant to run through tests/oclgrind.sh; on another device it would check
    // nothing Oclgrind checks.
    CHECK(contains(test_context().device(0).info().name, "Oclgrind"));
}

TEST_CASE("tree kernels in float") { run_all(Precision::float32); }

TEST_CASE("tree kernels in double") { run_all(Precision::float64); }

TEST_CASE("every kernel of the tree is covered") { check_coverage(); }

// Oclgrind 21.10 alone loses its record of defined bytes at each of these (tests/
// oclgrind_host_stores.c, preloaded by tests/oclgrind.sh, keeps it): a kernel reading every
// byte must then find them all defined.
TEST_CASE("host writes, copies and fills in parts are recorded byte by byte") {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const std::size_t n = 40, half = n / 2;
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = float(i) + 0.5f;
    Buffer<float> halves(context, n), filled(context, n), copied(context, n);
    halves.write(queue, values.data() + half, n - half, half).wait();
    halves.write(queue, values.data(), half, 0).wait();
    filled.fill(queue, 2.5f, 0, half).wait();
    filled.fill(queue, 3.5f, half, n - half).wait();
    halves.copy_to(queue, copied, half, 0, half).wait();
    halves.copy_to(queue, copied, n - half, half, 0).wait();
    {
        Buffer<float> released(context, values);  // its slot goes to the next buffer
    }
    Buffer<float> written_by_kernel(context, n);
    for (Buffer<float>* from : {&halves, &filled, &copied}) {
        copy_floats(context, *from, written_by_kernel);
        const std::vector<float> got = written_by_kernel.read(queue);
        for (std::size_t i = 0; i < n; ++i) {
            CAPTURE(i);
            const float want = from == &halves ? values[i]
                               : from == &filled ? (i < half ? 2.5f : 3.5f)
                                                 : values[(i + half) % n];
            CHECK(got[i] == want);
        }
    }
}

} // TEST_SUITE oclgrind

TEST_SUITE("tree_kernels") {

TEST_CASE("tree kernels in float on the default device") { run_all(Precision::float32); }

TEST_CASE("tree kernels in double on the default device") {
    if (!test_context().device(0).info().fp64) return;
    run_all(Precision::float64);
}

TEST_CASE("every kernel of the tree is covered") { check_coverage(); }

} // TEST_SUITE tree_kernels

// A kernel with an off-by-one read: fine-looking results on a real device, an invalid read for
// Oclgrind. CTest runs it through tests/oclgrind.sh expecting failure, which proves that the
// check can fail.
TEST_SUITE("oclgrind_broken" * doctest::skip()) {

TEST_CASE("an out-of-bounds read") {
    Context& context = test_context();
    const Source source = Source::from_string(
        "off_by_one.cl", "#include \"common/real.h\"\n"
                         "KERNEL void shift(const uint n, GLOBAL const real* x, GLOBAL real* y)\n"
                         "{\n"
                         "    const uint i = global_id(0);\n"
                         "    if (i < n) y[i] = x[i + 1];  /* reads x[n] */\n"
                         "}\n");
    const Program program = build_program(context, source, {}, memory_cache());
    const std::size_t n = 64;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = float(i);
    Buffer<float> bx(context, x), by(context, n);
    Kernel kernel(program, "shift");
    kernel.args(std::uint32_t(n), bx, by);
    kernel.launch(context.queue(0), n).wait();
    const auto y = by.read(context.queue(0));
    for (std::size_t i = 0; i + 1 < n; ++i) CHECK(y[i] == float(i + 1));
}

} // TEST_SUITE oclgrind_broken

// Bytes no store defined, which Oclgrind must report however the buffer came to be: CTest
// expects the report (the check of undefined values can fail, and the preloaded library that
// keeps it exact hides nothing).
TEST_SUITE("oclgrind_undefined" * doctest::skip()) {

void copy_all(Context& context, Buffer<float>& from) {
    Buffer<float> to(context, from.size());
    copy_floats(context, from, to);
}

TEST_CASE("the bytes between two partial writes") {
    Context& context = test_context();
    Buffer<float> gap(context, 30);
    const std::vector<float> ten(10, 1.0f);
    gap.write(context.queue(0), ten, 0).wait();
    gap.write(context.queue(0), ten, 20).wait();  // [10, 20) never written
    copy_all(context, gap);
}

TEST_CASE("a new buffer in the slot of one written and released") {
    Context& context = test_context();
    {
        Buffer<float> released(context, std::vector<float>(30, 1.0f));
    }
    Buffer<float> fresh(context, 30);  // never written
    copy_all(context, fresh);
}

} // TEST_SUITE oclgrind_undefined
