#include <partcl/models/nbody/tree_pm_gravity.hpp>

#include <cmath>
#include <string>

namespace partcl {

namespace {

TreePmOptions checked(TreePmOptions o) {
    if (!(o.split_cells > 0) || !std::isfinite(o.split_cells) || !(o.cut_splits > 0) ||
        !std::isfinite(o.cut_splits))
        throw UsageError("TreePM: r_s (in mesh cells) and the cut (in r_s) must be positive and finite");
    if (o.mesh < 8 || !(o.box > 0) || !std::isfinite(o.box))
        throw UsageError("TreePM: the box must be positive and finite and the mesh at least 8 nodes a side (got box " +
                         std::to_string(o.box) + ", mesh " + std::to_string(o.mesh) + ")");
    if (!(o.cut() < 0.5 * o.box))
        throw UsageError("TreePM: the short range's cut (" + std::to_string(o.cut_splits) + " r_s = " +
                         std::to_string(o.cut()) + ") must be below half the box (" +
                         std::to_string(0.5 * o.box) + "): use a finer mesh or a smaller cut");
    o.tree.short_range = ShortRangeSplit{o.box, o.split(), o.cut()};
    return o;
}

} // namespace

TreePmGravity::TreePmGravity(Context& context, Precision precision, GravityParameters parameters,
                             TreePmOptions options, ProgramCache& cache)
    : options_(checked(options)), tree_(context, precision, parameters, options_.tree, cache),
      mesh_(context, precision, MeshParameters{options_.box, options_.mesh, options_.split(), parameters.G},
            cache) {}

void TreePmGravity::accelerations(const RealBuffer& positions, const RealBuffer& mass,
                                  std::size_t n, RealBuffer& out, std::size_t out_offset,
                                  RealBuffer* potential) {
    if (n == 0) return;
    tree_.update(positions, mass, n);
    tree_.evaluate(out, out_offset, potential);
    mesh_.add(positions, mass, n, out, out_offset, potential);
    tree_.remember(out, out_offset);  // the whole force: the relative criterion's reference
}

} // namespace partcl
