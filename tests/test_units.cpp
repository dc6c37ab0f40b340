// Physical units: reading them ([units] of a scenario), what snapshots write for their readers
// (the /Units group, Time_GYR, the attributes pynbody reads, a domain yt can place bodies in),
// and converting a snapshot into a scenario's units.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "hdf5_reading.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::contains;
using partcl_test::fresh_seed;
using partcl_test::H5;
using partcl_test::read_attribute;
using partcl_test::read_dataset;
using partcl_test::read_text_attribute;
using partcl_test::ScenarioErrorCase;
using partcl_test::TempDir;
using partcl_test::usage_error;

namespace {

bool near(double a, double b, double rtol) { return std::abs(a - b) <= rtol * std::abs(b); }

// Random bodies in a cube of half-side `extent` around `centre`.
Bodies random_bodies(std::size_t n, std::uint32_t seed, double centre, double extent) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = centre + extent * u(engine);
        b.y[i] = centre + extent * u(engine);
        b.z[i] = centre + extent * u(engine);
        b.vx[i] = u(engine);
        b.vy[i] = u(engine);
        b.vz[i] = u(engine);
        b.m[i] = 1.0 + u(engine) / 2;
    }
    return b;
}

} // namespace

TEST_SUITE("units") {

TEST_CASE("quantities read as a number and a unit of their dimension, in CGS") {
    CHECK(parse_quantity("1 cm", Dimension::length) == 1.0);
    CHECK(parse_quantity("2.5 km", Dimension::length) == 2.5e5);
    CHECK(parse_quantity("1 au", Dimension::length) == 1.495978707e13);
    CHECK(parse_quantity("1 kpc", Dimension::length) == 1e3 * cgs::parsec);
    CHECK(parse_quantity("3  Mpc", Dimension::length) == 3 * 1e6 * cgs::parsec);
    CHECK(parse_quantity("1e10 Msun", Dimension::mass) == 1e10 * cgs::solar_mass);
    CHECK(parse_quantity("2 kg", Dimension::mass) == 2e3);
    CHECK(parse_quantity("1 km/s", Dimension::velocity) == 1e5);
    CHECK(parse_quantity("7 m/s", Dimension::velocity) == 700.0);
    // The parsec from its definition, 648000 / pi au.
    CHECK(near(cgs::parsec, 648000 / 3.141592653589793 * cgs::astronomical_unit, 1e-15));

    for (const auto& [text, dimension] : std::vector<std::pair<std::string, Dimension>>{
             {"", Dimension::length},         {"kpc", Dimension::length},
             {"1kpc", Dimension::length},     {"1 parsec", Dimension::length},
             {"1 Msun", Dimension::length},   {"1 kpc", Dimension::mass},
             {"-1 kpc", Dimension::length},   {"0 kpc", Dimension::length},
             {"nan kpc", Dimension::length},  {"inf Msun", Dimension::mass},
             {"1e400 cm", Dimension::length}, {"1 km/s ", Dimension::velocity},
             {"1e308 Mpc", Dimension::length}}) {
        INFO("'" << text << "'");
        const std::string message = usage_error([&] { parse_quantity(text, dimension); });
        CHECK(contains(message, "as a number and a unit"));
        CHECK(contains(message, "\"" + text + "\""));
    }
    CHECK(contains(usage_error([&] { parse_quantity("1 pc", Dimension::velocity); }),
                   "cm/s, m/s, km/s"));
}

TEST_CASE("two units and G derive the third; three derive G") {
    const std::string L = "1 kpc", M = "1e10 Msun", V = "1 km/s";
    CHECK(!unit_system_from("", "", "").known());
    for (double G : {1.0, 4.30091e-6, 43007.1}) {
        INFO("G " << G);
        const UnitSystem lm = unit_system_from(L, M, "", G), lv = unit_system_from(L, "", V, G),
                         mv = unit_system_from("", M, V, G);
        for (const UnitSystem& u : {lm, lv, mv}) {
            CHECK(u.known());
            CHECK(near(u.gravitational_constant(), G, 1e-14));
            CHECK(near(u.time_s(), u.length_cm / u.velocity_cm_per_s, 1e-15));
        }
        CHECK(lm.length_cm == 1e3 * cgs::parsec);
        CHECK(lv.velocity_cm_per_s == 1e5);
        CHECK(mv.mass_g == 1e10 * cgs::solar_mass);
    }
    // GADGET's units: G = 43009.17 with CODATA 2018 and IAU constants (GADGET-2's 43007.1
    // comes from older ones, within 5e-5).
    CHECK(near(unit_system_from(L, M, V).gravitational_constant(), 43009.1727, 1e-8));
    // The Earth's orbit in au, Msun and G = 1: a year is 2 pi time units (to the precision of
    // the constants, 2e-5).
    CHECK(near(unit_system_from("1 au", "1 Msun", "").time_s() * 2 * 3.141592653589793,
               cgs::julian_year, 2e-5));
    CHECK(contains(usage_error([&] { unit_system_from(L, "", ""); }), "not one"));
}

TEST_CASE("[units] in scenarios: checked, G derived or checked against them") {
    const Scenario galaxies = builtin_scenario("galaxies");
    CHECK(galaxies.units.length == "10 kpc");
    CHECK(near(unit_system(galaxies).velocity_cm_per_s, 207.38652969844205e5, 1e-12));
    for (const char* name : {"galaxies", "plummer", "kepler", "cube"}) {
        INFO(name);
        const Scenario s = builtin_scenario(name);
        CHECK(unit_system(s).known());
        CHECK(near(unit_system(s).gravitational_constant(), s.gravity.G, 1e-14));
    }

    // Three units fix G; written out and read back, the scenario stays the same.
    const Scenario three = parse_scenario(
        "[units]\nlength = \"1 kpc\"\nmass = \"1e10 Msun\"\nvelocity = \"1 km/s\"\n", "t.toml");
    CHECK(near(three.gravity.G, 43009.1727, 1e-8));
    CHECK(three.gravity.G == unit_system(three).gravitational_constant());
    CHECK(parse_scenario(to_toml(three), "again.toml") == three);
    // A G that agrees to seven digits is kept.
    CHECK(parse_scenario("[gravity]\nG = 43009.17\n[units]\nlength = \"1 kpc\"\n"
                         "mass = \"1e10 Msun\"\nvelocity = \"1 km/s\"\n",
                         "t.toml")
              .gravity.G == 43009.17);
    // No units: none.
    CHECK(!unit_system(parse_scenario("[bodies]\nn = 4\n", "t.toml")).known());

    partcl_test::check_scenario_errors({
        {"a unit that does not read",
         "[units]\nlength = \"1 parsec\"\nmass = \"1 Msun\"\n",
         {"s.toml:2", "[units] length", "\"1 parsec\"", "pc, kpc, Mpc"}},
        {"a unit of another dimension", "[units]\nlength = \"1 pc\"\nmass = \"1 km/s\"\n",
         {"s.toml:3", "[units] mass", "g, kg, Msun"}},
        {"one unit alone", "[units]\nvelocity = \"1 km/s\"\n",
         {"s.toml:2", "[units] velocity", "only unit given", "two of"}},
        {"a G that disagrees with three units",
         "[gravity]\nG = 1.0\n[units]\nlength = \"1 kpc\"\nmass = \"1e10 Msun\"\n"
         "velocity = \"1 km/s\"\n",
         {"s.toml:2", "[gravity] G", "43009.17", "leave G out"}},
        {"a number instead of a text", "[units]\nlength = 3.0\n",
         {"s.toml:2", "[units] length", "a string"}},
        {"units of a fluid", "[scenario]\nmodel = \"mps\"\n[units]\nlength = \"1 m\"\n",
         {"s.toml:3", "[units]", "model = \"nbody\""}},
    });
}

TEST_CASE("snapshots in open space: a power-of-two box that holds every body, its centre at the origin") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("units-box");
    for (const double centre : {0.0, 3.0, -1e4}) {
        for (const double extent : {1e-3, 1.0, 7.5}) {
            INFO("centre " << centre << " extent " << extent);
            const Bodies bodies = random_bodies(100, seed, centre, extent);
            const auto file = dir / "s.h5";
            write_snapshot(file, bodies, 1.5);

            H5 h5file(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
            H5 header(H5Gopen2(h5file.id, "Header", H5P_DEFAULT), H5Gclose);
            const double box = read_attribute(header.id, "BoxSize").values.at(0);
            const auto offset = read_attribute(header.id, "PositionOffset").values;
            CHECK(offset == std::vector<double>(3, box / 2));
            double largest = 0;
            for (const auto* axis : {&bodies.x, &bodies.y, &bodies.z})
                for (double v : *axis) largest = std::max(largest, std::abs(v));
            int exponent = 0;
            CHECK(std::frexp(box, &exponent) == 0.5);  // a power of two
            CHECK(box > 2 * largest);
            CHECK(box <= 4 * largest * (1 + 1.0 / 1024));  // the least such
            const auto coordinates = read_dataset(h5file.id, "/PartType1/Coordinates").values;
            for (double c : coordinates) {
                CHECK(c >= 0);
                CHECK(c < box);
            }
            // No units named, none written.
            CHECK(H5Lexists(h5file.id, "Units", H5P_DEFAULT) == 0);
            CHECK(H5Aexists(header.id, "Time_GYR") == 0);

            const Snapshot back = read_snapshot(file);
            CHECK(back.box_size == 0);
            CHECK(!back.units.known());
            const double tolerance = box * std::ldexp(1.0, -52);
            for (std::size_t i = 0; i < bodies.size(); ++i) {
                CHECK(std::abs(back.bodies.x[i] - bodies.x[i]) <= tolerance);
                CHECK(std::abs(back.bodies.z[i] - bodies.z[i]) <= tolerance);
                CHECK(back.bodies.vy[i] == bodies.vy[i]);
            }
        }
    }
    // A periodic box is taken as it is: no offset, positions bit for bit.
    const Bodies inside = random_bodies(10, seed, 5.0, 4.0);
    write_snapshot(dir / "p.h5", inside, 0.5, 10.0);
    const Snapshot periodic = read_snapshot(dir / "p.h5");
    CHECK(periodic.box_size == 10.0);
    CHECK(periodic.bodies.x == inside.x);
}

TEST_CASE("snapshots with units: /Units, Time_GYR and the attributes pynbody reads") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("units-snap");
    const UnitSystem units = unit_system_from("1 pc", "1e4 Msun", "");
    const Bodies bodies = random_bodies(50, seed, 0.0, 2.0);
    const auto file = dir / "s.h5";
    const double time = 3.25;
    write_snapshot(file, bodies, time, 0.0, units);
    {
        H5 h5file(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        H5 group(H5Gopen2(h5file.id, "Units", H5P_DEFAULT), H5Gclose);
        const double v = units.velocity_cm_per_s;
        for (const auto& [name, value] : std::vector<std::pair<const char*, double>>{
                 {"UnitLength_in_cm", units.length_cm},
                 {"UnitMass_in_g", units.mass_g},
                 {"UnitVelocity_in_cm_per_s", v},
                 {"UnitTime_in_s", units.length_cm / v},
                 {"UnitEnergy_in_cgs", units.mass_g * v * v}}) {
            INFO(name);
            CHECK(read_attribute(group.id, name).values.at(0) == value);
        }
        H5 header(H5Gopen2(h5file.id, "Header", H5P_DEFAULT), H5Gclose);
        // 3.25 time units of 0.1491 Myr.
        CHECK(near(read_attribute(header.id, "Time_GYR").values.at(0),
                   time * units.time_s() / 3.15576e16, 1e-15));
        CHECK(near(read_attribute(header.id, "Time_GYR").values.at(0), 3.25 * 0.1490960142591554e-3,
                   1e-9));
        for (const auto& [path, description, factor] :
             std::vector<std::tuple<const char*, const char*, double>>{
                 {"PartType1/Coordinates", "Positions U_L [cm]", units.length_cm},
                 {"PartType1/Velocities", "Velocities U_V [cm s^-1]", v},
                 {"PartType1/Masses", "Particle mass U_M [g]", units.mass_g},
                 {"PartType1/ParticleIDs", "Unique particle identifier", 1.0}}) {
            INFO(path);
            H5 set(H5Dopen2(h5file.id, path, H5P_DEFAULT), H5Dclose);
            CHECK(read_text_attribute(set.id, "VarDescription") == description);
            CHECK(read_attribute(set.id, "CGSConversionFactor").values.at(0) == factor);
            CHECK(read_attribute(set.id, "aexp-scale-exponent").values.at(0) == 0.0);
            CHECK(read_attribute(set.id, "h-scale-exponent").values.at(0) == 0.0);
        }
    }
    const Snapshot back = read_snapshot(file);
    CHECK(back.units == units);
    CHECK(back.time == time);

    // Read into a scenario of other units, the bodies are converted into them; into one of
    // the same units or of none, they are taken as they are.
    Scenario s = builtin_scenario("plummer");  // 1 pc, 1e4 Msun, G = 1: the snapshot's units
    s.initial = InitialConditions::snapshot;
    s.snapshot = file;
    s.n = 0;
    const Bodies same = make_bodies(s);
    CHECK(same.m == bodies.m);
    CHECK(same.vx == bodies.vx);
    s.units = {"1 au", "1 Msun", ""};
    const Bodies converted = make_bodies(s);
    const UnitSystem to = unit_system(s);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        CHECK(near(converted.x[i] * to.length_cm, same.x[i] * units.length_cm, 1e-14));
        CHECK(near(converted.vz[i] * to.velocity_cm_per_s, bodies.vz[i] * units.velocity_cm_per_s, 1e-14));
        CHECK(near(converted.m[i] * to.mass_g, bodies.m[i] * units.mass_g, 1e-14));
    }
    s.units = {};
    CHECK(make_bodies(s).vx == bodies.vx);
}

