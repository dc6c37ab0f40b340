// The io layer: scenarios (TOML), initial conditions, snapshots (HDF5), checkpoints, atomic
// file replacement and frames. Host only: no device, no kernels.
#include <doctest/doctest.h>

#include <boost/uuid/detail/sha1.hpp>

#include <hdf5.h>

#include <boost/uuid/detail/sha1.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hdf5_reading.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::Attribute;
using partcl_test::contains;
using partcl_test::Dataset;
using partcl_test::H5;
using partcl_test::read_attribute;
using partcl_test::read_dataset;
using partcl_test::fresh_seed;
using partcl_test::read_file;
using partcl_test::TempDir;
using partcl_test::write_file;
using partcl_test::usage_error;
using partcl_test::check_scenario_errors;
using partcl_test::ScenarioErrorCase;
namespace fs = std::filesystem;

namespace {

// The same for partcl::Error (any subclass).
std::string partcl_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& error) {
        return error.what();
    } catch (const std::exception& error) {
        return std::string("<not a partcl::Error: ") + error.what() + ">";
    }
    return "<no exception>";
}

std::uint64_t bits(double value) {
    std::uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    return b;
}

double from_bits(std::uint64_t b) {
    double value;
    std::memcpy(&value, &b, sizeof value);
    return value;
}

// Bit for bit (so -0.0 != 0.0 and a NaN equals only the same NaN).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_bodies(const Bodies& a, const Bodies& b) {
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) &&
           same_bits(a.vx, b.vx) && same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz) &&
           same_bits(a.m, b.m);
}

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

// Files in `directory` that is_atomic_temporary() recognises.
std::vector<std::string> temporaries(const fs::path& directory) {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(directory))
        if (is_atomic_temporary(entry.path())) found.push_back(entry.path().filename().string());
    return found;
}

std::size_t entries(const fs::path& directory) {
    return std::size_t(std::distance(fs::directory_iterator(directory), fs::directory_iterator()));
}

// Bodies with awkward but valid values: signed zeros, subnormals, huge and tiny magnitudes.
Bodies awkward_bodies(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    const auto value = [&] { return mantissa(engine) * std::pow(10.0, exponent(engine)); };
    Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = value();
        b.y[i] = value();
        b.z[i] = value();
        b.vx[i] = value();
        b.vy[i] = value();
        b.vz[i] = value();
        b.m[i] = std::abs(value());
    }
    b.x[0] = -0.0;
    b.y[0] = 1e-300;
    b.z[0] = std::numeric_limits<double>::denorm_min();
    b.vx[0] = std::numeric_limits<double>::max();
    b.vy[0] = -std::numeric_limits<double>::min();
    b.vz[0] = 0.1;
    b.m[0] = 0.0;
    return b;
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

// A complete checkpoint with awkward values everywhere.
Checkpoint sample_checkpoint() {
    Checkpoint c;
    c.scenario_toml = to_toml(builtin_scenario("kepler"));
    c.step = (std::uint64_t(1) << 63) + 5;
    c.time = 0.1;
    c.dt = 1e-300;
    c.precision = "double";
    c.device = std::string("pocl\0cpu \xc3\xa9", 11);  // an embedded NUL and UTF-8
    const double nan_payload = from_bits(0x7ff8000000000123ull);
    c.state = {-0.0, 1e-300, std::numeric_limits<double>::denorm_min(), -1e300, 0.1, 1.0 / 3,
               std::numeric_limits<double>::max(), -std::numeric_limits<double>::min(),
               2.0, -3.0, -2.5, 7.0, 3.0, -0.0, 1e-300, 4.0, 5.0, 6.0};
    c.mass = {0.5, 1e-300, -0.0};
    // The state must be finite (the reader refuses it otherwise); other vectors keep any bits.
    c.integrator.vectors = {{1.0, -0.0, 1e-300, std::numeric_limits<double>::infinity()}, {},
                            {nan_payload, 2.0}};
    c.integrator.scalars = {0.5, -0.0, -std::numeric_limits<double>::infinity()};
    c.scheduler_weights = {0.25, 0.75};
    c.initial_diagnostics = {-1.2345678901234567, 1e-300};
    return c;
}

// The fluid fields too: 3 particles in 2-D (4 values each), no masses.
Checkpoint sample_fluid_checkpoint() {
    Checkpoint c;
    c.scenario_toml = to_toml(builtin_scenario("dambreak"));
    c.step = 7;
    c.time = 0.125;
    c.dt = 3e-5;
    c.precision = "float";
    c.state = {0.5, -0.0, 1e-300, 1, 2, 3, 0.25, 0.5, 0.75, -1, -2, -3};
    c.particle_types = {0, 1, 2};
    c.output_text = std::string("t,T,x,Z\n0,0,0.2,1\n\0\xc3\xa9", 21);  // an embedded NUL and UTF-8
    c.run_state = {3, 1, -0.0, 1e-300};
    return c;
}

