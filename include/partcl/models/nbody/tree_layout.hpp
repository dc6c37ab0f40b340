#pragma once
// The layout of TreeGravity's heap kd-tree on the host, as cl/nbody/tree.h has it on the
// device: node p of the `count` nodes of a level owns the tree positions
// [tree_start(p, count, n), tree_start(p + 1, count, n)) of the n bodies, so a level's ranges
// tile [0, n) for any n and a node's children split its range at its middle.
#include <cstddef>
#include <cstdint>

namespace partcl {

// 64-bit: p * n reaches 2^61 for trees of up to 2^30 bodies.
constexpr std::size_t tree_start(std::size_t p, std::size_t count, std::size_t n) noexcept {
    return std::size_t(std::uint64_t(p) * std::uint64_t(n) / std::uint64_t(count));
}

} // namespace partcl
