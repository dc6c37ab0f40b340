#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>

#include "tree_build_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <partcl/runtime/marker.hpp>

namespace partcl {

using namespace detail;

namespace {

// Work-group size of tree_finish (at most): nodes of up to this many bodies are split down to
// their leaves in local memory, in one launch, instead of by sorts of the whole tree per level:
// the deep levels hold few bodies each, so a whole-tree sort per level costs far more than their
// work (docs/performance.md has the figures).
constexpr std::size_t finish_group = 256;
// Private stack of the nested traversal: depth first needs levels + 1 entries, and n < 2^32
// means at most 32 levels.
constexpr std::size_t stack_size = 34;
// Largest list: 10 reals a node (and the build checks the local memory the walk needs).
constexpr std::size_t max_list_size = 2048;
// Nodes listed per batch when list_size is unset (at least a group's): the batch size hardly
// matters (docs/performance.md).
constexpr std::size_t default_list = 128;
// Largest group of the listed walk: its round packs three counts of up to a group into 10 bits
// each.
constexpr std::size_t max_list_group = 512;
// Entries of the listed walk's stack for groups of g over a tree of `levels` levels: at most 2 g
// of each depth (cl/nbody/tree_force.cl).
std::size_t list_stack(std::size_t g, std::size_t levels) noexcept { return 2 * g * (levels + 1); }
// The levels a listed walk is compiled for: a multiple of 4, at least 12, so that a run builds
// the walk once and a test of many sizes a few times.
std::size_t list_levels(std::size_t levels) noexcept { return std::max<std::size_t>(12, (levels + 3) / 4 * 4); }
// Work-group size of the walk for groups of g (a power of two): whole groups, at least 64
// work-items (the walk uses no local memory, so this only sizes launches; groups of 1 are
// not blocks of 1).
std::size_t walk_work_group(std::size_t g) noexcept { return std::max<std::size_t>(g, 64); }


} // namespace

TreeTraversal parse_tree_traversal(const std::string& name) {
    TreeTraversal traversal{};
    if (from_name(tree_traversals, name, traversal)) return traversal;
    throw UsageError("tree traversal '" + name + "': expected \"nested\" or \"stackless\"");
}

namespace {
std::size_t level_of(std::size_t k) noexcept {
    std::size_t level = 0;
    while (k >> (level + 1)) ++level;
    return level;
}
} // namespace

std::size_t TreeSnapshot::begin(std::size_t k) const noexcept {
    const std::size_t count = std::size_t(1) << level_of(k);
    return tree_start(k - count, count, n);
}

std::size_t TreeSnapshot::end(std::size_t k) const noexcept {
    const std::size_t count = std::size_t(1) << level_of(k);
    return tree_start(k - count + 1, count, n);
}

TreeSnapshot TreeGravity::snapshot() {
    if (window_.total == 0) throw UsageError("TreeGravity: snapshot() before build()");
    Queue& queue = context_.queue(0);
    TreeSnapshot s;
    s.n = n_;
    s.levels = levels_;
    s.perm.resize(n_);
    perm_.read(queue, s.perm.data(), n_);
    const std::size_t nodes = s.nodes();
    s.node.resize(node_fields * nodes);
    s.box.resize(7 * nodes);
    node_.read(queue, s.node.data(), node_fields * nodes);
    box_.read(queue, s.box.data(), 7 * nodes);
    return s;
}

std::size_t TreeGravity::levels_for(std::size_t n, std::size_t leaf_size) noexcept {
    std::size_t levels = 0;
    while ((std::size_t(1) << levels) * leaf_size < n) ++levels;
    return levels;
}

void TreeGravity::check_options(const GravityParameters& parameters, const TreeOptions& options) {
    if (!(parameters.softening >= 0) || !(parameters.G > 0))
        throw UsageError("gravity: G must be positive and the softening non-negative");
    if (!TreeOptions::valid_theta(options.theta))
        throw UsageError("tree gravity: the opening angle theta must be in [0, 1] (got " +
                         std::to_string(options.theta) +
                         "); above 1 a body could take a node that holds it for a distant one");
    if (!TreeOptions::valid_leaf_size(options.leaf_size))
        throw UsageError("tree gravity: leaf_size must be in [1, 2^20] (got " +
                         std::to_string(options.leaf_size) + ")");
    if (!TreeOptions::valid_rebuild_every(options.rebuild_every))
        throw UsageError("tree gravity: rebuild_every must be in [1, " +
                         std::to_string(TreeOptions::max_rebuild_every) + "] (got " +
                         std::to_string(options.rebuild_every) + ")");
    if (!TreeOptions::valid_rebuild_growth(options.rebuild_growth))
        throw UsageError("tree gravity: rebuild_growth must be in [0, 1e6] (got " +
                         std::to_string(options.rebuild_growth) + ")");
    if (!TreeOptions::valid_relative_accuracy(options.relative_accuracy))
        throw UsageError("tree gravity: relative_accuracy must be in [0, 1] (got " +
                         std::to_string(options.relative_accuracy) + ")");
    if (!TreeOptions::valid_group_size(options.group_size))
        throw UsageError("tree gravity: group_size must be a power of two in [1, " +
                         std::to_string(TreeOptions::max_group_size) + "] (got " +
                         std::to_string(options.group_size) + ")");
}

TreeGravity::TreeGravity(Context& context, Precision precision, GravityParameters parameters,
                         TreeOptions options, ProgramCache& cache)
    : context_(context), cache_(cache), precision_(precision), parameters_(parameters),
      options_(options), sort_(context, cache), walk_(context, "tree walk"), node_mirror_(context),
      sorted_mirror_(context), perm_mirror_(context), box_mirror_(context),
      reference_mirror_(context), slices_(context.size()), potential_slices_(context.size()) {
    check_options(parameters_, options_);
    const DeviceInfo& info = context.device(0).info();
    if (!options_.list_size)
        options_.list_size = options_.group_size <= max_list_group
                                  ? std::max(default_list, options_.group_size)
                                  : std::size_t(0);
    if (*options_.list_size > max_list_size)
        throw UsageError("tree gravity: list_size must be in [0, " + std::to_string(max_list_size) +
                         "] (got " + std::to_string(*options_.list_size) + ")");
    for (const Device& device : context.devices()) require_precision(device.info(), precision);
    if (const auto& split = options_.short_range) {
        if (!(split->box > 0) || !std::isfinite(split->box) || !(split->split > 0) ||
            !(split->cut > 0) || !(split->cut < 0.5 * split->box))
            throw UsageError("tree gravity: a short-range split needs a finite box > 0, r_s > 0 and "
                             "0 < cut < box / 2 (got box " + std::to_string(split->box) + ", r_s " +
                             std::to_string(split->split) + ", cut " + std::to_string(split->cut) + ")");
    }
    if (list_size() > 0) {
        if (options_.group_size > max_list_group)
            throw UsageError("tree gravity: a listed walk (list_size > 0) takes groups of at most " +
                             std::to_string(max_list_group) + " bodies (got " +
                             std::to_string(options_.group_size) + ")");
        if (*options_.list_size < options_.group_size)
            throw UsageError("tree gravity: list_size (" + std::to_string(*options_.list_size) +
                             ") must be 0 or at least group_size (" +
                             std::to_string(options_.group_size) + "): a round lists up to one node per body");
    }
    root_box_ = RealBuffer(context, precision, 6 * root_partials + 6);  // partials, then the root

    BuildOptions build_options;
    build_options.precision = precision;
    build_options.define("TREE_GROUP", static_cast<long long>(root_group));
    finish_size_ = finish_group;
    while (finish_size_ > info.max_work_group_size) finish_size_ /= 2;
    build_options.define("TREE_FINISH", static_cast<long long>(finish_size_));
    const Program build_program_ =
        build_program(context, Source::builtin("nbody/tree_build.cl"), build_options, cache);
    for (const char* name : {"tree_root_box", "tree_keys", "tree_regroup", "tree_split",
                             "tree_finish", "tree_gather", "tree_leaves", "tree_nodes",
                             "tree_import_nodes", "tree_import_bodies", "tree_export_nodes",
                             "tree_export_bodies", "tree_essential_open", "tree_essential_count",
                             "tree_essential_nodes", "tree_essential_bodies"})
        kernels_.emplace_back(build_program_, name);
    build_walk(list_levels(levels_for(1, options_.leaf_size)));
    // Listed, a work-group is one group.
    if (list_size() > 0)
        for (std::size_t d = 0; d < context.size(); ++d) {
            const std::size_t largest = walks_[context.size() + d].max_work_group_size(context.device(d));
            if (options_.group_size > largest)
                throw Unsupported("tree gravity: a listed walk's work-group is its group, and groups of " +
                                  std::to_string(options_.group_size) + " exceed the largest work-group of " +
                                  context.device(d).info().name + " (" + std::to_string(largest) +
                                  "); use smaller groups or list_size 0");
        }
}

void TreeGravity::build_walk(std::size_t levels) {
    // eps^2 as the device holds it, a normal number: the walk's faster reciprocal square root.
    const double eps2 = parameters_.softening * parameters_.softening;
    const bool softened = precision_ == Precision::float64
                              ? eps2 >= std::numeric_limits<double>::min()
                              : double(float(eps2)) >= double(std::numeric_limits<float>::min());
    if (list_size() > 0) {
        const std::size_t g = options_.group_size;
        const std::size_t bytes = 10 * list_size() * size_of(precision_) +
                                  4 * (list_stack(g, levels) + 3 * g + 2);
        for (const Device& device : context_.devices()) {
            const DeviceInfo& info = device.info();
            if (bytes > info.local_memory)
                throw Unsupported("tree gravity: the listed walk of groups of " + std::to_string(g) +
                                  " over " + std::to_string(levels) + " levels with list_size " +
                                  std::to_string(list_size()) + " needs " + std::to_string(bytes) +
                                  " bytes of local memory; " + info.name + " has " +
                                  std::to_string(info.local_memory) + ": use smaller groups or list_size");
        }
    }
    // Where no device is a GPU the listed walk keeps 8 partial sums, which CPU compilers pack
    // into vectors as they may not a single sum (tree_force.cl's TREE_LANES); a GPU's
    // work-items are its vector lanes already. Not for TreePM's short range: there each lane
    // runs erfc and exp, even a pair beyond the cut, which costs more than the vectors save
    // (docs/performance.md, "The tree on the CPU").
    const auto& devices = context_.devices();
    const bool gpu = std::any_of(devices.begin(), devices.end(),
                                 [](const Device& d) { return d.info().type == DeviceType::gpu; });
    const std::size_t lanes = list_size() > 0 && !gpu && !options_.short_range ? 8 : 0;
    walks_.clear();
    scatters_.clear();
    for (int potential : {0, 1}) {
        BuildOptions o;
        o.precision = precision_;
        o.define("TREE_STACKLESS", options_.traversal == TreeTraversal::stackless ? 1 : 0);
        o.define("TREE_STACK", static_cast<long long>(stack_size));
        o.define("TREE_WALK_GROUP", static_cast<long long>(options_.group_size));
        o.define("TREE_LIST", static_cast<long long>(list_size()));
        o.define("TREE_LANES", static_cast<long long>(lanes));
        o.define("TREE_LIST_STACK", static_cast<long long>(list_stack(options_.group_size, levels)));
        o.define("TREE_POTENTIAL", potential);
        o.define("TREE_SOFTENED", softened ? 1 : 0);
        o.define("TREE_SHORT_RANGE", options_.short_range ? 1 : 0);
        const Program program = build_program(context_, Source::builtin("nbody/tree_force.cl"), o, cache_);
        for (std::size_t d = 0; d < context_.size(); ++d) walks_.emplace_back(program, "tree_gravity");
        scatters_.emplace_back(program, "tree_scatter");
        if (!potential) reference_kernel_.emplace(program, "tree_reference");
    }
    walk_levels_ = levels;
}

std::size_t TreeGravity::list_size() const noexcept {
    return options_.group_size > 1 ? *options_.list_size : 0;
}

std::size_t TreeGravity::granule() const noexcept {
    return list_size() > 0 ? 1 : walk_work_group(options_.group_size) / options_.group_size;
}

std::size_t TreeGravity::walk_local(std::size_t d, const Kernel& walk) const {
    if (list_size() > 0) return options_.group_size;
    return std::min(walk_work_group(options_.group_size), walk.max_work_group_size(context_.device(d)));
}

void TreeGravity::reserve(std::size_t n, std::size_t total) {
    const std::size_t nodes = std::size_t(2) << levels_for(total, options_.leaf_size);
    if (n > capacity_) {
        perm_ = Buffer<std::uint32_t>(context_, n);
        perm_scratch_ = Buffer<std::uint32_t>(context_, n);
        values_ = Buffer<std::uint32_t>(context_, n);
        node_keys_ = Buffer<std::uint32_t>(context_, n);
        keys_buffer_ = RealBuffer(context_, precision_, n);
        sorted_ = RealBuffer(context_, precision_, 4 * n);
        capacity_ = n;
    }
    if (nodes > node_capacity_) {
        node_ = RealBuffer(context_, precision_, node_fields * nodes);
        box_ = RealBuffer(context_, precision_, 7 * nodes);
        node_capacity_ = nodes;
    }
}

void TreeGravity::check_inputs(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) const {
    if (n == 0) throw UsageError("TreeGravity: no bodies (N = 0)");
    for (const RealBuffer* b : {&positions, &mass})
        if (b->precision() != precision_)
            throw UsageError("TreeGravity: a " + std::string(to_string(b->precision())) +
                             " buffer given to a " + to_string(precision_) + " model");
    if (positions.size() < 3 * n || mass.size() < n)
        throw UsageError("TreeGravity: buffers too short for " + std::to_string(n) + " bodies");
    // The kernels index 4n sorted reals with 32-bit integers.
    if (positions.size() > 0xffffffffull || n >= (std::size_t(1) << 30))
        throw UsageError("TreeGravity: at most 2^30 - 1 bodies and 2^32 - 1 elements in a buffer");
}

void TreeGravity::set_size(std::size_t n, std::size_t total) {
    if (n != reference_size_) next_reference_ = used_reference_ = -1;  // |a| of other bodies
    reserve(n, total);
    n_ = n;
    levels_ = levels_for(total, options_.leaf_size);
    window_ = Window{total, 0, n, 0, 0, 1};
    top_built_ = essential_ = false;
}

void TreeGravity::remember(const RealBuffer& acc, std::size_t offset) {
    if (options_.relative_accuracy == 0 || n_ == 0) return;
    if (acc.precision() != precision_ || acc.size() < offset + 3 * n_)
        throw UsageError("TreeGravity::remember: accelerations of another precision or too short for " +
                         std::to_string(n_) + " bodies");
    const int into = used_reference_ == 0 ? 1 : 0;  // keep the one the latest walk read
    if (references_[into].size() < n_) references_[into] = RealBuffer(context_, precision_, n_);
    reference_kernel_->args(std::uint32_t(n_), acc, std::uint32_t(offset), std::uint32_t(n_), references_[into])
        .launch(context_.queue(0), n_);
    next_reference_ = into;
    reference_size_ = n_;
}

void TreeGravity::prepare_walk(const RealBuffer& out, const RealBuffer* potential) {
    // A rank's branches may hold no bodies, and its walk no groups; a tree has some.
    if (window_.total == 0) throw UsageError("TreeGravity: evaluate() before build()");
    if (!window_.whole() && !essential_)
        throw UsageError("TreeGravity: a walk of branches alone (build_branches()): the nodes above them "
                         "and other ranks' nodes are not there (build_top, import_essential)");
    if (out.precision() != precision_ || (potential && potential->precision() != precision_))
        throw UsageError("TreeGravity: an output buffer of another precision than the model's (" +
                         std::string(to_string(precision_)) + ")");
    if (out.size() > 0xffffffffull)
        throw UsageError("TreeGravity: more than 2^32 - 1 elements in one buffer");
    if (list_size() > 0 && levels_ > walk_levels_) build_walk(list_levels(levels_));
    node_mirror_.update(node_, node_fields * (std::size_t(2) << levels_));
    if (essential_) {
        sorted_mirror_.update(essential_sorted_, 4 * window_.total);
        perm_mirror_.update(essential_perm_, window_.total);
    } else {
        sorted_mirror_.update(sorted_, 4 * n_);
        perm_mirror_.update(perm_, n_);
    }
    // The radii are the last of the box arrays.
    if (walk_reads_radii()) box_mirror_.update(box_, 7 * (std::size_t(2) << levels_));
    used_reference_ = options_.relative_accuracy > 0 ? next_reference_ : -1;
    if (used_reference_ >= 0) reference_mirror_.update(references_[used_reference_], n_);
}

bool TreeGravity::walk_reads_radii() const noexcept {
    return options_.short_range || options_.relative_accuracy > 0;
}

void TreeGravity::reserve_slices(Range range, const Partition& partition, bool potential) {
    const auto home = [&](std::size_t d) {
        return context_.shares_memory() ? std::nullopt : std::optional<OnDevice>({d});
    };
    for (std::size_t d = 1; d < context_.size(); ++d) {
        const std::size_t count = tree_begin(range.begin + partition[d].end) -
                                  tree_begin(range.begin + partition[d].begin);
        if (slices_[d].size() < 3 * count)
            slices_[d] = detail::buffer_like(sorted_, context_, 3 * count, home(d));
        if (potential && potential_slices_[d].size() < count)
            potential_slices_[d] = detail::buffer_like(sorted_, context_, count, home(d));
    }
}

std::size_t TreeGravity::tree_begin(std::size_t group) const noexcept {
    return tree_start(group, groups(walk_n()), walk_n());
}

void TreeGravity::run_walk(Range range, const Partition& partition, RealBuffer& out,
                           std::size_t out_offset, std::size_t stride, bool tree_order,
                           RealBuffer* potential) {
    const std::size_t n = walk_n(), g = options_.group_size, groups = this->groups(n);
    const std::size_t kernel_offset = potential ? context_.size() : 0;
    const ShortRangeSplit split = options_.short_range.value_or(ShortRangeSplit{1, 1, 0});
    walk_.run(partition, [&](std::size_t d, Range r) {
        Kernel& k = walks_[kernel_offset + d];
        const bool direct = d == 0;
        const std::size_t begin = range.begin + r.begin, end = range.begin + r.end;
        RealBuffer no_potential;
        RealBuffer* pot = !potential ? &no_potential : direct ? potential : &potential_slices_[d];
        k.args(std::uint32_t(n), std::uint32_t(leaves()), std::uint32_t(groups), std::uint32_t(begin),
               std::uint32_t(end), Real{parameters_.softening * parameters_.softening}, Real{parameters_.G},
               node_mirror_.on(d), sorted_mirror_.on(d), perm_mirror_.on(d),
               direct ? out : slices_[d], std::uint32_t(direct ? out_offset : 0),
               std::uint32_t(direct ? stride : tree_begin(end) - tree_begin(begin)), *pot,
               std::uint32_t(direct && !tree_order ? 0 : 1),
               walk_reads_radii() ? box_mirror_.on(d) : node_mirror_.on(d), Real{split.box},
               Real{0.5 / split.split}, Real{split.cut},
               used_reference_ >= 0 ? reference_mirror_.on(d) : node_mirror_.on(d),
               Real{used_reference_ >= 0 ? options_.relative_accuracy / parameters_.G : 0.0});
        return k.launch(context_.queue(d), r.size() * g, walk_local(d, k));
    });
}

void TreeGravity::evaluate(RealBuffer& out, std::size_t out_offset, RealBuffer* potential) {
    const std::size_t n = n_;
    if (essential_)
        throw UsageError("TreeGravity: a locally essential tree is walked by its rank's groups alone "
                         "(evaluate_in_tree_order over branch_groups())");
    prepare_walk(out, potential);
    if (out.size() < out_offset + 3 * n || (potential && potential->size() < n))
        throw UsageError("TreeGravity: buffers too short for " + std::to_string(n) + " bodies");
    const std::size_t groups = this->groups(n);
    const Partition partition = walk_.split(groups, granule());
    reserve_slices({0, groups}, partition, potential != nullptr);
    // Device 0 writes straight into the outputs, through perm; the others into their slices.
    run_walk({0, groups}, partition, out, out_offset, n, false, potential);
    for (std::size_t d = 1; d < context_.size(); ++d)
        if (!partition[d].empty()) scatter(d, partition[d], out, out_offset, potential);
    context_.queue(0).finish();  // evaluate() returns with the forces done (benchmarks time it)
    interactions_ += double(n) * double(n);
}

void TreeGravity::evaluate_in_tree_order(Range range, RealBuffer& out, RealBuffer* potential) {
    prepare_walk(out, potential);
    const std::size_t n = walk_n(), groups = this->groups(n);
    const Range held = branch_groups();
    if (range.begin < held.begin || range.end > held.end || range.begin > range.end)
        throw UsageError("TreeGravity: groups [" + std::to_string(range.begin) + ", " +
                         std::to_string(range.end) + ") of a walk of " + std::to_string(groups) +
                         (essential_ ? " whose rank holds groups [" + std::to_string(held.begin) + ", " +
                                           std::to_string(held.end) + ")"
                                     : std::string()));
    const std::size_t first = tree_begin(range.begin), count = tree_begin(range.end) - first;
    if (out.size() < 3 * count || (potential && potential->size() < count))
        throw UsageError("TreeGravity: buffers too short for the " + std::to_string(count) +
                         " bodies of groups [" + std::to_string(range.begin) + ", " +
                         std::to_string(range.end) + ")");
    if (count == 0) return;
    const Partition partition = walk_.split(range.size(), granule());
    reserve_slices(range, partition, potential != nullptr);
    // Device 0's part begins the range: it writes into the outputs at their start (stride
    // `count`), the others into their slices, copied after it.
    run_walk(range, partition, out, 0, count, true, potential);
    Queue& queue = context_.queue(0);
    for (std::size_t d = 1; d < context_.size(); ++d) {
        const Range r = partition[d];
        const std::size_t at = tree_begin(range.begin + r.begin) - first,
                          part = tree_begin(range.begin + r.end) - tree_begin(range.begin + r.begin);
        if (part == 0) continue;
        context_.queue(d).finish();  // device d's slice is complete before device 0 reads it
        for (std::size_t c = 0; c < 3; ++c) slices_[d].copy_to(queue, out, part, c * part, c * count + at);
        if (potential) potential_slices_[d].copy_to(queue, *potential, part, 0, at);
    }
    queue.finish();
    interactions_ += double(count) * double(n);
}

void TreeGravity::scatter(std::size_t d, Range r, RealBuffer& out, std::size_t out_offset,
                          RealBuffer* potential) {
    const std::size_t n = n_, first = tree_begin(r.begin), count = tree_begin(r.end) - first;
    if (count == 0) return;
    Queue& queue = context_.queue(0);
    wait_for(queue, mark(context_.queue(d)));  // device d's slice is complete before it is read
    const RealBuffer* values = &slices_[d];
    const RealBuffer* potentials = potential ? &potential_slices_[d] : nullptr;
    if (!context_.shares_memory()) {
        // Device 0 reads its own memory: the slice is copied there first, as a kernel reading
        // another GPU's buffer makes NVIDIA's OpenCL move the whole buffer, slowly.
        auto receive = [&](const RealBuffer& slice, RealBuffer& into, std::size_t size) {
            if (into.size() < size) into = detail::buffer_like(sorted_, context_, size);
            slice.copy_to(queue, into, size);
            return &into;
        };
        values = receive(slices_[d], received_, 3 * count);
        if (potential) potentials = receive(potential_slices_[d], potential_received_, count);
    }
    Kernel& k = scatters_[potential ? 1 : 0];
    k.args(std::uint32_t(count), std::uint32_t(first), perm_, *values,
           potentials ? *potentials : RealBuffer(), out, std::uint32_t(out_offset),
           std::uint32_t(n), potential ? *potential : RealBuffer());
    k.launch(queue, count);
}

void TreeGravity::put_in_place(const Buffer<std::uint32_t>& bodies, const RealBuffer& values,
                               const RealBuffer* potentials, std::size_t count, RealBuffer& out,
                               std::size_t out_offset, std::size_t stride, RealBuffer* potential) {
    if (count == 0) return;
    if (bodies.size() < count || values.size() < 3 * count || (potential && (!potentials || potentials->size() < count)) ||
        out.size() < out_offset + 2 * stride + count || stride < count)
        throw UsageError("TreeGravity::put_in_place: buffers too short for " + std::to_string(count) + " results");
    if (values.precision() != precision_ || out.precision() != precision_)
        throw UsageError("TreeGravity::put_in_place: buffers of another precision than the model's");
    Kernel& k = scatters_[potential ? 1 : 0];
    k.args(std::uint32_t(count), std::uint32_t(0), bodies, values, potential ? *potentials : RealBuffer(), out,
           std::uint32_t(out_offset), std::uint32_t(stride), potential ? *potential : RealBuffer());
    k.launch(context_.queue(0), count);
}

void TreeGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                std::size_t n, RealBuffer& out, std::size_t out_offset,
                                RealBuffer* potential) {
    if (n == 0) return;
    update(positions, mass, n);
    evaluate(out, out_offset, potential);
    remember(out, out_offset);
}

void TreeGravity::update(const RealBuffer& positions, const RealBuffer& mass, std::size_t n) {
    if (n != n_ || rebuild_next_ || age_ + 1 >= options_.rebuild_every) {
        build(positions, mass, n);
    } else {
        refit(positions, mass, n);
        if (measures_growth() && leaf_radii() > (1 + options_.rebuild_growth) * leaf_radii_)
            build(positions, mass, n);
    }
}

} // namespace partcl
