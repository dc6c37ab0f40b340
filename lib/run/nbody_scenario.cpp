// The N-body model's scenario tables beside its run (nbody_run.cpp): [gravity] and
// [integrator]. Its initial conditions' tables are io's (io/initial_conditions.cpp reads them).
#include <partcl/integrate/integrator.hpp>
#include <partcl/run/scenario.hpp>

#include <cmath>

#include "run/model_tables.hpp"

namespace partcl {

const std::vector<std::string>& gravity_model_names() {
    static const std::vector<std::string> names = names_of(gravity_model_kinds);
    return names;
}

namespace detail {

namespace {

// [gravity] G: positive, and within 1e-6 of the G that three [units] give (a G typed with
// seven digits agrees).
std::string check_G(const S& s) {
    if (auto problem = positive(s.gravity.G); !problem.empty()) return problem;
    const double derived = units_G(s);
    if (derived > 0 && !(std::fabs(s.gravity.G - derived) <= 1e-6 * derived))
        return "is " + format_number(s.gravity.G) + " but [units] length, mass and velocity "
               "give G = " + format_number(derived) + " in code units: leave G out, or give "
               "two units and G";
    return ok();
}

} // namespace

std::string check_rebuild_every(std::uint64_t k) {
    return TreeOptions::valid_rebuild_every(k)
               ? ok()
               : "must be in 1.." + std::to_string(TreeOptions::max_rebuild_every) + " (got " + std::to_string(k) + ")";
}

std::string check_rebuild_growth(double g) {
    if (!std::isfinite(g)) return finite(g);
    return TreeOptions::valid_rebuild_growth(g) ? ok() : "must be in [0, 1e6] (got " + format_number(g) + ")";
}

std::string check_relative_accuracy(double a) {
    if (!std::isfinite(a)) return finite(a);
    return TreeOptions::valid_relative_accuracy(a) ? ok() : "must be in [0, 1] (got " + format_number(a) + ")";
}

const std::vector<Field>& gravity_table() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"gravity", "model",
         EnumRef{[](const S& s) { return to_string(s.gravity_model); },
                 [](S& s, const std::string& name) { return from_name(gravity_model_kinds, name, s.gravity_model); },
                 [] { return names_of(gravity_model_kinds); }, "a gravity model"},
         any_value, ""},
        {"gravity", "G", RealRef([](S& s) -> double& { return s.gravity.G; }), check_G,
         "[units] with all three units derive it"},
        {"gravity", "softening", RealRef([](S& s) -> double& { return s.gravity.softening; }),
         [](const S& s) { return non_negative(s.gravity.softening); }, "Plummer epsilon"},
        {"gravity", "theta", RealRef([](S& s) -> double& { return s.tree.theta; }),
         [](const S& s) {
             const double t = s.tree.theta;
             if (!std::isfinite(t)) return finite(t);
             return TreeOptions::valid_theta(t) ? ok() : "must be in [0, 1] (got " + format_number(t) + ")";
         },
         "tree: opening angle, 0 = direct sum"},
        {"gravity", "leaf_size", CountRef([](S& s) -> std::uint64_t& { return s.tree.leaf_size; }),
         [](const S& s) {
             const std::uint64_t l = s.tree.leaf_size;
             return TreeOptions::valid_leaf_size(l)
                        ? ok()
                        : "must be in [1, " + std::to_string(TreeOptions::max_leaf_size) +
                              "] (got " + std::to_string(l) + ")";
         },
         "tree: most bodies in a leaf"},
        {"gravity", "traversal",
         EnumRef{[](const S& s) { return to_string(s.tree.traversal); },
                 [](S& s, const std::string& name) { return from_name(tree_traversals, name, s.tree.traversal); },
                 [] { return names_of(tree_traversals); }, "a tree traversal"},
         any_value, "tree: stackless | nested"},
        {"gravity", "group_size", CountRef([](S& s) -> std::uint64_t& { return s.tree.group_size; }),
         [](const S& s) {
             const std::uint64_t g = s.tree.group_size;
             return TreeOptions::valid_group_size(g)
                        ? ok()
                        : "must be a power of two in [1, " + std::to_string(TreeOptions::max_group_size) +
                              "] (got " + std::to_string(g) + ")";
         },
         "tree: most bodies walking the tree together"},
        {"gravity", "rebuild_every", CountRef([](S& s) -> std::uint64_t& { return s.tree.rebuild_every; }),
         [](const S& s) { return check_rebuild_every(s.tree.rebuild_every); },
         "tree: evaluations per tree build, refitted in between"},
        {"gravity", "rebuild_growth", RealRef([](S& s) -> double& { return s.tree.rebuild_growth; }),
         [](const S& s) { return check_rebuild_growth(s.tree.rebuild_growth); },
         "tree: a refit whose leaves' radii grew more than this fraction is a build (0: never)"},
        {"gravity", "relative_accuracy", RealRef([](S& s) -> double& { return s.tree.relative_accuracy; }),
         [](const S& s) { return check_relative_accuracy(s.tree.relative_accuracy); },
         "tree: a node also acts whole where the term its expansion leaves out is below this fraction of the group's |a| of the step before; 0: theta alone"},
        {"gravity", "ranks",
         EnumRef{[](const S& s) { return to_string(s.tree_ranks); },
                 [](S& s, const std::string& name) { return from_name(tree_ranks_kinds, name, s.tree_ranks); },
                 [] { return names_of(tree_ranks_kinds); }, "a way over ranks"},
         [](const S& s) -> std::string {
             if (s.tree_ranks != TreeRanks::essential) return ok();
             if (s.tree.rebuild_every > 1 || s.tree.relative_accuracy > 0)
                 return "must be \"gather\" with rebuild_every > 1 or relative_accuracy > 0: essential trees "
                        "are built anew every evaluation and opened by theta alone";
             return ok();
         },
         "tree over MPI ranks: gather | essential"},
    });
    return fields;
}

const std::vector<Field>& integrator_table() {
    static const std::vector<Field> fields = of_model("nbody", {
        {"integrator", "name", TextRef([](S& s) -> std::string& { return s.integrator; }),
         [](const S& s) { return one_of(s.integrator, integrator_names(), "an integrator"); },
         ""},
        {"integrator", "dt", RealRef([](S& s) -> double& { return s.dt; }),
         [](const S& s) { return positive(s.dt); }, "adaptive methods: the first trial step"},
        {"integrator", "atol", RealRef([](S& s) -> double& { return s.atol; }),
         [](const S& s) { return positive(s.atol); }, "dopri5"},
        {"integrator", "rtol", RealRef([](S& s) -> double& { return s.rtol; }),
         [](const S& s) { return positive(s.rtol); }, "dopri5"},
        {"integrator", "damping", RealRef([](S& s) -> double& { return s.damping; }),
         [](const S& s) {
             const double d = s.damping;
             if (!std::isfinite(d)) return finite(d);
             return d > 0 && d <= 1 ? ok() : "must be in (0, 1] (got " + format_number(d) + ")";
         },
         "velocity factor per step, 1 = off"},
    });
    return fields;
}

void nbody_defaults(S& s, const Given& given) {
    // Three units fix G (a G given too must agree: check_G).
    if (!given.count("gravity.G")) {
        if (const double G = units_G(s); G > 0) s.gravity.G = G;
    }
    initial_condition_defaults(s, given);
}

} // namespace detail

} // namespace partcl
