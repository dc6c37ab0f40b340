#pragma once
// VectorOps: the whole-vector operations explicit integrators are made of, run on device 0 of a
// context: linear combinations (cl/integrate/combine.cl, one launch for up to 8 terms) and the
// scaled error norm of adaptive methods (a kernel, then a Boost.Compute max reduction).
#include <initializer_list>
#include <map>
#include <memory>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class VectorOps {
public:
    VectorOps(Context& context, Precision precision, ProgramCache& cache = ProgramCache::global());

    struct Term {
        double c;
        const RealBuffer* vector;
        std::size_t at = 0;  // element offset into `vector`
    };

    Context& context() noexcept { return context_; }
    Precision precision() const noexcept { return precision_; }

    // out[out_at, out_at + n) = base[base_at, base_at + n) + sum_k c_k vector_k[at_k, at_k + n)
    void combine(std::size_t n, RealBuffer& out, std::size_t out_at, const RealBuffer& base,
                 std::size_t base_at, std::initializer_list<Term> terms);
    void copy(std::size_t n, const RealBuffer& from, std::size_t from_at, RealBuffer& to,
              std::size_t to_at);

    // max_i |err_i| / (atol + rtol * max(|y_i|, |y_new_i|)) over [0, n).
    double max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                            const RealBuffer& y_new, double atol, double rtol);

private:
    Program program(std::size_t terms);  // cl/integrate/combine.cl with COMBINE_TERMS = terms
    Kernel& combine_kernel(std::size_t terms);

    Context& context_;
    Precision precision_;
    ProgramCache& cache_;
    std::map<std::size_t, Kernel> combine_;
    std::unique_ptr<Kernel> scaled_error_;
    RealBuffer scratch_;
};

} // namespace partcl
