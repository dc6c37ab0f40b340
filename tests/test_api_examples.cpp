// Suite api_examples: the code examples of docs/api.md, run. Each example sits between
// `// [api:NAME]` and `// [api:NAME end]`; tests/check_api_docs.py (CTest unit.api_docs) fails
// when the ```cpp api:NAME block of docs/api.md is not that region, character for character
// (less the region's common indentation). The checks after each region keep the example true.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

// [api:include]
#include <partcl/partcl.hpp>
using namespace partcl;  // the examples below are written with it
// [api:include end]

#include <partcl/backend/opencl/interop.hpp>
#if PARTCL_WITH_CUDA
#include <partcl/backend/cuda/interop.hpp>
#endif

#include "support.hpp"

using namespace partcl_test;

TEST_SUITE("api_examples") {

TEST_CASE("contexts and device filters") {
    // [api:context]
    // The devices PARTCL_DEVICE selects (default "gpu|cpu"), of the first platform that has any.
    Context context = Context::from_filter(DeviceFilter::from_environment());
    std::vector<std::string> lines;
    for (const Device& device : context.devices()) lines.push_back(describe(device.info()));
    Queue& queue = context.queue(0);  // one in-order, profiling queue per device
    // [api:context end]
    CHECK(lines.size() == context.size());
    CHECK(queue.device() == 0);

    // [api:filter]
    DeviceFilter filter("gpu&fp64|cpu");                    // a GPU with double, else a CPU
    std::vector<Device> chosen = filter.select();           // Unsupported when none matches
    std::vector<Context> contexts = make_contexts(chosen);  // one Context per platform
    // [api:filter end]
    CHECK(!chosen.empty());
    CHECK(!contexts.empty());
}

TEST_CASE("buffers") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    const std::size_t n = 1000;
    // [api:buffers]
    Queue& queue = context.queue(0);
    Buffer<std::uint32_t> counts(context, n);  // n elements, not initialised
    counts.fill(queue, 7u);                    // enqueued; the queue keeps the order
    std::vector<std::uint32_t> host = counts.read(queue);  // blocks until done

    std::vector<float> weights(n, 0.5f);
    Buffer<float> device_weights(context, weights);     // made and written, blocking
    Event written = device_weights.write(queue, weights);  // not blocking: keep `weights`
    written.wait();                                        // alive until this returns

    // float or double chosen at run time; the host side is always double.
    RealBuffer positions(context, Precision::float32, n);
    positions.write(queue, std::vector<double>(n, 0.25));  // blocking, converts
    RealBuffer copy(context, positions.precision(), n);
    positions.copy_to(queue, copy, n);
    std::vector<double> back = copy.read(queue);
    // [api:buffers end]
    CHECK(host == std::vector<std::uint32_t>(n, 7u));
    CHECK(back == std::vector<double>(n, 0.25));
}

TEST_CASE("building and launching a kernel") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    Queue& queue = context.queue(0);
    const std::size_t n = 1001;
    // [api:kernel]
    // `real`, KERNEL, GLOBAL and global_id come from partcl's kernel headers, so one source
    // builds for float or double, on OpenCL or CUDA.
    const Source source = Source::from_string("scale.cl", R"(
        #include "common/real.h"
        KERNEL void scale(const uint n, const real factor, GLOBAL real* values) {
            const uint i = global_id(0);
            if (i < n) values[i] = values[i] * factor + OFFSET;
        }
    )");
    BuildOptions options;
    options.precision = Precision::float32;  // Precision::float64 needs DeviceInfo::fp64
    options.define("OFFSET", 1);            // -D OFFSET=1
    const Program program = build_program(context, source, options);

    Kernel scale(program, "scale");
    RealBuffer values(context, options.precision, n);
    values.fill(queue, 2.0);
    scale.args(std::uint32_t(n), Real{3.0}, values);  // arguments 0, 1, 2
    Event done = scale.launch(queue, n, 64);  // n rounded up to whole groups of 64
    const double seconds = done.seconds();    // waits; the device's time, from profiling
    std::vector<double> result = values.read(queue);  // 2 * 3 + 1 = 7 everywhere
    // [api:kernel end]
    CHECK(seconds >= 0);
    CHECK(result == std::vector<double>(n, 7.0));
    CHECK_THROWS_AS(scale.arg(2, RealBuffer(context, Precision::float64, n)), UsageError);

    // [api:cache]
    // The same source and options again: no compiler run. Programs are kept in memory with
    // their context and on disk per device (PARTCL_CACHE_DIR, PARTCL_CACHE=off).
    const Program again = build_program(context, source, options);
    const DeviceBuild::Origin origin = again.builds()[0].origin;  // memory_cache
    // A cache of one's own, memory only:
    ProgramCache private_cache(ProgramCache::Settings{false, {}});
    const Program fresh = build_program(context, source, options, private_cache);
    // [api:cache end]
    CHECK(origin == DeviceBuild::Origin::memory_cache);
    CHECK(fresh.builds()[0].origin != DeviceBuild::Origin::memory_cache);
}

