#pragma once
// What TreeGravity's two files share (private to the library): tree_gravity.cpp makes the
// build's kernels, tree_build.cpp runs them.
#include <cstddef>

namespace partcl::detail {

// The build's kernels in TreeGravity::kernels_.
enum TreeBuildKernel : std::size_t {
    k_root_box, k_keys, k_regroup, k_split, k_finish, k_gather, k_leaves, k_nodes, k_import_nodes,
    k_import_bodies, k_export_nodes, k_export_bodies, k_essential_open, k_essential_count, k_essential_nodes,
    k_essential_bodies
};

// Work-group size of tree_root_box, and most work-groups of its first pass (each bounds a
// share of the bodies; the second pass, one group, bounds their boxes).
constexpr std::size_t root_group = 64;
constexpr std::size_t root_partials = 1024;

} // namespace partcl::detail
