// The CUDA backend on a real GPU (label `gpu`, built with -DPARTCL_GPU_TESTS=ON, run by
// scripts/gpu-check.sh): devices, memory, launches and events through the same public API the
// OpenCL backend serves, and the same kernel source agreeing across backends on one GPU. The
// model suites (dense, algorithm, integrators, run) also run whole on CUDA there, with
// PARTCL_BACKEND=cuda: a model's code does not change with the backend.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <numeric>

#include <partcl/backend/cuda/interop.hpp>
#include <partcl/backend/opencl/interop.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

Context cuda_context() {
    const auto devices = enumerate_devices(Backend::cuda);
    REQUIRE_MESSAGE(!devices.empty(), "no CUDA device: the gpu tests need an NVIDIA GPU");
    return Context({devices.front()});
}

std::vector<double> dense_acc(Context& context, Precision precision, const Bodies& b) {
    DenseGravity gravity(context, precision, GravityParameters{1.0, 0.01}, DenseOptions{},
                         memory_cache());
    DeviceBodies bodies(context, precision, b);
    RealBuffer acc(context, precision, 3 * b.size());
    gravity.accelerations(bodies.state, bodies.mass, b.size(), acc, 0);
    return acc.read(context.queue(0));
}

} // namespace

TEST_SUITE("backends") {

TEST_CASE("CUDA devices are enumerated with their properties, and auto prefers them") {
    const auto cuda = enumerate_devices(Backend::cuda);
    REQUIRE(!cuda.empty());
    for (const auto& d : cuda) {
        CAPTURE(describe(d.info()));
        CHECK(d.backend() == Backend::cuda);
        CHECK(d.ordinal() >= 0);
        CHECK(d.info().type == DeviceType::gpu);
        CHECK(d.info().compute_units > 0);
        CHECK(d.info().compute_capability >= 30);
        CHECK(d.info().global_memory > 0);
        CHECK(d.info().max_work_group_size >= 256);
    }
    // auto: CUDA serves the NVIDIA GPUs, NVIDIA's OpenCL platform steps aside.
    const auto automatic = enumerate_devices(Backend::automatic);
    std::size_t cuda_count = 0;
    for (std::size_t i = 0; i < automatic.size(); ++i) {
        CHECK(automatic[i].info().index == i);
        cuda_count += automatic[i].backend() == Backend::cuda;
        if (automatic[i].backend() == Backend::opencl)
            CHECK(automatic[i].info().platform.find("NVIDIA") == std::string::npos);
    }
    CHECK(cuda_count == cuda.size());
    CHECK(DeviceFilter("gpu").select().front().backend() == Backend::cuda);
    CHECK(DeviceFilter("gpu", Backend::opencl).select().front().backend() == Backend::opencl);
}

TEST_CASE("memory on CUDA: write, read, copy and fills of every pattern width") {
    Context context = cuda_context();
    Queue& queue = context.queue(0);
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> host(100003);
    for (auto& v : host) v = rng();
    Buffer<std::uint32_t> a(context, host), b(context, host.size());
    CHECK(a.read(queue) == host);
    a.copy_to(queue, b, 1000, 5, 17).wait();
    const auto copied = b.read(queue);
    CHECK(std::equal(host.begin() + 5, host.begin() + 1005, copied.begin() + 17));

    Buffer<std::uint8_t> bytes(context, 1001);
    bytes.fill(queue, std::uint8_t(0xab));
    CHECK(bytes.read(queue) == std::vector<std::uint8_t>(1001, 0xab));
    Buffer<std::uint16_t> shorts(context, 1001);
    shorts.fill(queue, std::uint16_t(0xbeef));
    CHECK(shorts.read(queue) == std::vector<std::uint16_t>(1001, 0xbeef));
    RealBuffer reals(context, Precision::float64, 70001);
    reals.fill(queue, -2.5);
    CHECK(reals.read(queue) == std::vector<double>(70001, -2.5));
    Buffer<float> empty(context, 0);
    CHECK_NOTHROW(empty.fill(queue, 1.f).wait());
    CHECK(empty.read(queue).empty());
    // A default-constructed buffer (as a model holds before its first use) belongs to no backend.
    Buffer<std::uint32_t> none;
    CHECK(none.read(queue).empty());
}

TEST_CASE("kernels on CUDA: real_check in both precisions, with and without a group size") {
    Context context = cuda_context();
    const std::uint32_t seed = fresh_seed();
    for (Precision precision : {Precision::float32, Precision::float64}) {
        BuildOptions options;
        options.precision = precision;
        const Program program = build_program(context, real_check_source(), options, memory_cache());
        CHECK(program.backend() == Backend::cuda);
        CHECK(!program.kernel_names().empty());
        CHECK_THROWS_AS(opencl::native(program), UsageError);
        for (std::size_t local : {0, 64}) {
            const auto run = run_real_check(context, 0, program, real_check_input(4099, seed), local);
            CHECK(check_real_check(run, precision, seed) == 0);
        }
    }
}

TEST_CASE("launch events time the kernel; what CUDA cannot do is refused clearly") {
    Context context = cuda_context();
    BuildOptions options;
    const Program program = build_program(context, real_check_source(), options, memory_cache());
    Kernel kernel(program, program.kernel_names().front());
    CHECK_THROWS_AS(kernel.arg(0, Local<float>{16}), Unsupported);
    CHECK_THROWS_AS(opencl::native(context.queue(0)), UsageError);
    CHECK_THROWS_AS(opencl::native(context), UsageError);
    CHECK(cuda::native(context.queue(0)) != nullptr);
    Buffer<float> buffer(context, 4);
    CHECK(cuda::native(buffer.memory()) != nullptr);
    CHECK_THROWS_AS(cuda::native(Context::from_filter(DeviceFilter("all", Backend::opencl)).queue(0)),
                    UsageError);
    // A kernel of one backend on a queue of another.
    Context opencl = Context::from_filter(DeviceFilter("all", Backend::opencl));
    CHECK_THROWS_AS(kernel.launch(opencl.queue(0), 1), UsageError);
}

TEST_CASE("the same dense kernel agrees on CUDA and on OpenCL on this GPU") {
    auto opencl_gpus = DeviceFilter("all", Backend::opencl).select();
    std::vector<Device> nvidia;
    for (auto& d : opencl_gpus)
        if (d.info().platform.find("NVIDIA") != std::string::npos) nvidia.push_back(d);
    REQUIRE_MESSAGE(!nvidia.empty(), "NVIDIA's OpenCL is needed to compare the backends");
    Context cl_context({nvidia.front()});
    Context cuda = cuda_context();
    const std::uint32_t seed = fresh_seed();
    CAPTURE(seed);
    const std::size_t n = 20011;
    const Bodies b = random_bodies(n, seed);
    for (Precision precision : {Precision::float32, Precision::float64}) {
        CAPTURE(to_string(precision));
        const auto on_cuda = dense_acc(cuda, precision, b);
        const auto on_opencl = dense_acc(cl_context, precision, b);
        // Two compilers of one source: they may contract different products into FMAs, so
        // results differ by rounding (a few ulp per interaction, accumulated over sqrt(n)).
        const double eps = precision == Precision::float64 ? DBL_EPSILON : FLT_EPSILON;
        double worst = 0, scale = 0;
        for (std::size_t i = 0; i < 3 * n; ++i) {
            worst = std::max(worst, std::abs(on_cuda[i] - on_opencl[i]));
            scale = std::max(scale, std::abs(on_opencl[i]));
        }
        CAPTURE(worst / scale);
        CHECK(worst <= scale * 16 * eps * std::sqrt(double(n)));
    }
}

}