void check_same_checkpoint(const Checkpoint& a, const Checkpoint& b) {
    CHECK(a.scenario_toml == b.scenario_toml);
    CHECK(a.step == b.step);
    CHECK(bits(a.time) == bits(b.time));
    CHECK(bits(a.dt) == bits(b.dt));
    CHECK(a.precision == b.precision);
    CHECK(a.device == b.device);
    CHECK(same_bits(a.state, b.state));
    CHECK(same_bits(a.mass, b.mass));
    REQUIRE(a.integrator.vectors.size() == b.integrator.vectors.size());
    for (std::size_t i = 0; i < a.integrator.vectors.size(); ++i)
        CHECK(same_bits(a.integrator.vectors[i], b.integrator.vectors[i]));
    CHECK(same_bits(a.integrator.scalars, b.integrator.scalars));
    CHECK(same_bits(a.scheduler_weights, b.scheduler_weights));
    CHECK(same_bits(a.initial_diagnostics, b.initial_diagnostics));
    CHECK(a.particle_types == b.particle_types);
    REQUIRE(a.series.size() == b.series.size());
    for (std::size_t i = 0; i < a.series.size(); ++i) CHECK(same_bits(a.series[i], b.series[i]));
    CHECK(a.output_text == b.output_text);
    CHECK(same_bits(a.run_state, b.run_state));
}

// A PIC run's checkpoint: 3 particles in 2-D (positions | velocities), no masses, species
// indices up to 2^32 - 1, measurement series.
Checkpoint sample_pic_checkpoint() {
    Checkpoint c;
    c.scenario_toml = to_toml(builtin_scenario("pair-plasma"));
    c.step = 7;
    c.time = 0.7000000000000001;
    c.dt = 0.1;
    c.precision = "float";
    c.device = "pocl";
    c.state = {0.1, 0.2, 0.3, -0.0, 1e-300, 6.2, 1.0, -1.0, 0.5, 0.25, 0.125, -0.0};
    c.particle_types = {0, 1, 0xffffffffu};
    c.initial_diagnostics = {1, 2, 3};
    c.series = {{0.0, 0.1}, {}, {from_bits(0x7ff8000000000123ull), -0.0}};
    return c;
}

std::array<unsigned char, 3> inferno_entry(int i) {
    // matplotlib's inferno at 0 and 1, as lib/io/render.cpp samples it.
    static const double table[2][3] = {{0.0015, 0.0005, 0.0139}, {0.9884, 0.9984, 0.6449}};
    std::array<unsigned char, 3> rgb{};
    for (int c = 0; c < 3; ++c) rgb[std::size_t(c)] = (unsigned char)std::lround(255.0 * table[i][c]);
    return rgb;
}

std::array<unsigned char, 3> pixel(const std::vector<unsigned char>& rgb, int width, int row,
                                   int column) {
    const std::size_t at = (std::size_t(row) * std::size_t(width) + std::size_t(column)) * 3;
    return {rgb[at], rgb[at + 1], rgb[at + 2]};
}

int brightness(const std::array<unsigned char, 3>& p) { return p[0] + p[1] + p[2]; }

} // namespace