TEST_CASE("a launch spread over every device of a context") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    const std::size_t n = 5003;
    // [api:multi_device_kernel]
    const Program program = build_program(context, Source::from_string("squares.cl", R"(
        #include "common/real.h"
        // Items [begin, end) of one device's part; item i at out[offset + (i - begin)].
        KERNEL void squares(const uint begin, const uint end, GLOBAL real* out,
                            const uint offset) {
            const uint i = begin + global_id(0);
            if (i < end) out[offset + (i - begin)] = (real)i * (real)i;
        }
        // The same, each square times an input every device reads whole.
        KERNEL void weighted(const uint begin, const uint end, GLOBAL const real* weight,
                             GLOBAL real* out, const uint offset) {
            const uint i = begin + global_id(0);
            if (i < end) out[offset + (i - begin)] = weight[i] * (real)i * (real)i;
        }
    )"));
    // [api:multi_device_kernel end]
    // [api:multi_device]
    std::vector<Kernel> kernels;  // one per device: each holds its own arguments
    for (std::size_t d = 0; d < context.size(); ++d) kernels.emplace_back(program, "squares");
    const std::size_t group = 64;

    MultiDeviceLaunch spread(context);  // weights from compute units x clock
    PartitionedOutput<RealBuffer> parts(context, 1);  // an output of one component
    RealBuffer out(context, program.precision(), n);

    const Partition partition = spread.split(n, group);  // cut on whole groups
    parts.assign(partition, out, {});
    spread.run(partition, [&](std::size_t d, Range r) {
        const OutputPart<RealBuffer> part = parts.part(d);  // `out` itself on device 0
        kernels[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), part.buffer,
                        std::uint32_t(part.offset));
        return kernels[d].launch(context.queue(d), r.size(), group);
    });
    parts.gather();  // the other devices' parts copied into `out`, in device order
    std::vector<double> squares = out.read(context.queue(0));
    // [api:multi_device end]
    REQUIRE(squares.size() == n);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += squares[i] != double(float(double(i) * i));
    CHECK(wrong == 0);
    CHECK(partition.total() == n);
    CHECK(partition.parts() == context.size());
    // On two devices (unit.api_examples_two_devices) the second one does part of the work.
    if (context.size() > 1) CHECK(!partition[context.size() - 1].empty());

    // [api:mirror]
    RealBuffer weight(context, program.precision(), n);  // an input all devices read whole
    weight.write(context.queue(0), std::vector<double>(n, 0.5));
    Mirror<RealBuffer> weights(context);  // copied to GPUs of their own memories, else shared
    for (std::size_t d = 0; d < context.size(); ++d) kernels[d] = Kernel(program, "weighted");

    weights.update(weight, n);  // after it was written, before the launch that reads it
    parts.assign(partition, out, {});
    spread.run(partition, [&](std::size_t d, Range r) {
        const OutputPart<RealBuffer> part = parts.part(d);
        kernels[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), weights.on(d),
                        part.buffer, std::uint32_t(part.offset));
        return kernels[d].launch(context.queue(d), r.size(), group);
    });
    parts.gather();
    std::vector<double> weighted = out.read(context.queue(0));
    // [api:mirror end]
    wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
        wrong += weighted[i] != double(0.5f * float(i) * float(i));
    CHECK(wrong == 0);
}

