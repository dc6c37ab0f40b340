#include <partcl/integrate/vector_ops.hpp>

#include <partcl/algorithm/reduce.hpp>

namespace partcl {

namespace {
constexpr std::size_t local_size = 64;
} // namespace

VectorOps::VectorOps(Context& context, Precision precision, ProgramCache& cache)
    : context_(context), precision_(precision), cache_(cache) {
    require_precision(context.device(0).info(), precision);
}

Program VectorOps::program(std::size_t terms) {
    BuildOptions options;
    options.precision = precision_;
    options.define("COMBINE_TERMS", static_cast<long long>(terms));
    return build_program(context_, Source::builtin("integrate/combine.cl"), options, cache_);
}

Kernel& VectorOps::combine_kernel(std::size_t terms) {
    auto it = combine_.find(terms);
    if (it != combine_.end()) return it->second;
    return combine_.emplace(terms, Kernel(program(terms), "combine")).first->second;
}

void VectorOps::combine(std::size_t n, RealBuffer& out, std::size_t out_at, const RealBuffer& base,
                        std::size_t base_at, std::initializer_list<Term> terms) {
    if (terms.size() == 0 || terms.size() > 8)
        throw UsageError("VectorOps::combine takes 1 to 8 terms");
    if (n == 0) return;
    if (out.size() < out_at + n || base.size() < base_at + n)
        throw UsageError("VectorOps::combine: output or base shorter than the range");
    Kernel& k = combine_kernel(terms.size());
    k.args(std::uint32_t(n), out, std::uint32_t(out_at), base, std::uint32_t(base_at));
    std::uint32_t index = 5;
    for (const Term& term : terms) {
        if (term.vector->size() < term.at + n)
            throw UsageError("VectorOps::combine: a term is shorter than the range");
        k.arg(index++, Real{term.c});
        k.arg(index++, *term.vector);
        k.arg(index++, std::uint32_t(term.at));
    }
    k.launch(context_.queue(0), n, local_size);
}

void VectorOps::copy(std::size_t n, const RealBuffer& from, std::size_t from_at, RealBuffer& to,
                     std::size_t to_at) {
    from.copy_to(context_.queue(0), to, n, from_at, to_at);
}

double VectorOps::max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                                   const RealBuffer& y_new, double atol, double rtol) {
    if (n == 0) return 0.0;
    // The one-term combine program holds this kernel too (the program cache returns it).
    if (!scaled_error_) scaled_error_ = std::make_unique<Kernel>(program(1), "scaled_error");
    if (scratch_.size() < n) scratch_ = RealBuffer(context_, precision_, n);
    scaled_error_->args(std::uint32_t(n), err, y, y_new, Real{atol}, Real{rtol}, scratch_);
    scaled_error_->launch(context_.queue(0), n, local_size);
    return reduce_max(context_.queue(0), scratch_, n);
}

} // namespace partcl
