#pragma once
// VectorOps: the whole-vector operations explicit integrators are made of, spread over every
// device of a context: linear combinations (cl/integrate/combine.cl, one launch for up to 8
// terms), copies, and the scaled error norm of adaptive methods (a kernel, then a max
// reduction).
//
// Each operation cuts its range of elements between the devices by its MultiDeviceLaunch's
// weights, in whole work-groups, where the devices share memory and the operation is long
// enough to gain from it (100 us of device 0's time); otherwise device 0 runs it. Device 0 writes its range of the output in place; every other
// device writes its range into a slice of its own, copied into place on device 0's queue once
// every device's kernel is done (PartitionedOutput; the queues wait for each other's markers,
// the host for nothing), so no device writes a buffer another one reads. Every element is
// computed by the same code whichever device runs it, and the error norm is a max, which is
// exact in any order: the results are those of one device, bit for bit, for any split.
#include <initializer_list>
#include <map>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/runtime/real_buffer.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/partitioned_output.hpp>

namespace partcl {

class VectorOps {
public:
    VectorOps(Context& context, Precision precision, ProgramCache& cache = ProgramCache::global());
    // Vectors whose elements are spread over the ranks of `ranks`, each rank holding a block:
    // max_scaled_error is then the max over every rank's block (a collective every rank calls
    // alike, with its own n, 0 included), so adaptive steps and iterations agree on all ranks
    // and equal one rank's. The communicator must outlive this object.
    VectorOps(Context& context, Precision precision, const dist::Communicator& ranks,
              ProgramCache& cache = ProgramCache::global());

    struct Term {
        double c;
        const RealBuffer* vector;
        std::size_t at = 0;  // element offset into `vector`
    };

    Context& context() noexcept { return context_; }
    const Context& context() const noexcept { return context_; }
    Precision precision() const noexcept { return precision_; }

    // out[out_at, out_at + n) = base[base_at, base_at + n) + sum_k c_k vector_k[at_k, at_k + n).
    // The output may be the base or a term at the same elements (y = y + h k), or apart from
    // them; ranges that overlap at other offsets are not allowed (as on one device, where the
    // work-items would race).
    void combine(std::size_t n, RealBuffer& out, std::size_t out_at, const RealBuffer& base,
                 std::size_t base_at, std::initializer_list<Term> terms);
    // to[to_at, to_at + n) = from[from_at, from_at + n); the ranges must not overlap.
    void copy(std::size_t n, const RealBuffer& from, std::size_t from_at, RealBuffer& to,
              std::size_t to_at);

    // max_i |err_i| / (atol + rtol * max(|y_i|, |y_new_i|)) over [0, n) (of every rank's
    // block, see the constructor).
    double max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                            const RealBuffer& y_new, double atol, double rtol);

    // Every operation's split starts again from `weights`, one per device of the context
    // (UsageError otherwise), and is re-weighted from the devices' kernel times from there.
    void set_weights(const std::vector<double>& weights);
    // Operations device 0 would finish alone within `seconds` run there (default 100 us; 0:
    // every operation is split where memory is shared). MultiDeviceLaunch::set_min_split_seconds.
    void set_min_split_seconds(double seconds);
    // The launches, for the report of the split: "vector combine", "vector copy", "error norm".
    LaunchList launches() const { return {&combine_launch_, &copy_launch_, &error_launch_}; }

private:
    double local_max_scaled_error(std::size_t n, const RealBuffer& err, const RealBuffer& y,
                                  const RealBuffer& y_new, double atol, double rtol);
    Program program(std::size_t terms);  // cl/integrate/combine.cl with COMBINE_TERMS = terms
    Partition cut(const MultiDeviceLaunch& launch, std::size_t n) const;
    std::vector<Kernel>& combine_kernels(std::size_t terms);  // [d]: device d's

    Context& context_;
    Precision precision_;
    const dist::Communicator* ranks_;
    ProgramCache& cache_;
    MultiDeviceLaunch combine_launch_, copy_launch_, error_launch_;
    PartitionedOutput<RealBuffer> output_;
    std::map<std::size_t, std::vector<Kernel>> combine_;
    std::vector<Kernel> scaled_error_;
    RealBuffer scratch_;  // the scaled errors of max_scaled_error
};

} // namespace partcl
