// The MPS fluid scenarios end to end through the library: the [fluid] keys (good and bad
// input), short dambreak and hydrostatic runs through MpsRun writing their CSV and frames, and
// checkpoints: a resumed run ends bit for bit as the uninterrupted one.
// (The physics -- the front against Martin & Moyce, the hydrostatic pressure within 5% -- is
// checked by the mps_physics suite on the same MpsFluid; here the runs are seconds long.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>

#include <partcl/io/checkpoint.hpp>
#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_tank.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/run/mps_run.hpp>
#include <partcl/run/nbody_run.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// A coarse, short dam break: a = 0.2 m at l0 = a / 10 (100 water particles), 0.06 s.
const char* const short_dambreak = R"toml(
[scenario]
name = "short"
model = "mps"
[fluid]
setup = "dambreak"
spacing = 0.02
end_time = 0.06
sample_every = 0.01
frame_every = 0.03
[render]
width = 200
)toml";

// frame_NNNNNN.png of a step (lib/run/output.hpp's naming).
fs::path detail_frame(std::uint64_t step) {
    char name[64];
    std::snprintf(name, sizeof name, "frame_%06llu.png", static_cast<unsigned long long>(step));
    return name;
}

} // namespace

TEST_SUITE("mps_run") {

TEST_CASE("the MPS built-ins parse, survive to_toml and hold their set-ups") {
    for (const char* name : {"dambreak", "dambreak3d", "hydrostatic"}) {
        INFO(name);
        const Scenario s = builtin_scenario(name);
        CHECK(s.model == "mps");
        CHECK(parse_scenario(to_toml(s), "x") == s);
        CHECK(s.fluid.spacing > 0);
        // Only the keys of the scenario's model are written: no N-body table.
        CHECK_FALSE(contains(to_toml(s), "[gravity]"));
        CHECK(contains(to_toml(s), "[fluid]"));
    }
    CHECK(builtin_scenario("dambreak").fluid.dimensions == 2);
    CHECK(builtin_scenario("dambreak3d").fluid.dimensions == 3);
    CHECK(builtin_scenario("hydrostatic").fluid.setup == FluidSetup::hydrostatic);
    // And an N-body scenario writes no [fluid].
    CHECK_FALSE(contains(to_toml(builtin_scenario("plummer")), "[fluid]"));
    // A round trip keeps a changed value exactly.
    Scenario s = builtin_scenario("dambreak");
    s.fluid.sound_speed = 0.1 + 0.2;
    CHECK(parse_scenario(to_toml(s), "x").fluid.sound_speed == s.fluid.sound_speed);
    CHECK(parse_scenario(to_toml(s), "x") != builtin_scenario("dambreak"));
}

TEST_CASE("bad [fluid] input is a usage error naming the line, the key and the problem") {
    const std::string head = "[scenario]\nmodel = \"mps\"\n[fluid]\n";  // [fluid] keys from line 4
    const std::vector<ScenarioErrorCase> cases = {
        {"water outside the tank", head + "water_width = 0.9\n",
         {"s.toml:4: ", "[fluid] water_width", "outside the tank", "0.9"}},
        {"water above the tank", head + "water_height = 0.4\n",
         {"s.toml:4: ", "[fluid] water_height", "tank_height"}},
        {"spacing larger than re", head + "re_ratio = 0.8\n",
         {"s.toml:4: ", "[fluid] re_ratio", "exceed the spacing", "0.8"}},
        {"Laplacian re", head + "re_laplacian_ratio = 1\n", {"s.toml:4: ", "[fluid] re_laplacian_ratio"}},
        {"NaN spacing", head + "spacing = nan\n", {"s.toml:4: ", "[fluid] spacing", "finite"}},
        {"NaN sound speed", head + "sound_speed = nan\n", {"s.toml:4: ", "[fluid] sound_speed", "finite"}},
        {"not a multiple", head + "spacing = 0.03\n",
         {"[fluid] water_width", "whole multiple of the spacing 0.03", "0.2"}},
        {"misspelt key", head + "end_tim = 1.0\n", {"s.toml:4: ", "end_tim", "[fluid]", "end_time"}},
        {"string for a number", head + "spacing = \"0.01\"\n",
         {"s.toml:4: ", "[fluid] spacing", "number"}},
        {"unknown set-up", head + "setup = \"wave\"\n", {"s.toml:4: ", "wave", "dambreak, hydrostatic"}},
        {"4 dimensions", head + "dimensions = 4\n", {"s.toml:4: ", "[fluid] dimensions", "2 or 3"}},
        {"9 surface sweeps", head + "surface_sweeps = 9\n",
         {"s.toml:4: ", "[fluid] surface_sweeps", "0 to 8", "9"}},
        {"negative surface sweeps", head + "surface_sweeps = -1\n",
         {"s.toml:4: ", "[fluid] surface_sweeps", "non-negative integer", "-1"}},
        {"reconstruction beyond 1", head + "artificial_viscosity = 1\nviscosity_reconstruction = 1.5\n",
         {"s.toml:5: ", "[fluid] viscosity_reconstruction", "[0, 1]", "1.5"}},
        {"reconstruction without viscosity", head + "viscosity_reconstruction = 0.5\n",
         {"s.toml:4: ", "[fluid] viscosity_reconstruction", "artificial_viscosity > 0"}},
        {"narrow hydrostatic column", head + "setup = \"hydrostatic\"\n",
         {"[fluid] water_width", "must equal [fluid] tank_width"}},
        {"slow sound in a hydrostatic column", head + "setup = \"hydrostatic\"\nwater_width = 0.8\nsound_speed = 1\n",
         {"s.toml:6: ", "[fluid] sound_speed", "sqrt(10 g h)", "compressed by more than 10%"}},
        {"zero end time", head + "end_time = 0\n", {"s.toml:4: ", "[fluid] end_time", "positive"}},
        {"N-body table in an MPS scenario", head + "[gravity]\nG = 1.0\n",
         {"s.toml:4: ", "[gravity]", "model = \"nbody\""}},
        {"N-body key in an MPS scenario", head + "[run]\nsteps = 10\n",
         {"s.toml:5: ", "[run] steps", "model = \"nbody\"", "end_time"}},
        {"N-body render key", head + "[render]\ndecades = 2.0\n", {"s.toml:5: ", "[render] decades"}},
        {"[fluid] in an N-body scenario", "[fluid]\nspacing = 0.01\n",
         {"s.toml:1: ", "[fluid]", "model = \"mps\""}},
        {"unknown model", "[scenario]\nmodel = \"sph\"\n", {"s.toml:2: ", "sph", "nbody, mps"}},
    };
    check_scenario_errors(cases);
    // The keys of the MPS model read in any table order (the model is known only at the end).
    const Scenario s = parse_scenario("[fluid]\nspacing = 0.01\n[scenario]\nmodel = \"mps\"\n", "s.toml");
    CHECK(s.fluid.spacing == 0.01);
    // validate() checks scenarios changed in code.
    Scenario changed = builtin_scenario("hydrostatic");
    changed.fluid.water_width = 0.1;
    CHECK(contains(usage_error([&] { validate(changed); }), "[fluid] water_width"));
}

TEST_CASE("a [fluid] constant that a scenario takes, MpsFluid takes: one range each") {
    // [fluid]'s constants are the model's MpsOptions, each range one predicate; a scenario
    // bounds the influence radii to 8 spacings and the collision distance to one.
    auto any = [](double) { return true; };
    struct Constant {
        const char* key;
        double MpsOptions::*value;
        bool (*scenario_bound)(double);
    };
    const Constant constants[] = {
        {"density", &MpsOptions::density, any},
        {"viscosity", &MpsOptions::viscosity, any},
        {"sound_speed", &MpsOptions::sound_speed, any},
        {"re_ratio", &MpsOptions::re_ratio, [](double v) { return v <= 8; }},
        {"re_laplacian_ratio", &MpsOptions::re_laplacian_ratio, [](double v) { return v <= 8; }},
        {"collision_ratio", &MpsOptions::collision_ratio, [](double v) { return v < 1; }},
        {"wall_collision_ratio", &MpsOptions::wall_collision_ratio, [](double v) { return v < 1; }},
        {"restitution", &MpsOptions::restitution, any},
        {"courant", &MpsOptions::courant, any},
        {"artificial_viscosity", &MpsOptions::artificial_viscosity, any},
        {"shifting", &MpsOptions::shifting, any},
    };
    Context& context = test_context();
    const Scenario base = parse_scenario(short_dambreak, "short.toml");
    MpsTank tank;
    tank.spacing = base.fluid.spacing;
    const MpsScene scene = mps_tank(tank);
    auto problem = [](const std::function<void()>& f) {  // "" when f throws nothing
        const std::string message = usage_error(f);
        return message == "<no exception>" ? std::string() : message;
    };
    for (const Constant& c : constants) {
        for (double v : {double(NAN), double(INFINITY), -1.0, 0.0, 0.5, 1.0, 1.5, 2.5, 9.0}) {
            CAPTURE(c.key);
            CAPTURE(v);
            Scenario s = base;
            s.fluid.*c.value = v;
            const std::string scenario_error = problem([&] { validate(s); });
            MpsParameters p;
            static_cast<MpsOptions&>(p) = s.fluid;
            p.spacing = s.fluid.spacing;
            const std::string model_error = problem([&] {
                MpsFluid(context, Precision::float32, p, scene.particles, scene.lower, scene.upper,
                         memory_cache());
            });
            CHECK(scenario_error.empty() == (model_error.empty() && c.scenario_bound(v)));
            if (!scenario_error.empty()) CHECK(contains(scenario_error, std::string("[fluid] ") + c.key));
            if (!model_error.empty()) CHECK(contains(model_error, "mps: "));
        }
    }
}

TEST_CASE("a short dam break writes front.csv and pressure frames") {
    TempDir dir("mps-dambreak");
    Context& context = test_context();
    Scenario s = parse_scenario(short_dambreak, "short.toml");
    MpsRun run(context, s, dir.path());
    CHECK(run.fluid_particles() == 100);
    std::vector<double> times;
    run.on_progress([&](const RunProgress& p) { times.push_back(p.time); });
    const MpsRunSummary summary = run.run();

    std::string header;
    const auto rows = read_csv(dir / "front.csv", header);
    CHECK(header == "t,T,x,Z");
    REQUIRE(rows.size() == 7);  // t = 0, 0.01, ..., 0.06
    const double a = 0.2, g = 9.81;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CAPTURE(i);
        REQUIRE(rows[i].size() == 4);
        CHECK(rows[i][0] == doctest::Approx(0.01 * double(i)).epsilon(1e-9));
        CHECK(rows[i][1] == doctest::Approx(rows[i][0] * std::sqrt(2 * g / a)).epsilon(1e-7));
        CHECK(rows[i][3] == doctest::Approx(rows[i][2] / a).epsilon(1e-7));
        // The front moves forward and no faster than Ritter's inviscid bound Z <= 1 + sqrt(2) T.
        CHECK(rows[i][3] <= 1 + std::sqrt(2.0) * rows[i][1] + 0.05);
        if (i) CHECK(rows[i][2] >= rows[i - 1][2] - 1e-9);
    }
    CHECK(rows[0][3] == doctest::Approx(1.0));  // the column's face at x = a
    CHECK(rows.back()[3] > 1.05);               // it has moved
    CHECK(summary.front == doctest::Approx(rows.back()[2]).epsilon(1e-7));
    CHECK(summary.time == doctest::Approx(0.06));
    CHECK(summary.last_step > 10);
    CHECK(summary.particle_steps_per_second > 0);
    CHECK(times.size() == 6);
    CHECK(count_frames(dir.path()) == 3);  // t = 0, 0.03, 0.06
    for (const auto& file : summary.files) CHECK(fs::exists(file));
}

