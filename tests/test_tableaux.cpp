// The methods' coefficients satisfy their order conditions: for every rooted tree t up to the
// order, b . Phi(t) = 1 / gamma(t) (Butcher); a mistyped coefficient breaks one of them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <partcl/integrate/integrator.hpp>
#include <partcl/integrate/tableau.hpp>

using namespace partcl;

namespace {

// A rooted tree as the multiset of its subtrees (indices into the list of all trees so far,
// non-decreasing, so each tree appears once), with its order.
struct Tree {
    std::vector<std::size_t> children;
    int order = 1;
};

// Every rooted tree of order 1..max_order (1, 1, 2, 4, 9, 20, 48, 115, 286 of orders 1..9).
std::vector<Tree> rooted_trees(int max_order) {
    std::vector<Tree> trees{Tree{}};
    for (int order = 2; order <= max_order; ++order) {
        const std::size_t known = trees.size();
        std::vector<std::size_t> chosen;
        // Multisets of trees (indices >= first, of orders summing to left).
        std::function<void(std::size_t, int)> choose = [&](std::size_t first, int left) {
            if (left == 0) {
                trees.push_back(Tree{chosen, order});
                return;
            }
            for (std::size_t i = first; i < known; ++i) {
                if (trees[i].order > left) continue;
                chosen.push_back(i);
                choose(i, left - trees[i].order);
                chosen.pop_back();
            }
        };
        choose(0, order - 1);
    }
    return trees;
}

// For each tree: its stage vector g_i = prod_children (A g_child)_i and gamma.
struct Weights {
    std::vector<std::vector<long double>> g;
    std::vector<long double> gamma;
};

Weights weights(const ButcherTableau& t, const std::vector<Tree>& trees) {
    const std::size_t s = t.stages();
    Weights w;
    for (const Tree& tree : trees) {
        std::vector<long double> g(s, 1.0L);
        long double gamma = tree.order;
        for (std::size_t child : tree.children) {
            for (std::size_t i = 0; i < s; ++i) {
                long double sum = 0;
                for (std::size_t j = 0; j < s; ++j)
                    sum += (long double)t.a[i][j].value() * w.g[child][j];
                g[i] *= sum;
            }
            gamma *= w.gamma[child];
        }
        w.g.push_back(g);
        w.gamma.push_back(gamma);
    }
    return w;
}

// The largest |b . g(t) - 1/gamma(t)| over the trees of order p.
double defect(const std::vector<long double>& b, const std::vector<Tree>& trees, const Weights& w,
              int p) {
    double worst = 0;
    for (std::size_t k = 0; k < trees.size(); ++k) {
        if (trees[k].order != p) continue;
        long double sum = 0;
        for (std::size_t i = 0; i < b.size(); ++i) sum += b[i] * w.g[k][i];
        worst = std::max(worst, double(std::fabs(sum - 1.0L / w.gamma[k])));
    }
    return worst;
}

} // namespace

