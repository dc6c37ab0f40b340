// Initial conditions and snapshots (HDF5): make_bodies' kinds, and snapshots that round-trip
// every double in the GADGET layout. Host only: no device, no kernels.
#include <doctest/doctest.h>

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "hdf5_reading.hpp"
#include "io_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::contains;
using partcl_test::read_file;
using partcl_test::TempDir;
using partcl_test::write_file;
using partcl_test::usage_error;
namespace fs = std::filesystem;
using partcl_test::Attribute;
using partcl_test::awkward_bodies;
using partcl_test::bits;
using partcl_test::Dataset;
using partcl_test::entries;
using partcl_test::fresh_seed;
using partcl_test::H5;
using partcl_test::read_attribute;
using partcl_test::read_dataset;
using partcl_test::same_bits;
using partcl_test::same_bodies;
using partcl_test::temporaries;

namespace {

// As read back from a snapshot of a run in open space: velocities and masses bit for bit,
// positions within the rounding of their shift into the box of side `box` (snapshot.hpp).
bool same_bodies_in_box(const Bodies& a, const Bodies& b, double box) {
    if (!(same_bits(a.vx, b.vx) && same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz) &&
          same_bits(a.m, b.m) && a.size() == b.size()))
        return false;
    const double tolerance = box * std::ldexp(1.0, -52);
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::abs(a.x[i] - b.x[i]) <= tolerance && std::abs(a.y[i] - b.y[i]) <= tolerance &&
              std::abs(a.z[i] - b.z[i]) <= tolerance))
            return false;
    return true;
}

// The side of the box a snapshot in open space places these bodies in, computed here
// independently of the writer: the least power of two above 2 max |x| (1 + 2^-10).
double open_box(const Bodies& b) {
    double largest = 0;
    for (const auto* axis : {&b.x, &b.y, &b.z})
        for (double v : *axis) largest = std::max(largest, std::abs(v));
    double side = 1;
    while (side <= 2 * largest * (1 + 1.0 / 1024)) side *= 2;
    while (largest > 0 && side / 2 > 2 * largest * (1 + 1.0 / 1024)) side /= 2;
    return side;
}

// Sum over the bodies of m * field.
double moment(const Bodies& b, const std::vector<double>& field) {
    double sum = 0;
    for (std::size_t i = 0; i < b.size(); ++i) sum += b.m[i] * field[i];
    return sum;
}

double total_mass(const Bodies& b) {
    double sum = 0;
    for (double m : b.m) sum += m;
    return sum;
}

} // namespace

TEST_SUITE("io") {

// ------------------------------------------------------------------------------------------
// Initial conditions

TEST_CASE("make_bodies is reproducible, in the centre-of-mass frame, of the right mass") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    struct Case {
        const char* initial;
        double mass;
        std::size_t n;
    };
    for (const Case c : {Case{"plummer", 2.5, 601}, Case{"galaxies", 3.0, 500},
                         Case{"cube", 0.75, 400}}) {
        INFO("initial " << c.initial);
        Scenario s = builtin_scenario(c.initial);
        s.seed = seed;
        s.n = c.n;
        s.gravity.G = 0.7;
        s.plummer.total_mass = c.mass;
        s.galaxies.total_mass = c.mass;
        s.galaxies.mass_ratio = 0.6;
        s.cube.total_mass = c.mass;
        s.cube.velocity = 0.3;  // so the momentum is not trivially 0

        const Bodies a = make_bodies(s);
        const Bodies b = make_bodies(s);
        REQUIRE(a.size() == c.n);
        CHECK_NOTHROW(a.validate());
        CHECK(same_bodies(a, b));
        Scenario other = s;
        other.seed = std::uint64_t(seed) + 1;
        const Bodies d = make_bodies(other);
        CHECK(!same_bits(a.x, d.x));
        CHECK(!same_bits(a.vz, d.vz));

        CHECK(std::abs(total_mass(a) - c.mass) < 1e-12 * c.mass);
        for (const auto* field : {&a.x, &a.y, &a.z, &a.vx, &a.vy, &a.vz}) {
            CHECK(std::abs(moment(a, *field)) < 1e-12);
        }
        // Not a degenerate system: the bodies are spread out and moving.
        double spread = 0, speed = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            spread += a.m[i] * (a.x[i] * a.x[i] + a.y[i] * a.y[i] + a.z[i] * a.z[i]);
            speed += a.m[i] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
        }
        CHECK(spread > 1e-3);
        CHECK(speed > 1e-3);
    }
}