TEST_CASE("device algorithms") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    Queue& queue = context.queue(0);
    // [api:algorithms]
    std::vector<std::uint32_t> cells = {3, 1, 2, 1, 0}, particles = {0, 1, 2, 3, 4};
    Buffer<std::uint32_t> keys(context, cells), values(context, particles);
    SortByKey sort(context);         // keep it: it holds its programs and scratch
    sort(queue, keys, values, 5);    // stable: values 4, 1, 3, 2, 0

    Buffer<std::uint32_t> counts(context, std::vector<std::uint32_t>{2, 0, 3, 1});
    Buffer<std::uint32_t> starts(context, 4);
    exclusive_scan(queue, counts, starts, 4);  // 0, 2, 2, 5

    RealBuffer speeds(context, Precision::float32, 4);
    speeds.write(queue, std::vector<double>{1.5, -2.0, 4.0, 0.5});
    const double fastest = reduce_max(queue, speeds, 4);             // 4
    const double slowest = reduce(queue, speeds, 4, ReduceOp::min);  // -2
    const double total = reduce_sum(queue, speeds, 4);               // 4, added in float
    // [api:algorithms end]
    CHECK(values.read(queue) == std::vector<std::uint32_t>{4, 1, 3, 2, 0});
    CHECK(starts.read(queue) == std::vector<std::uint32_t>{0, 2, 2, 5});
    CHECK(fastest == 4.0);
    CHECK(slowest == -2.0);
    CHECK(total == 4.0);

    // [api:fft]
    Fft fft(context, Precision::float32, {8, 8, 1});  // a 2-D grid of 8 x 8 complex points
    RealBuffer grid(context, Precision::float32, 2 * fft.points());  // (re, im) pairs
    std::vector<double> ones(2 * fft.points(), 0.0);
    for (std::size_t p = 0; p < fft.points(); ++p) ones[2 * p] = 1.0;
    grid.write(queue, ones);
    fft.forward(grid);  // all of it into the zero mode: 64 + 0i
    std::vector<double> spectrum = grid.read(queue);
    fft.inverse(grid);  // unnormalised: ones times 64
    // [api:fft end]
    CHECK(spectrum[0] == doctest::Approx(64.0));
    CHECK(std::abs(spectrum[2]) < 1e-4);
    CHECK(grid.read(queue)[0] == doctest::Approx(64.0));

    // [api:fft_axes]
    // The first 4 rows of 8 points of `grid` (now 64 everywhere), each along x alone.
    Fft rows(context, Precision::float32, {8, 4, 1}, 0, FftAxes::only(0));
    rows.forward(grid);  // row r: 512 at (0, r), 0 at the row's other points
    // [api:fft_axes end]
    const std::vector<double> by_rows = grid.read(queue);
    CHECK(by_rows[2 * 8] == doctest::Approx(512.0));
    CHECK(std::abs(by_rows[2 * 9]) < 1e-3);
    CHECK(by_rows[2 * 40] == doctest::Approx(64.0));  // row 5: not transformed

    // [api:cell_list]
    // Four particles in the unit square, x then y (stride 4); cells no smaller than 0.5.
    RealBuffer positions(context, Precision::float32, 2 * 4);
    positions.write(queue, std::vector<double>{0.9, 0.1, 0.6, 0.2, 0.9, 0.1, 0.8, 0.3});
    CellList cell_list(context, Precision::float32,
                       CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.5));
    cell_list.build(queue, positions, 4, 4);
    std::vector<std::uint32_t> by_cell = cell_list.order().read(queue);  // particles by cell
    // A step later: the particles gathered into that order (cells 0, 0, 3, 3), then moved; the
    // second one, to cell 1, alone changed cell.
    RealBuffer moved(context, Precision::float32, 2 * 4);
    cell_list.gather(queue, positions, moved, 2, 4);
    moved.write(queue, std::vector<double>{0.1, 0.7, 0.9, 0.6, 0.1, 0.1, 0.9, 0.8});
    cell_list.resort(queue, moved, 4, 4);
    std::vector<std::uint32_t> moved_cells = cell_list.keys().read(queue);  // 0, 1, 3, 3
    // [api:cell_list end]
    std::vector<std::uint32_t> sorted = by_cell;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<std::uint32_t>{0, 1, 2, 3});
    CHECK(cell_list.grid().count() == 4);
    CHECK(by_cell == std::vector<std::uint32_t>{1, 3, 0, 2});
    CHECK(moved_cells == std::vector<std::uint32_t>{0, 1, 3, 3});
    CHECK(cell_list.order().read(queue) == std::vector<std::uint32_t>{0, 1, 2, 3});

    // [api:slab_selection]
