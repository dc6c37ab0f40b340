#pragma once
// TreePmGravity: Newtonian gravity in a periodic cube, split as Gadget-2's TreePM splits it. A
// pair's potential -G m / r becomes -G m erfc(r / 2 r_s) / r (short range: the tree,
// TreeGravity with a ShortRangeSplit, nearest images, pairs beyond `cut` left out) plus
// -G m erf(r / 2 r_s) / r (long range: ParticleMesh, whose Gaussian exp(-k^2 r_s^2) is that
// potential's transform), every image of every body included and a uniform background of the
// opposite mean density (the k = 0 mode left out): the periodic sum of Ewald
// (reference::ewald_gravity). The short range walks on every device of the context, the mesh
// runs on device 0.
//
// r_s = 1.25 mesh cells by default, as in Gadget-2; the walk is cut at 5 r_s, not Gadget-2's
// 4.5: the part of a pair's force cut off there is 0.58% of it, against 1.8% at 4.5 r_s, which
// left the median error of random bodies at 1e-3 (docs/cosmology.md has the measurements). The
// mesh assigns by triangular-shaped clouds and is interlaced (particle_mesh.hpp). Softening
// (GravityParameters::softening, Plummer) softens the short range only: the long range is
// smooth where it would matter.
#include <cstddef>

#include <partcl/models/nbody/gravity.hpp>
#include <partcl/models/nbody/gravity_options.hpp>
#include <partcl/models/nbody/particle_mesh.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>

namespace partcl {

struct TreePmOptions {
    double box = 1;                    // edge of the periodic cube
    std::size_t mesh = 64;             // mesh nodes per axis (at least 8)
    double split_cells = 1.25;         // r_s in mesh cells
    double cut_splits = 5.0;           // the short range's cut in r_s
    // The short-range walk's (short_range is set from the above). Theta 0.4, not the plain
    // tree's 0.5: the pull on a body of a nearly uniform box is the small difference of large
    // ones, and at 0.5 the walk alone missed random bodies' by 1.2e-2 at the 99th percentile
    // with one body per 8 cells (docs/cosmology.md), against the 1e-2 TreePM is held to.
    // Refitted between builds, built anew where the leaves grew by 2% (or every 16th
    // evaluation): a refit costs a tenth of a build, and the rule rebuilds each step once
    // bodies cluster, where a loose tree's walk would cost more than the build saved. The
    // relative criterion takes whole the nodes that halos' strong pulls can afford, where theta
    // 0.4 would open them for the sake of uniform regions' weak ones; at 0.015 a 256^3 run's
    // step meets its 0.1 s on the H200 with the walk's error at z = 0 a fifth of the bounds
    // TreePM is held to (docs/cosmology.md).
    TreeOptions tree = [] {
        TreeOptions t;
        t.theta = 0.4;
        t.rebuild_every = 16;
        t.rebuild_growth = 0.02;
        t.relative_accuracy = 0.015;
        return t;
    }();

    double split() const noexcept { return split_cells * box / double(mesh); }
    double cut() const noexcept { return cut_splits * split(); }
};

class TreePmGravity : public GravityModel {
public:
    // UsageError for options out of range: box, mesh and split as ParticleMesh takes them, a cut
    // of at most 0 or not below half the box, tree options as TreeGravity takes them.
    TreePmGravity(Context& context, Precision precision, GravityParameters parameters = {},
                  TreePmOptions options = {}, ProgramCache& cache = ProgramCache::global());

    // Positions anywhere (each body acts at its image in the box; bodies need not be wrapped);
    // UsageError for NaN or infinite ones.
    void accelerations(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
                       RealBuffer& out, std::size_t out_offset,
                       RealBuffer* potential = nullptr) override;

    const GravityParameters& parameters() const noexcept override { return tree_.parameters(); }
    double interactions() const noexcept override { return tree_.interactions(); }
    LaunchList launches() const override { return tree_.launches(); }
    const TreePmOptions& options() const noexcept { return options_; }
    TreeGravity& short_range() noexcept { return tree_; }
    ParticleMesh& long_range() noexcept { return mesh_; }

private:
    TreePmOptions options_;
    TreeGravity tree_;
    ParticleMesh mesh_;
};

} // namespace partcl
