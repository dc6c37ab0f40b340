// Runtime on the real machine: enumeration on PoCL, contexts, buffers, kernels and launches.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <numeric>

#include <partcl/backend/opencl/error.hpp>
#include <partcl/backend/opencl/interop.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

TEST_SUITE("enumeration") {

TEST_CASE("enumerate_devices finds PoCL's CPU device with its fields filled") {
    const auto devices = enumerate_devices();
    REQUIRE_MESSAGE(!devices.empty(), "no OpenCL device: install pocl-opencl-icd");
    INFO(describe(devices));
    bool found_pocl_cpu = false;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const DeviceInfo& info = devices[i].info();
        CAPTURE(info.name);
        CHECK(info.index == i);  // stable numbering: position in enumerate_devices()
        CHECK(!info.name.empty());
        CHECK(!info.platform.empty());
        CHECK(info.compute_units > 0);
        CHECK(info.global_memory > 0);
        CHECK(info.max_work_group_size > 0);
        CHECK(info.max_allocation > 0);
        CHECK(opencl::native(devices[i])() != nullptr);
        CHECK(contains(describe(info), info.name));
        if (i > 0) CHECK(info.platform_index >= devices[i - 1].info().platform_index);
        if (info.platform == "Portable Computing Language" && info.type == DeviceType::cpu) {
            found_pocl_cpu = true;
            CHECK(info.fp64);
            CHECK(info.has_extension("cl_khr_fp64"));
            CHECK_FALSE(info.has_extension("cl_khr_fp6"));  // whole names, not prefixes
            CHECK(info.local_memory > 0);
            CHECK(!info.vendor.empty());
            CHECK(!info.driver_version.empty());
            CHECK(contains(info.device_version, "OpenCL"));
            CHECK(contains(info.opencl_c_version, "OpenCL C"));
            CHECK(std::string(to_string(info.type)) == "cpu");
        }
    }
    CHECK(found_pocl_cpu);
    const std::string all = describe(devices);
    for (const auto& d : devices) CHECK(contains(all, d.info().name));
}

TEST_CASE("filters select real devices; no match lists what exists and mentions PoCL") {
    const auto devices = enumerate_devices();
    const auto cpus = DeviceFilter("cpu").select(devices);
    REQUIRE(!cpus.empty());
    for (const auto& d : cpus) CHECK(d.info().type == DeviceType::cpu);
    CHECK(DeviceFilter("portable computing").select(devices).size() == pocl_devices().size());
    CHECK(DeviceFilter("all").select(devices).size() == devices.size());

    try {
        DeviceFilter("no-such-device-anywhere").select(devices);
        FAIL("no exception for a filter that matches nothing");
    } catch (const Unsupported& error) {
        const std::string what = error.what();
        CHECK(contains(what, "no-such-device-anywhere"));
        for (const auto& d : devices) CHECK(contains(what, d.info().name));
        CHECK(contains(lower(what), "pocl"));
    }
    // An empty machine is reported too, not an empty selection.
    CHECK_THROWS_AS(DeviceFilter("all").select(std::vector<Device>{}), Unsupported);
}

