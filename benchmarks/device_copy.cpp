// How an array written on one device of a context reaches another device of it: partcl's own
// copy (Queue copy on the receiving device's queue after a marker of the sender's, as Mirror,
// Halo and PartitionedOutput do) and, on OpenCL, the other ways the API offers. These are the
// figures behind the OpenCL backend's copies between devices of separate memories (design.md,
// "Memories of their own"); docs/performance.md holds them and the command.
//
//   partcl_bench_device_copy [--mib 1,16,256] [--repeat 5]     (PARTCL_DEVICE picks two devices)
//
// Each repeat first writes the whole source on device 0 and the whole destination on device 1
// (a kernel each), so that each array is where a model's step leaves it, then times the copy
// alone, from enqueue to both queues idle. One JSON line per way and size: median seconds and
// GB/s; every way's result is checked against the source.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <partcl/backend/opencl/interop.hpp>
#include <partcl/partcl.hpp>

#include "common.hpp"

using namespace partcl;
using namespace partcl_bench;

namespace {

const char* touch_source = R"(
__kernel void touch(__global float* a, uint n, float add) {
    const uint i = get_global_id(0);
    if (i < n) a[i] += add;
}
)";

struct Options {
    std::vector<double> mib{1, 16, 256};
    int repeat = 5;
    std::string device, backend;
};

// The two arrays, and what moves the source's contents into the destination.
struct Pair {
    Context& context;
    std::size_t count;
    Buffer<float> source, destination;
    cl::Kernel touch0, touch1;  // OpenCL only: for CUDA the arrays are written from the host

    Pair(Context& context, std::size_t count)
        : context(context), count(count), source(context, count, OnDevice{0}),
          destination(context, count, OnDevice{1}) {
        std::vector<float> host(count);
        for (std::size_t i = 0; i < count; ++i) host[i] = float(i % 1000003);
        source.write(context.queue(0), host);
        destination.fill(context.queue(1), -1.0f);
        if (context.device(0).backend() == Backend::opencl) {
            cl::Program program(opencl::native(context), touch_source);
            program.build();
            touch0 = cl::Kernel(program, "touch");
            touch1 = cl::Kernel(program, "touch");
            touch0.setArg(0, opencl::native(source));
            touch1.setArg(0, opencl::native(destination));
            touch0.setArg(1, cl_uint(count));
            touch1.setArg(1, cl_uint(count));
            // Adding 0 to every element: the contents stay, the writes count.
            touch0.setArg(2, 0.0f);
            touch1.setArg(2, 0.0f);
        }
        finish();
    }

    void finish() {
        context.queue(0).finish();
        context.queue(1).finish();
    }

    // Each array written where it lives, as a step leaves them: the source by device 0, the
    // destination by device 1.
    void place() {
        if (touch0()) {
            const cl::NDRange global((count + 255) / 256 * 256);
            opencl::native(context.queue(0)).enqueueNDRangeKernel(touch0, cl::NullRange, global);
            opencl::native(context.queue(1)).enqueueNDRangeKernel(touch1, cl::NullRange, global);
        }
        finish();
    }

    bool arrived() {
        const std::vector<float> want = source.read(context.queue(0));
        const std::vector<float> got = destination.read(context.queue(1));
        return std::memcmp(want.data(), got.data(), count * sizeof(float)) == 0;
    }
};

// Host memory the driver pins: a buffer allocated in host memory, mapped once.
struct PinnedHost {
    cl::Buffer buffer;
    cl::CommandQueue queue;
    void* pointer = nullptr;

    PinnedHost(Context& context, std::size_t bytes)
        : buffer(opencl::native(context), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes),
          queue(opencl::native(context.queue(0))) {
        pointer = queue.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
    }
    ~PinnedHost() {
        queue.enqueueUnmapMemObject(buffer, pointer);
        queue.finish();
    }
    PinnedHost(const PinnedHost&) = delete;
    PinnedHost& operator=(const PinnedHost&) = delete;
};

using Way = std::function<void(Pair&)>;

