#include <partcl/backend/error.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/source.hpp>
#include <partcl/runtime/marker.hpp>
#include <partcl/sched/ordered_sum.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace partcl {

namespace {
Program build_sum(const Context& context, Precision precision, ProgramCache& cache) {
    BuildOptions options;
    options.precision = precision;
    return build_program(context, Source::builtin("sched/ordered_sum.cl"), options, cache);
}
} // namespace

OrderedSum::OrderedSum(Context& context, Precision precision, ProgramCache& cache)
    : context_(&context), precision_(precision), parts_(context.size()),
      add_(build_sum(context, precision, cache), "ordered_sum_add") {}

void OrderedSum::resize(std::size_t size) {
    if (size > 0xffffffffull)
        throw UsageError("OrderedSum: more than 2^32 - 1 elements in a part");
    // Each device writes its part in its own memory where memories are separate; device 0
    // reads the others' once, in the sum.
    for (std::size_t d = 0; d < parts_.size(); ++d)
        if (parts_[d].size() < size)
            parts_[d] = context_->shares_memory()
                            ? RealBuffer(*context_, precision_, size)
                            : RealBuffer(*context_, precision_, size, OnDevice{d});
    size_ = size;
}

RealBuffer& OrderedSum::part(std::size_t d) {
    if (d >= parts_.size())
        throw UsageError("OrderedSum: device " + std::to_string(d) + " of a context of " +
                         std::to_string(parts_.size()) + " devices");
    return parts_[d];
}

void OrderedSum::sum_into(RealBuffer& destination, const Partition& partition, std::size_t offset) {
    if (partition.parts() != parts_.size())
        throw UsageError("OrderedSum: a partition of " + std::to_string(partition.parts()) +
                         " parts for a context of " + std::to_string(parts_.size()) + " devices");
    if (destination.precision() != precision_)
        throw UsageError("OrderedSum: a " + std::string(to_string(destination.precision())) +
                         " destination for " + to_string(precision_) + " parts");
    if (offset > destination.size() || size_ > destination.size() - offset)
        throw UsageError("OrderedSum: " + std::to_string(size_) + " elements from element " +
                         std::to_string(offset) + " do not fit a destination of " +
                         std::to_string(destination.size()));
    if (size_ == 0) return;
    Queue& queue = context_->queue(0);
    bool first = true;
    for (std::size_t d = 0; d < parts_.size(); ++d) {
        if (partition[d].empty()) continue;
        if (d != 0) wait_for(queue, mark(context_->queue(d)));
        add_.args(std::uint32_t(size_), destination, std::uint32_t(offset), parts_[d],
                  std::uint32_t(first))
            .launch(queue, size_);
        first = false;
    }
    if (first) {  // no device had a part: the empty sum
        parts_[0].fill(queue, 0.0);
        add_.args(std::uint32_t(size_), destination, std::uint32_t(offset), parts_[0],
                  std::uint32_t(1))
            .launch(queue, size_);
    }
}

} // namespace partcl