TEST_CASE("a context with one in-order profiling queue per device") {
    Context context = Context::from_filter(DeviceFilter("cpu"));
    REQUIRE(context.size() >= 1);
    for (std::size_t i = 0; i < context.size(); ++i) {
        cl_command_queue_properties properties = 0;
        opencl::check(opencl::native(context.queue(i)).getInfo(CL_QUEUE_PROPERTIES, &properties),
                      "clGetCommandQueueInfo");
        CHECK((properties & CL_QUEUE_PROFILING_ENABLE) != 0);
        CHECK((properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0);
        cl::Device device;
        opencl::check(opencl::native(context.queue(i)).getInfo(CL_QUEUE_DEVICE, &device),
                      "clGetCommandQueueInfo");
        CHECK(device() == opencl::native(context.device(i))());
    }
    CHECK_THROWS(context.queue(context.size()));
    CHECK_THROWS_AS(Context(std::vector<Device>{}), partcl::Error);
    context.finish();

    const auto contexts = make_contexts(pocl_devices());
    CHECK(contexts.size() == 1);  // one platform, one context
    CHECK(contexts.at(0).size() == pocl_devices().size());
}

TEST_CASE("the backend is chosen by name, from the command line or PARTCL_BACKEND") {
    CHECK(parse_backend("auto") == Backend::automatic);
    CHECK(parse_backend("opencl") == Backend::opencl);
    CHECK(parse_backend("cuda") == Backend::cuda);
    CHECK_THROWS_AS(parse_backend("vulkan"), UsageError);
    CHECK(std::string(to_string(Backend::cuda)) == "cuda");
    {
        EnvGuard env("PARTCL_BACKEND", std::string("opencl"));
        CHECK(backend_from_environment() == Backend::opencl);
        CHECK(backend_from_environment("auto") == Backend::automatic);  // the command line wins
        CHECK(DeviceFilter::from_environment().backend() == Backend::opencl);
        CHECK(DeviceFilter::from_environment("cpu", "cuda").backend() == Backend::cuda);
    }
    {
        EnvGuard env("PARTCL_BACKEND", std::string("bogus"));
        CHECK_THROWS_AS(backend_from_environment(), UsageError);
    }
    CHECK(backend_built(Backend::opencl));
#ifdef PARTCL_WITH_CUDA
    CHECK(backend_built(Backend::cuda));
#else
    CHECK_FALSE(backend_built(Backend::cuda));
#endif
}

TEST_CASE("OpenCL devices and their contexts say which backend they belong to") {
    const auto opencl = enumerate_devices(Backend::opencl);
    REQUIRE(!opencl.empty());
    for (std::size_t i = 0; i < opencl.size(); ++i) {
        CHECK(opencl[i].backend() == Backend::opencl);
        CHECK(opencl[i].ordinal() == -1);
        CHECK(opencl[i].info().index == i);
    }
    // automatic lists every OpenCL device except NVIDIA's, which CUDA serves when it can.
    std::size_t cuda = 0;
    for (const auto& d : enumerate_devices(Backend::automatic)) cuda += d.backend() == Backend::cuda;
    if (cuda == 0) CHECK(enumerate_devices(Backend::automatic).size() == opencl.size());

    Context context({pocl_devices().front()});
    CHECK(context.backend() == Backend::opencl);
    CHECK(context.queue(0).backend() == Backend::opencl);
    CHECK(context.queue(0).device() == 0);
    CHECK(opencl::native(context.queue(0))() != nullptr);
    CHECK(opencl::native(context)() != nullptr);
    CHECK(opencl::platform(context.device(0))() != nullptr);
    Buffer<float> buffer(context, 8);
    CHECK(buffer.memory().backend() == Backend::opencl);
    CHECK(opencl::native(buffer)() != nullptr);
    CHECK(opencl::native(buffer)() == opencl::native(buffer.memory())());
    CHECK(opencl::native(Buffer<float>(context, 0))() == nullptr);
    const Program program = build_program(context, real_check_source(), {}, memory_cache());
    CHECK(opencl::native(program)() != nullptr);
}

} // TEST_SUITE enumeration

