// PARTCL_KERNEL_PATH: partcl's kernel tree read from disk instead of the embedded copy.
// CTest runs this suite with PARTCL_KERNEL_PATH set from the start (a directory in the build
// tree that the test fills); run without it, the test points the variable at a temp dir itself.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

TEST_SUITE("kernel_path") {

TEST_CASE("a modified tree on disk is used, includes work, edits show without rebuilding") {
    std::unique_ptr<TempDir> own;
    std::unique_ptr<EnvGuard> own_env;
    fs::path tree;
    if (const char* env = std::getenv("PARTCL_KERNEL_PATH"); env && *env) {
        tree = env;
    } else {
        own = std::make_unique<TempDir>("kernel-path");
        tree = own->path() / "cl";
        own_env = std::make_unique<EnvGuard>("PARTCL_KERNEL_PATH", tree.string());
    }
    std::error_code ec;
    fs::remove_all(tree, ec);
    fs::create_directories(tree.parent_path());
    fs::copy(source_cl_dir(), tree, fs::copy_options::recursive);

    // real_check.cl changed: row 7 becomes 42 instead of REAL_EPSILON.
    std::string check = read_file(tree / "common/real_check.cl");
    const std::string from = "out[7 * n + i] = REAL_EPSILON;";
    const auto at = check.find(from);
    REQUIRE(at != std::string::npos);
    check.replace(at, from.size(), "out[7 * n + i] = REAL_C(42.0);");
    write_file(tree / "common/real_check.cl", check);
    // A new kernel with includes: its own directory, the tree root, and ".." inside the tree.
    write_file(tree / "probe/probe.cl", "#include \"local.h\"\n"
                                        "#include \"common/real.h\"\n"
                                        "KERNEL void probe(const uint n, GLOBAL real* out)\n"
                                        "{\n"
                                        "    const uint i = global_id(0);\n"
                                        "    if (i < n) out[i] = PROBE_VALUE + (real)i;\n"
                                        "}\n");
    write_file(tree / "probe/local.h", "#include \"../common/real.h\"\n"
                                       "#define PROBE_VALUE REAL_C(7.5)\n");

    CHECK(contains(kernel_tree_location(), tree.string()));
    const auto kernels = builtin_kernels();
    CHECK(std::find(kernels.begin(), kernels.end(), "probe/probe.cl") != kernels.end());
    CHECK(std::find(kernels.begin(), kernels.end(), "common/real_check.cl") != kernels.end());
    CHECK(std::find(kernels.begin(), kernels.end(), "probe/local.h") == kernels.end());
    CHECK(contains(Source::builtin("common/real_check.cl").text(), "REAL_C(42.0)"));

    Context& context = test_context();
    ProgramCache cache(ProgramCache::Settings{false, {}});
    for (Precision precision : {Precision::float32, Precision::float64}) {
        if (precision == Precision::float64 && !context.device(0).info().fp64) continue;
        BuildOptions options;
        options.precision = precision;
        const Program program = build_program(context, Source::builtin("common/real_check.cl"),
                                              options, cache);
        const std::uint32_t seed = fresh_seed();
        check_real_check(run_real_check(context, 0, program, real_check_input(7, seed)),
                         precision, seed, 42.0);
    }

    auto run_probe = [&]() {
        const Program program = build_program(context, Source::builtin("probe/probe.cl"), {}, cache);
        Kernel kernel(program, "probe");
        Buffer<float> out(context, 5);
        kernel.args(std::uint32_t(5), out);
        kernel.launch(context.queue(0), 5).wait();
        return out.read(context.queue(0));
    };
    CHECK(run_probe() == std::vector<float>{7.5f, 8.5f, 9.5f, 10.5f, 11.5f});
    // Kernel development: an edited header is picked up by the next build of the same process.
    write_file(tree / "probe/local.h", "#include \"../common/real.h\"\n"
                                       "#define PROBE_VALUE REAL_C(-1.0)\n");
    CHECK(run_probe() == std::vector<float>{-1.f, 0.f, 1.f, 2.f, 3.f});

    // A build error in a tree file names the file on disk and its line.
    write_file(tree / "probe/broken.cl", "#include \"common/real.h\"\n"
                                         "KERNEL void broken(GLOBAL real* x) { x[0] = nope; }\n");
    try {
        build_program(context, Source::builtin("probe/broken.cl"), {}, cache);
        FAIL("no build error");
    } catch (const BuildError& error) {
        CHECK(contains(error.what(), "broken.cl:2"));
    }

    // Pointing the variable at something that is not a directory is an error, not a silent
    // fall-back to the embedded tree.
    {
        EnvGuard bad("PARTCL_KERNEL_PATH", (tree / "common/real.h").string());
        CHECK_THROWS_AS(Source::builtin("common/real_check.cl"), SourceError);
    }
    // Unset again: the embedded tree, which knows nothing of probe/.
    {
        EnvGuard none("PARTCL_KERNEL_PATH", std::nullopt);
        CHECK(contains(kernel_tree_location(), "embedded"));
        CHECK_THROWS_AS(Source::builtin("probe/probe.cl"), SourceError);
        CHECK_FALSE(contains(Source::builtin("common/real_check.cl").text(), "42.0"));
    }
    if (!own) fs::remove_all(tree, ec);
}

} // TEST_SUITE