TEST_CASE("kepler_pair starts at apocentre with the right separation and speed") {
    Scenario s = builtin_scenario("kepler");
    s.kepler.eccentricity = 0.3;
    s.kepler.semi_major_axis = 2.0;
    s.kepler.masses = {0.7, 1.9};
    s.gravity.G = 0.5;
    const Bodies b = make_bodies(s);
    REQUIRE(b.size() == 2);
    const double a = 2.0, e = 0.3, M = 2.6, G = 0.5;
    const double separation = a * (1 + e);
    const double speed = std::sqrt(G * M * (1 - e) / (a * (1 + e)));
    CHECK(b.m[0] == 0.7);
    CHECK(b.m[1] == 1.9);
    CHECK(std::abs((b.x[1] - b.x[0]) - separation) < 1e-14 * separation);
    CHECK(std::abs((b.vy[1] - b.vy[0]) - speed) < 1e-14 * speed);
    for (const auto* field : {&b.y, &b.z, &b.vx, &b.vz}) {
        CHECK((*field)[0] == 0.0);
        CHECK((*field)[1] == 0.0);
    }
    CHECK(std::abs(b.m[0] * b.x[0] + b.m[1] * b.x[1]) < 1e-14);
    CHECK(std::abs(b.m[0] * b.vy[0] + b.m[1] * b.vy[1]) < 1e-14);
    // The heavier body is the one nearer the centre of mass.
    CHECK(std::abs(b.x[1]) < std::abs(b.x[0]));
    // Seeds do not matter to a deterministic pair.
    s.seed = 12345;
    CHECK(same_bodies(make_bodies(s), b));
}

TEST_CASE("galaxies: two spheres of round(n / (1 + q)) and the rest, at their places") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    Scenario s = builtin_scenario("galaxies");
    s.seed = seed;
    s.n = 1003;
    s.galaxies.mass_ratio = 3.0;
    s.galaxies.total_mass = 2.0;
    s.galaxies.separation = 4.0;
    s.galaxies.impact_parameter = 0.75;
    s.galaxies.approach_speed = 0.6;
    const Bodies b = make_bodies(s);
    REQUIRE(b.size() == 1003);
    const double q = 3.0, M = 2.0;
    const double M1 = M / (1 + q), M2 = M * q / (1 + q);
    // 1003 / 4 = 250.75: rounding, not truncation, gives 251.
    const std::size_t n1 = std::size_t(std::llround(1003.0 / (1 + q)));
    REQUIRE(n1 == 251);
    const std::size_t n2 = 1003 - n1;

    // Sphere 1's bodies come first, each of mass M1 / n1; then sphere 2's, each M2 / n2.
    std::size_t light = 0, heavy = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        const double expected = i < n1 ? M1 / double(n1) : M2 / double(n2);
        if (std::abs(b.m[i] - expected) <= 1e-15 * expected) (i < n1 ? light : heavy) += 1;
    }
    CHECK(light == n1);
    CHECK(heavy == n2);

    // Each sphere is centred (exactly, to rounding) where the system's centre of mass puts it.
    const auto centre = [&](std::size_t begin, std::size_t end, const std::vector<double>& f) {
        double sum = 0, mass = 0;
        for (std::size_t i = begin; i < end; ++i) {
            sum += b.m[i] * f[i];
            mass += b.m[i];
        }
        return sum / mass;
    };
    const double d[3] = {4.0, 0.75, 0.0}, v[3] = {-0.6, 0.0, 0.0};
    const std::vector<double>* position[3] = {&b.x, &b.y, &b.z};
    const std::vector<double>* velocity[3] = {&b.vx, &b.vy, &b.vz};
    for (int k = 0; k < 3; ++k) {
        INFO("component " << k);
        CHECK(std::abs(centre(0, n1, *position[k]) - (-M2 / M * d[k])) < 1e-12);
        CHECK(std::abs(centre(n1, 1003, *position[k]) - (M1 / M * d[k])) < 1e-12);
        CHECK(std::abs(centre(0, n1, *velocity[k]) - (-M2 / M * v[k])) < 1e-12);
        CHECK(std::abs(centre(n1, 1003, *velocity[k]) - (M1 / M * v[k])) < 1e-12);
    }

    // Too few bodies for two spheres.
    s.n = 1;
    CHECK(contains(usage_error([&] { make_bodies(s); }), "[bodies] n"));
}

