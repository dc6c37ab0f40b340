#include <partcl/io/units.hpp>

#include <partcl/backend/error.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace partcl {

namespace {

using Table = std::vector<std::pair<const char*, double>>;

const Table& units_of(Dimension dimension) {
    static const Table length = {{"cm", 1.0},
                                 {"m", 1e2},
                                 {"km", 1e5},
                                 {"au", cgs::astronomical_unit},
                                 {"pc", cgs::parsec},
                                 {"kpc", 1e3 * cgs::parsec},
                                 {"Mpc", 1e6 * cgs::parsec}};
    static const Table mass = {{"g", 1.0}, {"kg", 1e3}, {"Msun", cgs::solar_mass}};
    static const Table velocity = {{"cm/s", 1.0}, {"m/s", 1e2}, {"km/s", 1e5}};
    switch (dimension) {
    case Dimension::length: return length;
    case Dimension::mass: return mass;
    default: return velocity;
    }
}

const char* name_of(Dimension dimension) {
    switch (dimension) {
    case Dimension::length: return "a length";
    case Dimension::mass: return "a mass";
    default: return "a velocity";
    }
}

} // namespace

bool UnitSystem::known() const noexcept {
    auto good = [](double v) { return std::isfinite(v) && v > 0; };
    return good(length_cm) && good(mass_g) && good(velocity_cm_per_s);
}

double UnitSystem::gravitational_constant() const noexcept {
    return cgs::gravitational_constant * mass_g / (length_cm * velocity_cm_per_s * velocity_cm_per_s);
}

std::string unit_names(Dimension dimension) {
    std::string text;
    for (const auto& [name, factor] : units_of(dimension)) text += (text.empty() ? "" : ", ") + std::string(name);
    return text;
}

double parse_quantity(const std::string& text, Dimension dimension) {
    const std::string expected = std::string("must be ") + name_of(dimension) +
                                 " as a number and a unit, e.g. " +
                                 (dimension == Dimension::length ? "\"1 kpc\""
                                  : dimension == Dimension::mass ? "\"1e10 Msun\""
                                                                 : "\"1 km/s\"") +
                                 " (units: " + unit_names(dimension) + "; got \"" + text + "\")";
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double number = std::strtod(begin, &end);
    if (end == begin || errno == ERANGE || !std::isfinite(number) || !(number > 0) ||
        (*end != ' ' && *end != '\t'))
        throw UsageError(expected);
    while (*end == ' ' || *end == '\t') ++end;
    const std::string unit(end);
    for (const auto& [name, factor] : units_of(dimension)) {
        if (unit != name) continue;
        const double value = number * factor;
        if (!std::isfinite(value) || !(value > 0)) throw UsageError(expected);
        return value;
    }
    throw UsageError(expected);
}

UnitSystem unit_system_from(const std::string& length, const std::string& mass,
                            const std::string& velocity, double G) {
    const int given = !length.empty() + !mass.empty() + !velocity.empty();
    if (given == 0) return {};
    if (given == 1)
        throw UsageError("give two of length, mass and velocity (G derives the third) or all "
                         "three (they derive G), not one");
    UnitSystem u;
    if (!length.empty()) u.length_cm = parse_quantity(length, Dimension::length);
    if (!mass.empty()) u.mass_g = parse_quantity(mass, Dimension::mass);
    if (!velocity.empty()) u.velocity_cm_per_s = parse_quantity(velocity, Dimension::velocity);
    if (given == 3) return u;
    if (!(std::isfinite(G) && G > 0)) throw UsageError("G must be positive to derive a unit");
    // G_code = G_cgs M / (L V^2), solved for the missing one.
    const double g = cgs::gravitational_constant;
    if (length.empty()) u.length_cm = g * u.mass_g / (G * u.velocity_cm_per_s * u.velocity_cm_per_s);
    else if (mass.empty()) u.mass_g = G * u.length_cm * u.velocity_cm_per_s * u.velocity_cm_per_s / g;
    else u.velocity_cm_per_s = std::sqrt(g * u.mass_g / (G * u.length_cm));
    if (!u.known()) throw UsageError("the derived unit is out of range of a double");
    return u;
}

} // namespace partcl