TEST_SUITE("buffer") {

TEST_CASE("round trip, partial reads and writes, fill") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    std::vector<std::int32_t> host(1000);
    std::iota(host.begin(), host.end(), -500);
    Buffer<std::int32_t> buffer(context, host.size());
    CHECK(buffer.size() == 1000);
    CHECK(buffer.bytes() == 4000);
    CHECK_FALSE(buffer.empty());
    buffer.write(queue, host).wait();
    CHECK(buffer.read(queue) == host);

    // Elements [10, 20) replaced, then read back at an offset.
    std::vector<std::int32_t> patch(10, 77);
    buffer.write(queue, patch.data(), patch.size(), 10).wait();
    std::vector<std::int32_t> middle(30);
    buffer.read(queue, middle.data(), middle.size(), 0);
    for (std::size_t i = 0; i < 30; ++i) CHECK(middle[i] == (i >= 10 && i < 20 ? 77 : host[i]));
    std::vector<std::int32_t> tail(5);
    buffer.read(queue, tail.data(), 5, 995);
    CHECK(tail == std::vector<std::int32_t>(host.end() - 5, host.end()));

    buffer.fill(queue, 3).wait();
    CHECK(buffer.read(queue) == std::vector<std::int32_t>(1000, 3));

    // Construction from a host vector uploads it.
    const std::vector<double> values{1.5, -2.25, 1e300};
    Buffer<double> from_host(context, values);
    CHECK(from_host.read(queue) == values);
}

namespace {

// True when `f` throws partcl's own range error: a partcl::Error raised before any OpenCL call
// (not a BackendError from the driver refusing what slipped through).
template <class F>
bool range_error(F&& f) {
    try {
        f();
    } catch (const partcl::BackendError& error) {
        MESSAGE("the driver, not the range check, refused: " << error.what());
        return false;
    } catch (const partcl::Error& error) {
        return contains(error.what(), "outside");
    }
    return false;
}

} // namespace

TEST_CASE("out-of-range reads and writes throw partcl::Error") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    Buffer<float> buffer(context, 100);
    std::vector<float> host(200, 1.f);
    float* h = host.data();
    CHECK(range_error([&] { buffer.write(queue, host); }));               // too long
    CHECK(range_error([&] { buffer.write(queue, h, 10, 95); }));          // runs past the end
    CHECK(range_error([&] { buffer.write(queue, h, 0, 101); }));          // offset past the end
    CHECK(range_error([&] { buffer.read(queue, h, 101); }));
    CHECK(range_error([&] { buffer.read(queue, h, 1, 100); }));
    // An overflowing offset + count must not wrap around into "in range".
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    CHECK(range_error([&] { buffer.read(queue, h, 2, huge); }));
    CHECK(range_error([&] { buffer.read(queue, h, huge, 2); }));
    CHECK(range_error([&] { buffer.write(queue, h, huge, 1); }));
    CHECK(range_error([&] { buffer.write(queue, h, 2, huge - 1); }));
    // Exactly at the end is fine.
    CHECK_NOTHROW(buffer.write(queue, h, 0, 100).wait());
    CHECK_NOTHROW(buffer.write(queue, h, 100, 0).wait());
    CHECK_NOTHROW(buffer.read(queue, h, 0, 100));
    CHECK_NOTHROW(buffer.read(queue, h, 1, 99));
}

TEST_CASE("a zero-size buffer is valid") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    Buffer<float> empty(context, 0);
    CHECK(empty.empty());
    CHECK(empty.size() == 0);
    CHECK(empty.bytes() == 0);
    CHECK(empty.read(queue).empty());
    CHECK_NOTHROW(empty.write(queue, std::vector<float>{}).wait());
    CHECK_NOTHROW(empty.fill(queue, 1.f).wait());
    float x = 0;
    CHECK_NOTHROW(empty.read(queue, &x, 0, 0));
    CHECK(range_error([&] { empty.read(queue, &x, 1); }));
    CHECK(range_error([&] { empty.write(queue, &x, 1); }));
    Buffer<float> also_empty(context, std::vector<float>{});
    CHECK(also_empty.empty());
    Buffer<float> default_constructed;
    CHECK(default_constructed.empty());
}

} // TEST_SUITE buffer

namespace {

// A kernel of the test's own, through the precision vocabulary: y[i] = a * x[i] + i, with
// a local-memory detour so Local<T> arguments are exercised.
const char* const axpy_source = R"CL(#include "common/real.h"
KERNEL void axpy(const uint n, const real a, GLOBAL const real* x, GLOBAL real* y,
                 LOCAL real* scratch)
{
    const uint i = global_id(0);
    const uint l = local_id(0);
    scratch[l] = i < n ? x[i] : REAL_C(0.0);
    BARRIER_LOCAL;
    if (i < n) y[i] = a * scratch[l] + (real)i;
}
)CL";