// ------------------------------------------------------------------------------------------
// Snapshots

TEST_CASE("snapshots round-trip every double and the time exactly") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("io-snap");
    const Bodies bodies = awkward_bodies(257, seed);
    const fs::path file = dir / "snap.hdf5";
    write_snapshot(file, bodies, 0.1, 12.5);
    CHECK(temporaries(dir.path()).empty());
    CHECK(entries(dir.path()) == 1);
    CHECK(read_file(file).rfind("\x89HDF\r\n\x1a\n", 0) == 0);

    const Snapshot back = read_snapshot(file);
    CHECK(same_bodies(back.bodies, bodies));
    CHECK(bits(back.time) == bits(0.1));
    CHECK(bits(back.box_size) == bits(12.5));

    // Overwriting replaces the file; in open space the positions come back within the
    // rounding of their shift into the box.
    Bodies fewer = awkward_bodies(3, seed + 1);
    write_snapshot(file, fewer, -0.0);
    const Snapshot replaced = read_snapshot(file);
    CHECK(same_bodies_in_box(replaced.bodies, fewer, open_box(fewer)));
    CHECK(bits(replaced.time) == bits(-0.0));
    CHECK(replaced.box_size == 0.0);
    CHECK(!replaced.units.known());
    CHECK(temporaries(dir.path()).empty());

    // Invalid bodies are refused, and the old file stays.
    Bodies bad = fewer;
    bad.vy[1] = std::nan("");
    CHECK(contains(usage_error([&] { write_snapshot(file, bad, 1.0); }), "vy"));
    bad = fewer;
    bad.m[2] = -1.0;
    CHECK(contains(usage_error([&] { write_snapshot(file, bad, 1.0); }), "negative"));
    CHECK(contains(usage_error([&] { write_snapshot(file, fewer, 1.0, -1.0); }), "box size"));
    CHECK(contains(usage_error([&] { write_snapshot(file, fewer, 1.0, 0.0, UnitSystem{1, 0, 1}); }),
                   "units"));
    CHECK(same_bodies_in_box(read_snapshot(file).bodies, fewer, open_box(fewer)));
}

