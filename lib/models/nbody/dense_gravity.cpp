#include <partcl/models/nbody/dense_gravity.hpp>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <map>

namespace partcl {

namespace {

bool is_gpu(const DeviceInfo& info) {
    return info.type == DeviceType::gpu || info.type == DeviceType::accelerator;
}

std::size_t largest_power_of_two(std::size_t limit) {
    std::size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

// The shape to use without autotuning (docs/performance.md has the measurements behind it).
// Local-memory tiles pay on GPUs, where sources are read from global memory once per
// work-group; GPUs take 8 targets per work-item in float and 4 in double, the faster of the
// measured choices, over a full tile unrolled 16 times. On CPUs the plain loop vectorises
// better and tiling only costs; eight partial sums fill the 256-bit vectors PoCL emits.
DenseShape default_shape(const DeviceInfo& info, Precision precision) {
    if (is_gpu(info))
        return {largest_power_of_two(std::min<std::size_t>(256, info.max_work_group_size)), 0, 16,
                std::size_t(precision == Precision::float64 ? 4 : 8)};
    return {0, 8, 1, 1};
}

std::vector<DenseShape> candidates(const DeviceInfo& info) {
    std::vector<DenseShape> list{{0, 0, 1, 1}, {0, 4, 1, 1}, {0, 8, 1, 1}, {0, 16, 1, 1}};
    for (std::size_t tile = 32; tile <= std::min<std::size_t>(512, info.max_work_group_size); tile *= 2) {
        if (!is_gpu(info)) {  // tiles lose on CPUs anyway: one of each size is enough to show it
            list.push_back({tile, 0, 1, 1});
            continue;
        }
        for (std::size_t unroll : {1, 4, 16})
            for (std::size_t targets : {1, 2, 4, 8})
                if (unroll <= tile) list.push_back({tile, 0, unroll, targets});
    }
    return list;
}

Program build_shape(const Context& context, const Source& source, Precision precision,
                    DenseShape shape, bool potential, bool softened, bool fast_math,
                    ProgramCache& cache) {
    BuildOptions options;
    options.precision = precision;
    if (fast_math) {
        options.define("PARTCL_FAST_MATH");
        options.flags.push_back("-cl-fast-relaxed-math");
        options.flags.push_back("-cl-denorms-are-zero");
    }
    options.define("DENSE_SOFTENED", softened ? 1 : 0);
    options.define("DENSE_TILE", static_cast<long long>(shape.tile));
    options.define("DENSE_LANES", static_cast<long long>(shape.lanes));
    options.define("DENSE_UNROLL", static_cast<long long>(shape.unroll));
    options.define("DENSE_TARGETS", static_cast<long long>(shape.targets));
    options.define("DENSE_POTENTIAL", potential ? 1 : 0);
    return build_program(context, source, options, cache);
}

std::string tuning_key(const Source& source, Precision precision, bool fast_math,
                       const DeviceInfo& info) {
    return ProgramCache::key(source.expand(), std::string("autotune dense_gravity ") +
                                                  to_string(precision) +
                                                  (fast_math ? " fast-math" : ""),
                             info);
}

} // namespace

DenseGravity::DenseGravity(Context& context, Precision precision, GravityParameters parameters,
                           DenseOptions options, ProgramCache& cache)
    : context_(context), precision_(precision), parameters_(parameters),
      fast_math_(options.fast_math), launch_(context, "dense gravity"), source_parts_(options.source_parts),
      positions_(context), mass_(context), acc_parts_(context, 3), pot_parts_(context, 1) {
    if (!(parameters_.softening >= 0) || !(parameters_.G > 0))
        throw UsageError("gravity: G must be positive and the softening non-negative");
    // The kernel's branch-free form needs eps^2 to stay a normal number in the program's
    // precision (a flushed denormal would be a division by zero).
    const double eps2 = parameters_.softening * parameters_.softening;
    softened_ = precision == Precision::float64 ? eps2 >= DBL_MIN
                                                : float(eps2) >= FLT_MIN && eps2 <= FLT_MAX;
    const Source source = Source::builtin("nbody/dense.cl");
    for (std::size_t d = 0; d < context.size(); ++d) {
        const DeviceInfo& info = context.device(d).info();
        require_precision(info, precision);
        if (options.tile > info.max_work_group_size)
            throw UsageError("dense gravity tile " + std::to_string(options.tile) +
                             " exceeds the largest work-group of " + info.name + " (" +
                             std::to_string(info.max_work_group_size) + ")");
        DenseShape shape =
            options.tile ? DenseShape{options.tile, 0, std::min<std::size_t>(16, options.tile), options.targets}
                         : default_shape(info, precision);
        std::string origin = options.tile ? "forced" : "default";
        if (options.autotune) {
            const std::string key = tuning_key(source, precision, options.fast_math, info);
            unsigned long long tile = 0, lanes = 0, unroll = 0, targets = 0;
            const auto note = cache.load_note(key);
            if (note && std::sscanf(note->c_str(), "tile %llu lanes %llu unroll %llu targets %llu",
                                    &tile, &lanes, &unroll, &targets) == 4) {
                shape = {std::size_t(tile), std::size_t(lanes), std::size_t(unroll),
                         std::size_t(targets)};
                origin = "autotuned (cached)";
            } else {
                shape = tune(d, source, cache);
                origin = "autotuned";
                cache.store_note(key, "tile " + std::to_string(shape.tile) + " lanes " +
                                          std::to_string(shape.lanes) + " unroll " +
                                          std::to_string(shape.unroll) + " targets " +
                                          std::to_string(shape.targets) + "\n");
            }
        }
        shapes_.push_back(shape);
        origins_.push_back(origin);
        granule_ = std::max(granule_, shape.block());
    }
    // One program per distinct shape, built for the whole context; each device takes its
    // kernel from the program of its own shape.
    for (bool potential : {false, true}) {
        std::map<DenseShape, Program> programs;
        for (std::size_t d = 0; d < context.size(); ++d) {
            auto it = programs.find(shapes_[d]);
            if (it == programs.end())
                it = programs.emplace(shapes_[d], build_shape(context, source, precision, shapes_[d],
                                                              potential, softened_, fast_math_,
                                                              cache)).first;
            Kernel k(it->second, "dense_gravity");
            const std::size_t limit = k.max_work_group_size(context.device(d));
            if (shapes_[d].tile > limit)
                throw Unsupported("dense gravity: " + context.device(d).info().name +
                                  " runs the kernel in work-groups of at most " +
                                  std::to_string(limit) + ", fewer than the tile of " +
                                  std::to_string(shapes_[d].tile));
            kernels_.push_back(std::move(k));  // index (potential ? size : 0) + d
            sums_.emplace_back(it->second, "dense_sum_parts");
        }
    }
    parts_.resize(context.size());
}

DenseGravity::Split DenseGravity::split(const DenseShape& shape, std::size_t d, std::size_t count,
                                       std::size_t n) const {
    Split s;
    s.blocks = (count + shape.block() - 1) / shape.block();
    s.chunk = n;
    if (!shape.tile) return s;
    const std::size_t tiles = (n + shape.tile - 1) / shape.tile;
    std::size_t parts = source_parts_;
    if (parts == 0) {
        // About 64 work-groups per compute unit: many waves, so the last, partly filled one
        // costs little (docs/performance.md, "Source parts and 4 targets per work-item").
        // Chosen for all n targets, not this slice's count, so that a target's sum does not
        // depend on how the scheduler cut the targets between devices alike.
        const std::size_t wanted = 64 * std::max<std::size_t>(1, context_.device(d).info().compute_units);
        const std::size_t all_blocks = (n + shape.block() - 1) / shape.block();
        parts = (wanted + all_blocks - 1) / all_blocks;
    }
    parts = std::clamp<std::size_t>(parts, 1, tiles);
    s.chunk = (tiles + parts - 1) / parts * shape.tile;
    s.parts = (n + s.chunk - 1) / s.chunk;
    return s;
}

DenseShape DenseGravity::tune(std::size_t d, const Source& source, ProgramCache& cache) const {
    const DeviceInfo& info = context_.device(d).info();
    // Big enough that a launch is dominated by the interactions, small enough to tune in a few
    // seconds on a CPU.
    const std::size_t n = is_gpu(info) ? 65536 : 4096;
    std::vector<double> pos(3 * n), mass(n, 1.0 / double(n));
    std::uint64_t state = 0x9e3779b97f4a7c15ull;  // fixed sample: tuning does not depend on luck
    for (double& p : pos) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        p = double(state >> 11) * 0x1.0p-53 * 2 - 1;
    }
    RealBuffer bpos(context_, precision_, 3 * n), bmass(context_, precision_, n),
        acc(context_, precision_, 3 * n);
    Queue& queue = context_.queue(d);
    bpos.write(queue, pos);
    bmass.write(queue, mass);

