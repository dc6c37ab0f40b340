#pragma once
// Runs of tests/test_oclgrind.cpp's kernel table that live in their own files: each runs one
// kernel file of cl/ at small N in `precision` on the test device and checks it against the
// host (oclgrind_dense.cpp, oclgrind_nbody.cpp, oclgrind_shared.cpp, oclgrind_routing.cpp, oclgrind_tree_top.cpp,
// oclgrind_essential.cpp).
#include <cstdint>

#include <partcl/backend/precision.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl_test {

void run_dense_kernel(partcl::Precision precision);
void run_particle_mesh_kernel(partcl::Precision precision);
void run_tree_build_kernel(partcl::Precision precision);
void run_tree_essential_kernels(partcl::Precision precision);  // run by run_tree_build_kernel
void run_tree_force_kernel(partcl::Precision precision);
void run_combine_kernel(partcl::Precision precision);
void run_cell_list_kernel(partcl::Precision precision);
void run_ordered_sum_kernel(partcl::Precision precision);
void run_radix_sort_kernel(partcl::Precision precision);
void run_result_routing_kernel(partcl::Precision precision);
void run_slab_selection_kernel(partcl::Precision precision);
void run_tree_top_kernel(partcl::Precision precision);

// OrderedSum over `partition` of the context's devices, parts of `size` random values of mixed
// magnitude, against the same sums on the host in device order, in the precision's arithmetic.
void check_ordered_sum(partcl::Context& context, partcl::Precision precision,
                       const partcl::Partition& partition, std::size_t size, std::uint32_t seed);

} // namespace partcl_test
