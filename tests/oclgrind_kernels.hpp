#pragma once
// Runs of tests/test_oclgrind.cpp's kernel table that live in their own files: each runs one
// kernel file of cl/ at small N in `precision` on the test device and checks it against the
// host (oclgrind_nbody.cpp, oclgrind_shared.cpp).
#include <partcl/backend/precision.hpp>

namespace partcl_test {

void run_dense_kernel(partcl::Precision precision);
void run_tree_build_kernel(partcl::Precision precision);
void run_tree_force_kernel(partcl::Precision precision);
void run_combine_kernel(partcl::Precision precision);
void run_cell_list_kernel(partcl::Precision precision);

} // namespace partcl_test