    DenseShape best = default_shape(info, precision_);
    double best_seconds = -1;
    for (const DenseShape& shape : candidates(info)) {
        const Program program =
            build_shape(context_, source, precision_, shape, false, softened_, fast_math_, cache);
        Kernel k(program, "dense_gravity");
        if (shape.tile > k.max_work_group_size(context_.device(d))) continue;
        // Timed as accelerations() launches it, with its source parts (their sum is left out,
        // as the scheduler leaves it out).
        const Split s = split(shape, d, n, n);
        RealBuffer partial = s.parts > 1 ? RealBuffer(context_, precision_, 3 * n * s.parts) : acc;
        const std::size_t items = s.work_items(shape.work_group());
        k.args(std::uint32_t(0), std::uint32_t(n), std::uint32_t(n), Real{0.0025}, Real{1.0}, bpos, bmass, partial,
               std::uint32_t(0), std::uint32_t(n), RealBuffer(), std::uint32_t(s.blocks), std::uint32_t(s.chunk),
               std::uint32_t(0));
        k.launch(queue, items, shape.work_group()).wait();  // first launch: driver-side compilation
        double seconds = 1e300;
        for (int repeat = 0; repeat < 3; ++repeat)
            seconds = std::min(seconds, k.launch(queue, items, shape.work_group()).seconds());
        if (best_seconds < 0 || seconds < best_seconds) {
            best = shape;
            best_seconds = seconds;
        }
    }
    return best;
}

Event DenseGravity::launch_parts(std::size_t d, Range r, Range targets, std::size_t n, const Split& s,
                                 std::size_t first, std::size_t last, bool potential) {
    const OutputPart<RealBuffer> acc = acc_parts_.part(d);
    // The kernel writes potentials from the start of their buffer: a slice's start, or
    // device 0's part of the destination, which begins at item 0.
    RealBuffer* pot = potential ? &pot_parts_.part(d).buffer : nullptr;
    const std::size_t slice = r.size();
    // Several parts write their partial sums apart, for dense_sum_parts to add into place.
    PartialSums& partial = parts_[d];
    if (s.parts > 1) {
        if (partial.acc.size() < 3 * slice * s.parts)
            partial.acc = RealBuffer(context_, precision_, 3 * slice * s.parts, OnDevice{d});
        if (potential && partial.potential.size() < slice * s.parts)
            partial.potential = RealBuffer(context_, precision_, slice * s.parts, OnDevice{d});
    }
    RealBuffer& acc_into = s.parts > 1 ? partial.acc : acc.buffer;
    RealBuffer* pot_into = !pot ? nullptr : s.parts > 1 ? &partial.potential : pot;
    Kernel& k = kernels_.at((potential ? context_.size() : 0) + d);
    k.args(std::uint32_t(targets.begin + r.begin), std::uint32_t(targets.begin + r.end), std::uint32_t(n),
           Real{parameters_.softening * parameters_.softening}, Real{parameters_.G}, positions_.on(d), mass_.on(d),
           acc_into, s.parts > 1 ? std::uint32_t(0) : std::uint32_t(acc.offset),
           s.parts > 1 ? std::uint32_t(slice) : std::uint32_t(acc.stride), pot_into ? *pot_into : RealBuffer(),
           std::uint32_t(s.blocks), std::uint32_t(s.chunk), std::uint32_t(first));
    const std::size_t group = shapes_[d].work_group();
    Split launched = s;
    launched.parts = last - first;
    return k.launch(context_.queue(d), launched.work_items(group), group);
}

void DenseGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                                 Range targets, RealBuffer& out, std::size_t out_offset,
                                 RealBuffer* potential, Range ready, const std::function<void()>& arrive) {
    if (targets.end > n || targets.begin > targets.end)
        throw UsageError("DenseGravity: targets [" + std::to_string(targets.begin) + ", " +
                         std::to_string(targets.end) + ") of " + std::to_string(n) + " bodies");
    if (ready.end > n || ready.begin > ready.end)
        throw UsageError("DenseGravity: sources [" + std::to_string(ready.begin) + ", " +
                         std::to_string(ready.end) + ") ready of " + std::to_string(n));
    const std::size_t count = targets.size();
    if (count == 0) {
        if (arrive) arrive();
        return;
    }
    for (const RealBuffer* b : {&positions, &mass, static_cast<const RealBuffer*>(&out)})
        if (b->precision() != precision_)
            throw UsageError("DenseGravity: a " + std::string(to_string(b->precision())) +
                             " buffer given to a " + to_string(precision_) + " model");
    if (positions.size() < 3 * n || mass.size() < n || out.size() < out_offset + 3 * count ||
        (potential && potential->size() < count))
        throw UsageError("DenseGravity: buffers too short for " + std::to_string(n) + " bodies");
    if (out.size() > 0xffffffffull || positions.size() > 0xffffffffull)
        throw UsageError("DenseGravity: more than 2^32 - 1 elements in one buffer");

    const Partition partition = launch_.split(count, granule_);
    // Where the sources are copied to other devices, a copy would read what is still being
    // written: nothing goes first there.
    const bool early_parts = arrive && !positions_.copies();
    if (arrive && !early_parts) arrive();
    positions_.update(positions, 3 * n);
    mass_.update(mass, n);
    acc_parts_.assign(partition, out, {out_offset, count});
    if (potential) pot_parts_.assign(partition, *potential, {0, count});
    const bool with_potential = potential != nullptr;
    std::vector<Split> splits;
    for (std::size_t d = 0; d < context_.size(); ++d) splits.push_back(split(shapes_[d], d, partition[d].size(), n));
    // The parts over the sources already there, while the others arrive.
    std::vector<Range> early(context_.size(), Range{0, 0});
    if (early_parts) {
        for (std::size_t d = 0; d < context_.size(); ++d) {
            const Range r = partition[d];
            const Split& s = splits[d];
            if (r.empty() || s.parts < 2) continue;
            const std::size_t first = (ready.begin + s.chunk - 1) / s.chunk;
            const std::size_t last = ready.end == n ? s.parts : std::min(s.parts, ready.end / s.chunk);
            if (first >= last || (first == 0 && last == s.parts)) continue;
            launch_parts(d, r, targets, n, s, first, last, with_potential);
            early[d] = {first, last};
        }
        arrive();
    }
    launch_.run(partition, [&](std::size_t d, Range r) {
        const Split& s = splits[d];
        // Early parts leave at least one part to launch here.
        Event done;
        if (early[d].empty()) {
            done = launch_parts(d, r, targets, n, s, 0, s.parts, with_potential);
        } else {
            if (early[d].begin > 0) done = launch_parts(d, r, targets, n, s, 0, early[d].begin, with_potential);
            if (early[d].end < s.parts) done = launch_parts(d, r, targets, n, s, early[d].end, s.parts, with_potential);
        }
        if (s.parts > 1) {
            const OutputPart<RealBuffer> acc = acc_parts_.part(d);
            RealBuffer* pot = potential ? &pot_parts_.part(d).buffer : nullptr;
            PartialSums& partial = parts_[d];
            Kernel& sum = sums_.at((with_potential ? context_.size() : 0) + d);
            sum.args(std::uint32_t(r.size()), std::uint32_t(s.parts), partial.acc, acc.buffer,
                     std::uint32_t(acc.offset), std::uint32_t(acc.stride), pot ? partial.potential : RealBuffer(),
                     pot ? *pot : RealBuffer());
            sum.launch(context_.queue(d), r.size());
        }
        return done;  // the scheduler weighs devices by the interactions' time
    });
    acc_parts_.gather();  // waits for the sums of parts too
    if (potential) pot_parts_.gather();
    interactions_ += double(n) * double(count);
}

} // namespace partcl
