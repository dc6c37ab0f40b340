// The CUDA backend's compiler: every kernel of cl/ compiles through NVRTC from the same source
// the OpenCL side builds, in float and double, in the shapes partcl uses; errors name the
// user's file and line; PTX goes through the program cache. NVRTC needs no GPU, so this runs
// in CI wherever the toolkit is (the suite exists only in builds with PARTCL_WITH_CUDA).
#include <doctest/doctest.h>

#include <algorithm>

#include <partcl/backend/cuda/compiler.hpp>
#include <partcl/partcl.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::TempDir;

namespace {

bool has_entry(const cuda::Ptx& ptx, const std::string& name) {
    return ptx.text.find(".entry " + name + "(") != std::string::npos;
}

cuda::Ptx compile_fresh(const Source& source, const BuildOptions& options) {
    ProgramCache off(ProgramCache::Settings{false, {}});
    return cuda::compile(source, options, "compute_90", off);
}

} // namespace

TEST_SUITE("cuda_compiler") {

TEST_CASE("every kernel of cl/ compiles through NVRTC in float and double") {
    for (const std::string& path : builtin_kernels()) {
        for (Precision precision : {Precision::float32, Precision::float64}) {
            CAPTURE(path);
            CAPTURE(to_string(precision));
            BuildOptions options;
            options.precision = precision;
            const cuda::Ptx ptx = compile_fresh(Source::builtin(path), options);
            CHECK(ptx.text.find(".version") != std::string::npos);
            CHECK(ptx.text.find(".entry ") != std::string::npos);
            CHECK(ptx.build.origin == DeviceBuild::Origin::compiled);
        }
    }
}

TEST_CASE("the dense kernel compiles in each of its shapes, and precision reaches the code") {
    struct Shape {
        int tile, lanes, targets, softened, potential;
    };
    const Shape shapes[] = {{0, 8, 1, 1, 0}, {0, 8, 1, 0, 1}, {256, 0, 1, 1, 0},
                            {256, 0, 2, 1, 1}, {128, 0, 4, 0, 0}};
    for (Precision precision : {Precision::float32, Precision::float64}) {
        for (const Shape& s : shapes) {
            CAPTURE(s.tile);
            CAPTURE(s.targets);
            BuildOptions options;
            options.precision = precision;
            options.define("DENSE_TILE", s.tile).define("DENSE_LANES", s.lanes);
            options.define("DENSE_UNROLL", s.tile ? 4 : 1).define("DENSE_TARGETS", s.targets);
            options.define("DENSE_SOFTENED", s.softened).define("DENSE_POTENTIAL", s.potential);
            const cuda::Ptx ptx = compile_fresh(Source::builtin("nbody/dense.cl"), options);
            REQUIRE(has_entry(ptx, "dense_gravity"));
            // The kernel computes in the precision asked for: double arithmetic shows up as
            // .f64 instructions, and a float build has none.
            const bool f64 = ptx.text.find("sqrt.rn.f64") != std::string::npos ||
                             ptx.text.find("rsqrt.approx.f64") != std::string::npos ||
                             ptx.text.find("rsqrt.approx.ftz.f64") != std::string::npos ||
                             ptx.text.find("div.rn.f64") != std::string::npos;
            CHECK(f64 == (precision == Precision::float64));
            if (s.tile) CHECK(ptx.text.find(".maxntid " + std::to_string(s.tile)) != std::string::npos);
            // Softened float takes the flush-to-zero reciprocal square root (its input is a
            // normal number); unsoftened keeps rsqrtf's handling of denormal inputs.
            const bool ftz_rsqrt = ptx.text.find("rsqrt.approx.ftz.f32") != std::string::npos;
            CHECK(ftz_rsqrt == (precision == Precision::float32 && s.softened == 1));
        }
    }
}

TEST_CASE("the tree kernels compile with both traversals, with and without the potential, alone or listed") {
    for (Precision precision : {Precision::float32, Precision::float64}) {
        BuildOptions build;
        build.precision = precision;
        build.define("TREE_GROUP", 64);
        const cuda::Ptx built = compile_fresh(Source::builtin("nbody/tree_build.cl"), build);
        for (const char* entry : {"tree_root_box", "tree_keys", "tree_regroup", "tree_split",
                                  "tree_gather", "tree_leaves", "tree_nodes", "tree_import_nodes",
                                  "tree_import_bodies", "tree_export_nodes", "tree_export_bodies",
                                  "tree_essential_open", "tree_essential_count", "tree_essential_nodes",
                                  "tree_essential_bodies"})
            CHECK(has_entry(built, entry));
        BuildOptions top;
        top.precision = precision;
        top.define("TOP_GROUP", 64);
        const cuda::Ptx split = compile_fresh(Source::builtin("nbody/tree_top.cl"), top);
        for (const char* entry : {"top_bounds", "top_start", "top_keys", "top_groups", "top_probe", "top_count_before",
                                  "top_children", "top_pack", "top_merge", "top_place", "top_results", "top_home"})
            CHECK(has_entry(split, entry));
        for (int stackless : {0, 1})
            for (int potential : {0, 1})
                for (int list : {0, 256}) {
                    CAPTURE(stackless);
                    CAPTURE(potential);
                    CAPTURE(list);
                    BuildOptions options;
                    options.precision = precision;
                    options.define("TREE_STACKLESS", stackless).define("TREE_POTENTIAL", potential);
                    options.define("TREE_STACK", 34).define("TREE_WALK_GROUP", 64).define("TREE_LIST", list);
                    CHECK(has_entry(compile_fresh(Source::builtin("nbody/tree_force.cl"), options),
                                    "tree_gravity"));
                }
        // TreePM's short-range walk (erfc, exp and rint on both backends), alone and listed.
        for (int list : {0, 256}) {
            BuildOptions options;
            options.precision = precision;
            options.define("TREE_SHORT_RANGE", 1).define("TREE_POTENTIAL", 1).define("TREE_LIST", list);
            options.define("TREE_WALK_GROUP", 64).define("TREE_STACK", 34);
            CHECK(has_entry(compile_fresh(Source::builtin("nbody/tree_force.cl"), options), "tree_gravity"));
        }
    }
}

TEST_CASE("the cell list and MPS kernels compile in 2-D and 3-D, with every entry point") {
    for (Precision precision : {Precision::float32, Precision::float64}) {
        for (int dims : {2, 3}) {
            CAPTURE(dims);
            BuildOptions options;
            options.precision = precision;
            options.define("CELL_LIST_DIMENSIONS", dims);
            const cuda::Ptx cells = compile_fresh(Source::builtin("algorithm/cell_list.cl"), options);
            for (const char* entry : {"cell_list_keys", "cell_list_block_bounds", "cell_list_bounds", "cell_list_gather_real",
                                      "cell_list_gather_uint"})
                CHECK(has_entry(cells, entry));
            BuildOptions mps;
            mps.precision = precision;
            mps.define("MPS_DIMENSIONS", dims).define("MPS_GROUP", 64).define("MPS_RECONSTRUCT", 1);
            const cuda::Ptx fluid = compile_fresh(Source::builtin("mps/mps.cl"), mps);
            for (const char* entry : {"mps_predict", "mps_collide", "mps_pressure", "mps_surface_pressure",
                                      "mps_velocity_gradient", "mps_correct", "mps_max_speed"})
                CHECK(has_entry(fluid, entry));
            CHECK(fluid.text.find(".maxntid 64") != std::string::npos);
        }
    }
}

TEST_CASE("the PIC kernels compile in 1-D, 2-D and 3-D, with every entry point") {
    for (Precision precision : {Precision::float32, Precision::float64}) {
        for (int dims : {1, 2, 3}) {
            CAPTURE(dims);
            BuildOptions options;
            options.precision = precision;
            options.define("PIC_DIMENSIONS", dims);
            const cuda::Ptx pic = compile_fresh(Source::builtin("pic/pic.cl"), options);
            for (const char* entry : {"pic_deposit_atomic", "pic_deposit_gather", "pic_poisson",
                                      "pic_field", "pic_push"})
                CHECK(has_entry(pic, entry));
        }
    }
}

TEST_CASE("a kernel's global_id reads the global offset the backend writes before a launch") {
    const cuda::Ptx ptx = compile_fresh(partcl_test::real_check_source(), {});
    // The backend finds it by this name (cudaLibraryGetGlobal): unmangled, in constant memory.
    CHECK(ptx.text.find(".const .align 4 .u32 partcl_global_offset") != std::string::npos);
    CHECK(ptx.text.find("[partcl_global_offset]") != std::string::npos);
}

TEST_CASE("OpenCL flags become NVRTC options, and one without a meaning there is refused") {
    BuildOptions options;
    options.flags = {"-cl-fast-relaxed-math", "-cl-denorms-are-zero", "-cl-mad-enable"};
    options.define("N", 3);
    const auto list = cuda::nvrtc_options(options, "compute_80");
    auto has = [&](const std::string& o) {
        return std::find(list.begin(), list.end(), o) != list.end();
    };
    CHECK(has("--gpu-architecture=compute_80"));
    CHECK(has("-DPARTCL_CUDA=1"));
    CHECK(has("-DN=3"));
    CHECK(has("--use_fast_math"));
    CHECK(has("--ftz=true"));
    CHECK(has("--fmad=true"));
    CHECK_FALSE(has("-DPARTCL_DOUBLE=1"));
    options.flags = {"-cl-opt-disable"};
    CHECK_THROWS_WITH_AS(cuda::nvrtc_options(options, "compute_90"),
                         doctest::Contains("-cl-opt-disable"), UsageError);
    CHECK_THROWS_AS(cuda::nvrtc_options({}, "sm_90"), UsageError);
}

TEST_CASE("a compile error names the user's file and line") {
    const Source bad = Source::from_string("bad.cl", "#include \"common/real.h\"\n"
                                                     "KERNEL void k(GLOBAL real* x) {\n"
                                                     "    x[0] = undefined_name;\n"
                                                     "}\n");
    try {
        compile_fresh(bad, {});
        FAIL("no BuildError");
    } catch (const BuildError& e) {
        INFO(e.what());
        CHECK(e.log().find("bad.cl:3: error") != std::string::npos);
        CHECK(e.log().find("undefined_name") != std::string::npos);
        CHECK(e.program() == "bad.cl");
    }
}

TEST_CASE("PTX is kept in the program cache under the same keying rules") {
    TempDir dir;
    ProgramCache cache(ProgramCache::Settings{true, dir.path()});
    BuildOptions options;
    options.define("COMBINE_TERMS", 3);
    const Source source = Source::builtin("integrate/combine.cl");
    const cuda::Ptx first = cuda::compile(source, options, "compute_90", cache);
    const cuda::Ptx again = cuda::compile(source, options, "compute_90", cache);
    CHECK(first.build.origin == DeviceBuild::Origin::compiled);
    CHECK(again.build.origin == DeviceBuild::Origin::disk_cache);
    CHECK(again.text == first.text);
    // Another architecture or another define is another entry.
    CHECK(cuda::compile(source, options, "compute_80", cache).build.origin ==
          DeviceBuild::Origin::compiled);
    options.define("COMBINE_TERMS", 4);
    CHECK(cuda::compile(source, options, "compute_90", cache).build.origin ==
          DeviceBuild::Origin::compiled);
    CHECK(cache.list().size() == 3);
}

}
