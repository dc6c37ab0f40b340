#include <partcl/io/scenario.hpp>

#include <partcl/integrate/integrator.hpp>
#include <partcl/backend/error.hpp>

// toml++ is used header-only and privately: nothing of it reaches partcl's headers or its link
// interface.
//
// toml++ 3.3 checks an internal precondition of its parser that malformed input such as
// "[{x]" or "[[[1]]]" violates (fixed upstream in marzer/tomlplusplus#301): with asserts on the
// program aborts, and with NDEBUG the check becomes an optimiser assumption (undefined behaviour
// with Clang), while the parser itself reports those inputs properly. So its asserts are turned
// into nothing and NDEBUG is hidden from it, which keeps the assumption out in every build type.
#include <cassert>
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
#define TOML_ASSERT(expr) static_cast<void>(0)
#ifdef NDEBUG
#define PARTCL_RESTORE_NDEBUG
#undef NDEBUG
#endif
#include <toml++/toml.h>
#ifdef PARTCL_RESTORE_NDEBUG
#define NDEBUG
#undef PARTCL_RESTORE_NDEBUG
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <variant>

#include "io/toml_text.hpp"

namespace partcl {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// Built-in scenarios. They are the documentation by example, so every key is spelled out.

const char* const galaxies_toml = R"toml(# Two Plummer spheres falling together on a nearly parabolic orbit with a small impact
# parameter: the default of `partcl run`. G = M = 1 units. 221 force evaluations (200 steps and
# 21 diagnostics), under a minute on a 2-core CPU.
[scenario]
name = "galaxies"
description = "two Plummer spheres (N = 16384) colliding"

[bodies]
initial = "galaxies"
n = 16384
seed = 42

[galaxies]
separation = 3.0         # centre distance along x at t = 0
impact_parameter = 0.5   # centre offset along y at t = 0
approach_speed = 0.8     # relative speed; parabolic would be sqrt(2 G M / separation) = 0.82
mass_ratio = 1.0         # M2 / M1
total_mass = 1.0
scale = 0.4              # Plummer radius of each sphere

[gravity]
model = "dense"
G = 1.0
softening = 0.04

[units]                  # code units in the physical world, for snapshots' readers
length = "10 kpc"
mass = "1e11 Msun"
velocity = ""            # from G = 1: 207.4 km/s; time unit 47.15 Myr

[integrator]
name = "leapfrog"
dt = 0.025
atol = 1e-8
rtol = 1e-8
damping = 1.0

[run]
steps = 200              # to t = 5: the spheres meet near t = 2 and merge
precision = "float"
diagnostics_every = 10
snapshot_every = 100
frame_every = 10
checkpoint_every = 100

[render]
width = 512
height = 512
extent = 0.0             # automatic: fixed from the initial positions
decades = 3.0
smoothing = 2.0
)toml";

const char* const plummer_toml = R"toml(# One Plummer sphere in virial equilibrium (Aarseth, Henon & Wielen 1974), G = M = a = 1.
# It should stay as it is: the virial ratio 2T/|W| stays near 1 and the energy is conserved.
[scenario]
name = "plummer"
description = "Plummer sphere in equilibrium (N = 4096)"

[bodies]
initial = "plummer"
n = 4096
seed = 42

[plummer]
scale = 1.0              # Plummer radius a
total_mass = 1.0

[gravity]
model = "dense"
G = 1.0
softening = 0.05

[units]                  # a star cluster
length = "1 pc"
mass = "1e4 Msun"
velocity = ""            # from G = 1: 6.558 km/s; time unit 0.1491 Myr

[integrator]
name = "leapfrog"
dt = 0.02
atol = 1e-8
rtol = 1e-8
damping = 1.0

[run]
steps = 500              # to t = 10, a few crossing times
precision = "float"
diagnostics_every = 10
snapshot_every = 250
frame_every = 25
checkpoint_every = 250

[render]
width = 512
height = 512
extent = 0.0
decades = 3.0
smoothing = 2.0
)toml";

const char* const kepler_toml = R"toml(# Two bodies on a Kepler ellipse, started at apocentre: ten periods (P = 2 pi) in double with
# no softening, the test bed of the integrators' order and energy conservation.
[scenario]
name = "kepler"
description = "two-body Kepler orbit, e = 0.5, ten periods"

[bodies]
initial = "kepler"
n = 2
seed = 42

[kepler]
eccentricity = 0.5
semi_major_axis = 1.0
masses = [0.5, 0.5]

[gravity]
model = "dense"
G = 1.0
softening = 0.0

[units]                  # the Earth and the Sun's mass
length = "1 au"
mass = "1 Msun"
velocity = ""            # from G = 1: 29.78 km/s; time unit 1 yr / 2 pi

[integrator]
name = "leapfrog"
dt = 0.006283185307179587   # P / 1000
atol = 1e-10
rtol = 1e-10
damping = 1.0

[run]
steps = 10000
precision = "double"
diagnostics_every = 10
snapshot_every = 0
frame_every = 0
checkpoint_every = 0

[render]
width = 512
height = 512
extent = 0.0
decades = 3.0
smoothing = 2.0
)toml";

const char* const cube_toml = R"toml(# Cold collapse of a uniform cube: bodies at rest, uniformly random in a cube, fall in and
# violently relax (free-fall time sqrt(3 pi / (32 G rho)) = 0.54 for side = M = 1).
[scenario]
name = "cube"
description = "cold collapse of a uniform cube (N = 4096)"

[bodies]
initial = "cube"
n = 4096
seed = 42

[cube]
side = 1.0
total_mass = 1.0
velocity = 0.0           # each velocity component uniform in [-velocity, velocity]

[gravity]
model = "dense"
G = 1.0
softening = 0.02

[units]                  # a cold cloud
length = "1 pc"
mass = "1e4 Msun"
velocity = ""            # from G = 1: 6.558 km/s; time unit 0.1491 Myr

[integrator]
name = "leapfrog"
dt = 0.002
atol = 1e-8
rtol = 1e-8
damping = 1.0

[run]
steps = 1000             # to t = 2: collapse near t = 0.55, bounce and relaxation
precision = "float"
diagnostics_every = 10
snapshot_every = 500
frame_every = 20
checkpoint_every = 500

[render]
width = 512
height = 512
extent = 0.0
decades = 3.0
smoothing = 2.0
)toml";

const char* const dambreak_toml = R"toml(# Explicit MPS dam break (Koshizuka & Oka 1996; experiment: Martin & Moyce 1952): a square
# column of water, a = 0.2 m, released at t = 0 in a tank 4 a long. front.csv holds the surge
# front x and Z = x / a against T = t sqrt(2 g / a) (docs/mps.md compares it with the
# experiment). 2-D, l0 = a / 64: 4096 water particles, 5920 in all, 9000 steps: about 70 s on
# a 2-core CPU (PoCL).
[scenario]
name = "dambreak"
description = "2-D MPS dam break, square column a = 0.2 m"
model = "mps"

[fluid]
setup = "dambreak"
dimensions = 2
spacing = 0.003125       # l0 [m]
water_width = 0.2        # a
water_height = 0.2
water_depth = 0.2        # 3-D only
tank_width = 0.8         # 4 a
tank_height = 0.3
tank_depth = 0.2         # 3-D only
dummy_layers = 3
density = 1000.0
viscosity = 1e-6
gravity = 9.81
sound_speed = 20.0       # about 10 sqrt(2 g a): density changes about 1%
re_ratio = 2.1
re_laplacian_ratio = 3.1
collision_ratio = 0.5
restitution = 0.2
courant = 0.2
end_time = 0.25          # T = t sqrt(2 g / a) = 2.48
sample_every = 0.0025
frame_every = 0.025

[run]
precision = "float"

[render]
width = 800
)toml";

const char* const dambreak3d_toml = R"toml(# The dam break in 3-D: the same column, 0.1 m deep, in a channel as deep (side walls both
# sides), at l0 = a / 16: 2048 water particles, 22016 in all, 2240 steps, about 105 s on a
# 2-core CPU (PoCL). The frames are side views.
[scenario]
name = "dambreak3d"
description = "3-D MPS dam break, column a = 0.2 m, 0.1 m deep"
model = "mps"

