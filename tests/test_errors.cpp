// Error naming, precision refusal and build options: no device needed.
#include <doctest/doctest.h>

#include <climits>

#include <partcl/backend/opencl/error.hpp>

#include "support.hpp"

using namespace partcl;
using partcl_test::contains;

TEST_SUITE("errors") {

TEST_CASE("OpenCL status codes have their symbolic names") {
    CHECK(std::string(opencl::status_name(-5)) == "CL_OUT_OF_RESOURCES");
    CHECK(std::string(opencl::status_name(CL_SUCCESS)) == "CL_SUCCESS");
    CHECK(std::string(opencl::status_name(-1)) == "CL_DEVICE_NOT_FOUND");
    CHECK(std::string(opencl::status_name(-4)) == "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    CHECK(std::string(opencl::status_name(-11)) == "CL_BUILD_PROGRAM_FAILURE");
    CHECK(std::string(opencl::status_name(-30)) == "CL_INVALID_VALUE");
    CHECK(std::string(opencl::status_name(-36)) == "CL_INVALID_COMMAND_QUEUE");
    CHECK(std::string(opencl::status_name(-46)) == "CL_INVALID_KERNEL_NAME");
    CHECK(std::string(opencl::status_name(-49)) == "CL_INVALID_ARG_INDEX");
    CHECK(std::string(opencl::status_name(-52)) == "CL_INVALID_KERNEL_ARGS");
    CHECK(std::string(opencl::status_name(-54)) == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(std::string(opencl::status_name(-1001)) == "CL_PLATFORM_NOT_FOUND_KHR");
    CHECK(std::string(opencl::status_name(12345)) == "CL_UNKNOWN_ERROR");
    CHECK(std::string(opencl::status_name(-9999)) == "CL_UNKNOWN_ERROR");
    CHECK(std::string(opencl::status_name(INT_MIN)) == "CL_UNKNOWN_ERROR");
}

TEST_CASE("a BackendError names the call and the error") {
    const BackendError error = opencl::error(-5, "clEnqueueNDRangeKernel");
    const std::string what = error.what();
    CHECK(contains(what, "clEnqueueNDRangeKernel"));
    CHECK(contains(what, "CL_OUT_OF_RESOURCES"));
    CHECK(contains(what, "-5"));
    CHECK(error.status() == -5);
    CHECK(error.call() == "clEnqueueNDRangeKernel");
    CHECK(error.status_name() == "CL_OUT_OF_RESOURCES");

    const BackendError detailed =
        opencl::error(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel", "kernel 'step'");
    CHECK(contains(detailed.what(), "kernel 'step'"));
    CHECK(contains(detailed.what(), "CL_INVALID_KERNEL_ARGS"));

    // check() throws exactly then, as a partcl::Error.
    CHECK_NOTHROW(opencl::check(CL_SUCCESS, "clFinish"));
    try {
        opencl::check(CL_INVALID_COMMAND_QUEUE, "clFinish");
        FAIL("check() did not throw");
    } catch (const BackendError& e) {
        CHECK(e.status() == CL_INVALID_COMMAND_QUEUE);
        CHECK(e.call() == "clFinish");
        CHECK(contains(e.what(), "CL_INVALID_COMMAND_QUEUE"));
    }
    CHECK_THROWS_AS(opencl::check(-5, "clFinish"), partcl::Error);

    // A backend with words for its status (CUDA) gives them in place of the number.
    const BackendError cuda("cudaMalloc", 1, "cudaErrorInvalidValue", "invalid argument",
                            "allocating 8 bytes");
    CHECK(std::string(cuda.what()) ==
          "cudaMalloc failed: cudaErrorInvalidValue (invalid argument): allocating 8 bytes");
    CHECK(cuda.status() == 1);
    CHECK(cuda.status_name() == "cudaErrorInvalidValue");
}

TEST_CASE("double precision is refused on a device without fp64, naming the device") {
    DeviceInfo fake;
    fake.name = "FakeGPU";
    fake.vendor = "Nobody";
    fake.platform = "Fake Platform";
    fake.type = DeviceType::gpu;
    fake.fp64 = false;
    CHECK_THROWS_AS(require_precision(fake, Precision::float64), Unsupported);
    try {
        require_precision(fake, Precision::float64);
        FAIL("no exception");
    } catch (const Unsupported& error) {
        CHECK(contains(error.what(), "FakeGPU"));
    }
    CHECK_NOTHROW(require_precision(fake, Precision::float32));
    fake.fp64 = true;
    CHECK_NOTHROW(require_precision(fake, Precision::float64));
}

TEST_CASE("precision names") {
    CHECK(std::string(to_string(Precision::float32)) == "float");
    CHECK(std::string(to_string(Precision::float64)) == "double");
    CHECK(parse_precision("float") == Precision::float32);
    CHECK(parse_precision("single") == Precision::float32);
    CHECK(parse_precision("double") == Precision::float64);
    CHECK_THROWS_AS(parse_precision("quad"), UsageError);
    CHECK_THROWS_AS(parse_precision(""), UsageError);
}

TEST_CASE("build options") {
    BuildOptions options;
    CHECK(options.precision == Precision::float32);
    CHECK_FALSE(contains(options.compiler_options(), "PARTCL_DOUBLE"));
    options.precision = Precision::float64;
    CHECK(contains(options.compiler_options(), "-DPARTCL_DOUBLE=1"));

    options.define("BLOCK", 64).define("USE_TREE").define("_x1", "2.5");
    const std::string text = options.compiler_options();
    CHECK(contains(text, "-DBLOCK=64"));
    CHECK(contains(text, "-DUSE_TREE"));
    CHECK(contains(text, "-D_x1=2.5"));
    CHECK(text.find("-DBLOCK=64") < text.find("-DUSE_TREE"));  // order kept

    options.flags.push_back("-cl-fast-relaxed-math");
    CHECK(contains(options.compiler_options(), "-cl-fast-relaxed-math"));

    for (const char* bad : {"", "1abc", "a-b", "a b", "a=b", "é"}) {
        CAPTURE(std::string(bad));
        CHECK_THROWS_AS(BuildOptions().define(bad), UsageError);
    }
}

} // TEST_SUITE
