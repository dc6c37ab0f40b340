// TreeGravity's order: what its next evaluation depends on besides the bodies, read for a
// checkpoint and restored from one (tree_gravity.hpp).
#include <partcl/models/nbody/tree_gravity.hpp>

#include <cmath>
#include <string>

namespace partcl {

TreeGravity::Order TreeGravity::order() {
    return read_order(n_ > 0, age_, used_reference_);
}

TreeGravity::Order TreeGravity::read_order(bool perm, std::size_t age, int reference) {
    Order o;
    if (perm) {
        o.perm.resize(n_);
        perm_.read(context_.queue(0), o.perm.data(), n_);
        o.age = age;
        o.leaf_radii = leaf_radii_;
    }
    if (reference >= 0) {
        o.reference.resize(reference_size_);
        references_[std::size_t(reference)].read(context_.queue(0), o.reference.data(), reference_size_);
    }
    return o;
}

void TreeGravity::restore(const Order& o) {
    for (double a : o.reference)
        if (!(a >= 0 && a < HUGE_VAL))
            throw UsageError("TreeGravity: a reference |a| of " + std::to_string(a) + " in a tree order");
    if (o.perm.empty() || o.age == 0) {
        rebuild_next_ = true;
        restore_reference(o.reference);
        return;
    }
    const std::size_t n = o.perm.size();
    if (!o.reference.empty() && o.reference.size() != n)
        throw UsageError("TreeGravity: a tree order of " + std::to_string(n) + " bodies with " +
                         std::to_string(o.reference.size()) + " reference |a|");
    if (o.age >= options_.rebuild_every)
        throw UsageError("TreeGravity: a tree order refitted " + std::to_string(o.age) +
                         " times, where the tree is rebuilt every " + std::to_string(options_.rebuild_every) +
                         " evaluations");
    if (n >= (std::size_t(1) << 30)) throw UsageError("TreeGravity: a tree order of more than 2^30 - 1 bodies");
    if (!(o.leaf_radii >= 0 && o.leaf_radii < HUGE_VAL))
        throw UsageError("TreeGravity: a tree order whose leaves' radii sum to " + std::to_string(o.leaf_radii));
    std::vector<bool> seen(n);
    for (std::uint32_t b : o.perm) {
        if (b >= n || seen[b])
            throw UsageError("TreeGravity: the tree order is not a permutation of its " + std::to_string(n) +
                             " bodies (body " + std::to_string(b) + (b >= n ? " out of range)" : " twice)"));
        seen[b] = true;
    }
    set_size(n, n);
    perm_.write(context_.queue(0), o.perm.data(), n).wait();
    age_ = o.age - 1;
    leaf_radii_ = o.leaf_radii;
    rebuild_next_ = false;
    restore_reference(o.reference);
}

void TreeGravity::restore_reference(const std::vector<double>& reference) {
    next_reference_ = used_reference_ = -1;
    if (reference.empty()) return;
    RealBuffer& into = references_[0];
    if (into.size() < reference.size()) into = RealBuffer(context_, precision_, reference.size());
    into.write(context_.queue(0), reference.data(), reference.size());
    next_reference_ = 0;
    reference_size_ = reference.size();
}

TreeGravity::Order TreeGravity::continuation() {
    return read_order(n_ > 0 && !rebuild_next_ && age_ + 1 < options_.rebuild_every, age_ + 1,
                      options_.relative_accuracy > 0 ? next_reference_ : -1);
}

} // namespace partcl