[fluid]
setup = "dambreak"
dimensions = 3
spacing = 0.0125
water_width = 0.2
water_height = 0.2
water_depth = 0.1
tank_width = 0.8
tank_height = 0.3
tank_depth = 0.1
dummy_layers = 3
density = 1000.0
viscosity = 1e-6
gravity = 9.81
sound_speed = 20.0
re_ratio = 2.1
re_laplacian_ratio = 3.1
collision_ratio = 0.5
restitution = 0.2
courant = 0.2
end_time = 0.25
sample_every = 0.0025
frame_every = 0.025

[run]
precision = "float"

[render]
width = 800
)toml";

const char* const hydrostatic_toml = R"toml(# A column of water at rest, 0.2 m x 0.2 m, in a tank as wide: after settling, the bottom
# row's pressure against rho g h (h from the water's volume). bottom_pressure.csv holds both
# over time; the summary averages them over the second half of the run (the explicit method's
# pressure oscillates acoustically and sloshes by a few per cent).
[scenario]
name = "hydrostatic"
description = "2-D MPS hydrostatic column, 0.2 m deep"
model = "mps"

[fluid]
setup = "hydrostatic"
dimensions = 2
spacing = 0.01
water_width = 0.2        # = tank_width
water_height = 0.2
water_depth = 0.2        # 3-D only, = tank_depth
tank_width = 0.2
tank_height = 0.3
tank_depth = 0.2
dummy_layers = 3
density = 1000.0
viscosity = 1e-6
gravity = 9.81
sound_speed = 15.0       # >= 7.5 sqrt(2 g h): density changes below 1%
re_ratio = 2.1
re_laplacian_ratio = 3.1
collision_ratio = 0.5
restitution = 0.2
courant = 0.2
end_time = 0.9           # settles in about 0.4 s; the second half is averaged
sample_every = 0.0025
frame_every = 0.05

[run]
precision = "float"

[render]
width = 400
)toml";

const char* const langmuir_toml = R"toml(# A cold plasma oscillation: electrons displaced by a small sine (mode 1 of a 2 pi box) oscillate
# at the plasma frequency omega_p = 1 (time in 1/omega_p). The summary gives the frequency of
# the field's mode from its zero crossings against omega_p (docs/pic.md: within 0.3%). 1-D, 64
# cells, 2048 electrons, 377 steps: a few seconds on a 2-core CPU (PoCL).
[scenario]
name = "langmuir"
description = "1-D cold plasma (Langmuir) oscillation, electrostatic PIC"
model = "pic"

[plasma]
setup = "langmuir"
dimensions = 1
cells = 64
length = 6.283185307179586   # 2 pi: mode 1 has k = 1
particles_per_cell = 32
amplitude = 0.006            # about 1e-3 of the box
mode = 1
beam_speed = 0.0             # two-stream only
seed = 42                    # species only
dt = 0.1
end_time = 37.69911184307752 # six plasma periods
deposit = "gather"
sample_every = 1
frame_every = 20
checkpoint_every = 0         # at the end only

[run]
precision = "float"

[render]
width = 512
)toml";

const char* const two_stream_toml = R"toml(# The two-stream instability: two interleaved cold electron beams at +-v0 (omega_p = 1 in
# total), mode 1 seeded at k v0 = sqrt(3/8), the fastest-growing mode of cold-beam linear
# theory (gamma = 1 / (2 sqrt 2) = 0.354). The summary fits the growth rate of log |E_1| over
# the linear phase against theory; the frames show the beams roll up into phase-space vortices.
# 1-D, 64 cells, 4096 electrons, 320 steps: a few seconds on a 2-core CPU (PoCL).
[scenario]
name = "two-stream"
description = "1-D cold two-stream instability, electrostatic PIC"
model = "pic"

[plasma]
setup = "two-stream"
dimensions = 1
cells = 64
length = 6.283185307179586   # 2 pi: mode 1 has k = 1
particles_per_cell = 64
amplitude = 0.0001
mode = 1
beam_speed = 0.6123724356957945  # sqrt(3/8)
seed = 42                    # species only
dt = 0.1
end_time = 32.0              # linear growth to t ~ 23, then saturation and trapping
deposit = "gather"
sample_every = 1
frame_every = 20
checkpoint_every = 0         # at the end only

[run]
precision = "float"

[render]
width = 512
)toml";

const char* const pair_plasma_toml = R"toml(# An electron-positron (pair) plasma oscillation in 2-D: two mobile cold species of equal mass,
# the electrons displaced along the diagonal wave mode = [1, 1] of a 2 pi box. The charge
# separation oscillates at the cold-plasma frequency sqrt(omega_pe^2 + omega_pp^2) = sqrt 2 (the
# positrons move as much as the electrons, the other way); the summary gives the frequency of
# the field's mode from its zero crossings against it (docs/pic.md). 64 x 64 cells, 4 + 4
# particles per cell (32768), 267 steps.
[scenario]
name = "pair-plasma"
description = "2-D electron-positron plasma oscillation, two mobile species, electrostatic PIC"
model = "pic"

[plasma]
setup = "species"
dimensions = 2
cells = 64                   # per axis
length = 6.283185307179586   # 2 pi per axis: mode [1, 1] has |k| = sqrt 2
particles_per_cell = 32      # langmuir, two-stream only
amplitude = 0.006            # langmuir, two-stream only
mode = [1, 1, 0]
beam_speed = 0.0             # two-stream only
seed = 42
dt = 0.1                     # omega dt = 0.14
end_time = 26.657297628950193  # six periods of 2 pi / sqrt 2
deposit = "gather"
sample_every = 1
frame_every = 40
checkpoint_every = 0         # at the end only

[[plasma.species]]
name = "electrons"
charge = -1.0
mass = 1.0
density = 1.0                # omega_pe = 1
particles_per_cell = 4       # 2 x 2 per cell
drift = [0.0, 0.0]
thermal_speed = 0.0
amplitude = 0.006            # along k: sin(k . x0) (k / |k|)

[[plasma.species]]
name = "positrons"
charge = 1.0
mass = 1.0
density = 1.0
particles_per_cell = 4
drift = [0.0, 0.0]
thermal_speed = 0.0
amplitude = 0.0

[run]
precision = "float"

[render]
width = 512
)toml";

const std::vector<std::pair<std::string, std::string>>& builtins() {
    static const std::vector<std::pair<std::string, std::string>> list = {
        {"galaxies", galaxies_toml},
        {"plummer", plummer_toml},
        {"kepler", kepler_toml},
        {"cube", cube_toml},
        {"dambreak", dambreak_toml},
        {"dambreak3d", dambreak3d_toml},
        {"hydrostatic", hydrostatic_toml},
        {"langmuir", langmuir_toml},
        {"two-stream", two_stream_toml},
        {"pair-plasma", pair_plasma_toml},
    };
    return list;
}

std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

// ---------------------------------------------------------------------------------------------
// Formatting

// Shortest decimal that reads back as the same double, always recognisable as a TOML float.
std::string format_double(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char text[40];
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    std::string result = text;
    if (result.find_first_of(".en") == std::string::npos) result += ".0";
    return result;
}

// The same for messages: "-1", not the TOML spelling "-1.0".
std::string format_number(double value) {
    std::string text = format_double(value);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0)
        text.resize(text.size() - 2);
    return text;
}

