#include <partcl/integrate/vector_ops.hpp>

#include <partcl/algorithm/reduce.hpp>

#include <algorithm>
#include <utility>
#include <string>

namespace partcl {

namespace {
// The work-group of every kernel here, and so the granule of every split: devices' ranges
// begin on whole groups.
constexpr std::size_t local_size = 64;
// Operations device 0 finishes alone within this are not split: ordering the queues costs
// 6-10 us a marker on PoCL, so halving a shorter operation saves nothing (docs/performance.md,
// "Every family on every device").
constexpr double min_split_seconds = 1e-4;

bool same_memory(const RealBuffer& a, const RealBuffer& b) {
    return a.memory().impl() != nullptr && a.memory().impl() == b.memory().impl();
}

void check_range(const RealBuffer& buffer, std::size_t at, std::size_t n, const char* what) {
    if (at > buffer.size() || n > buffer.size() - at)
        throw UsageError(std::string("VectorOps: ") + what + " of " +
                         std::to_string(buffer.size()) + " elements is shorter than the range [" +
                         std::to_string(at) + ", " + std::to_string(at + n) + ")");
}
} // namespace

VectorOps::VectorOps(Context& context, Precision precision, ProgramCache& cache)
    : VectorOps(context, precision, dist::Communicator::self(), cache) {}

VectorOps::VectorOps(Context& context, Precision precision, const dist::Communicator& ranks,
                     ProgramCache& cache)
    : context_(context), precision_(precision), ranks_(&ranks), cache_(cache),
      combine_launch_(context, "vector combine"), copy_launch_(context, "vector copy"),
      error_launch_(context, "error norm"), output_(context, 1) {
    for (const Device& device : context.devices()) require_precision(device.info(), precision);
    set_min_split_seconds(min_split_seconds);
}

void VectorOps::set_min_split_seconds(double seconds) {
    for (MultiDeviceLaunch* launch : {&combine_launch_, &copy_launch_, &error_launch_})
        launch->set_min_split_seconds(seconds);
}

// The vectors are buffers of the context, in device 0's memory where the devices have memories
// of their own (two GPUs), where a split would make every other device read and write them
// across the link: there every operation runs on device 0.
Partition VectorOps::cut(const MultiDeviceLaunch& launch, std::size_t n) const {
    if (!context_.shares_memory()) return Partition::on_one_device(n, context_.size());
    return launch.split(n, local_size);
}

Program VectorOps::program(std::size_t terms) {
    BuildOptions options;
    options.precision = precision_;
    options.define("COMBINE_TERMS", static_cast<long long>(terms));
    return build_program(context_, Source::builtin("integrate/combine.cl"), options, cache_);
}

std::vector<Kernel>& VectorOps::combine_kernels(std::size_t terms) {
    auto it = combine_.find(terms);
    if (it != combine_.end()) return it->second;
    const Program built = program(terms);
    std::vector<Kernel> kernels;  // one per device: a Kernel holds its arguments
    for (std::size_t d = 0; d < context_.size(); ++d) kernels.emplace_back(built, "combine");
    return combine_.emplace(terms, std::move(kernels)).first->second;
}

void VectorOps::set_weights(const std::vector<double>& weights) {
    if (weights.size() != context_.size())
        throw UsageError("VectorOps::set_weights: " + std::to_string(weights.size()) +
                         " weights for a context of " + std::to_string(context_.size()) +
                         " devices");
    for (MultiDeviceLaunch* launch : {&combine_launch_, &copy_launch_, &error_launch_})
        launch->scheduler() = Scheduler(weights);
}

// Aliasing: `out` may be the base or a term at the same elements. No device reads an element
// another device writes: each device reads only the elements of its own range. In place (every
// device writes its region of `out`), an input that is `out` is read through the same region, as
// OpenCL leaves using a buffer while a sub-buffer of it is written undefined; an input elsewhere
// in `out`'s memory makes the output go through slices instead, device 0 writing `out` in place
// and the others' slices copied into place by gather() on device 0's queue, which run() has
// ordered after every device's kernel.
void VectorOps::combine(std::size_t n, RealBuffer& out, std::size_t out_at, const RealBuffer& base,
                        std::size_t base_at, std::initializer_list<Term> terms) {
    if (terms.size() == 0 || terms.size() > 8)
        throw UsageError("VectorOps::combine takes 1 to 8 terms");
    if (n == 0) return;
    check_range(out, out_at, n, "the output");
    check_range(base, base_at, n, "the base");
    for (const Term& term : terms) check_range(*term.vector, term.at, n, "a term");
    std::vector<Kernel>& kernels = combine_kernels(terms.size());
    bool in_place = !same_memory(base, out) || base_at == out_at;
    for (const Term& term : terms)
        in_place = in_place && (!same_memory(*term.vector, out) || term.at == out_at);
    const Partition partition = cut(combine_launch_, n);
    output_.assign(partition, out, {out_at, n}, in_place);
    combine_launch_.run(partition, [&](std::size_t d, Range r) {
        // The kernel combines r.size() elements from the offsets given: each input's from its
        // range's start, the output at its part's.
        const OutputPart<RealBuffer> part = output_.part(d);
        auto input = [&](const RealBuffer& in, std::size_t at) {
            return output_.in_place() && same_memory(in, out)
                       ? std::pair<const RealBuffer*, std::uint32_t>{&part.buffer, 0}
                       : std::pair<const RealBuffer*, std::uint32_t>{&in, std::uint32_t(at + r.begin)};
        };
        Kernel& k = kernels[d];
        const auto [from, from_at] = input(base, base_at);
        k.args(std::uint32_t(r.size()), part.buffer, std::uint32_t(part.offset), *from, from_at);
        std::uint32_t index = 5;
        for (const Term& term : terms) {
            const auto [vector, at] = input(*term.vector, term.at);
            k.arg(index++, Real{term.c});
            k.arg(index++, *vector);
            k.arg(index++, at);
        }
        return k.launch(context_.queue(d), r.size(), local_size);
    });
    output_.gather();
}

void VectorOps::copy(std::size_t n, const RealBuffer& from, std::size_t from_at, RealBuffer& to,
                     std::size_t to_at) {
    if (n == 0) return;
    check_range(from, from_at, n, "the source");
    check_range(to, to_at, n, "the destination");
    const Partition partition = cut(copy_launch_, n);
    output_.assign(partition, to, {to_at, n}, !same_memory(from, to));
    copy_launch_.run(partition, [&](std::size_t d, Range r) {
        const OutputPart<RealBuffer> part = output_.part(d);
        return from.copy_to(context_.queue(d), part.buffer, r.size(), from_at + r.begin,
                            part.offset);
    });
    output_.gather();
}

double VectorOps::max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                                   const RealBuffer& y_new, double atol, double rtol) {
    return ranks_->max(n == 0 ? 0.0 : local_max_scaled_error(n, err, y, y_new, atol, rtol));
}

