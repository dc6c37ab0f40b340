// partcl.DenseGravity and partcl.TreeGravity: accelerations (and potentials) of bodies given
// as numpy arrays, by partcl's gravity models on the context's devices.
#include "bindings.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <partcl/backend/error.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>

namespace partcl::python {

namespace {

using Positions = nb::ndarray<nb::numpy, const double, nb::shape<-1, 3>, nb::c_contig,
                              nb::device::cpu>;
using Masses = nb::ndarray<nb::numpy, const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

class Gravity {
public:
    Gravity(ContextPtr context, Precision precision) : context_(std::move(context)), precision_(precision) {}
    virtual ~Gravity() = default;

    nb::object accelerations(const Positions& positions, const Masses& masses, bool potential);
    Precision precision() const noexcept { return precision_; }
    const ContextPtr& context() const noexcept { return context_; }
    double interactions() const { return model().interactions(); }

protected:
    virtual GravityModel& model() const = 0;

    ContextPtr context_;  // first, so the model goes before its context
    Precision precision_;
};

nb::object Gravity::accelerations(const Positions& positions, const Masses& masses,
                                  bool with_potential) {
    const std::size_t n = positions.shape(0);
    if (masses.shape(0) != n)
        throw UsageError("accelerations: " + std::to_string(n) + " positions but " +
                         std::to_string(masses.shape(0)) + " masses");
    const nb::dlpack::dtype f64 = nb::dtype<double>();
    void* out_data = nullptr;
    void* phi_data = nullptr;
    nb::object out = new_numpy({n, 3}, f64, &out_data);
    nb::object phi = new_numpy({n}, f64, &phi_data);
    if (n > 0) {
        // partcl's buffers are structure of arrays: x | y | z.
        std::vector<double> soa(3 * n), mass(masses.data(), masses.data() + n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t a = 0; a < 3; ++a) soa[a * n + i] = positions.data()[3 * i + a];
        nb::gil_scoped_release release;
        Queue& queue = context_->queue(0);
        RealBuffer x(*context_, precision_, 3 * n), m(*context_, precision_, n),
            a(*context_, precision_, 3 * n), p(*context_, precision_, n);
        x.write(queue, soa);
        m.write(queue, mass);
        model().accelerations(x, m, n, a, 0, with_potential ? &p : nullptr);
        a.read(queue, soa.data(), 3 * n);
        auto* acc = static_cast<double*>(out_data);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < 3; ++c) acc[3 * i + c] = soa[c * n + i];
        if (with_potential) p.read(queue, static_cast<double*>(phi_data), n);
    }
    if (!with_potential) return out;
    return nb::make_tuple(out, phi);
}

class Dense final : public Gravity {
public:
    Dense(ContextPtr context, Precision precision, GravityParameters parameters)
        : Gravity(std::move(context), precision), model_(*context_, precision, parameters) {}

private:
    GravityModel& model() const override { return model_; }
    mutable DenseGravity model_;
};

class Tree final : public Gravity {
public:
    Tree(ContextPtr context, Precision precision, GravityParameters parameters, TreeOptions options)
        : Gravity(std::move(context), precision), model_(*context_, precision, parameters, options) {}
    std::size_t builds() const noexcept { return model_.builds(); }

private:
    GravityModel& model() const override { return model_; }
    mutable TreeGravity model_;
};

const char* accelerations_doc =
    "Accelerations of bodies at positions (N, 3) with masses (N,) on each other, as an (N, 3)\n"
    "float64 array; with potential=True also the potentials (N,), phi_i = -G sum_j m_j /\n"
    "sqrt(r_ij^2 + softening^2). Inputs are converted to float64, computed in the model's\n"
    "precision.";

} // namespace

void bind_gravity(nb::module_& m) {
    nb::class_<Gravity>(m, "Gravity", "What DenseGravity and TreeGravity share.")
        .def("accelerations", &Gravity::accelerations, nb::arg("positions"), nb::arg("masses"),
             nb::arg("potential") = false, accelerations_doc)
        .def_prop_ro("precision",
                     [](const Gravity& g) { return std::string(to_string(g.precision())); })
        .def_prop_ro("context", &Gravity::context)
        .def_prop_ro("interactions", &Gravity::interactions,
                     "Pair interactions computed so far.");

    nb::class_<Dense, Gravity>(m, "DenseGravity",
                               "Direct summation over every pair, spread over the context's devices.")
        .def(
            "__init__",
            [](Dense* self, ContextPtr context, const std::string& precision, double G,
               double softening) {
                nb::gil_scoped_release release;
                new (self) Dense(std::move(context), parse_precision(precision),
                                 GravityParameters{G, softening});
            },
            nb::arg("context"), nb::arg("precision") = "float", nb::arg("G") = 1.0,
            nb::arg("softening") = 0.0);

    nb::class_<Tree, Gravity>(m, "TreeGravity",
                              "Barnes-Hut on a kd-tree built on the device, each evaluation or every few.")
        .def(
            "__init__",
            [](Tree* self, ContextPtr context, const std::string& precision, double G,
               double softening, double theta, std::size_t leaf_size, std::size_t group_size,
               std::size_t rebuild_every, double rebuild_growth, double relative_accuracy) {
                TreeOptions options;
                options.relative_accuracy = relative_accuracy;
                options.theta = theta;
                options.leaf_size = leaf_size;
                options.group_size = group_size;
                options.rebuild_every = rebuild_every;
                options.rebuild_growth = rebuild_growth;
                nb::gil_scoped_release release;
                new (self) Tree(std::move(context), parse_precision(precision),
                                GravityParameters{G, softening}, options);
            },
            nb::arg("context"), nb::arg("precision") = "float", nb::arg("G") = 1.0,
            nb::arg("softening") = 0.0, nb::arg("theta") = 0.5, nb::arg("leaf_size") = 8,
            nb::arg("group_size") = 32, nb::arg("rebuild_every") = 1, nb::arg("rebuild_growth") = 0.0,
            nb::arg("relative_accuracy") = 0.0,
            "theta: opening angle in [0, 1] (0: every node opened, direct summation). "
            "rebuild_every: evaluations per build of the tree; in between, calls with the same "
            "number of bodies refit it (keep which bodies each node holds, recompute the nodes "
            "where they are now). rebuild_growth > 0: a refit whose leaves' radii grew by more "
            "than this fraction is a build. relative_accuracy > 0: from the second call with the "
            "same number of bodies a node also acts whole where the first term its expansion "
            "leaves out, G m r^3 / d^5, is at most this times the |a| of the previous call.")
        .def_prop_ro("builds", [](const Tree& t) { return t.builds(); },
                     "Trees built so far (refits not counted).");
}

} // namespace partcl::python
