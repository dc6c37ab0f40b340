// Scenarios: the built-ins, reading TOML (every message names the file, the line and the key),
// to_toml's exact round trip. Host only: no device, no kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::contains;
using partcl_test::read_file;
using partcl_test::TempDir;
using partcl_test::write_file;
using partcl_test::usage_error;
namespace fs = std::filesystem;
using partcl_test::bits;
using partcl_test::check_scenario_errors;
using partcl_test::ScenarioErrorCase;

TEST_SUITE("io") {

// ------------------------------------------------------------------------------------------
// Scenarios

TEST_CASE("every built-in scenario parses and survives to_toml exactly") {
    const auto names = builtin_scenario_names();
    CHECK(names == std::vector<std::string>{"galaxies", "plummer", "kepler", "cube", "dambreak",
                                            "dambreak3d", "hydrostatic", "langmuir", "two-stream",
                                            "pair-plasma", "cosmology"});
    for (const auto& name : names) {
        INFO("scenario " << name);
        const Scenario s = builtin_scenario(name);
        CHECK(s.name == name);
        // The MPS fluid built-ins (tests/test_mps_run.cpp checks their [fluid] keys).
        if (s.model == "mps") CHECK(s.fluid.setup == (name == "hydrostatic" ? FluidSetup::hydrostatic : FluidSetup::dambreak));
        else if (s.model == "pic")  // tests/test_pic_run.cpp
            CHECK(to_string(s.plasma.setup) == (name == "pair-plasma" ? "species" : name));
        else if (s.model == "cosmology")  // tests/test_cosmology_run.cpp
            CHECK(s.cosmology.side == 64);
        else CHECK(to_string(s.initial) == name);
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
    CHECK(empty.initial == InitialConditions::galaxies);

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

TEST_CASE("the built-in scenarios are the files of examples/scenarios, byte for byte") {
    const fs::path dir = fs::path(PARTCL_SOURCE_DIR) / "examples" / "scenarios";
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        CHECK(entry.path().extension() == ".toml");
        files.push_back(entry.path().stem().string());
    }
    std::vector<std::string> names = builtin_scenario_names();
    std::sort(files.begin(), files.end());
    std::sort(names.begin(), names.end());
    CHECK(files == names);
    for (const auto& name : names) {
        INFO("scenario " << name);
        CHECK(read_file(dir / (name + ".toml")) == builtin_scenario_toml(name));
    }
}

TEST_CASE("enum options: every name round-trips; an unknown one is reported where its key is checked") {
    const std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
        {"gravity.model", gravity_model_names()},
        {"gravity.traversal", names_of(tree_traversals)},
        {"bodies.initial", initial_condition_names()}};
    for (const auto& [key, names] : keys) {
        for (const auto& name : names) {
            INFO(key << " = " << name);
            Scenario s;
            UnknownNames unknown;
            set_by_name(s, key, name, unknown);
            CHECK(unknown.empty());
            if (name == "kepler") s.n = 2;  // what those initial conditions need to be valid
            if (name == "snapshot") s.snapshot = "bodies.hdf5";
            CHECK(contains(to_toml(s), key.substr(key.find('.') + 1) + " = \"" + name + "\""));
            CHECK(parse_scenario(to_toml(s), "x.toml") == s);
        }
    }
    Scenario mps = builtin_scenario("dambreak");
    for (const auto& name : fluid_setup_names()) {
        UnknownNames unknown;
        set_by_name(mps, "fluid.setup", name, unknown);
        CHECK(to_string(mps.fluid.setup) == name);
    }
    // The method's options: each name set, written and read back.
    auto round_trips = [](const char* key, const std::vector<std::string>& names, auto field) {
        Scenario mps = builtin_scenario("dambreak");
        for (const auto& name : names) {
            INFO(key << " = " << name);
            UnknownNames unknown;
            set_by_name(mps, key, name, unknown);
            CHECK(unknown.empty());
            CHECK(to_string(mps.fluid.*field) == name);
            CHECK(parse_scenario(to_toml(mps), "x.toml").fluid.*field == mps.fluid.*field);
        }
    };
    round_trips("fluid.weight", names_of(mps_weights), &Scenario::Fluid::weight);
    round_trips("fluid.gradient", names_of(mps_gradients), &Scenario::Fluid::gradient);
    Scenario pic = builtin_scenario("langmuir");
    for (const auto& name : pic_deposit_names()) {
        UnknownNames unknown;
        set_by_name(pic, "plasma.deposit", name, unknown);
        CHECK(to_string(pic.plasma.deposit) == name);
        CHECK(parse_scenario(to_toml(pic), "x.toml").plasma.deposit == pic.plasma.deposit);
    }

    // An unknown name leaves the value alone and waits for validate(), which reports the first
    // problem in the schema's order: theta before traversal before group_size.
    Scenario s = builtin_scenario("plummer");
    UnknownNames unknown;
    set_by_name(s, "gravity.traversal", "recursive", unknown);
    CHECK(s.tree.traversal == TreeTraversal::stackless);
    CHECK(usage_error([&] { validate(s, unknown); }) ==
          "scenario 'plummer': [gravity] traversal \"recursive\" is not a tree traversal (known: "
          "stackless, nested)");
    CHECK_NOTHROW(validate(s));
    s.tree.group_size = 48;
    CHECK(contains(usage_error([&] { validate(s, unknown); }), "[gravity] traversal"));
    s.tree.theta = 2;
    CHECK(contains(usage_error([&] { validate(s, unknown); }), "[gravity] theta must be in [0, 1] (got 2)"));
    s.tree.theta = 0.5;
    set_by_name(s, "gravity.traversal", "nested", unknown);
    CHECK(unknown.empty());
    CHECK(s.tree.traversal == TreeTraversal::nested);
    CHECK(contains(usage_error([&] { validate(s, unknown); }), "[gravity] group_size"));
    // Text keys are set as given; a key that takes no name is refused.
    set_by_name(s, "integrator.name", "dopri5", unknown);
    CHECK(s.integrator == "dopri5");
    CHECK(contains(usage_error([&] { set_by_name(s, "gravity.theta", "1", unknown); }), "gravity.theta"));
    CHECK(contains(usage_error([&] { set_by_name(s, "nosuch", "1", unknown); }), "nosuch"));

    // A file the same way: the unknown traversal waits for theta's problem on the line after it.
    CHECK(usage_error([] { parse_scenario("[gravity]\ntraversal = \"recursive\"\ntheta = 2\n", "t.toml"); }) ==
          "t.toml:3: [gravity] theta must be in [0, 1] (got 2)");
    CHECK(usage_error([] { parse_scenario("[gravity]\ntraversal = \"recursive\"\n", "t.toml"); }) ==
          "t.toml:2: [gravity] traversal \"recursive\" is not a tree traversal (known: stackless, "
          "nested)");
}

} // TEST_SUITE
