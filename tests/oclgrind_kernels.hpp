#pragma once
// Runs of tests/test_oclgrind.cpp's kernel table that live in their own files: each runs one
// kernel file of cl/ at small N in `precision` on the test device and checks it against the
// host (oclgrind_dense.cpp, oclgrind_nbody.cpp, oclgrind_shared.cpp, oclgrind_routing.cpp, oclgrind_tree_top.cpp,
// oclgrind_essential.cpp).
#include <cstdint>
#include <deque>
#include <utility>

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

// Oclgrind 21.10 hands a new buffer the slot of a released one and keeps tracking
// initialisation over the old buffer's length: a kernel's writes past that length stay
// "uninitialized" and reads of them are reported (seen here: a 37-element buffer released, a
// 400-element one created, element 300 written by one kernel and read by the next). Each tree
// run alone is clean; after other runs released their buffers, the tree's were reported. So
// the runners first take the released slots with one-element buffers, and nothing they
// create is released before the process ends (`kept`). Nor at its end: released from a static
// destructor, after Oclgrind's runtime has begun to tear down, they corrupted its heap (seen as
// "corrupted double-linked list" at exit once one more program had been built), so the deque is
// never destroyed.
template <class T>
std::deque<T>& kept() {
    static std::deque<T>* objects = new std::deque<T>;
    return *objects;
}

// An object made in kept()'s deque, which lives as long as the process.
template <class B, class... Args>
B& keep(Args&&... args) {
    return kept<B>().emplace_back(std::forward<Args>(args)...);
}

inline void take_recycled_slots(partcl::Context& context) {
    for (int i = 0; i < 4096; ++i) kept<partcl::Buffer<std::uint32_t>>().emplace_back(context, 1);
}


// OrderedSum over `partition` of the context's devices, parts of `size` random values of mixed
// magnitude, against the same sums on the host in device order, in the precision's arithmetic.
void check_ordered_sum(partcl::Context& context, partcl::Precision precision,
                       const partcl::Partition& partition, std::size_t size, std::uint32_t seed);

} // namespace partcl_test