TEST_SUITE("io") {

// ------------------------------------------------------------------------------------------
// Scenarios

TEST_CASE("every built-in scenario parses and survives to_toml exactly") {
    const auto names = builtin_scenario_names();
    CHECK(names == std::vector<std::string>{"galaxies", "plummer", "kepler", "cube", "dambreak",
                                            "dambreak3d", "hydrostatic", "langmuir", "two-stream",
                                            "pair-plasma"});
    for (const auto& name : names) {
        INFO("scenario " << name);
        const Scenario s = builtin_scenario(name);
        CHECK(s.name == name);
        // The MPS fluid built-ins (tests/test_mps_run.cpp checks their [fluid] keys).
        if (s.model == "mps") CHECK(s.fluid.setup == (name == "hydrostatic" ? "hydrostatic" : "dambreak"));
        else if (s.model == "pic")  // tests/test_pic_run.cpp
            CHECK(s.plasma.setup == (name == "pair-plasma" ? "species" : name));
        else CHECK(s.initial == name);
        const std::string text = to_toml(s);
        const Scenario back = parse_scenario(text, "x");
        CHECK(back == s);
        CHECK(to_toml(back) == text);
        // == compares to_toml's text; a few members directly, so a key to_toml forgot shows.
        CHECK(back.n == s.n);
        CHECK(back.seed == s.seed);
        CHECK(bits(back.dt) == bits(s.dt));
        CHECK(bits(back.gravity.softening) == bits(s.gravity.softening));
        CHECK(back.precision == s.precision);
        CHECK(back.steps == s.steps);
        CHECK(back.frame_every == s.frame_every);
        CHECK(back.render.width == s.render.width);
    }
    // The built-ins are different scenarios, and == sees it.
    CHECK(builtin_scenario("plummer") != builtin_scenario("cube"));
    CHECK(builtin_scenario("kepler").precision == Precision::float64);
    CHECK(builtin_scenario("kepler").n == 2);
    CHECK(bits(builtin_scenario("kepler").dt) == bits(0.006283185307179587));
    CHECK(contains(usage_error([] { builtin_scenario("nosuch"); }), "galaxies"));
}

TEST_CASE("to_toml round-trips awkward values exactly") {
    Scenario s = builtin_scenario("kepler");
    s.name = "we\"ird\\ name\nwith\ttabs \x01 and \xc3\xa9";
    s.description = "";
    s.seed = std::uint64_t(std::numeric_limits<std::int64_t>::max());
    s.snapshot = "some dir/with \"quotes\".hdf5";
    s.dt = 0.1;
    s.gravity.G = 1e300;
    s.gravity.softening = 1.0 / 3.0;
    s.kepler.masses = {std::numeric_limits<double>::denorm_min(), 0.7};
    s.kepler.eccentricity = std::nextafter(1.0, 0.0);
    s.atol = 5e-324;
    s.damping = std::nextafter(1.0, 0.0);
    s.render.width = 7;
    s.render.height = 16384;
    s.render.extent = 2.0 / 3.0;
    s.steps = 1;
    REQUIRE_NOTHROW(validate(s));

    const Scenario back = parse_scenario(to_toml(s), "x");
    CHECK(back == s);
    CHECK(back.name == s.name);
    CHECK(back.description.empty());
    CHECK(back.seed == s.seed);
    CHECK(back.snapshot == s.snapshot);
    CHECK(bits(back.dt) == bits(0.1));
    CHECK(bits(back.gravity.G) == bits(1e300));
    CHECK(bits(back.gravity.softening) == bits(1.0 / 3.0));
    CHECK(bits(back.kepler.masses[0]) == bits(std::numeric_limits<double>::denorm_min()));
    CHECK(bits(back.kepler.masses[1]) == bits(0.7));
    CHECK(bits(back.kepler.eccentricity) == bits(std::nextafter(1.0, 0.0)));
    CHECK(bits(back.atol) == bits(5e-324));
    CHECK(bits(back.damping) == bits(std::nextafter(1.0, 0.0)));
    CHECK(bits(back.render.extent) == bits(2.0 / 3.0));
    CHECK(back.render.width == 7);
    CHECK(back.render.height == 16384);

    // A change of the last bit of one value is a different scenario.
    Scenario other = s;
    other.gravity.softening = std::nextafter(other.gravity.softening, 1.0);
    CHECK(other != s);
}

TEST_CASE("an empty scenario is the galaxies built-in apart from its name and its units") {
    Scenario empty = parse_scenario("", "empty.toml");
    const Scenario galaxies = builtin_scenario("galaxies");
    CHECK(empty.name == "unnamed");
    CHECK(empty != galaxies);
    empty.name = galaxies.name;
    empty.description = galaxies.description;
    // Physical units are never assumed: a scenario names its own or has none.
    CHECK(!unit_system(empty).known());
    CHECK(empty != galaxies);
    empty.units = galaxies.units;
    CHECK(empty == galaxies);
    CHECK(empty.n == 16384);
    CHECK(empty.initial == "galaxies");

    // A comment-only file is empty too; one key changes only that key.
    Scenario seeded = parse_scenario("# nothing\n[bodies]\nseed = 7\n", "s.toml");
    CHECK(seeded.seed == 7);
    seeded.seed = galaxies.seed;
    seeded.units = galaxies.units;
    seeded.name = galaxies.name;
    seeded.description = galaxies.description;
    CHECK(seeded == galaxies);
}

TEST_CASE("docs/scenarios.md shows every built-in scenario verbatim") {
    const fs::path doc = fs::path(PARTCL_SOURCE_DIR) / "docs" / "scenarios.md";
    REQUIRE(fs::exists(doc));
    const std::string text = read_file(doc);
    for (const auto& name : builtin_scenario_names()) {
        INFO("scenario " << name);
        const std::string& toml = builtin_scenario_toml(name);
        REQUIRE(toml.size() > 100);
        // A fenced ```toml block holding exactly the built-in text.
        CHECK(contains(text, "```toml\n" + toml + "```\n"));
        CHECK(contains(text, "### `" + name + "`"));
    }
}

TEST_CASE("scenario errors name the file, the line and the key") {
    const std::vector<ScenarioErrorCase> cases = {
        {"negative dt", "# a comment\n[integrator]\ndt = -1\n",
         {"s.toml:3: ", "[integrator] dt", "positive", "-1"}},
        {"n = 0", "[bodies]\n\nn = 0\n", {"s.toml:3: ", "[bodies] n", "0"}},
        {"fractional n", "[bodies]\nn = 1.5\n", {"s.toml:2: ", "[bodies] n", "integer", "1.5"}},
        {"string n", "[bodies]\nseed = 1\nn = \"x\"\n",
         {"s.toml:3: ", "[bodies] n", "integer", "\"x\""}},
        {"negative n", "[bodies]\nn = -4\n", {"s.toml:2: ", "[bodies] n", "-4"}},
        {"unknown key", "[gravity]\nG = 1.0\n\nsofening = 0.1\n",
         {"s.toml:4: ", "sofening", "[gravity]", "softening"}},
        {"unknown table", "[bodies]\nn = 10\n[gravty]\nG = 1.0\n",
         {"s.toml:3: ", "gravty", "gravity"}},
        {"unknown integrator", "[run]\nsteps = 3\n[integrator]\nname = \"nosuch\"\n",
         {"s.toml:4: ", "[integrator] name", "nosuch", "leapfrog"}},
        {"unknown initial", "[bodies]\ninitial = \"nosuch\"\n",
         {"s.toml:2: ", "[bodies] initial", "nosuch", "plummer"}},
        {"unknown precision", "[run]\n\nprecision = \"half\"\n",
         {"s.toml:3: ", "[run] precision", "half", "double"}},
        {"eccentricity 1", "[bodies]\ninitial = \"kepler\"\n[kepler]\neccentricity = 1\n",
         {"s.toml:4: ", "[kepler] eccentricity", "[0, 1)", "1"}},
        {"one mass", "[kepler]\nmasses = [1.0]\n", {"s.toml:2: ", "[kepler] masses", "2"}},
        {"negative mass", "[kepler]\nsemi_major_axis = 2\nmasses = [1.0, -1.0]\n",
         {"s.toml:3: ", "[kepler] masses", "positive"}},
        {"infinite G", "[gravity]\nG = inf\n", {"s.toml:2: ", "[gravity] G", "finite", "inf"}},
        {"NaN softening", "[gravity]\nsoftening = nan\n",
         {"s.toml:2: ", "[gravity] softening", "finite"}},
        {"zero steps", "[run]\nsteps = 0\n", {"s.toml:2: ", "[run] steps"}},
        {"width 0", "[render]\nwidth = 0\n", {"s.toml:2: ", "[render] width"}},
        {"snapshot without a file", "[bodies]\ninitial = \"snapshot\"\n",
         {"s.toml:1: ", "[bodies] snapshot"}},
        {"table as a key", "bodies = 3\n", {"s.toml:1: ", "bodies"}},
    };
    check_scenario_errors(cases);
}

TEST_CASE("malformed TOML is a UsageError with file:line:column") {
    {
        const std::string message =
            usage_error([] { parse_scenario("[bodies]\nn = 3\nseed = = 4\n", "bad.toml"); });
        INFO(message);
        CHECK(contains(message, "bad.toml:3:"));
        CHECK(contains(message, "malformed TOML"));
        const auto at = message.find("bad.toml:3:");
        REQUIRE(at != std::string::npos);
        const std::size_t column = at + std::string("bad.toml:3:").size();
        REQUIRE(column < message.size());
        CHECK(std::isdigit(static_cast<unsigned char>(message[column])));
    }
    // Inputs that trip toml++ 3.3's internal assertion (marzer/tomlplusplus#301): an error,
    // never an abort.
    for (const char* input : {"[{x]", "[[[1]]]", "[[", "a = [{x]", "\"\\", "[bodies]\nn = 0x"}) {
        INFO("input: " << input);
        const std::string message = usage_error([&] { parse_scenario(input, "odd.toml"); });
        INFO("message: " << message);
        CHECK(message.rfind("odd.toml:", 0) == 0);
    }
}

TEST_CASE("non-ASCII text: read in strings and comments, refused elsewhere with its line and column") {
    // toml++ 3.3 meets undefined behaviour when it tests such characters for whitespace
    // (lib/io/toml_text.hpp): each of these is refused before it reads them.
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"[bodies]\nn = 3\xc3\xa9\n", "u.toml:2:6:"},
        {"[bodies]\nn = 3 \xc3\xa9\n", "u.toml:2:7:"},
        {"\xc3\xa9 = 1\n", "u.toml:1:1:"},
        {"[\xc3\xa9]\n", "u.toml:1:2:"},
        {"[scenario]\nname = \"s\"\xc3\xa9\n", "u.toml:2:11:"},
        {"x = [1,\xc3\xa9]\n", "u.toml:1:8:"},
        {"x = {a=1,\xc3\xa9}\n", "u.toml:1:10:"},
        {"x = true\xd0\x96\n", "u.toml:1:9:"},
        {"[scenario]\ndescription = \"\"\"a\\\xc3\xa9\"\"\"\n", "backslash before a non-ASCII"},
        {"[scenario]\ndescription = \"\"\"a\\ \n\n  \xc3\xa9\"\"\"\n", "after a line-ending backslash"},
    };
    for (const auto& [text, needle] : refused) {
        INFO("input: " << text);
        const std::string message = usage_error([&] { parse_scenario(text, "u.toml"); });
        INFO("message: " << message);
        CHECK(contains(message, needle));
    }
    const Scenario s = parse_scenario(
        "# caf\xc3\xa9 \xe2\x80\x94 comment\n[scenario]\nname = \"caf\xc3\xa9\"  # \xc3\xa9\n"
        "description = '''\xc3\x85ngstr\xc3\xb6m \"\"\" \\'''\n"
        "[bodies]\nn = 7 # n\xc3\xa9\n",
        "u.toml");
    CHECK(s.name == "caf\xc3\xa9");
    CHECK(s.description == "\xc3\x85ngstr\xc3\xb6m \"\"\" \\");
    CHECK(s.n == 7);
}