TEST_CASE("snapshots have the GADGET HDF5 layout") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("io-layout");
    const std::size_t n = 37;
    const Bodies bodies = awkward_bodies(n, seed);
    const fs::path file = dir / "snap.hdf5";
    write_snapshot(file, bodies, 2.75, 0.5);

    H5 h5file(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5 header(H5Gopen2(h5file.id, "Header", H5P_DEFAULT), H5Gclose);

    const std::vector<double> counts = {0, double(n), 0, 0, 0, 0};
    for (const char* name : {"NumPart_ThisFile", "NumPart_Total"}) {
        INFO(name);
        const Attribute a = read_attribute(header.id, name);
        CHECK(a.points == 6);
        CHECK(a.type_class == H5T_INTEGER);
        CHECK(a.type_size == 4);
        CHECK(a.sign == H5T_SGN_NONE);
        CHECK(a.values == counts);
    }
    {
        const Attribute a = read_attribute(header.id, "NumPart_Total_HighWord");
        CHECK(a.points == 6);
        CHECK(a.type_size == 4);
        CHECK(a.values == std::vector<double>(6, 0.0));
    }
    {
        const Attribute a = read_attribute(header.id, "MassTable");
        CHECK(a.points == 6);
        CHECK(a.type_class == H5T_FLOAT);
        CHECK(a.type_size == 8);
        CHECK(a.values == std::vector<double>(6, 0.0));
    }
    struct Scalar {
        const char* name;
        H5T_class_t type_class;
        double value;
    };
    for (const Scalar& s : {Scalar{"Time", H5T_FLOAT, 2.75}, Scalar{"Redshift", H5T_FLOAT, 0},
                            Scalar{"BoxSize", H5T_FLOAT, 0.5}, Scalar{"Omega0", H5T_FLOAT, 0},
                            Scalar{"OmegaLambda", H5T_FLOAT, 0},
                            Scalar{"HubbleParam", H5T_FLOAT, 1},
                            Scalar{"NumFilesPerSnapshot", H5T_INTEGER, 1},
                            Scalar{"Flag_Sfr", H5T_INTEGER, 0},
                            Scalar{"Flag_Cooling", H5T_INTEGER, 0},
                            Scalar{"Flag_StellarAge", H5T_INTEGER, 0},
                            Scalar{"Flag_Metals", H5T_INTEGER, 0},
                            Scalar{"Flag_Feedback", H5T_INTEGER, 0},
                            Scalar{"Flag_DoublePrecision", H5T_INTEGER, 1}}) {
        INFO(s.name);
        const Attribute a = read_attribute(header.id, s.name);
        CHECK(a.scalar);
        CHECK(a.points == 1);
        CHECK(a.type_class == s.type_class);
        CHECK(a.type_size == (s.type_class == H5T_FLOAT ? 8u : 4u));
        if (s.type_class == H5T_INTEGER) CHECK(a.sign == H5T_SGN_2);
        REQUIRE(a.values.size() == 1);
        CHECK(a.values[0] == s.value);
    }

    // Rows are bodies: Coordinates[i] = (x_i, y_i, z_i).
    const Dataset coordinates = read_dataset(h5file.id, "/PartType1/Coordinates");
    CHECK(coordinates.dims == std::vector<hsize_t>{n, 3});
    CHECK(coordinates.type_class == H5T_FLOAT);
    CHECK(coordinates.type_size == 8);
    const Dataset velocities = read_dataset(h5file.id, "/PartType1/Velocities");
    CHECK(velocities.dims == std::vector<hsize_t>{n, 3});
    CHECK(velocities.type_size == 8);
    REQUIRE(coordinates.values.size() == 3 * n);
    REQUIRE(velocities.values.size() == 3 * n);
    std::vector<double> x, y, z, vx, vy, vz;
    for (std::size_t i = 0; i < n; ++i) {
        x.push_back(coordinates.values[3 * i]);
        y.push_back(coordinates.values[3 * i + 1]);
        z.push_back(coordinates.values[3 * i + 2]);
        vx.push_back(velocities.values[3 * i]);
        vy.push_back(velocities.values[3 * i + 1]);
        vz.push_back(velocities.values[3 * i + 2]);
    }
    CHECK(same_bits(x, bodies.x));
    CHECK(same_bits(y, bodies.y));
    CHECK(same_bits(z, bodies.z));
    CHECK(same_bits(vx, bodies.vx));
    CHECK(same_bits(vy, bodies.vy));
    CHECK(same_bits(vz, bodies.vz));

    const Dataset ids = read_dataset(h5file.id, "/PartType1/ParticleIDs");
    CHECK(ids.dims == std::vector<hsize_t>{n});
    CHECK(ids.type_class == H5T_INTEGER);
    CHECK(ids.type_size == 8);
    CHECK(ids.sign == H5T_SGN_NONE);
    std::vector<std::uint64_t> expected_ids(n);
    for (std::size_t i = 0; i < n; ++i) expected_ids[i] = i + 1;
    CHECK(ids.integers == expected_ids);

    const Dataset masses = read_dataset(h5file.id, "/PartType1/Masses");
    CHECK(masses.dims == std::vector<hsize_t>{n});
    CHECK(masses.type_size == 8);
    CHECK(same_bits(masses.values, bodies.m));

    // Only particle type 1.
    for (int type : {0, 2, 3, 4, 5}) {
        const std::string group = "PartType" + std::to_string(type);
        CHECK(H5Lexists(h5file.id, group.c_str(), H5P_DEFAULT) == 0);
    }
}