TEST_CASE("a short hydrostatic run writes bottom_pressure.csv with rho g (h - y) beside it") {
    TempDir dir("mps-hydrostatic");
    Context& context = test_context();
    Scenario s = builtin_scenario("hydrostatic");
    s.fluid.spacing = 0.02;  // 10 x 10 water particles
    s.fluid.end_time = 0.04;
    s.fluid.sample_every = 0.01;
    s.fluid.frame_every = 0;
    MpsRun run(context, s, dir.path());
    const MpsRunSummary summary = run.run();
    std::string header;
    const auto rows = read_csv(dir / "bottom_pressure.csv", header);
    CHECK(header == "t,bottom_pressure,rho_g_h");
    REQUIRE(rows.size() == 5);
    // rho_g_h is the mean of rho g (h - y) over the water within l0 of the floor, h = 0.2 m the
    // depth from the water's volume: between rho g (h - l0) and rho g h, and at t = 0 that of
    // the lattice's bottom row, y = l0 / 2, lowered by the hydrostatic strain g / c^2.
    const double rho_g = 1000 * 9.81, strain = 9.81 / (15.0 * 15.0), y0 = 0.01;
    REQUIRE(s.fluid.sound_speed == 15.0);
    CHECK(rows[0][2] == doctest::Approx(rho_g * (0.2 - (y0 - strain * (0.2 * y0 - y0 * y0 / 2)))).epsilon(1e-6));
    for (const auto& row : rows) {
        REQUIRE(row.size() == 3);
        CHECK(row[2] >= rho_g * (0.2 - 0.02) * (1 - 1e-6));
        CHECK(row[2] <= rho_g * 0.2 * (1 + 1e-6));
        CHECK(row[1] >= 0);
        CHECK(std::isfinite(row[1]));
    }
    CHECK(rows[0][1] == 0);  // no pressure before the first step
    CHECK(rows.back()[1] > 0);
    CHECK(count_frames(dir.path()) == 0);
    CHECK(summary.hydrostatic_pressure >= rho_g * (0.2 - 0.02) * (1 - 1e-6));
    CHECK(summary.hydrostatic_pressure <= rho_g * 0.2 * (1 + 1e-6));
    CHECK(std::isfinite(summary.bottom_pressure));
    CHECK(summary.bottom_pressure_sd >= 0);
}

