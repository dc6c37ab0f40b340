#pragma once
// DenseGravity: all-pairs gravity (cl/nbody/dense.cl), O(N^2), exact up to rounding. Each
// evaluation is spread over every device of the context by the Scheduler: positions and masses
// are read by all devices, each device computes its slice of targets, and the slices are
// gathered into the output buffer on device 0.
#include <vector>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/models/nbody/gravity.hpp>
#include <partcl/sched/scheduler.hpp>

namespace partcl {

class DenseGravity : public GravityModel {
public:
    // `tile` 0 picks per device (no tiling on CPUs, local-memory tiles of up to 256 on GPUs);
    // a positive value forces that tile size (= work-group size) everywhere.
    DenseGravity(Context& context, Precision precision, GravityParameters parameters = {},
                 std::size_t tile = 0, ProgramCache& cache = ProgramCache::global());

    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;

    const GravityParameters& parameters() const noexcept override { return parameters_; }
    double interactions() const noexcept override { return interactions_; }

    Precision precision() const noexcept { return precision_; }
    std::size_t tile() const noexcept { return tile_; }
    Scheduler& scheduler() noexcept { return scheduler_; }

private:
    struct Slice {
        RealBuffer acc, potential;  // 3 * length and length
    };

    Context& context_;
    Precision precision_;
    GravityParameters parameters_;
    std::size_t tile_ = 0;
    std::size_t local_ = 0;
    Scheduler scheduler_;
    std::vector<Kernel> kernels_;  // [d]: accelerations on device d, [size + d]: with potential
    std::vector<Slice> slices_;    // devices > 0: their part before the gather
    double interactions_ = 0;
};

} // namespace partcl