TEST_CASE("load_scenario: file names in errors, stem as name, snapshot path relative to the file") {
    TempDir dir("io-load");
    write_file(dir / "my run.toml", "[bodies]\ninitial = \"snapshot\"\nsnapshot = \"b.hdf5\"\n");
    const Scenario s = load_scenario(dir / "my run.toml");
    CHECK(s.name == "my run");
    CHECK(s.n == 0);
    CHECK(s.snapshot == dir / "b.hdf5");

    write_file(dir / "bad.toml", "[integrator]\n\ndt = 0\n");
    const std::string bad = usage_error([&] { load_scenario(dir / "bad.toml"); });
    CHECK(contains(bad, (dir / "bad.toml").string() + ":3: "));
    CHECK(contains(bad, "[integrator] dt"));

    const std::string missing = usage_error([&] { load_scenario(dir / "none.toml"); });
    CHECK(contains(missing, (dir / "none.toml").string()));
    CHECK(contains(usage_error([&] { load_scenario(dir.path()); }), dir.path().string()));
}

TEST_CASE("kepler has two bodies and nothing else") {
    const Scenario s = parse_scenario("[bodies]\ninitial = \"kepler\"\n", "k.toml");
    CHECK(s.n == 2);
    CHECK(make_bodies(s).size() == 2);
    const std::string message =
        usage_error([] { parse_scenario("[bodies]\ninitial = \"kepler\"\nn = 3\n", "k.toml"); });
    INFO(message);
    CHECK(contains(message, "k.toml:3: "));
    CHECK(contains(message, "[bodies] n"));
    CHECK(contains(message, "kepler"));
    // The same through validate() for a scenario changed in code.
    Scenario changed = s;
    changed.n = 3;
    CHECK(contains(usage_error([&] { validate(changed); }), "[bodies] n"));
    CHECK(contains(usage_error([&] { make_bodies(changed); }), "[bodies] n"));
}

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
    s.initial = "snapshot";
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