// Read on the sender's queue into `host`, write from it on the receiver's, in `chunks` pieces
// so that the two directions of the bus overlap.
void through_host(Pair& p, char* host, std::size_t chunks) {
    cl::CommandQueue q0 = opencl::native(p.context.queue(0)), q1 = opencl::native(p.context.queue(1));
    const cl::Buffer from = opencl::native(p.source), to = opencl::native(p.destination);
    const std::size_t bytes = p.count * sizeof(float), piece = (bytes + chunks - 1) / chunks;
    for (std::size_t offset = 0; offset < bytes; offset += piece) {
        const std::size_t size = std::min(piece, bytes - offset);
        cl::Event read;
        q0.enqueueReadBuffer(from, CL_FALSE, offset, size, host + offset, nullptr, &read);
        const std::vector<cl::Event> after{read};
        q1.enqueueWriteBuffer(to, CL_FALSE, offset, size, host + offset, &after);
    }
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{"Copies between two devices of one context, by each way the backend offers",
                 "partcl_bench_device_copy"};
    add_numbers(app, "--mib", o.mib, "Array sizes in MiB");
    app.add_option("--repeat", o.repeat, "Timed copies per way and size (median)")
        ->check(CLI::PositiveNumber);
    app.add_option("--device", o.device, "Device filter (else PARTCL_DEVICE)");
    app.add_option("--backend", o.backend, "opencl or cuda (else PARTCL_BACKEND)");
    parse_or_exit(app, argc, argv);
    try {
        const auto devices = DeviceFilter::from_environment(o.device, o.backend).select();
        if (devices.size() < 2)
            throw UsageError("partcl_bench_device_copy: needs two devices, the filter selected " +
                             std::to_string(devices.size()));
        Context context(std::vector<Device>{devices[0], devices[1]});
        const bool opencl = devices[0].backend() == Backend::opencl;
        for (double mib : o.mib) {
            const std::size_t count = std::size_t(mib * 1024 * 1024 / sizeof(float));
            const std::size_t bytes = count * sizeof(float);
            Pair pair(context, count);
            std::vector<std::pair<std::string, Way>> ways;
            ways.emplace_back("partcl", [](Pair& p) {
                wait_for(p.context.queue(1), mark(p.context.queue(0)));
                p.source.copy_to(p.context.queue(1), p.destination, p.count);
            });
            std::unique_ptr<PinnedHost> pinned;
            std::vector<char> pageable;
            if (opencl) {
                pinned = std::make_unique<PinnedHost>(context, bytes);
                pageable.resize(bytes);
                ways.emplace_back("copy_on_sender_queue", [](Pair& p) {
                    p.source.copy_to(p.context.queue(0), p.destination, p.count);
                });
                ways.emplace_back("through_pinned_host", [&](Pair& p) {
                    through_host(p, static_cast<char*>(pinned->pointer), 1);
                });
                ways.emplace_back("through_pinned_host_8_chunks", [&](Pair& p) {
                    through_host(p, static_cast<char*>(pinned->pointer), 8);
                });
                ways.emplace_back("through_pageable_host", [&](Pair& p) {
                    through_host(p, pageable.data(), 1);
                });
            }
            for (auto& [name, way] : ways) {
                std::vector<double> times;
                for (int r = 0; r <= o.repeat; ++r) {  // the first, untimed
                    pair.place();
                    const double t = block_seconds(1, [&] {
                        way(pair);
                        pair.finish();
                    });
                    if (r > 0) times.push_back(t);
                }
                const bool ok = pair.arrived();
                pair.destination.fill(context.queue(1), -1.0f);
                pair.finish();
                const double seconds = median(times);
                auto line = json_head("device_copy", devices[0]);
                line["backend"] = to_string(devices[0].backend());
                line["to_device"] = devices[1].info().name;
                line["way"] = name;
                line["mib"] = mib;
                line["seconds"] = significant(seconds, 4);
                line["gb_per_s"] = significant(double(bytes) / seconds / 1e9, 4);
                line["correct"] = ok;
                print_json_line(line);
                if (!ok) {
                    std::cerr << "partcl_bench_device_copy: " << name << " did not copy the array\n";
                    return 1;
                }
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "partcl_bench_device_copy: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