template <class T>
void check_axpy(Precision precision, std::size_t n, std::size_t local) {
    Context& context = test_context();
    auto& queue = context.queue(0);
    BuildOptions options;
    options.precision = precision;
    const Program program =
        build_program(context, Source::from_string("axpy.cl", axpy_source), options, memory_cache());
    CHECK(program.precision() == precision);
    Kernel kernel(program, "axpy");
    CHECK(kernel.name() == "axpy");
    std::vector<T> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = T(0.25) * T(i % 17);
    Buffer<T> bx(context, x), by(context, n);
    if (n) by.fill(queue, T(-1)).wait();
    const std::size_t group = local ? local : 64;
    kernel.args(std::uint32_t(n), Real{1.0 / 3.0}, bx, by, Local<T>{group});
    const Event event = kernel.launch(queue, n, local);
    if (n == 0) {
        CHECK_FALSE(event.valid());
        return;
    }
    REQUIRE(event.valid());
    event.wait();
    CHECK(event.seconds() >= 0);
    const auto y = by.read(queue);
    const T a = T(1.0 / 3.0);  // Real is rounded to the program's precision
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(y[i] == doctest::Approx(double(a * x[i] + T(i))).epsilon(4 * std::numeric_limits<T>::epsilon()));
    }
}

} // namespace

TEST_SUITE("kernel") {

TEST_CASE("launch rounds up to whole groups; kernels bounds-check; Real follows precision") {
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1001)}) {
        for (std::size_t local : {std::size_t(1), std::size_t(16), std::size_t(64)}) {
            CAPTURE(n);
            CAPTURE(local);
            check_axpy<float>(Precision::float32, n, local);
            check_axpy<double>(Precision::float64, n, local);
        }
    }
    check_axpy<float>(Precision::float32, 0, 16);
}

TEST_CASE("kernel names, sizes, and errors that name the call") {
    Context& context = test_context();
    const Program program = build_program(context, real_check_source(), {}, memory_cache());
    const auto names = program.kernel_names();
    CHECK(names == std::vector<std::string>{"real_check"});
    CHECK(program.name() == "common/real_check.cl");
    REQUIRE(program.builds().size() == context.size());
    CHECK(program.builds()[0].device == context.device(0).info().name);

    Kernel kernel(program, "real_check");
    CHECK(kernel.max_work_group_size(context.device(0)) > 0);
    CHECK(kernel.preferred_multiple(context.device(0)) > 0);

    // An argument index past the end: the driver's CL_INVALID_ARG_INDEX, named.
    try {
        kernel.arg(17, std::uint32_t(1));
        FAIL("no exception for argument 17");
    } catch (const BackendError& error) {
        CHECK(error.status() == CL_INVALID_ARG_INDEX);
        CHECK(error.call() == "clSetKernelArg");
        CHECK(contains(error.what(), "CL_INVALID_ARG_INDEX"));
        CHECK(contains(error.what(), "clSetKernelArg"));
    }
    // A kernel that does not exist.
    try {
        Kernel missing(program, "no_such_kernel");
        FAIL("no exception for a missing kernel");
    } catch (const BackendError& error) {
        CHECK(error.status() == CL_INVALID_KERNEL_NAME);
        CHECK(contains(error.what(), "no_such_kernel"));
        CHECK(contains(error.what(), "CL_INVALID_KERNEL_NAME"));
    }
    // Launching without arguments set: the enqueue's own error, named.
    Kernel unset(program, "real_check");
    try {
        unset.launch(context.queue(0), 10);
        context.queue(0).finish();
        FAIL("no exception for a launch without arguments");
    } catch (const BackendError& error) {
        CHECK(error.status() == CL_INVALID_KERNEL_ARGS);
        CHECK(error.call() == "clEnqueueNDRangeKernel");
    }
}

} // TEST_SUITE kernel