TEST_SUITE("tableaux") {

TEST_CASE("there are 486 rooted trees up to order 9") {
    const auto trees = rooted_trees(9);
    CHECK(trees.size() == 486);
    int count[10] = {};
    for (const Tree& t : trees) ++count[t.order];
    CHECK(count[1] == 1);
    CHECK(count[4] == 4);
    CHECK(count[6] == 20);
    CHECK(count[8] == 115);
    CHECK(count[9] == 286);
}

TEST_CASE("every Butcher tableau satisfies its order conditions, and not the next order's") {
    const auto trees = rooted_trees(9);
    for (const ButcherTableau& t : butcher_tableaux()) {
        CAPTURE(t.name);
        const std::size_t s = t.stages();
        REQUIRE(t.c.size() == s);
        REQUIRE(t.a.size() == s);
        for (std::size_t i = 0; i < s; ++i) {
            REQUIRE(t.a[i].size() == s);
            double row = 0;
            for (std::size_t j = 0; j < s; ++j) {
                row += t.a[i][j].value();
                if (!t.implicit) CHECK((j < i || t.a[i][j].zero()));
            }
            CHECK(row == doctest::Approx(t.c[i].value()).epsilon(1e-15));
        }
        const Weights w = weights(t, trees);
        std::vector<long double> b;
        for (const auto& x : t.b) b.push_back(x.value());
        for (int p = 1; p <= t.order; ++p) {
            CAPTURE(p);
            CHECK(defect(b, trees, w, p) < 1e-14);
        }
        CHECK(defect(b, trees, w, t.order + 1) > 1e-6);  // the order is not higher than stated
        if (!t.adaptive()) continue;
        // The embedded solution b_hat = b - error has its own order.
        REQUIRE(t.error.size() == s);
        std::vector<long double> b_hat;
        for (std::size_t i = 0; i < s; ++i) b_hat.push_back(b[i] - t.error[i].value());
        for (int p = 1; p <= t.embedded_order; ++p) {
            CAPTURE(p);
            CHECK(defect(b_hat, trees, w, p) < 1e-14);
        }
        CHECK(defect(b_hat, trees, w, t.embedded_order + 1) > 1e-6);
    }
}

TEST_CASE("Adams-Bashforth of order k integrates polynomials of degree k - 1 exactly") {
    for (int k = 1; k <= 5; ++k) {
        const AdamsWeights w = adams_bashforth_weights(k);
        REQUIRE(w.num.size() == std::size_t(k));
        // y' = t^m from t = 0 to 1, with f at t = 0, -1, ..., -(k - 1).
        for (int m = 0; m <= k; ++m) {
            double sum = 0;
            for (int j = 0; j < k; ++j) sum += w.num[j] / w.den * std::pow(-double(j), m);
            CAPTURE(k);
            CAPTURE(m);
            if (m < k) CHECK(std::fabs(sum - 1.0 / (m + 1)) < 1e-13);
            else CHECK(std::fabs(sum - 1.0 / (m + 1)) > 1e-3);
        }
    }
    CHECK_THROWS_AS(adams_bashforth_weights(6), UsageError);
}

TEST_CASE("Yoshida's compositions are symmetric and cancel the error terms of leapfrog") {
    for (const char* name : {"leapfrog", "yoshida4", "yoshida6"}) {
        const Composition& c = composition(name);
        CAPTURE(name);
        double sum = 0, cubes = 0, fifths = 0;
        for (std::size_t k = 0; k < c.weights.size(); ++k) {
            CHECK(c.weights[k] == c.weights[c.weights.size() - 1 - k]);
            sum += c.weights[k];
            cubes += std::pow(c.weights[k], 3);
            fifths += std::pow(c.weights[k], 5);
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-15));
        if (c.order >= 4) CHECK(std::fabs(cubes) < 1e-14);
        if (c.order >= 6) CHECK(std::fabs(fifths) < 1e-14);
    }
}

TEST_CASE("the catalog names every method with its order, and the old names as aliases") {
    const auto& catalog = integrator_catalog();
    for (const char* name : {"adams1", "adams2", "adams3", "adams4", "adams5", "euler", "rk4",
                             "rkck5", "rkdp5", "rkdverk6", "rkf78", "rkgl6", "rklc4", "trapezoid",
                             "leapfrog", "yoshida4", "yoshida6", "dopri5", "ab5"}) {
        CAPTURE(name);
        const auto it = std::find_if(catalog.begin(), catalog.end(),
                                     [&](const IntegratorInfo& i) { return i.name == name; });
        REQUIRE(it != catalog.end());
        CHECK(it->order >= 1);
        CHECK(!it->kind.empty());
    }
    CHECK(catalog.size() == 19);
    CHECK(integrator_adapts_step("dopri5"));
    CHECK(integrator_adapts_step("rkf78"));
    CHECK(!integrator_adapts_step("rkgl6"));
    CHECK(!integrator_adapts_step("no such method"));
    CHECK(integrator_work_vectors("dopri5") == 10);
    CHECK(integrator_work_vectors("ab5") == 9);
    CHECK(integrator_work_vectors("rk4") == 5);
}

}