TEST_CASE("each run refuses the other model's scenario") {
    TempDir dir("mps-model");
    Context& context = test_context();
    CHECK(contains(usage_error([&] { MpsRun(context, builtin_scenario("plummer"), dir.path()); }),
                   "not an MPS fluid run"));
    CHECK(contains(usage_error([&] { NBodyRun(context, builtin_scenario("dambreak"), dir.path()); }),
                   "not an N-body run"));
    CHECK(fs::is_empty(dir.path()));
}

// The same bits: doubles compared as their IEEE-754 bit patterns.
void check_same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) {
            MESSAGE("first difference at " << i << " of " << a.size() << ": " << a[i] << " " << b[i]);
            break;
        }
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Everything of two checkpoints but the device description.
void check_same_run(const Checkpoint& a, const Checkpoint& b) {
    CHECK(a.scenario_toml == b.scenario_toml);
    CHECK(a.step == b.step);
    check_same_bits({a.time, a.dt}, {b.time, b.dt});
    CHECK(a.precision == b.precision);
    check_same_bits(a.state, b.state);
    CHECK(a.mass.empty());
    CHECK(a.particle_types == b.particle_types);
    CHECK(a.output_text == b.output_text);
    check_same_bits(a.run_state, b.run_state);
}

// A run interrupted after its checkpoint at t = 0.04 (a copy of checkpoint.bin taken then) and
// resumed, and a run that ended at t = 0.03 resumed with a later end time, both end with the
// uninterrupted run's particles, CSV and last frame, bit for bit.
void check_resume(Scenario s, const char* csv_name) {
    CAPTURE(s.name);
    TempDir dir("mps-resume");
    Context& context = test_context();
    s.fluid.end_time = 0.06;
    s.fluid.sample_every = 0.01;
    s.fluid.checkpoint_every = 0.02;
    MpsRun whole(context, s, dir / "whole");
    whole.on_progress([&](const RunProgress& p) {
        if (std::fabs(p.time - 0.04) < 1e-12) fs::copy_file(dir / "whole" / "checkpoint.bin", dir / "t004.bin");
    });
    const MpsRunSummary uninterrupted = whole.run();
    const Checkpoint end = read_checkpoint(dir / "whole" / "checkpoint.bin");
    CHECK(end.time == doctest::Approx(0.06));
    CHECK(end.step == uninterrupted.last_step);
    CHECK(end.particle_types.size() == whole.particles());

    const Checkpoint mid = read_checkpoint(dir / "t004.bin");
    CHECK(mid.time == doctest::Approx(0.04));
    MpsRun resumed = MpsRun::resume(context, dir / "t004.bin", dir / "resumed");
    const MpsRunSummary continued = resumed.run();
    CHECK(continued.first_step == mid.step);
    CHECK(continued.last_step == uninterrupted.last_step);
    check_same_run(read_checkpoint(dir / "resumed" / "checkpoint.bin"), end);
    CHECK(read_file(dir / "resumed" / csv_name) == read_file(dir / "whole" / csv_name));
    check_same_bits({continued.front, continued.bottom_pressure, continued.hydrostatic_pressure},
                    {uninterrupted.front, uninterrupted.bottom_pressure, uninterrupted.hydrostatic_pressure});
    const fs::path last_frame = detail_frame(uninterrupted.last_step);
    if (s.fluid.frame_every > 0)
        CHECK(read_file(dir / "resumed" / last_frame) == read_file(dir / "whole" / last_frame));

    // A run that ended at 0.03 (a sample and frame time), continued to 0.06.
    Scenario shorter = s;
    shorter.fluid.end_time = 0.03;
    MpsRun(context, shorter, dir / "short").run();
    MpsRun extended = MpsRun::resume(context, dir / "short" / "checkpoint.bin", dir / "short", RunLength{0, 0.06});
    extended.run();
    check_same_run(read_checkpoint(dir / "short" / "checkpoint.bin"), end);
    CHECK(read_file(dir / "short" / csv_name) == read_file(dir / "whole" / csv_name));

    // Nothing left to do, the wrong kind of run, a checkpoint of another model.
    CHECK(contains(usage_error([&] { MpsRun::resume(context, dir / "t004.bin", dir / "x", RunLength{0, 0.04}); }),
                   "nothing to do"));
    CHECK(contains(usage_error([&] { NBodyRun::resume(context, dir / "t004.bin", dir / "x"); }),
                   "not an N-body run"));
}

TEST_CASE("a resumed MPS run ends bit for bit as the uninterrupted one") {
    Scenario dambreak = parse_scenario(short_dambreak, "short.toml");
    check_resume(dambreak, "front.csv");
    Scenario hydrostatic = builtin_scenario("hydrostatic");
    hydrostatic.fluid.spacing = 0.02;
    hydrostatic.fluid.frame_every = 0;
    hydrostatic.precision = Precision::float64;
    check_resume(hydrostatic, "bottom_pressure.csv");
}

TEST_CASE("an MPS run refuses an N-body checkpoint") {
    TempDir dir("mps-nbody-ck");
    Context& context = test_context();
    const fs::path checkpoint = nbody_checkpoint(context, dir / "k");
    CHECK(contains(usage_error([&] { MpsRun::resume(context, checkpoint, dir / "x"); }),
                   "not an MPS fluid one"));
}

}
