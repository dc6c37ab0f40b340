#pragma once
// DenseGravity: all-pairs gravity (cl/nbody/dense.cl), O(N^2), exact up to rounding. Each
// evaluation is one MultiDeviceLaunch over every device of the context: positions and masses
// are read by all devices (Mirrors: copied to each device's own memory where the devices have
// separate ones), each device computes its range of targets, and the accelerations and
// potentials are PartitionedOutputs gathered into the output buffers on device 0.
#include <functional>
#include <string>
#include <vector>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/models/nbody/gravity.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/partitioned_output.hpp>

namespace partcl {

// The shape cl/nbody/dense.cl is compiled to: local-memory tiles of `tile` bodies, `targets`
// targets per work-item, the loop over a tile unrolled `unroll` times (GPUs); or (tile 0) a
// plain loop with `lanes` partial sums, one target per work-item (CPUs).
struct DenseShape {
    std::size_t tile = 0;
    std::size_t lanes = 0;
    std::size_t unroll = 1;
    std::size_t targets = 1;
    std::size_t work_group() const noexcept { return tile ? tile : 64; }
    // Targets one work-group covers.
    std::size_t block() const noexcept { return work_group() * (tile ? targets : 1); }
    bool operator==(const DenseShape& o) const noexcept {
        return tile == o.tile && lanes == o.lanes && unroll == o.unroll && targets == o.targets;
    }
    bool operator<(const DenseShape& o) const noexcept {
        if (tile != o.tile) return tile < o.tile;
        if (lanes != o.lanes) return lanes < o.lanes;
        return unroll != o.unroll ? unroll < o.unroll : targets < o.targets;
    }
};

struct DenseOptions {
    // 0: per device (CPUs: no tiles, 8 partial sums; GPUs: tiles of the largest power of two
    // up to 256 the device allows, 8 targets per work-item in float, 4 in double, the loop
    // over a tile unrolled 16 times). > 0 forces that tile everywhere (unrolled 16 times).
    std::size_t tile = 0;
    // With a forced tile: targets per work-item.
    std::size_t targets = 1;
    // Time the candidate shapes on each device and keep the fastest. The choice is stored in
    // the program cache's directory, keyed like a binary (kernel source, precision, device,
    // driver), so each device is tuned once.
    bool autotune = false;
    // In float: the device's fast 1/sqrt (`native_rsqrt`, PARTCL_FAST_MATH),
    // -cl-fast-relaxed-math and -cl-denorms-are-zero; a few ulp per interaction instead of
    // correctly rounded arithmetic. Off by default.
    bool fast_math = false;
    // Tiled form: split the sources into this many parts, each its own work-groups, summed
    // after in part order. 0: enough parts for about 64 work-groups per compute unit (few
    // targets then still fill a GPU); 1: no split.
    std::size_t source_parts = 0;
};

class DenseGravity : public GravityModel {
public:
    DenseGravity(Context& context, Precision precision, GravityParameters parameters = {},
                 DenseOptions options = {}, ProgramCache& cache = ProgramCache::global());

    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override {
        accelerations(positions, mass, n, Range{0, n}, out, out_offset, potential);
    }
    // The accelerations of the targets [targets.begin, targets.end) among the n sources only
    // (a rank's block, DistributedDenseGravity): target t's a_x | a_y | a_z at out[out_offset +
    // c * count + (t - targets.begin)], count = targets.size(), its potential at
    // potential[t - targets.begin]. Each target's sum is the one accelerations() of all n
    // computes, bit for bit.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       Range targets, RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) {
        accelerations(positions, mass, n, targets, out, out_offset, potential, Range{0, n}, {});
    }
    // The same while the sources arrive (DistributedDenseGravity): positions and mass hold the
    // sources `ready` only; the source parts of each target's sum that lie within them are
    // launched first (the tiled form's parts, on a rank whose devices share the sources'
    // memory: one device), then `arrive()` is called, which must enqueue the writes of the other
    // sources on device 0's queue, then the other parts follow. Bit for bit the same results.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       Range targets, RealBuffer& out, std::size_t out_offset, RealBuffer* potential,
                       Range ready, const std::function<void()>& arrive);

    const GravityParameters& parameters() const noexcept override { return parameters_; }
    double interactions() const noexcept override { return interactions_; }

    Precision precision() const noexcept { return precision_; }
    Context& context() const noexcept { return context_; }
    const DenseShape& shape(std::size_t device) const { return shapes_.at(device); }
    // How device d's shape was chosen: "default", "forced", "autotuned" or "autotuned (cached)".
    const std::string& shape_origin(std::size_t device) const { return origins_.at(device); }
    // Source parts device d cuts `n` bodies into when it computes all of them (1: no split).
    std::size_t source_parts(std::size_t device, std::size_t n) const {
        return split(shapes_.at(device), device, n, n).parts;
    }
    // Devices' ranges of the scheduler's split start at multiples of this.
    std::size_t granule() const noexcept { return granule_; }
    Scheduler& scheduler() noexcept { return launch_.scheduler(); }
    LaunchList launches() const override { return {&launch_}; }

private:
    struct PartialSums {
        RealBuffer acc, potential;  // 3 * length x parts and length x parts
    };
    // How a device's slice of `count` targets is cut in `shape`: `blocks` work-groups of
    // targets times `parts` parts of `chunk` sources.
    struct Split {
        std::size_t blocks = 0, parts = 1, chunk = 0;
        // Work-items of the launch: whole blocks of targets, `parts` times over.
        std::size_t work_items(std::size_t group) const noexcept { return blocks * group * parts; }
    };
    Split split(const DenseShape& shape, std::size_t device, std::size_t count,
                std::size_t n) const;
    // Device d's parts [first, last) of its targets `r` (of `targets`, n sources): into the
    // output where one part, else into its partial sums.
    Event launch_parts(std::size_t d, Range r, Range targets, std::size_t n, const Split& s,
                       std::size_t first, std::size_t last, bool potential);

    Context& context_;
    Precision precision_;
    GravityParameters parameters_;
    DenseShape tune(std::size_t device, const Source& source, ProgramCache& cache) const;

    bool softened_ = false;
    bool fast_math_ = false;
    std::vector<DenseShape> shapes_;
    std::vector<std::string> origins_;
    std::size_t granule_ = 1;
    MultiDeviceLaunch launch_;
    std::size_t source_parts_ = 0;
    std::vector<Kernel> kernels_;  // [d]: accelerations on device d, [size + d]: with potential
    std::vector<Kernel> sums_;     // dense_sum_parts, indexed as kernels_
    Mirror<RealBuffer> positions_, mass_;      // the sources, on every device
    PartitionedOutput<RealBuffer> acc_parts_;  // 3 axes
    PartitionedOutput<RealBuffer> pot_parts_;  // the potential
    std::vector<PartialSums> parts_;           // [d]: the partial sums of source parts
    double interactions_ = 0;
};

} // namespace partcl
