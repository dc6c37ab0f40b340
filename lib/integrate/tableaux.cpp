// The coefficients of every method, from the original papers as given by Hairer, Norsett &
// Wanner, Solving Ordinary Differential Equations I (2nd ed., 1993), section II.5, and Hairer &
// Wanner II (1996), section IV.5 for the implicit ones. Rational coefficients are written as
// exact integer ratios; tests/test_tableaux.cpp checks each tableau's order conditions.
#include <partcl/integrate/tableau.hpp>

#include <cmath>
#include <numeric>

#include <partcl/backend/error.hpp>

namespace partcl {

namespace {

using Row = std::vector<Coefficient>;

Coefficient r(double num, double den = 1) { return {num, den}; }

// p - q, exact: both are integer ratios small enough for 64-bit products.
Coefficient minus(Coefficient p, Coefficient q) {
    const auto pn = static_cast<long long>(p.num), pd = static_cast<long long>(p.den);
    const auto qn = static_cast<long long>(q.num), qd = static_cast<long long>(q.den);
    long long num = pn * qd - qn * pd, den = pd * qd;
    const long long g = std::gcd(num, den);
    if (g > 1) num /= g, den /= g;
    return {double(num), double(den)};
}

// Fills the square matrix of an explicit method's rows (row i has i entries) with zeros.
std::vector<Row> lower(std::vector<Row> rows) {
    const std::size_t s = rows.size();
    for (auto& row : rows) row.resize(s);
    return rows;
}

ButcherTableau embedded(std::string name, int order, int embedded_order, Row c,
                        std::vector<Row> a, Row b, Row b_hat) {
    ButcherTableau t;
    t.name = std::move(name);
    t.order = order;
    t.embedded_order = embedded_order;
    t.c = std::move(c);
    t.a = lower(std::move(a));
    t.b = std::move(b);
    for (std::size_t i = 0; i < t.b.size(); ++i) t.error.push_back(minus(t.b[i], b_hat[i]));
    return t;
}

ButcherTableau fixed(std::string name, int order, bool implicit, Row c, std::vector<Row> a,
                     Row b) {
    ButcherTableau t;
    t.name = std::move(name);
    t.order = order;
    t.implicit = implicit;
    t.c = std::move(c);
    t.a = implicit ? std::move(a) : lower(std::move(a));
    t.b = std::move(b);
    return t;
}

std::vector<ButcherTableau> all() {
    std::vector<ButcherTableau> t;
    t.push_back(fixed("euler", 1, false, {r(0)}, {{}}, {r(1)}));
    t.push_back(fixed("rk4", 4, false, {r(0), r(1, 2), r(1, 2), r(1)},
                      {{}, {r(1, 2)}, {r(0), r(1, 2)}, {r(0), r(0), r(1)}},
                      {r(1, 6), r(1, 3), r(1, 3), r(1, 6)}));
    // Cash & Karp (1990), ACM TOMS 16, 201: the fifth-order solution advances.
    t.push_back(embedded(
        "rkck5", 5, 4, {r(0), r(1, 5), r(3, 10), r(3, 5), r(1), r(7, 8)},
        {{},
         {r(1, 5)},
         {r(3, 40), r(9, 40)},
         {r(3, 10), r(-9, 10), r(6, 5)},
         {r(-11, 54), r(5, 2), r(-70, 27), r(35, 27)},
         {r(1631, 55296), r(175, 512), r(575, 13824), r(44275, 110592), r(253, 4096)}},
        {r(37, 378), r(0), r(250, 621), r(125, 594), r(0), r(512, 1771)},
        {r(2825, 27648), r(0), r(18575, 48384), r(13525, 55296), r(277, 14336), r(1, 4)}));
    // Dormand & Prince (1980), J. Comput. Appl. Math. 6, 19: DOPRI5, first same as last.
    t.push_back(embedded(
        "rkdp5", 5, 4, {r(0), r(1, 5), r(3, 10), r(4, 5), r(8, 9), r(1), r(1)},
        {{},
         {r(1, 5)},
         {r(3, 40), r(9, 40)},
         {r(44, 45), r(-56, 15), r(32, 9)},
         {r(19372, 6561), r(-25360, 2187), r(64448, 6561), r(-212, 729)},
         {r(9017, 3168), r(-355, 33), r(46732, 5247), r(49, 176), r(-5103, 18656)},
         {r(35, 384), r(0), r(500, 1113), r(125, 192), r(-2187, 6784), r(11, 84)}},
        {r(35, 384), r(0), r(500, 1113), r(125, 192), r(-2187, 6784), r(11, 84), r(0)},
        {r(5179, 57600), r(0), r(7571, 16695), r(393, 640), r(-92097, 339200), r(187, 2100),
         r(1, 40)}));
    // Verner's 6(5) as in DVERK (Hull, Enright & Jackson 1976; HNW I, table 5.4): the
    // sixth-order solution advances.
    t.push_back(embedded(
        "rkdverk6", 6, 5, {r(0), r(1, 6), r(4, 15), r(2, 3), r(5, 6), r(1), r(1, 15), r(1)},
        {{},
         {r(1, 6)},
         {r(4, 75), r(16, 75)},
         {r(5, 6), r(-8, 3), r(5, 2)},
         {r(-165, 64), r(55, 6), r(-425, 64), r(85, 96)},
         {r(12, 5), r(-8), r(4015, 612), r(-11, 36), r(88, 255)},
         {r(-8263, 15000), r(124, 75), r(-643, 680), r(-81, 250), r(2484, 10625), r(0)},
         {r(3501, 1720), r(-300, 43), r(297275, 52632), r(-319, 2322), r(24068, 84065), r(0),
          r(3850, 26703)}},
        {r(3, 40), r(0), r(875, 2244), r(23, 72), r(264, 1955), r(0), r(125, 11592),
         r(43, 616)},
        {r(13, 160), r(0), r(2375, 5984), r(5, 16), r(12, 85), r(3, 44), r(0), r(0)}));
    // Fehlberg (1968), NASA TR R-287 (HNW I, table 5.3): the seventh-order solution advances,
    // the eighth-order one measures its error.
    t.push_back(embedded(
        "rkf78", 7, 8,
        {r(0), r(2, 27), r(1, 9), r(1, 6), r(5, 12), r(1, 2), r(5, 6), r(1, 6), r(2, 3),
         r(1, 3), r(1), r(0), r(1)},
        {{},
         {r(2, 27)},
         {r(1, 36), r(1, 12)},
         {r(1, 24), r(0), r(1, 8)},
         {r(5, 12), r(0), r(-25, 16), r(25, 16)},
         {r(1, 20), r(0), r(0), r(1, 4), r(1, 5)},
         {r(-25, 108), r(0), r(0), r(125, 108), r(-65, 27), r(125, 54)},
         {r(31, 300), r(0), r(0), r(0), r(61, 225), r(-2, 9), r(13, 900)},
         {r(2), r(0), r(0), r(-53, 6), r(704, 45), r(-107, 9), r(67, 90), r(3)},
         {r(-91, 108), r(0), r(0), r(23, 108), r(-976, 135), r(311, 54), r(-19, 60), r(17, 6),
          r(-1, 12)},
         {r(2383, 4100), r(0), r(0), r(-341, 164), r(4496, 1025), r(-301, 82), r(2133, 4100),
          r(45, 82), r(45, 164), r(18, 41)},
         {r(3, 205), r(0), r(0), r(0), r(0), r(-6, 41), r(-3, 205), r(-3, 41), r(3, 41),
          r(6, 41), r(0)},
         {r(-1777, 4100), r(0), r(0), r(-341, 164), r(4496, 1025), r(-289, 82), r(2193, 4100),
          r(51, 82), r(33, 164), r(12, 41), r(0), r(1)}},
        {r(41, 840), r(0), r(0), r(0), r(0), r(34, 105), r(9, 35), r(9, 35), r(9, 280),
         r(9, 280), r(41, 840), r(0), r(0)},
        {r(0), r(0), r(0), r(0), r(0), r(34, 105), r(9, 35), r(9, 35), r(9, 280), r(9, 280),
         r(0), r(41, 840), r(41, 840)}));
    // Gauss-Legendre, 3 stages (Kuntzmann 1961, Butcher 1964): order 6, symplectic.
    const double s15 = std::sqrt(15.0);
    t.push_back(fixed("rkgl6", 6, true, {r(0.5 - s15 / 10), r(1, 2), r(0.5 + s15 / 10)},
                      {{r(5, 36), r(2.0 / 9 - s15 / 15), r(5.0 / 36 - s15 / 30)},
                       {r(5.0 / 36 + s15 / 24), r(2, 9), r(5.0 / 36 - s15 / 24)},
                       {r(5.0 / 36 + s15 / 30), r(2.0 / 9 + s15 / 15), r(5, 36)}},
                      {r(5, 18), r(4, 9), r(5, 18)}));
    // Lobatto IIIC, 3 stages (Chipman 1971): order 4.
    t.push_back(fixed("rklc4", 4, true, {r(0), r(1, 2), r(1)},
                      {{r(1, 6), r(-1, 3), r(1, 6)},
                       {r(1, 6), r(5, 12), r(-1, 12)},
                       {r(1, 6), r(2, 3), r(1, 6)}},
                      {r(1, 6), r(2, 3), r(1, 6)}));
    // The trapezoidal rule (Lobatto IIIA, 2 stages): order 2.
    t.push_back(fixed("trapezoid", 2, true, {r(0), r(1)}, {{r(0), r(0)}, {r(1, 2), r(1, 2)}},
                      {r(1, 2), r(1, 2)}));
    return t;
}

} // namespace

bool ButcherTableau::first_same_as_last() const {
    const std::size_t s = stages();
    if (implicit || s < 2 || c[s - 1].value() != 1) return false;
    for (std::size_t j = 0; j < s; ++j)
        if (a[s - 1][j].num != b[j].num || a[s - 1][j].den != b[j].den) return false;
    return true;
}

const std::vector<ButcherTableau>& butcher_tableaux() {
    static const std::vector<ButcherTableau> tableaux = all();
    return tableaux;
}

const ButcherTableau& butcher_tableau(const std::string& name) {
    for (const auto& t : butcher_tableaux())
        if (t.name == name) return t;
    throw UsageError("no Butcher tableau named '" + name + "'");
}

AdamsWeights adams_bashforth_weights(int order) {
    switch (order) {
    case 1: return {{1}, 1};
    case 2: return {{3, -1}, 2};
    case 3: return {{23, -16, 5}, 12};
    case 4: return {{55, -59, 37, -9}, 24};
    case 5: return {{1901, -2774, 2616, -1274, 251}, 720};
    default:
        throw UsageError("Adams-Bashforth order must be 1..5 (got " + std::to_string(order) + ")");
    }
}

const Composition& composition(const std::string& name) {
    // Yoshida (1990), Phys. Lett. A 150, 262: the triple jump for order 4, solution A for 6.
    static const double cbrt2 = std::cbrt(2.0);
    static const double y6[3] = {0.78451361047755726381949763, 0.23557321335935813368479318,
                                 -1.17767998417887100694641568};
    static const double y6_middle = 1 - 2 * (y6[0] + y6[1] + y6[2]);
    static const std::vector<Composition> compositions{
        {"leapfrog", 2, {1.0}},
        {"yoshida4", 4, {1 / (2 - cbrt2), -cbrt2 / (2 - cbrt2), 1 / (2 - cbrt2)}},
        {"yoshida6", 6, {y6[0], y6[1], y6[2], y6_middle, y6[2], y6[1], y6[0]}},
    };
    for (const auto& c : compositions)
        if (c.name == name) return c;
    throw UsageError("no composition named '" + name + "'");
}

} // namespace partcl
