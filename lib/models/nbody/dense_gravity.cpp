#include <partcl/models/nbody/dense_gravity.hpp>

#include <algorithm>

namespace partcl {

namespace {

// Local-memory tiles pay on GPUs (sources are read from global memory once per work-group);
// on CPUs the plain loop over structure-of-arrays vectorises better and tiling only costs.
std::size_t default_tile(const Context& context) {
    std::size_t limit = 256;
    bool gpu = false;
    for (const auto& d : context.devices()) {
        gpu = gpu || d.info().type == DeviceType::gpu || d.info().type == DeviceType::accelerator;
        limit = std::min(limit, d.info().max_work_group_size);
    }
    if (!gpu) return 0;
    std::size_t tile = 1;
    while (tile * 2 <= limit) tile *= 2;
    return tile;
}

// Work-group size for the untiled form: big enough for PoCL to vectorise across work-items.
constexpr std::size_t untiled_local = 64;

} // namespace

DenseGravity::DenseGravity(Context& context, Precision precision, GravityParameters parameters,
                           std::size_t tile, ProgramCache& cache)
    : context_(context), precision_(precision), parameters_(parameters),
      tile_(tile ? tile : default_tile(context)), scheduler_(Scheduler::for_devices(context.devices())) {
    if (!(parameters_.softening >= 0) || !(parameters_.G > 0))
        throw UsageError("gravity: G must be positive and the softening non-negative");
    for (const auto& d : context.devices()) {
        require_precision(d.info(), precision);
        if (tile_ > d.info().max_work_group_size)
            throw UsageError("dense gravity tile " + std::to_string(tile_) + " exceeds the largest "
                             "work-group of " + d.info().name + " (" +
                             std::to_string(d.info().max_work_group_size) + ")");
    }
    const Source source = Source::builtin("nbody/dense.cl");
    for (bool potential : {false, true}) {
        BuildOptions options;
        options.precision = precision;
        options.define("DENSE_TILE", static_cast<long long>(tile_));
        options.define("DENSE_POTENTIAL", potential ? 1 : 0);
        // Partial sums for the untiled form: eight floats or four doubles fill the 256-bit
        // vectors PoCL emits (measured on 2-core AVX-512 EPYC: 8 lanes beat 4 and 16 in float
        // by 1.4-1.9x, 4 beat 8 in double by 1.08x; docs/performance.md).
        options.define("DENSE_LANES", tile_ == 0 ? (precision == Precision::float64 ? 4 : 8) : 0);
        const Program program = build_program(context, source, options, cache);
        for (std::size_t d = 0; d < context.size(); ++d) {
            Kernel k(program, "dense_gravity");
            if (tile_ > k.max_work_group_size(context.device(d)))
                throw Unsupported("dense gravity: " + context.device(d).info().name +
                                  " runs the kernel in work-groups of at most " +
                                  std::to_string(k.max_work_group_size(context.device(d))) +
                                  ", fewer than the tile of " + std::to_string(tile_));
            kernels_.push_back(std::move(k));
        }
    }
    local_ = tile_ ? tile_ : untiled_local;
}

void DenseGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                 std::size_t n, RealBuffer& out, std::size_t out_offset,
                                 RealBuffer* potential) {
    if (n == 0) return;
    for (const RealBuffer* b : {&positions, &mass, static_cast<const RealBuffer*>(&out)})
        if (b->precision() != precision_)
            throw UsageError("DenseGravity: a " + std::string(to_string(b->precision())) +
                             " buffer given to a " + to_string(precision_) + " model");
    if (positions.size() < 3 * n || mass.size() < n || out.size() < out_offset + 3 * n ||
        (potential && potential->size() < n))
        throw UsageError("DenseGravity: buffers too short for " + std::to_string(n) + " bodies");
    if (out.size() > 0xffffffffull || positions.size() > 0xffffffffull)
        throw UsageError("DenseGravity: more than 2^32 - 1 elements in one buffer");

    const bool spread = context_.size() > 1;
    if (spread) {
        context_.finish();  // positions written on device 0 must be complete before others read
        slices_.resize(context_.size());
    }
    const std::size_t potential_offset = potential ? context_.size() : 0;
    const auto ranges = scheduler_.run(n, local_, [&](std::size_t d, Range r) {
        RealBuffer* acc = &out;
        RealBuffer* pot = potential;
        cl_uint offset = cl_uint(out_offset), stride = cl_uint(n);
        if (spread && d > 0) {
            Slice& slice = slices_[d];
            if (slice.acc.size() < 3 * r.size()) {
                slice.acc = RealBuffer(context_, precision_, 3 * r.size());
                slice.potential = RealBuffer(context_, precision_, r.size());
            }
            acc = &slice.acc;
            pot = potential ? &slice.potential : nullptr;
            offset = 0;
            stride = cl_uint(r.size());
        }
        Kernel& k = kernels_.at(potential_offset + d);
        k.args(cl_uint(r.begin), cl_uint(r.end), cl_uint(n),
               Real{parameters_.softening * parameters_.softening}, Real{parameters_.G}, positions,
               mass, *acc, offset, stride, pot ? *pot : RealBuffer());
        return k.launch(context_.queue(d), r.size(), local_);
    });
    if (spread) {
        auto& queue = context_.queue(0);
        for (std::size_t d = 1; d < ranges.size(); ++d) {
            const Range r = ranges[d];
            if (r.empty()) continue;
            for (std::size_t axis = 0; axis < 3; ++axis)
                slices_[d].acc.copy_to(queue, out, r.size(), axis * r.size(),
                                       out_offset + axis * n + r.begin);
            if (potential) slices_[d].potential.copy_to(queue, *potential, r.size(), 0, r.begin);
        }
        check(queue.finish(), "clFinish");
    }
    interactions_ += double(n) * double(n);
}

} // namespace partcl