double VectorOps::local_max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                                         const RealBuffer& y_new, double atol, double rtol) {
    check_range(err, 0, n, "the error");
    check_range(y, 0, n, "y");
    check_range(y_new, 0, n, "y_new");
    if (scaled_error_.empty()) {
        // The one-term combine program holds this kernel too (the program cache returns it).
        const Program built = program(1);
        for (std::size_t d = 0; d < context_.size(); ++d)
            scaled_error_.emplace_back(built, "scaled_error");
    }
    const Partition partition = cut(error_launch_, n);
    if (scratch_.size() < n) scratch_ = RealBuffer(context_, precision_, n);
    // Every device's scaled errors into its range of one array (each part begins at element 0
    // of where it is written, in place or not), and one max over all of it on device 0's queue:
    // a max picks one of the values, so it is one device's answer, bit for bit.
    output_.assign(partition, scratch_, {0, n}, true);
    error_launch_.run(partition, [&](std::size_t d, Range r) {
        const OutputPart<RealBuffer> part = output_.part(d);
        return scaled_error_[d]
            .args(std::uint32_t(r.size()), std::uint32_t(r.begin), err, y, y_new, Real{atol},
                  Real{rtol}, part.buffer)
            .launch(context_.queue(d), r.size(), local_size);
    });
    output_.gather();
    return reduce_max(context_.queue(0), scratch_, n);
}

} // namespace partcl