// ------------------------------------------------------------------------------------------
// Checkpoints

TEST_CASE("checkpoints round-trip exactly") {
    TempDir dir("io-ck");
    const Checkpoint c = sample_checkpoint();
    const std::string bytes = encode_checkpoint(c);

    // The documented header: magic, version 2, reserved 0, payload size; SHA-1 at the end.
    REQUIRE(bytes.size() > 44);
    CHECK(bytes.substr(0, 8) == "PARTCLCK");
    CHECK(bytes.substr(8, 8) == std::string("\x02\0\0\0\0\0\0\0", 8));
    std::uint64_t payload = 0;
    for (int i = 0; i < 8; ++i)
        payload |= std::uint64_t(static_cast<unsigned char>(bytes[std::size_t(16 + i)])) << (8 * i);
    CHECK(payload == bytes.size() - 24 - 20);

    check_same_checkpoint(decode_checkpoint(bytes, "memory"), c);

    const fs::path file = dir / "run.ck";
    write_checkpoint(file, c);
    CHECK(read_file(file) == bytes);
    check_same_checkpoint(read_checkpoint(file), c);
    CHECK(temporaries(dir.path()).empty());

    // An empty checkpoint is valid too, and so is a PIC run's.
    const Checkpoint empty;
    check_same_checkpoint(decode_checkpoint(encode_checkpoint(empty), "memory"), empty);
    const Checkpoint pic = sample_pic_checkpoint();
    check_same_checkpoint(decode_checkpoint(encode_checkpoint(pic), "memory"), pic);
    // And one of a fluid run.
    const Checkpoint fluid = sample_fluid_checkpoint();
    check_same_checkpoint(decode_checkpoint(encode_checkpoint(fluid), "memory"), fluid);

    // Version 1 (before PIC and MPS runs had checkpoints) still reads: the same payload without
    // its last four items (three empty vectors' and one empty string's counts, 32 bytes), under
    // a version-1 header and its own SHA-1.
    {
        const std::string v2 = encode_checkpoint(c);
        std::string payload = v2.substr(24, v2.size() - 24 - 20 - 32);
        boost::uuids::detail::sha1 hash;
        hash.process_bytes(payload.data(), payload.size());
        boost::uuids::detail::sha1::digest_type digest;
        hash.get_digest(digest);
        std::string v1 = v2.substr(0, 24);
        v1[8] = 1;
        for (int i = 0; i < 8; ++i) v1[std::size_t(16 + i)] = char((payload.size() >> (8 * i)) & 0xff);
        v1 += payload;
        for (int i = 0; i < 5; ++i)
            for (int b = 0; b < 4; ++b) v1 += char((digest[i] >> (24 - 8 * b)) & 0xff);
        check_same_checkpoint(decode_checkpoint(v1, "v1"), c);
    }

    // The scenario inside reads back as the scenario.
    CHECK(parse_scenario(read_checkpoint(file).scenario_toml, "ck") == builtin_scenario("kepler"));
}