// Launches at a global offset, on every backend (CUDA has none of its own: cl/common/portable.h
// adds the one partcl writes before the launch).
TEST_SUITE("launch") {

TEST_CASE("launch with an offset runs work-items [offset, offset + count) only") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const Program program = build_program(context, real_check_source(), {}, memory_cache());
    const std::size_t n = 100;
    std::vector<float> xs(n, 4.0f), ys(n, 2.0f);
    Buffer<float> bx(context, xs), by(context, ys), out(context, real_check_rows * n);
    out.fill(queue, -1.0f).wait();
    Kernel kernel(program, "real_check");
    kernel.args(std::uint32_t(n), bx, by, out);
    kernel.launch(queue, 30, 0, 50).wait();   // items 50..79
    kernel.launch(queue, 5, 4, 92).wait();    // items 92..96, rounded up to whole groups: 92..99
    // Off its group size, a launch would follow one whose rounded-up groups ran into it.
    CHECK_THROWS_WITH_AS(kernel.launch(queue, 7, 4, 93), doctest::Contains("multiple of its group size"),
                         UsageError);
    kernel.launch(queue, 10).wait();          // at no offset again: items 0..9
    const auto result = out.read(queue);
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        const bool ran = i < 10 || (i >= 50 && i < 80) || i >= 92;
        CHECK(result[1 * n + i] == (ran ? 2.0f : -1.0f));  // sqrt(4)
        CHECK(result[8 * n + i] == (ran ? 2.0f : -1.0f));  // 4 / 2
    }
}

} // TEST_SUITE launch

TEST_SUITE("kernel_args") {

TEST_CASE("integer arguments go in as the kernel declares them, or fail naming the argument") {
    Context& context = test_context();
    auto& queue = context.queue(0);
    const Source source = Source::from_string("integers.cl", R"(
        #include "common/real.h"
        KERNEL void integers(const uint n, const ulong big, const int negative,
                             const ushort small, GLOBAL ulong* out) {
            if (global_id(0) != 0) return;
            out[0] = n;
            out[1] = big;
            out[2] = (ulong)(long)negative;
            out[3] = small;
        })");
    const Program program = build_program(context, source, {}, memory_cache());
    Buffer<std::uint64_t> out(context, 4);
    Kernel kernel(program, "integers");
    // A size_t for a uint, an int for a ulong, a long long for an int, a size_t for a ushort.
    kernel.args(std::size_t(7), 3, -5LL, std::size_t(9), out);
    kernel.launch(queue, 1);
    CHECK(out.read(queue) == std::vector<std::uint64_t>{7, 3, std::uint64_t(-5), 9});
    // Again, through the sizes learnt, with other values.
    kernel.args(std::size_t(0xffffffffu), std::uint64_t(1) << 40, std::int64_t(-2147483648LL),
                65535u, out);
    kernel.launch(queue, 1);
    CHECK(out.read(queue) ==
          std::vector<std::uint64_t>{0xffffffffu, std::uint64_t(1) << 40, std::uint64_t(-2147483648LL),
                                     65535});
    // Values that do not fit are refused, naming the argument.
    CHECK(contains(usage_error([&] { kernel.arg(0, std::size_t(5000000000ull)); }),
                   "argument 0 of kernel 'integers'"));
    CHECK(contains(usage_error([&] { kernel.arg(2, 1LL << 40); }), "argument 2"));
    CHECK(contains(usage_error([&] { kernel.arg(3, 65536); }), "65536 does not fit"));
    Kernel fresh(program, "integers");
    // (Where the backend cannot say the parameter's size, OpenCL, no size is learnt yet here.)
    CHECK(contains(usage_error([&] { fresh.arg(0, std::size_t(5000000000ull)); }),
                   "5000000000"));
}

} // TEST_SUITE kernel_args
