#pragma once
// The CPU reference of TreeGravity: the same Barnes-Hut algorithm in T, threaded with OpenMP.
// The same heap kd-tree (cl/nbody/tree.h: each node's range cut at its median body along the
// widest side of its cell, so the same ranges for any n), the same nodes (centre of mass,
// second moments, tight box, radius and crit2 as tree_build.cl computes them), and the same
// group walk (groups of at most group_size neighbouring bodies, one path per group, a node
// taken whole where the group's box is beyond its opening distance; leaves' bodies one by
// one, pairs at zero separation skipped). Where TreeGravity's walk adds each source as it
// meets it, this one lists a group's sources first and then sums each body over the lists in
// vectorised loops, the way tuned CPU tree codes do. The build's medians come from
// std::nth_element, where the device sorts stably, so bodies at equal coordinates may land in
// other leaves; otherwise the tree is TreeGravity's, and so is the force, to rounding.
// The OpenMP baseline of benchmarks/tree.cpp (built with -O3 -ffast-math, by default
// -march=native).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <partcl/models/nbody/gravity_options.hpp>
#include <partcl/models/nbody/gravity_parameters.hpp>

namespace partcl::reference {

template <class T>
class BarnesHut {
public:
    // theta, leaf_size and group_size from `options`, in TreeGravity's ranges (UsageError
    // otherwise); its relative criterion and short-range split are not the reference's
    // (UsageError where set).
    BarnesHut(GravityParameters parameters, const TreeOptions& options);

    // The tree of bodies [0, n) at (x, y, z) of masses m. UsageError for a position that is
    // not finite or n of 2^32 or more; n = 0 is an empty tree.
    void build(std::size_t n, const T* x, const T* y, const T* z, const T* m);
    // Each body's acceleration (and potential where `pot`) from the latest tree, at the body's
    // index.
    void evaluate(T* ax, T* ay, T* az, T* pot = nullptr);

    std::size_t size() const noexcept { return bodies_.size(); }
    std::size_t levels() const noexcept { return levels_; }  // of the latest tree
    // Of the latest evaluate(), summed over the bodies: nodes taken whole, bodies met one by
    // one (the work a walk of this tree does, whoever runs it).
    std::uint64_t node_interactions() const noexcept { return node_interactions_; }
    std::uint64_t body_interactions() const noexcept { return body_interactions_; }

private:
    struct Body {
        T x, y, z, m;
        std::uint32_t index;
    };
    void split_level(std::size_t level);
    void fit_leaves();
    void fit_level(std::size_t level);
    template <bool Potential>
    void walk(T* ax, T* ay, T* az, T* pot);

    T eps2_, G_, theta_;
    std::size_t leaf_size_, group_size_;
    std::size_t levels_ = 0;
    std::vector<Body> bodies_;  // in tree order
    // cx | cy | cz | m | crit2 | sxx | syy | szz | sxy | sxz | syz, then lox | loy | loz | hix |
    // hiy | hiz | radius (tight boxes), 2^(levels + 1) each, as TreeSnapshot lays them out.
    std::vector<T> node_;
    std::vector<T> cell_;  // the build's cell boxes, lo | hi (6 per node)
    std::uint64_t node_interactions_ = 0, body_interactions_ = 0;
};

extern template class BarnesHut<float>;
extern template class BarnesHut<double>;

} // namespace partcl::reference