TEST_CASE("damaged checkpoints are UsageErrors naming the file") {
    TempDir dir("io-badck");
    const std::string bytes = encode_checkpoint(sample_checkpoint());
    const auto check_file = [&](const std::string& name, const std::string& contents,
                                const char* reason) {
        INFO(name);
        const fs::path file = dir / name;
        write_file(file, contents);
        const std::string message = usage_error([&] { read_checkpoint(file); });
        INFO("message: " << message);
        CHECK(contains(message, file.string()));
        CHECK(contains(message, reason));
    };
    check_file("empty.ck", "", "empty");
    check_file("truncated.ck", bytes.substr(0, bytes.size() / 2), "truncated");
    check_file("short.ck", bytes.substr(0, 12), "truncated");
    check_file("magic-prefix.ck", bytes.substr(0, 5), "truncated");
    check_file("trailing.ck", bytes + '\0', "unexpected bytes");
    std::string magic = bytes;
    magic[3] = 'x';
    check_file("magic.ck", magic, "magic");
    check_file("text.ck", "[scenario]\nname = \"x\"\n", "magic");
    std::string version = bytes;
    version[8] = 3;
    check_file("version.ck", version, "version");
    // Well formed, checksum and all, but not a state a run can continue from.
    Checkpoint nan_time = sample_checkpoint();
    nan_time.time = std::nan("");
    check_file("nan-time.ck", encode_checkpoint(nan_time), "the time is NaN");
    Checkpoint infinite_state = sample_checkpoint();
    infinite_state.state[1] = HUGE_VAL;
    check_file("inf-state.ck", encode_checkpoint(infinite_state), "value 1 is infinite");
    Checkpoint negative_dt = sample_checkpoint();
    negative_dt.dt = -1;
    check_file("negative-dt.ck", encode_checkpoint(negative_dt), "dt is negative");
    for (std::size_t at : {std::size_t(30), bytes.size() / 2, bytes.size() - 25,
                           bytes.size() - 1}) {
        std::string flipped = bytes;
        flipped[at] = char(flipped[at] ^ 0x10);
        check_file("flipped-" + std::to_string(at) + ".ck", flipped, "checksum");
    }
    {
        const fs::path missing = dir / "missing.ck";
        const std::string message = usage_error([&] { read_checkpoint(missing); });
        CHECK(contains(message, missing.string()));
        CHECK(contains(message, "no such file"));
    }
    CHECK(contains(usage_error([&] { read_checkpoint(dir.path()); }), dir.path().string()));

    // Every proper prefix and every single-bit flip anywhere is refused.
    std::size_t accepted_prefixes = 0, accepted_flips = 0;
    for (std::size_t size = 0; size < bytes.size(); ++size)
        if (usage_error([&] { decode_checkpoint(bytes.substr(0, size), "m"); })
                .rfind("checkpoint m", 0) != 0)
            ++accepted_prefixes;
    for (std::size_t at = 0; at < bytes.size(); ++at)
        for (int bit = 0; bit < 8; bit += 3) {
            std::string flipped = bytes;
            flipped[at] = char(flipped[at] ^ (1 << bit));
            if (usage_error([&] { decode_checkpoint(flipped, "m"); })
                    .rfind("checkpoint m", 0) != 0)
                ++accepted_flips;
        }
    CHECK(accepted_prefixes == 0);
    CHECK(accepted_flips == 0);

    // Consistent checksum, inconsistent contents: 5 state values for 1 mass.
    Checkpoint odd;
    odd.state = {1, 2, 3, 4, 5};
    odd.mass = {1};
    const std::string message =
        usage_error([&] { decode_checkpoint(encode_checkpoint(odd), "odd.ck"); });
    INFO(message);
    CHECK(contains(message, "odd.ck"));
    CHECK(contains(message, "damaged"));
    // A PIC checkpoint with 5 state values for 1 particle, and one with masses.
    Checkpoint pic = sample_pic_checkpoint();
    pic.state.resize(5);
    CHECK(contains(usage_error([&] { decode_checkpoint(encode_checkpoint(pic), "pic.ck"); }),
                   "2, 4 or 6 per particle"));
    pic = sample_pic_checkpoint();
    pic.mass = {1, 1, 1};
    CHECK(contains(usage_error([&] { decode_checkpoint(encode_checkpoint(pic), "pic.ck"); }),
                   "damaged"));
    // The same for a fluid checkpoint.
    Checkpoint fluid = sample_fluid_checkpoint();
    fluid.state.resize(5);
    CHECK(contains(usage_error([&] { decode_checkpoint(encode_checkpoint(fluid), "f.ck"); }), "damaged"));
    fluid = sample_fluid_checkpoint();
    fluid.mass = {1, 1, 1};
    CHECK(contains(usage_error([&] { decode_checkpoint(encode_checkpoint(fluid), "f.ck"); }), "damaged"));
}

