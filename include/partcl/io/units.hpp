#pragma once
// Physical units of an N-body run: what one code unit of length, mass and velocity is, in CGS
// (the convention of GADGET's /Units group, which pynbody reads and yt takes as unit_base).
// Time follows as length / velocity; G in code units as G_cgs M / (L V^2).
//
//   UnitSystem u = unit_system_from("1 kpc", "1e10 Msun", "");  // velocity from G = 1
//   u.gravitational_constant();  // 1
#include <string>

namespace partcl {

namespace cgs {
// CODATA 2018 and the IAU 2012/2015 resolutions.
inline constexpr double gravitational_constant = 6.67430e-8;  // cm^3 g^-1 s^-2
inline constexpr double astronomical_unit = 1.495978707e13;   // cm
inline constexpr double parsec = 3.0856775814913673e18;       // cm
inline constexpr double solar_mass = 1.988409870698051e33;    // g, GM_sun / G
inline constexpr double julian_year = 3.15576e7;              // s
} // namespace cgs

struct UnitSystem {
    double length_cm = 0;
    double mass_g = 0;
    double velocity_cm_per_s = 0;

    // All three set: a run with physical units. A default UnitSystem is none (G = 1 and no
    // meaning in the physical world).
    bool known() const noexcept;
    double time_s() const noexcept { return length_cm / velocity_cm_per_s; }
    // G in code units: G_cgs * mass / (length * velocity^2).
    double gravitational_constant() const noexcept;

};

inline bool operator==(const UnitSystem& a, const UnitSystem& b) {
    return a.length_cm == b.length_cm && a.mass_g == b.mass_g &&
           a.velocity_cm_per_s == b.velocity_cm_per_s;
}
inline bool operator!=(const UnitSystem& a, const UnitSystem& b) { return !(a == b); }

enum class Dimension { length, mass, velocity };

// "1 kpc", "1e10 Msun", "0.5 km/s": a positive finite number, one or more spaces, a unit of the
// dimension (length: cm, m, km, au, pc, kpc, Mpc; mass: g, kg, Msun; velocity: cm/s, m/s, km/s),
// in CGS. Throws UsageError saying what is wrong and which units are known.
double parse_quantity(const std::string& text, Dimension dimension);

// The unit names of a dimension, for messages and docs: "cm, m, km, au, pc, kpc, Mpc".
std::string unit_names(Dimension dimension);

// From the texts of a scenario's [units] (each "" when not given): none given is no unit system;
// two given derive the third from G (in code units); three given fix G themselves (`G` is
// ignored then: see gravitational_constant()). One alone throws UsageError.
UnitSystem unit_system_from(const std::string& length, const std::string& mass,
                            const std::string& velocity, double G = 1.0);

} // namespace partcl