std::string quote(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char escape[8];
                std::snprintf(escape, sizeof escape, "\\u%04x", c);
                out += escape;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

std::string describe(const toml::node& node);
std::string describe(const toml::node& node) {
    switch (node.type()) {
    case toml::node_type::string: return quote(node.as_string()->get());
    case toml::node_type::integer: return std::to_string(node.as_integer()->get());
    case toml::node_type::floating_point: return format_number(node.as_floating_point()->get());
    case toml::node_type::boolean: return node.as_boolean()->get() ? "true" : "false";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: {
        const auto& array = *node.as_array();
        std::string text = "[";
        for (std::size_t i = 0; i < array.size(); ++i)
            text += (i ? ", " : "") + describe(*array.get(i));
        return text + "]";
    }
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
    }
}

// ---------------------------------------------------------------------------------------------
// The schema: every key, how to read and write it, and what makes its value valid.

using S = Scenario;
using RealRef = double& (*)(S&);
using CountRef = std::uint64_t& (*)(S&);
using IntRef = int& (*)(S&);
using TextRef = std::string& (*)(S&);
using PathRef = fs::path& (*)(S&);
using PairRef = std::array<double, 2>& (*)(S&);
using PrecisionRef = Precision& (*)(S&);
using ModeRef = std::array<std::uint64_t, 3>& (*)(S&);  // an integer (x) or 1 to 3 integers
using SpeciesRef = std::vector<PlasmaSpecies>& (*)(S&);  // [[plasma.species]]
using Ref = std::variant<RealRef, CountRef, IntRef, TextRef, PathRef, PairRef, PrecisionRef,
                         ModeRef, SpeciesRef>;
// "" when the value is fine, else what is wrong, e.g. "must be positive (got -1)".
using Check = std::string (*)(const S&);

struct Field {
    const char* table;
    const char* key;
    Ref ref;
    Check check;
    const char* comment;  // for to_toml, may be empty
};

std::string ok() { return {}; }
std::string finite(double v) {
    return std::isfinite(v) ? ok() : "must be a finite number (got " + format_number(v) + ")";
}
std::string positive(double v) {
    if (!std::isfinite(v)) return finite(v);
    return v > 0 ? ok() : "must be positive (got " + format_number(v) + ")";
}
std::string non_negative(double v) {
    if (!std::isfinite(v)) return finite(v);
    return v >= 0 ? ok() : "must not be negative (got " + format_number(v) + ")";
}
// An interval of a run of length end_time that writes something every `every`: 0 (never) or
// at most 10^5 of them.
std::string interval_or_zero(double every, double end_time) {
    if (auto p = non_negative(every); !p.empty()) return p;
    return every == 0 || end_time / every <= 1e5
               ? ok()
               : "must be 0 or at least end_time / 10^5 (got " + format_number(every) + ")";
}
std::string count_limit(std::uint64_t v) {
    return v <= std::uint64_t(std::numeric_limits<std::int64_t>::max())
               ? ok()
               : "must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max()) +
                     " (got " + std::to_string(v) + ")";
}
std::string one_of(const std::string& v, const std::vector<std::string>& names,
                   const char* what) {
    if (std::find(names.begin(), names.end(), v) != names.end()) return ok();
    return quote(v) + " is not " + what + " (known: " + join(names) + ")";
}

std::string check_n(const S& s) {
    const std::uint64_t max_n = 0xffffffffull;  // the snapshot header's 32-bit counts
    if (s.n > max_n)
        return "must be at most " + std::to_string(max_n) + " (got " + std::to_string(s.n) + ")";
    if (s.initial == "snapshot") return ok();  // 0 = as many as the file has
    if (s.n == 0) return "must be at least 1 (got 0)";
    if (s.initial == "kepler")
        return s.n == 2 ? ok()
                        : "must be 2 for initial = \"kepler\" (got " + std::to_string(s.n) + ")";
    if (s.initial == "galaxies" && s.n < 2)
        return "must be at least 2 for initial = \"galaxies\" (got " + std::to_string(s.n) +
               ")";
    return s.n >= 1 ? ok() : "must be at least 1 (got " + std::to_string(s.n) + ")";
}

// [fluid]: a water or tank size along one axis: a whole multiple of the spacing (mps_tank's
// rule, within 1e-6), not more than 10^5 of them.
std::string lattice_length(const S& s, double length) {
    if (auto problem = positive(length); !problem.empty()) return problem;
    const double l0 = s.fluid.spacing;
    if (!(l0 > 0) || !std::isfinite(l0)) return ok();  // [fluid] spacing reports it
    const double cells = length / l0;
    if (cells > 1e5)
        return "is more than 100000 spacings (got " + format_number(length) + " with spacing " +
               format_number(l0) + ")";
    if (cells < 1 - 1e-6 || std::fabs(cells - std::round(cells)) > 1e-6 * cells)
        return "must be a whole multiple of the spacing " + format_number(l0) + " (got " +
               format_number(length) + ")";
    return ok();
}
// The water must lie inside the tank (particles outside the domain); a hydrostatic column
// fills the tank's width (and depth).
std::string water_in_tank(const S& s, double water, double tank, const char* tank_key) {
    if (auto problem = lattice_length(s, water); !problem.empty()) return problem;
    if (!(tank > 0) || !std::isfinite(tank)) return ok();  // the tank's own key reports it
    if (water > tank * (1 + 1e-9))
        return "must not exceed [fluid] " + std::string(tank_key) + " " + format_number(tank) +
               ": the water would lie outside the tank (got " + format_number(water) + ")";
    if (s.fluid.setup == "hydrostatic" && std::strcmp(tank_key, "tank_height") != 0 &&
        std::fabs(water - tank) > 1e-9 * tank)
        return "must equal [fluid] " + std::string(tank_key) + " " + format_number(tank) +
               " for setup = \"hydrostatic\" (got " + format_number(water) + ")";
    return ok();
}
std::string ratio_above_one(double v, const char* what) {
    if (!std::isfinite(v)) return finite(v);
    return v > 1 ? ok()
                 : "must be larger than 1: " + std::string(what) +
                       " = ratio x spacing must exceed the spacing (got " + format_number(v) + ")";
}

// [plasma]: the grid's dimensions, clamped to 1..3 for the checks of other keys (dimensions
// reports its own problem).
int plasma_dimensions(const S& s) { return std::min(3, std::max(1, s.plasma.dimensions)); }

std::string format_mode(const std::array<std::uint64_t, 3>& m) {
    if (m[1] == 0 && m[2] == 0) return std::to_string(m[0]);
    return "[" + std::to_string(m[0]) + ", " + std::to_string(m[1]) + ", " + std::to_string(m[2]) + "]";
}

// |k| of the seeded wave, 2 pi |mode| / L.
double wave_number(const S& s) {
    double sum = 0;
    for (std::uint64_t m : s.plasma.mode) sum += double(m) * double(m);
    return 2 * 3.141592653589793 * std::sqrt(sum) / s.plasma.length;
}

// A displacement a sin(k . x0) along k keeps the particles in order only while a |k| < 1.
std::string displacement(const S& s, double amplitude) {
    if (auto p = non_negative(amplitude); !p.empty()) return p;
    const double k = wave_number(s);
    return !(amplitude * k >= 1) ? ok()
               : "must be below L / (2 pi |mode|) = " + format_number(1 / k) +
                     ": larger displacements cross particles (got " + format_number(amplitude) + ")";
}

const char* const species_keys[] = {"name", "charge", "mass", "density", "particles_per_cell",
                                    "drift", "thermal_speed", "amplitude"};

std::string check_species(const S& s) {
    const auto& p = s.plasma;
    if (p.setup != "species")
        return p.species.empty() ? ok()
                                 : "([[plasma.species]]) is for setup = \"species\" (this one is " +
                                       quote(p.setup) + ")";
    if (p.species.empty()) return "([[plasma.species]]) must list at least one species for setup = \"species\"";
    if (p.species.size() > 64)
        return "([[plasma.species]]) lists " + std::to_string(p.species.size()) + " species, at most 64";
    const int d = plasma_dimensions(s);
    const double points = std::pow(double(p.cells), d);
    double total = 0;
    for (std::size_t i = 0; i < p.species.size(); ++i) {
        const PlasmaSpecies& sp = p.species[i];
        const std::string who = std::to_string(i + 1) + " (" + quote(sp.name) + ") ";
        if (auto e = finite(sp.charge); !e.empty()) return who + "charge " + e;
        if (auto e = positive(sp.mass); !e.empty()) return who + "mass " + e;
        if (auto e = positive(sp.density); !e.empty()) return who + "density " + e;
        if (sp.particles_per_cell > 1000000 || !lattice_side(sp.particles_per_cell, d))
            return who + "particles_per_cell must be m^" + std::to_string(d) +
                   " (a lattice of m per axis in each cell; 1.." + std::to_string(d == 1 ? 1000000 : d == 2 ? 1000 : 100) +
                   " per axis) (got " + std::to_string(sp.particles_per_cell) + ")";
        for (int a = 0; a < 3; ++a) {
            if (auto e = finite(sp.drift[a]); !e.empty()) return who + "drift " + e;
            if (a >= d && sp.drift[a] != 0)
                return who + "drift must be 0 beyond the grid's " + std::to_string(d) +
                       " dimension(s) (got " + format_number(sp.drift[a]) + " on axis " + std::to_string(a) + ")";
        }
        if (auto e = non_negative(sp.thermal_speed); !e.empty()) return who + "thermal_speed " + e;
        if (auto e = displacement(s, sp.amplitude); !e.empty()) return who + "amplitude " + e;
        total += double(sp.particles_per_cell) * points;
    }
    if (total > double(1u << 26))
        return "([[plasma.species]]) give " + format_number(total) + " particles on " +
               std::to_string(p.cells) + "^" + std::to_string(d) + " cells, more than 2^26";
    return ok();
}

// [units]: each given unit reads as one of its dimension; one given alone is an error (two
// derive the third from G, three derive G).
std::string check_unit(const S& s, const std::string& text, Dimension dimension) {
    if (text.empty()) return ok();
    try {
        parse_quantity(text, dimension);
    } catch (const UsageError& error) {
        return error.what();
    }
    const auto& u = s.units;
    if (u.length.empty() + u.mass.empty() + u.velocity.empty() == 2)
        return "is the only unit given: give two of length, mass and velocity ([gravity] G "
               "derives the third) or all three (they derive G)";
    return ok();
}

// The G of [units] with all three units; 0 when they are fewer or do not read.
double units_G(const S& s) {
    const auto& u = s.units;
    if (u.length.empty() || u.mass.empty() || u.velocity.empty()) return 0;
    try {
        return unit_system_from(u.length, u.mass, u.velocity).gravitational_constant();
    } catch (const UsageError&) {
        return 0;
    }
}

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

// [run] end_time: 0, or a time a fixed-step integrator reaches in a whole number of steps of dt
// (to 1e-9 of a step) and an adaptive one in at most 10^12 steps of its first dt.
std::string check_end_time(const S& s) {
    if (auto problem = non_negative(s.end_time); !problem.empty()) return problem;
    if (s.end_time == 0 || !(s.dt > 0) || !std::isfinite(s.dt)) return ok();
    const double steps = s.end_time / s.dt;
    if (steps > 1e12)
        return "is more than 10^12 steps of [integrator] dt = " + format_number(s.dt) + " (got " +
               format_number(s.end_time) + ")";
    if (integrator_adapts_step(s.integrator)) return ok();
    if (steps < 1 - 1e-9 || std::fabs(steps - std::round(steps)) > 1e-9 * steps)
        return "must be a whole number of steps of [integrator] dt = " + format_number(s.dt) +
               " for " + s.integrator + " (got " + format_number(s.end_time) + ", " +
               format_number(steps) + " steps); dopri5 shortens its last step instead";
    return ok();
}

const std::vector<Field>& schema() {
    static const std::vector<Field> fields = {
        {"scenario", "name", TextRef([](S& s) -> std::string& { return s.name; }),
         [](const S& s) { return s.name.empty() ? std::string("must not be empty") : ok(); }, ""},
        {"scenario", "description", TextRef([](S& s) -> std::string& { return s.description; }),
         [](const S&) { return ok(); }, ""},
        {"scenario", "model", TextRef([](S& s) -> std::string& { return s.model; }),
         [](const S& s) { return one_of(s.model, model_names(), "a model"); },
         "nbody | mps | pic"},

        {"bodies", "initial", TextRef([](S& s) -> std::string& { return s.initial; }),
         [](const S& s) {
             return one_of(s.initial, initial_condition_names(), "a kind of initial conditions");
         },
         "galaxies | plummer | kepler | cube | snapshot"},
        {"bodies", "n", CountRef([](S& s) -> std::uint64_t& { return s.n; }), check_n,
         "kepler: 2; snapshot: 0 = all in the file"},
        {"bodies", "seed", CountRef([](S& s) -> std::uint64_t& { return s.seed; }),
         [](const S& s) { return count_limit(s.seed); }, ""},
        {"bodies", "snapshot", PathRef([](S& s) -> fs::path& { return s.snapshot; }),
         [](const S& s) {
             return s.initial == "snapshot" && s.snapshot.empty()
                        ? std::string("must name an HDF5 file for initial = \"snapshot\"")
                        : ok();
         },
         "HDF5 file for initial = \"snapshot\""},

        {"plummer", "scale", RealRef([](S& s) -> double& { return s.plummer.scale; }),
         [](const S& s) { return positive(s.plummer.scale); }, "Plummer radius a"},
        {"plummer", "total_mass", RealRef([](S& s) -> double& { return s.plummer.total_mass; }),
         [](const S& s) { return positive(s.plummer.total_mass); }, ""},

        {"galaxies", "separation",
         RealRef([](S& s) -> double& { return s.galaxies.separation; }),
         [](const S& s) { return non_negative(s.galaxies.separation); }, ""},
        {"galaxies", "impact_parameter",
         RealRef([](S& s) -> double& { return s.galaxies.impact_parameter; }),
         [](const S& s) { return finite(s.galaxies.impact_parameter); }, ""},
        {"galaxies", "approach_speed",
         RealRef([](S& s) -> double& { return s.galaxies.approach_speed; }),
         [](const S& s) { return finite(s.galaxies.approach_speed); }, ""},
        {"galaxies", "mass_ratio",
         RealRef([](S& s) -> double& { return s.galaxies.mass_ratio; }),
         [](const S& s) { return positive(s.galaxies.mass_ratio); }, "M2 / M1"},
        {"galaxies", "total_mass",
         RealRef([](S& s) -> double& { return s.galaxies.total_mass; }),
         [](const S& s) { return positive(s.galaxies.total_mass); }, ""},
        {"galaxies", "scale", RealRef([](S& s) -> double& { return s.galaxies.scale; }),
         [](const S& s) { return positive(s.galaxies.scale); }, ""},

        {"kepler", "eccentricity",
         RealRef([](S& s) -> double& { return s.kepler.eccentricity; }),
         [](const S& s) {
             const double e = s.kepler.eccentricity;
             if (!std::isfinite(e)) return finite(e);
             return e >= 0 && e < 1 ? ok()
                                    : "must be in [0, 1) (got " + format_number(e) + ")";
         },
         ""},
        {"kepler", "semi_major_axis",
         RealRef([](S& s) -> double& { return s.kepler.semi_major_axis; }),
         [](const S& s) { return positive(s.kepler.semi_major_axis); }, ""},
        {"kepler", "masses",
         PairRef([](S& s) -> std::array<double, 2>& { return s.kepler.masses; }),
         [](const S& s) {
             for (double m : s.kepler.masses)
                 if (auto problem = positive(m); !problem.empty())
                     return "must both be positive (got " + format_number(m) + ")";
             return ok();
         },
         ""},

        {"cube", "side", RealRef([](S& s) -> double& { return s.cube.side; }),
         [](const S& s) { return positive(s.cube.side); }, ""},
        {"cube", "total_mass", RealRef([](S& s) -> double& { return s.cube.total_mass; }),
         [](const S& s) { return positive(s.cube.total_mass); }, ""},
        {"cube", "velocity", RealRef([](S& s) -> double& { return s.cube.velocity; }),
         [](const S& s) { return non_negative(s.cube.velocity); }, ""},

        {"gravity", "model", TextRef([](S& s) -> std::string& { return s.gravity_model; }),
         [](const S& s) { return one_of(s.gravity_model, gravity_model_names(), "a gravity model"); },
         ""},
        {"gravity", "G", RealRef([](S& s) -> double& { return s.gravity.G; }), check_G,
         "[units] with all three units derive it"},
        {"gravity", "softening", RealRef([](S& s) -> double& { return s.gravity.softening; }),
         [](const S& s) { return non_negative(s.gravity.softening); }, "Plummer epsilon"},
        {"gravity", "theta", RealRef([](S& s) -> double& { return s.tree.theta; }),
         [](const S& s) {
             const double t = s.tree.theta;
             if (!std::isfinite(t)) return finite(t);
             return t >= 0 && t <= 1 ? ok() : "must be in [0, 1] (got " + format_number(t) + ")";
         },
         "tree: opening angle, 0 = direct sum"},
        {"gravity", "leaf_size", CountRef([](S& s) -> std::uint64_t& { return s.tree.leaf_size; }),
         [](const S& s) {
             const std::uint64_t l = s.tree.leaf_size;
             return l >= 1 && l <= (1u << 20)
                        ? ok()
                        : "must be in [1, 1048576] (got " + std::to_string(l) + ")";
         },
         "tree: most bodies in a leaf"},
        {"gravity", "traversal", TextRef([](S& s) -> std::string& { return s.tree.traversal; }),
         [](const S& s) {
             return one_of(s.tree.traversal, {"stackless", "nested"}, "a tree traversal");
         },
         "tree: stackless | nested"},
        {"gravity", "group_size", CountRef([](S& s) -> std::uint64_t& { return s.tree.group_size; }),
         [](const S& s) {
             const std::uint64_t g = s.tree.group_size;
             return g >= 1 && g <= 1024 && (g & (g - 1)) == 0
                        ? ok()
                        : "must be a power of two in [1, 1024] (got " + std::to_string(g) + ")";
         },
         "tree: most bodies walking the tree together"},

        {"units", "length", TextRef([](S& s) -> std::string& { return s.units.length; }),
         [](const S& s) { return check_unit(s, s.units.length, Dimension::length); },
         "e.g. \"1 kpc\"; \"\" = none"},
        {"units", "mass", TextRef([](S& s) -> std::string& { return s.units.mass; }),
         [](const S& s) { return check_unit(s, s.units.mass, Dimension::mass); },
         "e.g. \"1e10 Msun\""},
        {"units", "velocity", TextRef([](S& s) -> std::string& { return s.units.velocity; }),
         [](const S& s) { return check_unit(s, s.units.velocity, Dimension::velocity); },
         "e.g. \"1 km/s\""},

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

        {"run", "steps", CountRef([](S& s) -> std::uint64_t& { return s.steps; }),
         [](const S& s) {
             if (s.steps == 0) return std::string("must be at least 1 (got 0)");
             return count_limit(s.steps);
         },
         ""},
        {"run", "end_time", RealRef([](S& s) -> double& { return s.end_time; }), check_end_time,
         "> 0: run to this time instead of steps"},
        {"run", "precision", PrecisionRef([](S& s) -> Precision& { return s.precision; }),
         [](const S&) { return ok(); }, "float | double"},
        {"run", "diagnostics_every",
         CountRef([](S& s) -> std::uint64_t& { return s.diagnostics_every; }),
         [](const S& s) { return count_limit(s.diagnostics_every); }, "0 = first and last step"},
        {"run", "snapshot_every",
         CountRef([](S& s) -> std::uint64_t& { return s.snapshot_every; }),
         [](const S& s) { return count_limit(s.snapshot_every); }, "0 = only at the end"},
        {"run", "frame_every", CountRef([](S& s) -> std::uint64_t& { return s.frame_every; }),
         [](const S& s) { return count_limit(s.frame_every); }, "0 = no frames"},
        {"run", "checkpoint_every",
         CountRef([](S& s) -> std::uint64_t& { return s.checkpoint_every; }),
         [](const S& s) { return count_limit(s.checkpoint_every); }, "0 = only at the end"},

        {"render", "width", IntRef([](S& s) -> int& { return s.render.width; }),
         [](const S& s) {
             return s.render.width >= 1 && s.render.width <= 16384
                        ? ok()
                        : "must be in 1..16384 (got " + std::to_string(s.render.width) + ")";
         },
         "pixels"},
        {"render", "height", IntRef([](S& s) -> int& { return s.render.height; }),
         [](const S& s) {
             return s.render.height >= 1 && s.render.height <= 16384
                        ? ok()
                        : "must be in 1..16384 (got " + std::to_string(s.render.height) + ")";
         },
         "pixels"},
        {"render", "extent", RealRef([](S& s) -> double& { return s.render.extent; }),
         [](const S& s) { return non_negative(s.render.extent); },
         "half-width of the frame; 0 = automatic from the initial positions"},
        {"render", "decades", RealRef([](S& s) -> double& { return s.render.decades; }),
         [](const S& s) { return positive(s.render.decades); },
         "dynamic range of the log density"},
        {"render", "smoothing", RealRef([](S& s) -> double& { return s.render.smoothing; }),
         [](const S& s) {
             const double v = s.render.smoothing;
             if (!std::isfinite(v)) return finite(v);
             return v >= 0 && v <= 64 ? ok() : "must be in [0, 64] (got " + format_number(v) + ")";
         },
         "Gaussian sigma in pixels"},

        {"fluid", "setup", TextRef([](S& s) -> std::string& { return s.fluid.setup; }),
         [](const S& s) { return one_of(s.fluid.setup, fluid_setup_names(), "a fluid set-up"); },
         "dambreak | hydrostatic"},
        {"fluid", "dimensions", IntRef([](S& s) -> int& { return s.fluid.dimensions; }),
         [](const S& s) {
             const int d = s.fluid.dimensions;
             return d == 2 || d == 3 ? ok() : "must be 2 or 3 (got " + std::to_string(d) + ")";
         },
         ""},
        {"fluid", "spacing", RealRef([](S& s) -> double& { return s.fluid.spacing; }),
         [](const S& s) { return positive(s.fluid.spacing); }, "l0 [m]"},
        {"fluid", "water_width", RealRef([](S& s) -> double& { return s.fluid.water_width; }),
         [](const S& s) { return water_in_tank(s, s.fluid.water_width, s.fluid.tank_width, "tank_width"); },
         "dambreak: a [m]"},
        {"fluid", "water_height", RealRef([](S& s) -> double& { return s.fluid.water_height; }),
         [](const S& s) { return water_in_tank(s, s.fluid.water_height, s.fluid.tank_height, "tank_height"); },
         ""},
        {"fluid", "water_depth", RealRef([](S& s) -> double& { return s.fluid.water_depth; }),
         [](const S& s) {
             return s.fluid.dimensions == 3
                        ? water_in_tank(s, s.fluid.water_depth, s.fluid.tank_depth, "tank_depth")
                        : positive(s.fluid.water_depth);
         },
         "3-D only"},
        {"fluid", "tank_width", RealRef([](S& s) -> double& { return s.fluid.tank_width; }),
         [](const S& s) { return lattice_length(s, s.fluid.tank_width); }, ""},
        {"fluid", "tank_height", RealRef([](S& s) -> double& { return s.fluid.tank_height; }),
         [](const S& s) { return lattice_length(s, s.fluid.tank_height); }, ""},
        {"fluid", "tank_depth", RealRef([](S& s) -> double& { return s.fluid.tank_depth; }),
         [](const S& s) {
             return s.fluid.dimensions == 3 ? lattice_length(s, s.fluid.tank_depth)
                                            : positive(s.fluid.tank_depth);
         },
         "3-D only"},
        {"fluid", "dummy_layers", CountRef([](S& s) -> std::uint64_t& { return s.fluid.dummy_layers; }),
         [](const S& s) {
             const std::uint64_t l = s.fluid.dummy_layers;
             return l <= 10 ? ok() : "must be in 0..10 (got " + std::to_string(l) + ")";
         },
         "behind the wall layer"},
        {"fluid", "density", RealRef([](S& s) -> double& { return s.fluid.density; }),
         [](const S& s) { return positive(s.fluid.density); }, "[kg/m^3]"},
        {"fluid", "viscosity", RealRef([](S& s) -> double& { return s.fluid.viscosity; }),
         [](const S& s) { return non_negative(s.fluid.viscosity); }, "kinematic [m^2/s]"},
        {"fluid", "gravity", RealRef([](S& s) -> double& { return s.fluid.gravity; }),
         [](const S& s) { return non_negative(s.fluid.gravity); }, "[m/s^2], downwards"},
        {"fluid", "sound_speed", RealRef([](S& s) -> double& { return s.fluid.sound_speed; }),
         [](const S& s) { return positive(s.fluid.sound_speed); }, "[m/s]"},
        {"fluid", "re_ratio", RealRef([](S& s) -> double& { return s.fluid.re_ratio; }),
         [](const S& s) {
             if (auto p = ratio_above_one(s.fluid.re_ratio, "re"); !p.empty()) return p;
             return s.fluid.re_ratio <= 8 ? ok() : "must be at most 8 (got " + format_number(s.fluid.re_ratio) + ")";
         },
         "re / spacing"},
        {"fluid", "re_laplacian_ratio",
         RealRef([](S& s) -> double& { return s.fluid.re_laplacian_ratio; }),
         [](const S& s) {
             if (auto p = ratio_above_one(s.fluid.re_laplacian_ratio, "re of the Laplacian"); !p.empty())
                 return p;
             return s.fluid.re_laplacian_ratio <= 8
                        ? ok()
                        : "must be at most 8 (got " + format_number(s.fluid.re_laplacian_ratio) + ")";
         },
         "re / spacing"},
        {"fluid", "collision_ratio", RealRef([](S& s) -> double& { return s.fluid.collision_ratio; }),
         [](const S& s) {
             const double v = s.fluid.collision_ratio;
             if (!std::isfinite(v)) return finite(v);
             return v >= 0 && v < 1 ? ok() : "must be in [0, 1) (got " + format_number(v) + ")";
         },
         "collision distance / spacing"},
        {"fluid", "restitution", RealRef([](S& s) -> double& { return s.fluid.restitution; }),
         [](const S& s) {
             const double v = s.fluid.restitution;
             if (!std::isfinite(v)) return finite(v);
             return v >= 0 && v <= 1 ? ok() : "must be in [0, 1] (got " + format_number(v) + ")";
         },
         ""},
        {"fluid", "courant", RealRef([](S& s) -> double& { return s.fluid.courant; }),
         [](const S& s) {
             const double v = s.fluid.courant;
             if (!std::isfinite(v)) return finite(v);
             return v > 0 && v <= 1 ? ok() : "must be in (0, 1] (got " + format_number(v) + ")";
         },
         ""},
        {"fluid", "end_time", RealRef([](S& s) -> double& { return s.fluid.end_time; }),
         [](const S& s) { return positive(s.fluid.end_time); }, "[s]"},
        {"fluid", "steps", CountRef([](S& s) -> std::uint64_t& { return s.fluid.steps; }),
         [](const S& s) { return count_limit(s.fluid.steps); },
         "> 0: stop after this many steps instead of end_time"},
        {"fluid", "sample_every", RealRef([](S& s) -> double& { return s.fluid.sample_every; }),
         [](const S& s) {
             if (auto p = positive(s.fluid.sample_every); !p.empty()) return p;
             return s.fluid.end_time / s.fluid.sample_every <= 1e6
                        ? ok()
                        : "must be at least end_time / 10^6 (got " + format_number(s.fluid.sample_every) + ")";
         },
         "[s] between CSV rows"},
        {"fluid", "frame_every", RealRef([](S& s) -> double& { return s.fluid.frame_every; }),
         [](const S& s) { return interval_or_zero(s.fluid.frame_every, s.fluid.end_time); },
         "[s] between frames, 0 = none"},
        {"fluid", "checkpoint_every", RealRef([](S& s) -> double& { return s.fluid.checkpoint_every; }),
         [](const S& s) { return interval_or_zero(s.fluid.checkpoint_every, s.fluid.end_time); },
         "[s] between checkpoints, 0 = at the end only"},
        {"plasma", "setup", TextRef([](S& s) -> std::string& { return s.plasma.setup; }),
         [](const S& s) { return one_of(s.plasma.setup, plasma_setup_names(), "a plasma set-up"); },
         "langmuir | two-stream | species"},
        {"plasma", "dimensions", IntRef([](S& s) -> int& { return s.plasma.dimensions; }),
         [](const S& s) {
             const int d = s.plasma.dimensions;
             if (d < 1 || d > 3) return "must be 1, 2 or 3 (got " + std::to_string(d) + ")";
             return d == 1 || s.plasma.setup == "species"
                        ? ok()
                        : "must be 1 for setup = " + quote(s.plasma.setup) +
                              " (setup = \"species\" runs 2-D and 3-D; got " + std::to_string(d) + ")";
         },
         "1, 2 or 3 (species); langmuir, two-stream: 1"},
        {"plasma", "cells", CountRef([](S& s) -> std::uint64_t& { return s.plasma.cells; }),
         [](const S& s) {
             const std::uint64_t c = s.plasma.cells;
             if (c < 4 || c > (1u << 22)) return "must be in 4..4194304 (got " + std::to_string(c) + ")";
             return std::pow(double(c), plasma_dimensions(s)) <= double(1u << 24)
                        ? ok()
                        : "gives more than 2^24 grid points in " + std::to_string(plasma_dimensions(s)) +
                              "-D (got " + std::to_string(c) + " per axis)";
         },
         "grid nodes per axis, the FFT's size"},
        {"plasma", "length", RealRef([](S& s) -> double& { return s.plasma.length; }),
         [](const S& s) { return positive(s.plasma.length); }, "box length L per axis"},
        {"plasma", "particles_per_cell",
         CountRef([](S& s) -> std::uint64_t& { return s.plasma.particles_per_cell; }),
         [](const S& s) {
             const std::uint64_t p = s.plasma.particles_per_cell;
             if (p < 1 || p > 1000000) return "must be in 1..1000000 (got " + std::to_string(p) + ")";
             if (s.plasma.cells <= (1u << 22) && s.plasma.cells * p > (1u << 26))
                 return "gives more than 2^26 particles with [plasma] cells " +
                        std::to_string(s.plasma.cells) + " (got " + std::to_string(p) + ")";
             if (s.plasma.setup == "two-stream" && (s.plasma.cells * p) % 2)
                 return "must give an even number of particles for setup = \"two-stream\" (got " +
                        std::to_string(p) + " with " + std::to_string(s.plasma.cells) + " cells)";
             return ok();
         },
         "langmuir, two-stream (an even total)"},
        {"plasma", "amplitude", RealRef([](S& s) -> double& { return s.plasma.amplitude; }),
         [](const S& s) { return displacement(s, s.plasma.amplitude); },
         "langmuir, two-stream: displacement"},
        {"plasma", "mode", ModeRef([](S& s) -> std::array<std::uint64_t, 3>& { return s.plasma.mode; }),
         [](const S& s) {
             const auto& m = s.plasma.mode;
             const int d = plasma_dimensions(s);
             const std::string got = " (got " + format_mode(m) + " with " +
                                     std::to_string(s.plasma.cells) + " cells)";
             for (int a = 0; a < 3; ++a) {
                 if (a >= d && m[a] != 0)
                     return "must be 0 beyond the grid's " + std::to_string(d) + " dimension(s)" + got;
                 if (2 * m[a] >= s.plasma.cells)
                     return "must be below cells / 2 on every axis" + got;
             }
             return m[0] || m[1] || m[2] ? ok() : "must not be 0 on every axis" + got;
         },
         "the seeded wave: k = 2 pi mode / L per axis"},
        {"plasma", "beam_speed", RealRef([](S& s) -> double& { return s.plasma.beam_speed; }),
         [](const S& s) {
             return s.plasma.setup == "two-stream" ? positive(s.plasma.beam_speed)
                                                   : non_negative(s.plasma.beam_speed);
         },
         "two-stream: v0 of each beam"},
        {"plasma", "seed", CountRef([](S& s) -> std::uint64_t& { return s.plasma.seed; }),
         [](const S& s) { return count_limit(s.plasma.seed); }, "species: thermal velocities"},
        {"plasma", "dt", RealRef([](S& s) -> double& { return s.plasma.dt; }),
         [](const S& s) {
             if (auto p = positive(s.plasma.dt); !p.empty()) return p;
             // Leapfrog is unstable for omega_p dt >= 2.
             const double omega = s.plasma.setup == "species" ? cold_plasma_frequency(s.plasma.species) : 1.0;
             return !(omega * s.plasma.dt >= 2)
                        ? ok()
                        : "must be below 2 / omega_p = " + format_number(2 / omega) +
                              ": leapfrog is unstable (got " + format_number(s.plasma.dt) + ")";
         },
         "[1/omega_p]"},
        {"plasma", "end_time", RealRef([](S& s) -> double& { return s.plasma.end_time; }),
         [](const S& s) {
             if (auto p = positive(s.plasma.end_time); !p.empty()) return p;
             return !(s.plasma.end_time / s.plasma.dt > 1e7)
                        ? ok()
                        : "must be at most 10^7 steps of dt (got " + format_number(s.plasma.end_time) + ")";
         },
         "[1/omega_p]"},
        {"plasma", "deposit", TextRef([](S& s) -> std::string& { return s.plasma.deposit; }),
         [](const S& s) { return one_of(s.plasma.deposit, pic_deposit_names(), "a deposit strategy"); },
         "gather | atomic"},
        {"plasma", "sample_every", CountRef([](S& s) -> std::uint64_t& { return s.plasma.sample_every; }),
         [](const S& s) {
             return s.plasma.sample_every >= 1 && s.plasma.sample_every <= 10000000
                        ? ok()
                        : "must be in 1..10^7 (got " + std::to_string(s.plasma.sample_every) + ")";
         },
         "steps between diagnostics rows"},
        {"plasma", "frame_every", CountRef([](S& s) -> std::uint64_t& { return s.plasma.frame_every; }),
         [](const S& s) { return count_limit(s.plasma.frame_every); },
         "steps between frames, 0 = none"},
        {"plasma", "checkpoint_every",
         CountRef([](S& s) -> std::uint64_t& { return s.plasma.checkpoint_every; }),
         [](const S& s) { return count_limit(s.plasma.checkpoint_every); },
         "steps between checkpoints, 0 = at the end"},
        // Last of [plasma]: to_toml writes it as [[plasma.species]] tables after the keys.
        {"plasma", "species",
         SpeciesRef([](S& s) -> std::vector<PlasmaSpecies>& { return s.plasma.species; }),
         check_species, ""},
    };
    return fields;
}

// Which model a table's keys belong to (but for the shared keys below).
std::string model_of_table(const std::string& table) {
    return table == "fluid" ? "mps" : table == "plasma" ? "pic" : "nbody";
}

// Which model a key belongs to: [scenario], [run] precision and [render] width serve all; [fluid]
// is the MPS fluid's, [plasma] the PIC plasma's; everything else N-body's.
bool applies(const Field& field, const std::string& model) {
    const std::string table = field.table, key = field.key;
    if (table == "scenario" || (table == "run" && key == "precision") ||
        (table == "render" && key == "width"))
        return true;
    return model_of_table(table) == model;
}

bool table_applies(const std::string& table, const std::string& model) {
    for (const auto& field : schema())
        if (table == field.table && applies(field, model)) return true;
    return false;
}

std::string other_model(const std::string& table, const std::string& model) {
    return "is for model = \"" + model_of_table(table) + "\" scenarios; this one is model = \"" +
           model + "\"" +
           (model == "mps" ? " ([fluid] end_time or steps sets its length)"
            : model == "pic" ? " ([plasma] end_time sets its length)" : "");
}

std::vector<std::string> table_names() {
    std::vector<std::string> names;
    for (const auto& field : schema())
        if (std::find(names.begin(), names.end(), field.table) == names.end())
            names.push_back(field.table);
    return names;
}

std::vector<std::string> key_names(const std::string& table) {
    std::vector<std::string> names;
    for (const auto& field : schema())
        if (table == field.table) names.push_back(field.key);
    return names;
}

const Field* find_field(const std::string& table, const std::string& key) {
    for (const auto& field : schema())
        if (table == field.table && key == field.key) return &field;
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Parsing

struct Location {
    const std::string& source;
    [[noreturn]] void fail(std::int64_t line, const std::string& message) const {
        throw UsageError(source + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                         ": " + message);
    }
};

std::string label(const Field& field) {
    return std::string("[") + field.table + "] " + field.key;
}

// One [[plasma.species]] table (the i-th, from 0); its values are checked with the scenario.
PlasmaSpecies read_species(const toml::table& table, std::size_t i, const Location& at) {
    PlasmaSpecies sp;
    const std::string where = "[[plasma.species]] " + std::to_string(i + 1) + " ";
    for (auto&& [key, node] : table) {
        const std::string name(key.str());
        const auto line = node.source().begin.line;
        const auto type_error = [&](const char* wanted) {
            at.fail(line, where + name + " must be " + wanted + " (got " + describe(node) + ")");
        };
        const auto real = [&](const toml::node& n) -> double {
            if (auto v = n.as_floating_point()) return v->get();
            if (auto v = n.as_integer()) return double(v->get());
            type_error("a number");
            return 0.0;  // not reached
        };
        if (name == "name") {
            if (!node.as_string()) type_error("a string");
            sp.name = node.as_string()->get();
        } else if (name == "charge") sp.charge = real(node);
        else if (name == "mass") sp.mass = real(node);
        else if (name == "density") sp.density = real(node);
        else if (name == "thermal_speed") sp.thermal_speed = real(node);
        else if (name == "amplitude") sp.amplitude = real(node);
        else if (name == "particles_per_cell") {
            const auto* v = node.as_integer();
            if (!v || v->get() < 1) type_error("a positive integer");
            sp.particles_per_cell = std::uint64_t(v->get());
        } else if (name == "drift") {
            const auto* array = node.as_array();
            if (!array || array->empty() || array->size() > 3) type_error("an array of 1 to 3 numbers");
            for (std::size_t a = 0; a < array->size(); ++a) {
                if (!array->get(a)->is_number()) type_error("an array of 1 to 3 numbers");
                sp.drift[a] = real(*array->get(a));
            }
        } else {
            std::vector<std::string> known(std::begin(species_keys), std::end(species_keys));
            at.fail(key.source().begin.line,
                    "unknown key '" + name + "' in " + where + "(known: " + join(known) + ")");
        }
    }
    return sp;
}

void read_value(Scenario& s, const Field& field, const toml::node& node, const Location& at) {
    const auto line = node.source().begin.line;
    const auto type_error = [&](const char* wanted) {
        at.fail(line, label(field) + " must be " + wanted + " (got " + describe(node) + ")");
    };
    const auto real = [&](const toml::node& n) -> double {
        if (auto v = n.as_floating_point()) return v->get();
        if (auto v = n.as_integer()) return double(v->get());
        type_error("a number");
        return 0.0;  // not reached
    };
    std::visit(
        [&](auto ref) {
            using T = decltype(ref);
            if constexpr (std::is_same_v<T, RealRef>) {
                ref(s) = real(node);
            } else if constexpr (std::is_same_v<T, CountRef> || std::is_same_v<T, IntRef>) {
                const auto* v = node.as_integer();
                if (!v) type_error("an integer");
                if (v->get() < 0) type_error("a non-negative integer");
                if constexpr (std::is_same_v<T, IntRef>) {
                    if (v->get() > std::numeric_limits<int>::max())
                        at.fail(line, label(field) + " is too large (got " +
                                          std::to_string(v->get()) + ")");
                    ref(s) = int(v->get());
                } else {
                    ref(s) = std::uint64_t(v->get());
                }
            } else if constexpr (std::is_same_v<T, TextRef> || std::is_same_v<T, PathRef>) {
                const auto* v = node.as_string();
                if (!v) type_error("a string");
                ref(s) = v->get();
            } else if constexpr (std::is_same_v<T, PairRef>) {
                const auto* array = node.as_array();
                if (!array || array->size() != 2) type_error("an array of 2 numbers");
                for (std::size_t i = 0; i < 2; ++i) {
                    const auto& element = *array->get(i);
                    if (!element.is_number()) type_error("an array of 2 numbers");
                    ref(s)[i] = real(element);
                }
            } else if constexpr (std::is_same_v<T, ModeRef>) {
                std::array<std::uint64_t, 3> mode{};
                if (const auto* v = node.as_integer()) {
                    if (v->get() < 0) type_error("a non-negative integer or an array of 1 to 3 of them");
                    mode[0] = std::uint64_t(v->get());
                } else if (const auto* array = node.as_array(); array && !array->empty() && array->size() <= 3) {
                    for (std::size_t i = 0; i < array->size(); ++i) {
                        const auto* e = array->get(i)->as_integer();
                        if (!e || e->get() < 0) type_error("a non-negative integer or an array of 1 to 3 of them");
                        mode[i] = std::uint64_t(e->get());
                    }
                } else {
                    type_error("a non-negative integer or an array of 1 to 3 of them");
                }
                ref(s) = mode;
            } else if constexpr (std::is_same_v<T, SpeciesRef>) {
                const auto* array = node.as_array();
                if (!array || !array->is_array_of_tables())
                    type_error("an array of tables, written [[plasma.species]]");
                std::vector<PlasmaSpecies> list;
                for (std::size_t i = 0; i < array->size(); ++i)
                    list.push_back(read_species(*array->get(i)->as_table(), i, at));
                ref(s) = std::move(list);
            } else if constexpr (std::is_same_v<T, PrecisionRef>) {
                const auto* v = node.as_string();
                if (!v) type_error("a string");
                try {
                    ref(s) = parse_precision(v->get());
                } catch (const UsageError&) {
                    at.fail(line, label(field) + " " + quote(v->get()) +
                                      " is not a precision (known: float, double)");
                }
            }
        },
        field.ref);
}

} // namespace

const std::vector<std::string>& initial_condition_names() {
    static const std::vector<std::string> names = {"galaxies", "plummer", "kepler", "cube",
                                                   "snapshot"};
    return names;
}

const std::vector<std::string>& model_names() {
    static const std::vector<std::string> names = {"nbody", "mps", "pic"};
    return names;
}

const std::vector<std::string>& fluid_setup_names() {
    static const std::vector<std::string> names = {"dambreak", "hydrostatic"};
    return names;
}

const std::vector<std::string>& plasma_setup_names() {
    static const std::vector<std::string> names = {"langmuir", "two-stream", "species"};
    return names;
}

const std::vector<std::string>& pic_deposit_names() {
    static const std::vector<std::string> names = {"gather", "atomic"};
    return names;
}

const std::vector<std::string>& gravity_model_names() {
    static const std::vector<std::string> names = {"dense", "tree"};
    return names;
}

namespace {

Scenario parse(const std::string& toml_text, const std::string& source_name, bool& has_name) {
    detail::check_toml_text(toml_text, source_name);
    toml::table document;
    try {
        document = toml::parse(toml_text, source_name);
    } catch (const toml::parse_error& error) {
        const auto& where = error.source().begin;
        throw UsageError(source_name + ":" + std::to_string(where.line) + ":" +
                         std::to_string(where.column) + ": malformed TOML: " +
                         std::string(error.description()));
    }

    const Location at{source_name};
    Scenario s;
    std::map<std::string, std::int64_t> lines;  // "table" and "table.key" -> line
    for (auto&& [table_key, table_node] : document) {
        const std::string table_name(table_key.str());
        const auto table_line = table_key.source().begin.line;
        const auto known_tables = table_names();
        if (std::find(known_tables.begin(), known_tables.end(), table_name) ==
            known_tables.end()) {
            at.fail(table_line, "unknown " +
                                    std::string(table_node.is_table() ? "table [" + table_name + "]"
                                                                      : "key '" + table_name + "'") +
                                    " (known tables: " + join(known_tables) + ")");
        }
        const auto* table = table_node.as_table();
        if (!table)
            at.fail(table_line, "'" + table_name + "' must be a table [" + table_name +
                                    "] (got " + describe(table_node) + ")");
        lines[table_name] = table_line;
        for (auto&& [key, node] : *table) {
            const std::string key_name(key.str());
            const Field* field = find_field(table_name, key_name);
            if (!field)
                at.fail(key.source().begin.line,
                        "unknown key '" + key_name + "' in [" + table_name +
                            "] (known: " + join(key_names(table_name)) + ")");
            read_value(s, *field, node, at);
            lines[table_name + "." + key_name] = node.source().begin.line;
        }
    }

    // Three units fix G (a G given too must agree: check_G).
    if (!lines.count("gravity.G")) {
        if (const double G = units_G(s); G > 0) s.gravity.G = G;
    }

    // Defaults that depend on the kind of initial conditions.
    if (!lines.count("bodies.n")) {
        if (s.initial == "kepler") s.n = 2;
        if (s.initial == "snapshot") s.n = 0;
    }

    // Tables and keys of the other model (the model is known only once everything is read).
    if (std::find(model_names().begin(), model_names().end(), s.model) != model_names().end()) {
        for (const auto& [name, line] : lines) {
            const auto dot = name.find('.');
            if (dot == std::string::npos) {
                if (!table_applies(name, s.model)) at.fail(line, "[" + name + "] " + other_model(name, s.model));
            } else if (!applies(*find_field(name.substr(0, dot), name.substr(dot + 1)), s.model)) {
                at.fail(line, "[" + name.substr(0, dot) + "] " + name.substr(dot + 1) + " " +
                                  other_model(name.substr(0, dot), s.model));
            }
        }
    }

    for (const auto& field : schema()) {
        if (!applies(field, s.model)) continue;
        const std::string problem = field.check(s);
        if (problem.empty()) continue;
        const std::string key = std::string(field.table) + "." + field.key;
        std::int64_t line = 0;
        if (auto it = lines.find(key); it != lines.end()) line = it->second;
        else if (auto table = lines.find(field.table); table != lines.end()) line = table->second;
        at.fail(line, label(field) + " " + problem);
    }
    has_name = lines.count("scenario.name") > 0;
    return s;
}

} // namespace

Scenario parse_scenario(const std::string& toml_text, const std::string& source_name) {
    bool has_name = false;
    return parse(toml_text, source_name, has_name);
}

void validate(const Scenario& scenario) {
    for (const auto& field : schema()) {
        if (!applies(field, scenario.model)) continue;
        const std::string problem = field.check(scenario);
        if (!problem.empty())
            throw UsageError("scenario '" + scenario.name + "': " + label(field) + " " + problem);
    }
}

Scenario load_scenario(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    if (!in || fs::is_directory(file, ec)) {
        const int error = errno;
        throw UsageError("cannot read scenario " + file.string() + ": " +
                         (fs::is_directory(file, ec) ? std::string("it is a directory")
                                                     : std::string(std::strerror(error))));
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw UsageError("cannot read scenario " + file.string());
    bool has_name = false;
    Scenario s = parse(text.str(), file.string(), has_name);
    if (!has_name && !file.stem().empty()) s.name = file.stem().string();
    if (!s.snapshot.empty() && s.snapshot.is_relative() && file.has_parent_path())
        s.snapshot = file.parent_path() / s.snapshot;
    return s;
}

std::vector<std::string> builtin_scenario_names() {
    std::vector<std::string> names;
    for (const auto& [name, text] : builtins()) names.push_back(name);
    return names;
}

const std::string& builtin_scenario_toml(const std::string& name) {
    for (const auto& [builtin, text] : builtins())
        if (builtin == name) return text;
    throw UsageError("no built-in scenario '" + name + "' (built-in: " +
                     join(builtin_scenario_names()) + ")");
}

Scenario builtin_scenario(const std::string& name) {
    return parse_scenario(builtin_scenario_toml(name), "builtin:" + name);
}

Scenario find_scenario(const std::string& argument) {
    std::error_code ec;
    if (fs::exists(argument, ec)) return load_scenario(argument);
    const auto names = builtin_scenario_names();
    if (std::find(names.begin(), names.end(), argument) != names.end())
        return builtin_scenario(argument);
    throw UsageError("no scenario file '" + argument + "' and no built-in scenario of that name " +
                     "(built-in: " + join(names) + ")");
}

std::string to_toml(const Scenario& scenario) {
    auto& s = const_cast<Scenario&>(scenario);  // the schema's references are read only here
    std::ostringstream out;
    std::string table;
    for (const auto& field : schema()) {
        if (!applies(field, scenario.model)) continue;
        if (table != field.table) {
            out << (table.empty() ? "" : "\n") << "[" << field.table << "]\n";
            table = field.table;
        }
        if (const auto* species = std::get_if<SpeciesRef>(&field.ref)) {
            for (const PlasmaSpecies& sp : (*species)(s)) {
                const auto& v = sp.drift;
                out << "\n[[plasma.species]]\nname = " << quote(sp.name)
                    << "\ncharge = " << format_double(sp.charge) << "\nmass = " << format_double(sp.mass)
                    << "\ndensity = " << format_double(sp.density)
                    << "\nparticles_per_cell = " << sp.particles_per_cell << "\ndrift = ["
                    << format_double(v[0]) << ", " << format_double(v[1]) << ", " << format_double(v[2])
                    << "]\nthermal_speed = " << format_double(sp.thermal_speed)
                    << "\namplitude = " << format_double(sp.amplitude) << "\n";
            }
            continue;
        }
        std::string value = std::visit(
            [&](auto ref) -> std::string {
                using T = decltype(ref);
                if constexpr (std::is_same_v<T, RealRef>) return format_double(ref(s));
                else if constexpr (std::is_same_v<T, ModeRef>) return format_mode(ref(s));
                else if constexpr (std::is_same_v<T, SpeciesRef>) return {};  // above
                else if constexpr (std::is_same_v<T, CountRef>) return std::to_string(ref(s));
                else if constexpr (std::is_same_v<T, IntRef>) return std::to_string(ref(s));
                else if constexpr (std::is_same_v<T, TextRef>) return quote(ref(s));
                else if constexpr (std::is_same_v<T, PathRef>) return quote(ref(s).string());
                else if constexpr (std::is_same_v<T, PairRef>)
                    return "[" + format_double(ref(s)[0]) + ", " + format_double(ref(s)[1]) + "]";
                else return quote(to_string(ref(s)));
            },
            field.ref);
        std::string line = std::string(field.key) + " = " + value;
        if (*field.comment) {
            if (line.size() < 32) line.resize(32, ' ');
            else line += "  ";
            line += std::string("# ") + field.comment;
        }
        out << line << "\n";
    }
    return out.str();
}

UnitSystem unit_system(const Scenario& s) {
    try {
        return unit_system_from(s.units.length, s.units.mass, s.units.velocity, s.gravity.G);
    } catch (const UsageError& error) {
        throw UsageError("scenario '" + s.name + "': [units] " + error.what());
    }
}

bool operator==(const Scenario& a, const Scenario& b) {
    // Every member is in the schema and doubles are written exactly, so equal text is equality
    // (of the keys of the scenario's model: those of the other model are no part of it).
    return to_toml(a) == to_toml(b);
}

} // namespace partcl