TEST_CASE("damaged units and offsets in a snapshot are UsageErrors") {
    TempDir dir("units-bad");
    const Bodies bodies = random_bodies(5, 1, 0.0, 1.0);
    const auto file = dir / "s.h5";
    write_snapshot(file, bodies, 1.0, 0.0, unit_system_from("1 pc", "1 Msun", ""));
    const auto overwrite = [&](const char* group, const char* name, std::vector<double> values) {
        H5 h5file(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
        H5 g(H5Gopen2(h5file.id, group, H5P_DEFAULT), H5Gclose);
        H5 attribute(H5Aopen(g.id, name, H5P_DEFAULT), H5Aclose);
        REQUIRE(H5Awrite(attribute.id, H5T_NATIVE_DOUBLE, values.data()) >= 0);
    };
    overwrite("Units", "UnitMass_in_g", {-1.0});
    CHECK(contains(usage_error([&] { read_snapshot(file); }), "/Units"));
    overwrite("Units", "UnitMass_in_g", {1.0});
    CHECK(read_snapshot(file).units.mass_g == 1.0);
    overwrite("Header", "PositionOffset", {0.0, std::nan(""), 0.0});
    CHECK(contains(usage_error([&] { read_snapshot(file); }), "PositionOffset"));
}

} // TEST_SUITE
