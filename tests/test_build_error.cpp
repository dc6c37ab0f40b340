// A kernel that does not compile: the error names the device and the real file:line.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

BuildError build_failure(const Source& source, const BuildOptions& options = {}) {
    Context& context = test_context();
    ProgramCache cache(ProgramCache::Settings{false, {}});
    try {
        build_program(context, source, options, cache);
    } catch (const BuildError& error) {
        return error;
    }
    FAIL("the build did not fail");
    return BuildError("", "", "");
}

} // namespace

TEST_SUITE("build_error") {

TEST_CASE("a syntax error in the kernel file: file.cl:LINE and the device") {
    TempDir dir("build-error");
    // Plain, then including the tree's header (so #line mapping after an include is exercised).
    const std::string variants[] = {
        "// a kernel with an error on line 3\n"
        "__kernel void bad(__global float* x) {\n"
        "    x[0] = undeclared_identifier * 2.0f;\n"
        "}\n",
        "#include \"common/real.h\"\n"
        "KERNEL void bad(GLOBAL real* x) {\n"
        "    x[0] = undeclared_identifier * REAL_C(2.0);\n"
        "}\n"};
    for (const auto& text : variants) {
        write_file(dir / "bad.cl", text);
        const BuildError error = build_failure(Source::from_file(dir / "bad.cl"));
        const std::string what = error.what();
        INFO(what);
        CHECK(contains(what, "bad.cl:3"));
        CHECK(contains(error.log(), "bad.cl:3"));
        CHECK(contains(what, "undeclared_identifier"));
        CHECK(contains(what, test_context().device(0).info().name));
        CHECK(error.device() == test_context().device(0).info().name);
        CHECK(contains(error.program(), "bad.cl"));
    }
}

TEST_CASE("an error inside an included header in a subdirectory, and after the include") {
    TempDir dir("build-error");
    write_file(dir / "main.cl", "// main file\n"
                                "#include \"inc/helper.h\"\n"
                                "__kernel void k(__global float* x) {\n"
                                "    x[0] = helper(1.0f);\n"
                                "}\n");
    write_file(dir / "inc/helper.h", "// helper header\n"
                                     "// second line\n"
                                     "float helper(float v) { return v + missing_in_header; }\n");
    {
        const BuildError error = build_failure(Source::from_file(dir / "main.cl"));
        INFO(error.what());
        CHECK(contains(error.what(), "helper.h:3"));
        CHECK(contains(error.what(), "missing_in_header"));
        CHECK(contains(error.what(), test_context().device(0).info().name));
    }
    // Header fixed, error moved to main.cl after the include: the line count resumes correctly.
    write_file(dir / "inc/helper.h", "// helper header\n"
                                     "// second line\n"
                                     "float helper(float v) { return v + 1.0f; }\n");
    write_file(dir / "main.cl", "// main file\n"
                                "#include \"inc/helper.h\"\n"
                                "__kernel void k(__global float* x) {\n"
                                "    x[0] = helper(1.0f);\n"
                                "    x[1] = missing_in_main;\n"
                                "}\n");
    const BuildError error = build_failure(Source::from_file(dir / "main.cl"));
    INFO(error.what());
    CHECK(contains(error.what(), "main.cl:5"));
    CHECK(contains(error.what(), "missing_in_main"));
}

TEST_CASE("an error reached only through a define") {
    const Source source = Source::from_string(
        "defined.cl", "#include \"common/real.h\"\n"
                      "KERNEL void k(GLOBAL real* x) {\n"
                      "#if BREAK_IT\n"
                      "    x[0] = not_declared;\n"
                      "#endif\n"
                      "}\n");
    BuildOptions broken;
    broken.define("BREAK_IT", 1);
    const BuildError error = build_failure(source, broken);
    CHECK(contains(error.what(), "defined.cl:4"));
    // Without the define it builds.
    ProgramCache cache(ProgramCache::Settings{false, {}});
    CHECK_NOTHROW(build_program(test_context(), source, {}, cache));
}

TEST_CASE("double is refused before any build on a device without fp64") {
    // PoCL has fp64, so this only runs where a device lacks it; the unit version is in
    // suite "errors".
    Context& context = test_context();
    for (const auto& device : context.devices()) {
        if (device.info().fp64) continue;
        BuildOptions options;
        options.precision = Precision::float64;
        CHECK_THROWS_AS(build_program(context, real_check_source(), options, memory_cache()),
                        Unsupported);
    }
}

} // TEST_SUITE