// ------------------------------------------------------------------------------------------
// Atomic files

TEST_CASE("a failed atomic write keeps the old file and leaves no temporary") {
    TempDir dir("io-atomic");
    const fs::path target = dir / "out.txt";
    write_file_atomically(target, std::string("old\0contents", 12));
    CHECK(read_file(target) == std::string("old\0contents", 12));

    fs::path seen;
    try {
        write_file_atomically(target, [&](const fs::path& temporary) {
            seen = temporary;
            CHECK(!fs::exists(temporary));
            write_file(temporary, "half-written new contents");
            throw std::logic_error("writer failed");
        });
        FAIL("the writer's exception did not propagate");
    } catch (const Error& error) {
        FAIL("the writer's exception became a partcl::Error: " << error.what());
    } catch (const std::logic_error& error) {
        CHECK(std::string(error.what()) == "writer failed");
    }
    CHECK(seen.parent_path() == target.parent_path());
    CHECK(is_atomic_temporary(seen));
    CHECK(!fs::exists(seen));
    CHECK(read_file(target) == std::string("old\0contents", 12));
    CHECK(temporaries(dir.path()).empty());
    CHECK(entries(dir.path()) == 1);

    // A writer that creates nothing is an error too; the old file stays.
    const std::string nothing = partcl_error([&] { write_file_atomically(target, [](const fs::path&) {}); });
    CHECK(contains(nothing, target.string()));
    CHECK(read_file(target) == std::string("old\0contents", 12));

    // A successful write replaces the contents.
    write_file_atomically(target, "new");
    CHECK(read_file(target) == "new");
    CHECK(entries(dir.path()) == 1);
}

TEST_CASE("atomic writes into a missing directory name the path") {
    TempDir dir("io-nodir");
    const fs::path target = dir / "no" / "such" / "file.bin";
    const std::string message = partcl_error([&] { write_file_atomically(target, "x"); });
    INFO(message);
    CHECK(contains(message, target.string()));
    CHECK(!fs::exists(dir / "no"));

    Bodies bodies = awkward_bodies(4, 1);
    CHECK(contains(partcl_error([&] { write_snapshot(dir / "no" / "s.hdf5", bodies, 0); }),
                   (dir / "no" / "s.hdf5").string()));
    CHECK(contains(partcl_error([&] { write_checkpoint(dir / "no" / "c.ck", Checkpoint{}); }),
                   (dir / "no" / "c.ck").string()));
    CHECK(contains(partcl_error([&] {
                       render_density(dir / "no" / "f.png", bodies, RenderSettings{});
                   }),
                   (dir / "no" / "f.png").string()));
    CHECK(entries(dir.path()) == 0);
}

TEST_CASE("remove_stale_temporaries removes a dead writer's temporaries only") {
    TempDir dir("io-stale");
    // A process that has ended: its id is free (until reused, which a test cannot rule out
    // for long, so the check follows right after it ends).
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    REQUIRE(child > 0);
    REQUIRE(::waitpid(child, nullptr, 0) == child);
    const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
    write_file(dir / ("energy.csv.tmp." + dead + ".0"), "half");
    write_file(dir / ("snapshot_000010.h5.tmp." + dead + ".3"), "half");
    write_file(dir / ("frame.png.tmp." + alive + ".1"), "being written");
    write_file(dir / "energy.csv", "kept");
    write_file(dir / "notes.tmp.12345678901234567890.1", "not ours: no process id");
    CHECK(remove_stale_temporaries(dir.path()) == 2);
    CHECK(!fs::exists(dir / ("energy.csv.tmp." + dead + ".0")));
    CHECK(fs::exists(dir / ("frame.png.tmp." + alive + ".1")));
    CHECK(fs::exists(dir / "energy.csv"));
    CHECK(fs::exists(dir / "notes.tmp.12345678901234567890.1"));
    CHECK(remove_stale_temporaries(dir / "missing") == 0);
}