TEST_CASE("unreadable snapshots are UsageErrors naming the file") {
    TempDir dir("io-badsnap");
    const Bodies bodies = awkward_bodies(200, 7);
    const fs::path good = dir / "good.hdf5";
    write_snapshot(good, bodies, 1.0);
    const std::string bytes = read_file(good);
    REQUIRE(bytes.size() > 1000);

    write_file(dir / "text.hdf5", "this is not HDF5\n");
    write_file(dir / "half.hdf5", bytes.substr(0, bytes.size() / 2));
    write_file(dir / "empty.hdf5", "");
    write_file(dir / "header-only.hdf5", bytes.substr(0, 8));
    for (const char* name : {"missing.hdf5", "text.hdf5", "half.hdf5", "empty.hdf5",
                             "header-only.hdf5"}) {
        INFO(name);
        const fs::path file = dir / name;
        const std::string message = usage_error([&] { read_snapshot(file); });
        INFO("message: " << message);
        CHECK(contains(message, file.string()));
        CHECK(message.rfind("snapshot ", 0) == 0);
    }
    CHECK(contains(usage_error([&] { read_snapshot(dir / "missing.hdf5"); }), "no such file"));
    CHECK(contains(usage_error([&] { read_snapshot(dir / "text.hdf5"); }), "not an HDF5 file"));
    CHECK(contains(usage_error([&] { read_snapshot(dir.path()); }), dir.path().string()));
    // The good file still reads (the failures left HDF5 usable).
    CHECK(same_bodies_in_box(read_snapshot(good).bodies, bodies, open_box(bodies)));
}

TEST_CASE("initial = \"snapshot\" reproduces the bodies and checks the count") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("io-initial");
    Scenario plummer = builtin_scenario("plummer");
    plummer.n = 123;
    plummer.seed = seed;
    const Bodies bodies = make_bodies(plummer);
    write_snapshot(dir / "start.hdf5", bodies, 3.5);

    Scenario s = builtin_scenario("plummer");
    s.initial = InitialConditions::snapshot;
    s.snapshot = dir / "start.hdf5";
    s.n = 0;
    const double box = open_box(bodies);
    CHECK(same_bodies_in_box(make_bodies(s), bodies, box));
    s.n = 123;
    CHECK(same_bodies_in_box(make_bodies(s), bodies, box));
    s.n = 124;
    {
        const std::string message = usage_error([&] { make_bodies(s); });
        INFO(message);
        CHECK(contains(message, (dir / "start.hdf5").string()));
        CHECK(contains(message, "123"));
        CHECK(contains(message, "124"));
    }
    s.n = 0;
    s.snapshot = dir / "absent.hdf5";
    CHECK(contains(usage_error([&] { make_bodies(s); }), (dir / "absent.hdf5").string()));

    // Through a scenario file with a relative path, as a user writes it.
    write_file(dir / "from-snapshot.toml",
               "[bodies]\ninitial = \"snapshot\"\nsnapshot = \"start.hdf5\"\n");
    const Scenario loaded = load_scenario(dir / "from-snapshot.toml");
    CHECK(same_bodies_in_box(make_bodies(loaded), bodies, box));
}

} // TEST_SUITE