// The same four particles: those outside slab 0 (y below 0.5) packed, the others kept.
SlabSelection select(context, Precision::float32, cell_list.grid());
const std::size_t leaving = select.flag(queue, positions, 4, {0, 4}, {0, 1}, false);  // 2
RealBuffer packed(context, Precision::float32, 2 * 2), kept(context, Precision::float32, 2 * 2);
select.copy(queue, positions, 4, 2, true, packed, 2, 0);  // x 0.9, 0.6; y 0.9, 0.8
select.copy(queue, positions, 4, 2, false, kept, 2, 0);   // x 0.1, 0.2; y 0.1, 0.3
    // [api:slab_selection end]
    CHECK(leaving == 2);
    CHECK(packed.read(queue) == std::vector<double>{double(0.9f), double(0.6f), double(0.9f), double(0.8f)});
    CHECK(kept.read(queue) == std::vector<double>{double(0.1f), double(0.2f), double(0.1f), double(0.3f)});

    // [api:profile]
    std::vector<Profile::Entry> entries;
    {
        Profile profile;  // records until it goes out of scope
        cell_list.build(queue, positions, 4, 4);
        entries = profile.entries();  // the longest first
    }
    for (const Profile::Entry& e : entries)
        std::printf("%-28s device %zu: %zu x, %.3f ms\n", e.name.c_str(), e.device, e.count,
                    1e3 * e.seconds);
    // [api:profile end]
    const bool has_keys = std::any_of(entries.begin(), entries.end(), [](const Profile::Entry& e) {
        return e.name == "cell_list_keys" && e.count == 1;
    });
    CHECK(has_keys);
}

TEST_CASE("errors") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    // [api:errors]
    std::string message;
    try {
        DeviceFilter filter("gpu&&cpu");
    } catch (const UsageError& e) {  // input that cannot be honoured
        message = e.what();          // names the position of the mistake
    }
    try {
        build_program(context, Source::from_string("broken.cl", "KERNEL void f( {"));
    } catch (const BuildError& e) {  // the compiler's log, in the user's file names
        message = e.log();
    } catch (const Error& e) {       // every partcl error derives from partcl::Error
        message = e.what();
    }
    // [api:errors end]
    CHECK(contains(message, "broken.cl"));
    CHECK_THROWS_AS(DeviceFilter("gpu&&cpu"), UsageError);
}

TEST_CASE("native objects") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    Queue& queue = context.queue(0);
    Buffer<float> values(context, 4);
    if (context.backend() == Backend::opencl) {
        // [api:interop_opencl]
        // #include <partcl/backend/opencl/interop.hpp>
        cl::CommandQueue cl_queue = opencl::native(queue);  // retained: a reference of one's own
        cl::Buffer cl_values = opencl::native(values);
        const float fours[4] = {4, 4, 4, 4};
        cl_queue.enqueueWriteBuffer(cl_values, CL_TRUE, 0, sizeof fours, fours);
        // [api:interop_opencl end]
        CHECK(values.read(queue) == std::vector<float>(4, 4.0f));
    }
#if PARTCL_WITH_CUDA
    if (context.backend() == Backend::cuda) {
        // [api:interop_cuda]
        // #include <partcl/backend/cuda/interop.hpp>
        cudaSetDevice(context.device(0).ordinal());  // the CUDA device behind queue 0
        cudaStream_t stream = cuda::native(queue);
        void* address = cuda::native(values.memory());  // device address of element 0
        const cudaError_t status = cudaMemsetAsync(address, 0, values.bytes(), stream);
        // [api:interop_cuda end]
        CHECK(status == cudaSuccess);
        CHECK(values.read(queue) == std::vector<float>(4, 0.0f));
    }
#endif
}

TEST_CASE("a whole run") {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    TempDir dir("api-run");
    // [api:run]
    Scenario scenario = builtin_scenario("kepler");  // or load_scenario("my.toml")
    scenario.steps = 6;
    scenario.frame_every = 0;
    scenario.snapshot_every = 0;
    NBodyRun run(context, scenario, dir / "kepler");  // writes energy.csv, checkpoint.bin, ...
    std::uint64_t last_step = 0;
    run.on_progress([&](const RunProgress& progress) { last_step = progress.step; });
    const NBodyRunSummary summary = run.run();
    const double drift = summary.energy_drift;  // |E - E0| / |E0|

    // Three more steps from the checkpoint, bit for bit as if never stopped.
    NBodyRun more = NBodyRun::resume(context, dir / "kepler" / "checkpoint.bin",
                                     dir / "kepler", RunLength{9});
    more.run();
    // Any model's scenario (N-body, MPS fluid, PIC plasma), through the one run loop:
    RunLoop loop(context, scenario, dir / "any");
    const RunSummary any = loop.run();
    // [api:run end]
    CHECK(last_step == 6);
    CHECK(summary.last_step == 6);
    CHECK(drift < 1e-3);
    CHECK(read_checkpoint(dir / "kepler" / "checkpoint.bin").step == 9);
    CHECK(loop.title().rfind("kepler", 0) == 0);
    CHECK(any.last_step == 6);
    CHECK(fs::exists(dir / "any" / "checkpoint.bin"));
}

}