TEST_CASE("is_atomic_temporary recognises exactly the temporary names") {
    CHECK(is_atomic_temporary("dir/out.png.tmp.123.0"));
    CHECK(is_atomic_temporary("a.tmp.1.22"));
    CHECK(!is_atomic_temporary("a.tmp"));
    CHECK(!is_atomic_temporary("a.tmp.1"));
    CHECK(!is_atomic_temporary("a.tmp.1."));
    CHECK(!is_atomic_temporary("a.tmp..1"));
    CHECK(!is_atomic_temporary("a.tmp.1.2x"));
    CHECK(!is_atomic_temporary(".tmp.1.2"));
    CHECK(!is_atomic_temporary("a.txt"));
}

// ------------------------------------------------------------------------------------------
// Frames

TEST_CASE("render_density_rgb: size, empty sky, a single body") {
    RenderSettings settings;
    settings.width = 31;
    settings.height = 21;
    settings.extent = 1.0;
    settings.smoothing = 0;
    const std::size_t pixels = 31 * 21;

    const auto dark = inferno_entry(0), bright = inferno_entry(1);
    REQUIRE(dark != bright);

    // No bodies, or bodies outside the frame: every pixel is the map's first colour.
    Bodies outside;
    outside.resize(1);
    outside.x[0] = 5.0;
    outside.m[0] = 1.0;
    for (const Bodies& sky : {outside, Bodies{}}) {
        INFO("bodies " << sky.size());
        const std::vector<unsigned char> rgb = render_density_rgb(sky, settings);
        REQUIRE(rgb.size() == pixels * 3);
        std::size_t dark_pixels = 0;
        for (int row = 0; row < 21; ++row)
            for (int column = 0; column < 31; ++column)
                dark_pixels += pixel(rgb, 31, row, column) == dark;
        CHECK(dark_pixels == pixels);
    }

    Bodies one;
    one.resize(1);
    one.m[0] = 0.5;
    for (double smoothing : {0.0, 2.0}) {
        INFO("smoothing " << smoothing);
        settings.smoothing = smoothing;
        const std::vector<unsigned char> rgb = render_density_rgb(one, settings);
        REQUIRE(rgb.size() == pixels * 3);
        const auto centre = pixel(rgb, 31, 10, 15);
        CHECK(centre == bright);
        std::size_t dimmer = 0;
        for (int row = 0; row < 21; ++row)
            for (int column = 0; column < 31; ++column)
                if (row != 10 || column != 15)
                    dimmer += brightness(pixel(rgb, 31, row, column)) < brightness(centre);
        CHECK(dimmer == pixels - 1);
        // Symmetric about the centre.
        CHECK(pixel(rgb, 31, 10, 14) == pixel(rgb, 31, 10, 16));
        CHECK(pixel(rgb, 31, 9, 15) == pixel(rgb, 31, 11, 15));
        if (smoothing > 0) CHECK(pixel(rgb, 31, 10, 14) != dark);
        else CHECK(pixel(rgb, 31, 10, 14) == dark);
    }

    // y grows upwards, x to the right: a body at (+x, +y) is in the top-right quarter.
    Bodies corner;
    corner.resize(1);
    corner.m[0] = 1.0;
    corner.x[0] = 0.5;
    corner.y[0] = 0.3;
    settings.smoothing = 0;
    const std::vector<unsigned char> rgb = render_density_rgb(corner, settings);
    int best_row = -1, best_column = -1, best = -1;
    for (int row = 0; row < 21; ++row)
        for (int column = 0; column < 31; ++column)
            if (brightness(pixel(rgb, 31, row, column)) > best) {
                best = brightness(pixel(rgb, 31, row, column));
                best_row = row;
                best_column = column;
            }
    // Pixel size 2/31: x = 0.5 is column 15 + 0.5 * 15.5 = 22.75 -> 22 or 23; y = 0.3 is
    // row 10 - 0.3 * 15.5 = 5.35 -> 5 or 6.
    CHECK(best_column >= 22);
    CHECK(best_column <= 23);
    CHECK(best_row >= 5);
    CHECK(best_row <= 6);

    settings.width = 0;
    CHECK(contains(usage_error([&] { render_density_rgb(one, settings); }), "width"));
}

TEST_CASE("render_density writes a PNG of the requested size") {
    TempDir dir("io-png");
    Scenario s = builtin_scenario("plummer");
    s.n = 200;
    const Bodies bodies = make_bodies(s);
    RenderSettings settings;
    settings.width = 40;
    settings.height = 24;
    const fs::path file = dir / "frame.png";
    render_density(file, bodies, settings);
    const std::string png = read_file(file);
    REQUIRE(png.size() > 33);
    CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
    CHECK(png.substr(12, 4) == "IHDR");
    const auto be32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
        return v;
    };
    CHECK(be32(16) == 40);
    CHECK(be32(20) == 24);
    CHECK(png[24] == 8);  // bit depth
    CHECK(png[25] == 2);  // colour type RGB
    CHECK(temporaries(dir.path()).empty());
}

} // TEST_SUITE
