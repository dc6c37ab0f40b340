// The integrators by name: which engine runs which data, the catalog (order and kind) and the
// aliases of the names older scenarios use.
#include "engines.hpp"

namespace partcl {

namespace {

enum class Engine { explicit_runge_kutta, adams_bashforth, splitting, implicit_runge_kutta };

struct Method {
    std::string name;
    Engine engine;
    int adams_order = 0;  // adams_bashforth only
};

// The seed's order (drons/nbody), then the splittings.
const std::vector<Method>& methods() {
    static const std::vector<Method> m{
        {"euler", Engine::explicit_runge_kutta},   {"rk4", Engine::explicit_runge_kutta},
        {"rkck5", Engine::explicit_runge_kutta},   {"rkdp5", Engine::explicit_runge_kutta},
        {"rkdverk6", Engine::explicit_runge_kutta}, {"rkf78", Engine::explicit_runge_kutta},
        {"adams1", Engine::adams_bashforth, 1},    {"adams2", Engine::adams_bashforth, 2},
        {"adams3", Engine::adams_bashforth, 3},    {"adams4", Engine::adams_bashforth, 4},
        {"adams5", Engine::adams_bashforth, 5},    {"leapfrog", Engine::splitting},
        {"yoshida4", Engine::splitting},           {"yoshida6", Engine::splitting},
        {"rkgl6", Engine::implicit_runge_kutta},   {"rklc4", Engine::implicit_runge_kutta},
        {"trapezoid", Engine::implicit_runge_kutta},
    };
    return m;
}

const std::vector<std::pair<std::string, std::string>>& aliases() {
    static const std::vector<std::pair<std::string, std::string>> a{{"dopri5", "rkdp5"},
                                                                    {"ab5", "adams5"}};
    return a;
}

// The method a name or alias stands for; null when unknown.
const Method* find(const std::string& name) {
    std::string target = name;
    for (const auto& [alias, of] : aliases())
        if (alias == name) target = of;
    for (const auto& m : methods())
        if (m.name == target) return &m;
    return nullptr;
}

std::string evaluations(std::size_t count) {
    return std::to_string(count) + (count == 1 ? " evaluation" : " evaluations") + " a step";
}

IntegratorInfo describe_kind(const Method& m);

// Whose method it is, for the catalog.
std::string author(const std::string& name) {
    static const std::vector<std::pair<std::string, std::string>> authors{
        {"rkck5", "Cash-Karp "},          {"rkdp5", "Dormand-Prince "},
        {"rkdverk6", "Verner "},          {"rkf78", "Fehlberg "},
        {"rkgl6", "Gauss-Legendre "},     {"rklc4", "Lobatto IIIC "},
        {"trapezoid", "trapezoidal rule: "}, {"yoshida4", "Yoshida "},
        {"yoshida6", "Yoshida "}};
    for (const auto& [method, who] : authors)
        if (method == name) return who;
    return "";
}

IntegratorInfo describe(const Method& m) {
    IntegratorInfo info = describe_kind(m);
    info.kind = author(m.name) + info.kind;
    return info;
}

IntegratorInfo describe_kind(const Method& m) {
    switch (m.engine) {
    case Engine::explicit_runge_kutta: {
        const ButcherTableau& t = butcher_tableau(m.name);
        const std::size_t s = t.stages() - (t.first_same_as_last() ? 1 : 0);
        if (!t.adaptive()) return {m.name, t.order, "explicit Runge-Kutta, " + evaluations(s), ""};
        return {m.name, t.order,
                "embedded Runge-Kutta " + std::to_string(t.order) + "(" +
                    std::to_string(t.embedded_order) + "), adaptive step, " + evaluations(s) +
                    (t.first_same_as_last() ? " (first same as last)" : ""),
                ""};
    }
    case Engine::adams_bashforth:
        return {m.name, m.adams_order,
                "Adams-Bashforth multistep, " + evaluations(1) +
                    (m.adams_order > 1 ? ", started with rk4" : ""),
                ""};
    case Engine::splitting: {
        const Composition& c = composition(m.name);
        const std::size_t substeps = c.weights.size();
        const std::string scheme = substeps == 1
                                       ? std::string("kick-drift-kick")
                                       : std::to_string(substeps) + " leapfrog substeps";
        return {m.name, c.order,
                "symplectic splitting, " + scheme + ", " + evaluations(substeps), ""};
    }
    case Engine::implicit_runge_kutta: {
        const ButcherTableau& t = butcher_tableau(m.name);
        return {m.name, t.order,
                "implicit Runge-Kutta, " + std::to_string(t.stages()) +
                    " stages, fixed-point iteration to the tolerances",
                ""};
    }
    }
    return {};
}

} // namespace

const std::vector<IntegratorInfo>& integrator_catalog() {
    static const std::vector<IntegratorInfo> catalog = [] {
        std::vector<IntegratorInfo> c;
        for (const auto& m : methods()) c.push_back(describe(m));
        for (const auto& [alias, of] : aliases()) {
            IntegratorInfo info = describe(*find(of));
            info.name = alias;
            info.alias_of = of;
            c.push_back(info);
        }
        return c;
    }();
    return catalog;
}

const std::vector<std::string>& integrator_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& info : integrator_catalog()) n.push_back(info.name);
        return n;
    }();
    return names;
}

bool integrator_adapts_step(const std::string& name) {
    const Method* m = find(name);
    return m && m->engine == Engine::explicit_runge_kutta && butcher_tableau(m->name).adaptive();
}

bool integrator_iterates(const std::string& name) {
    const Method* m = find(name);
    return m && m->engine == Engine::implicit_runge_kutta;
}

std::size_t integrator_work_vectors(const std::string& name) {
    const Method* m = find(name);
    if (!m) return 1;
    switch (m->engine) {
    case Engine::explicit_runge_kutta:
        return detail::ExplicitRungeKutta::work_vectors(butcher_tableau(m->name));
    case Engine::adams_bashforth: return detail::adams_bashforth_work_vectors(m->adams_order);
    case Engine::splitting: return 1;  // the acceleration
    case Engine::implicit_runge_kutta:
        return detail::implicit_runge_kutta_work_vectors(butcher_tableau(m->name));
    }
    return 1;
}

std::unique_ptr<Integrator> make_integrator(const std::string& name, VectorOps& ops,
                                            std::size_t state_size,
                                            AdaptiveTolerances tolerances) {
    const Method* m = find(name);
    if (!m) {
        std::string known;
        for (const auto& n : integrator_names()) known += (known.empty() ? "" : ", ") + n;
        throw UsageError("unknown integrator '" + name + "' (known: " + known + ")");
    }
    // An alias keeps its own name, as older runs reported it.
    switch (m->engine) {
    case Engine::explicit_runge_kutta:
        return std::make_unique<detail::ExplicitRungeKutta>(name, butcher_tableau(m->name), ops,
                                                            state_size, tolerances);
    case Engine::adams_bashforth:
        return detail::make_adams_bashforth(name, m->adams_order, ops, state_size);
    case Engine::splitting:
        return detail::make_composition(name, composition(m->name), ops, state_size);
    case Engine::implicit_runge_kutta:
        return detail::make_implicit_runge_kutta(name, butcher_tableau(m->name), ops, state_size,
                                                 tolerances);
    }
    return nullptr;
}

} // namespace partcl
