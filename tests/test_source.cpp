// Kernel sources: the embedded cl/ tree, include expansion with #line, and the lookup order.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

} // namespace

TEST_SUITE("source") {

TEST_CASE("the cl/ tree is embedded: every .cl file listed, headers not, contents identical") {
    EnvGuard no_path("PARTCL_KERNEL_PATH", std::nullopt);
    CHECK(contains(kernel_tree_location(), "embedded"));
    const auto kernels = builtin_kernels();
    CHECK(std::is_sorted(kernels.begin(), kernels.end()));
    std::vector<std::string> on_disk;
    for (const auto& entry : fs::recursive_directory_iterator(source_cl_dir()))
        if (entry.is_regular_file() && entry.path().extension() == ".cl")
            on_disk.push_back(entry.path().lexically_relative(source_cl_dir()).generic_string());
    std::sort(on_disk.begin(), on_disk.end());
    CHECK(kernels == on_disk);  // no hand-kept list: the build embedded what is there
    CHECK(std::find(kernels.begin(), kernels.end(), "common/real_check.cl") != kernels.end());
    for (const auto& k : kernels) CHECK(fs::path(k).extension() == ".cl");

    for (const auto& k : kernels) {
        CAPTURE(k);
        CHECK(Source::builtin(k).text() == read_file(source_cl_dir() / k));
        CHECK(Source::builtin(k).name() == k);
    }
    CHECK_THROWS_AS(Source::builtin("common/no_such_file.cl"), SourceError);
    CHECK_THROWS_AS(Source::builtin("../CMakeLists.txt"), SourceError);
}

TEST_CASE("expand inlines each include once, with #line markers") {
    EnvGuard no_path("PARTCL_KERNEL_PATH", std::nullopt);
    const std::string expanded = real_check_source().expand();
    CHECK(count(expanded, "#define PARTCL_COMMON_REAL_H") == 1);
    CHECK(count(expanded, "#define KERNEL __kernel") == 1);  // portable.h, via real.h
    CHECK(contains(expanded, "#line 1 \"common/real_check.cl\""));
    CHECK(contains(expanded, "real.h\""));
    CHECK(contains(expanded, "portable.h\""));
    CHECK_FALSE(contains(expanded, "#include \"real.h\""));

    // A user string including the tree's header twice still gets one copy.
    const auto user = Source::from_string("user.cl",
                                          "#include \"common/real.h\"\n"
                                          "#include \"common/real.h\"\n"
                                          "KERNEL void k(GLOBAL real* x) { x[0] = REAL_C(1.0); }\n");
    const std::string text = user.expand();
    CHECK(count(text, "#define PARTCL_COMMON_REAL_H") == 1);
    CHECK(contains(text, "#line 1 \"user.cl\""));
    // After the includes, line 3 of user.cl is announced as line 2 or 3 (it resumes there).
    CHECK((contains(text, "#line 2 \"user.cl\"") || contains(text, "#line 3 \"user.cl\"")));
}

TEST_CASE("include lookup: own directory, then include_dirs, then the tree") {
    TempDir dir("source");
    write_file(dir / "main/kernel.cl", "#include \"sub/helper.h\"\n#include \"extra.h\"\n"
                                       "#include \"common/real.h\"\nint main_marker;\n");
    write_file(dir / "main/sub/helper.h", "#include \"sibling.h\"\nint helper_marker;\n");
    write_file(dir / "main/sub/sibling.h", "int sibling_marker;\n");
    write_file(dir / "elsewhere/extra.h", "int extra_marker;\n");
    const Source source = Source::from_file(dir / "main/kernel.cl");
    // extra.h is not next to kernel.cl: the line is left for the compiler.
    CHECK(contains(source.expand(), "#include \"extra.h\""));
    const std::string text = source.expand({dir / "elsewhere"});
    for (const char* marker : {"main_marker", "helper_marker", "sibling_marker", "extra_marker",
                               "typedef float real;"})
        CHECK(contains(text, marker));
    CHECK(contains(text, "helper.h\""));

    // A missing include is the compiler's to report, at the including file and line...
    write_file(dir / "broken.cl", "// line 1\n#include \"not_there.h\"\n");
    try {
        build_program(test_context(), Source::from_file(dir / "broken.cl"), {}, memory_cache());
        FAIL("no exception for a missing include");
    } catch (const BuildError& error) {
        CHECK(contains(error.what(), "broken.cl:2"));
        CHECK(contains(error.what(), "not_there.h"));
    }
    // ...and only when the preprocessor keeps it: a CUDA-only include under #ifdef is fine.
    write_file(dir / "guarded.cl", "#ifdef PARTCL_CUDA\n#include <cuda_fp16.h>\n"
                                   "#include \"cuda_only.h\"\n#endif\n"
                                   "#include \"common/real.h\"\n"
                                   "KERNEL void k(GLOBAL real* x) { x[0] = REAL_C(1.0); }\n");
    CHECK_NOTHROW(build_program(test_context(), Source::from_file(dir / "guarded.cl"), {},
                                memory_cache()));
    CHECK_THROWS_AS(Source::from_file(dir / "no_such.cl"), SourceError);
}

} // TEST_SUITE

TEST_SUITE("source") {

TEST_CASE("compiler locations of the expanded text map back to files and lines") {
    const std::string expanded = Source::from_string("user.cl",
                                                     "// one\n"
                                                     "#include \"common/real.h\"\n"
                                                     "KERNEL void k(GLOBAL real* x) { x[0] = y; }\n")
                                     .expand();
    // Find the expanded line of the kernel, as a compiler that ignores #line would number it.
    std::size_t line = 1, kernel_line = 0;
    for (std::size_t i = 0; i < expanded.size(); ++i) {
        if (expanded.compare(i, 6, "KERNEL") == 0 && (i == 0 || expanded[i - 1] == '\n')) kernel_line = line;
        if (expanded[i] == '\n') ++line;
    }
    REQUIRE(kernel_line > 3);
    const std::string n = std::to_string(kernel_line);
    CHECK(map_log_locations("<kernel>:" + n + ":40: error: use of undeclared identifier 'y'",
                            expanded) == "user.cl:3:40: error: use of undeclared identifier 'y'");
    CHECK(map_log_locations("input.cl:" + n + ":1: warning", expanded) == "user.cl:3:1: warning");
    // A line inside the included header names the header.
    CHECK(contains(map_log_locations("<kernel>:5: note", expanded), "common/real.h:"));
    // Locations already in file terms, and lines past the end, stay as they are.
    CHECK(map_log_locations("user.cl:3:40: error", expanded) == "user.cl:3:40: error");
    CHECK(map_log_locations("<kernel>:99999: error", expanded) == "<kernel>:99999: error");
}

}
