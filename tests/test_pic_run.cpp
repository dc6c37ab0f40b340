// The PIC plasma scenarios end to end through the library: the [plasma] keys (good and bad
// input, [[plasma.species]] lists), short langmuir and two-stream runs through PicRun writing
// diagnostics.csv and phase-space frames with their measurements, and checkpoints: a resumed
// run ends bitwise as the uninterrupted one. (The physics to the issue's tolerances -- the
// Langmuir frequency within 1%, the growth rate within 10% -- is checked by the pic_physics
// suite on the same set-ups and measurements, models/pic/pic_plasma.hpp; the 2-D and 3-D
// multi-species oscillations at the end of this file are in that suite too.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>

#include <partcl/io/checkpoint.hpp>
#include <partcl/io/render.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/run/nbody_run.hpp>
#include <partcl/run/pic_run.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

TEST_SUITE("pic_run") {

TEST_CASE("the PIC built-ins parse, survive to_toml and hold their set-ups") {
    for (const char* name : {"langmuir", "two-stream", "pair-plasma"}) {
        INFO(name);
        const Scenario s = builtin_scenario(name);
        CHECK(s.model == "pic");
        CHECK(std::string(to_string(s.plasma.setup)) == (std::strcmp(name, "pair-plasma") ? name : "species"));
        CHECK(parse_scenario(to_toml(s), "x") == s);
        CHECK(contains(to_toml(s), "[plasma]"));
        CHECK_FALSE(contains(to_toml(s), "[gravity]"));
        CHECK_FALSE(contains(to_toml(s), "[fluid]"));
    }
    // The struct's defaults are the built-in langmuir (but for its name and description).
    Scenario defaults;
    defaults.model = "pic";
    Scenario langmuir = builtin_scenario("langmuir");
    langmuir.name = defaults.name;
    langmuir.description = defaults.description;
    langmuir.render = defaults.render;
    CHECK(langmuir == defaults);
    CHECK(builtin_scenario("two-stream").plasma.beam_speed == doctest::Approx(std::sqrt(3.0 / 8.0)));
    // The 2-D pair plasma: two species read from [[plasma.species]], every key.
    const Scenario pair = builtin_scenario("pair-plasma");
    CHECK(pair.plasma.dimensions == 2);
    CHECK(pair.plasma.mode == std::array<std::uint64_t, 3>{1, 1, 0});
    REQUIRE(pair.plasma.species.size() == 2);
    CHECK(pair.plasma.species[0].name == "electrons");
    CHECK(pair.plasma.species[0].amplitude == 0.006);
    CHECK(pair.plasma.species[1].charge == 1);
    CHECK(pair.plasma.species[1].particles_per_cell == 4);
    CHECK(cold_plasma_frequency(pair.plasma.species) == doctest::Approx(std::sqrt(2.0)));
    CHECK(contains(to_toml(pair), "[[plasma.species]]\nname = \"positrons\""));
    CHECK(contains(to_toml(pair), "mode = [1, 1, 0]"));
    CHECK(contains(to_toml(builtin_scenario("langmuir")), "mode = 1 "));
    // A species differing in one value is another scenario.
    Scenario hotter = pair;
    hotter.plasma.species[1].thermal_speed = 0.1;
    CHECK(hotter != pair);
    CHECK(parse_scenario(to_toml(hotter), "x") == hotter);
    CHECK_FALSE(contains(to_toml(builtin_scenario("plummer")), "[plasma]"));
}

TEST_CASE("bad [plasma] input is a usage error naming the line, the key and the problem") {
    const std::string head = "[scenario]\nmodel = \"pic\"\n[plasma]\n";  // [plasma] keys from line 4
    const std::vector<ScenarioErrorCase> cases = {
        {"NaN dt", head + "dt = nan\n", {"s.toml:4: ", "[plasma] dt", "finite"}},
        {"unstable dt", head + "dt = 2.5\n", {"s.toml:4: ", "[plasma] dt", "unstable"}},
        {"negative length", head + "length = -1\n", {"s.toml:4: ", "[plasma] length", "positive"}},
        {"too few cells", head + "cells = 2\n", {"s.toml:4: ", "[plasma] cells", "4..", "2"}},
        {"no particles", head + "particles_per_cell = 0\n", {"s.toml:4: ", "[plasma] particles_per_cell"}},
        {"mode above Nyquist", head + "mode = 32\n", {"s.toml:4: ", "[plasma] mode", "32"}},
        {"crossing displacement", head + "amplitude = 2.0\n",
         {"s.toml:4: ", "[plasma] amplitude", "cross"}},
        {"unknown set-up", head + "setup = \"beam\"\n", {"s.toml:4: ", "beam", "langmuir, two-stream"}},
        {"unknown deposit", head + "deposit = \"scatter\"\n", {"s.toml:4: ", "[plasma] deposit", "gather, atomic"}},
        {"two-stream at rest", head + "setup = \"two-stream\"\nbeam_speed = 0.0\n",
         {"s.toml:5: ", "[plasma] beam_speed", "positive"}},
        {"two-stream odd count", head + "setup = \"two-stream\"\nbeam_speed = 0.5\ncells = 5\nparticles_per_cell = 3\n",
         {"s.toml:7: ", "[plasma] particles_per_cell", "even"}},
        {"zero end time", head + "end_time = 0\n", {"s.toml:4: ", "[plasma] end_time", "positive"}},
        {"no sampling", head + "sample_every = 0\n", {"s.toml:4: ", "[plasma] sample_every"}},
        {"misspelt key", head + "end_tim = 1.0\n", {"s.toml:4: ", "end_tim", "[plasma]", "end_time"}},
        {"N-body key in a PIC scenario", head + "[run]\nsteps = 10\n",
         {"s.toml:5: ", "[run] steps", "model = \"nbody\"", "[plasma] end_time"}},
        {"[fluid] in a PIC scenario", head + "[fluid]\nspacing = 0.01\n",
         {"s.toml:4: ", "[fluid]", "model = \"mps\""}},
        {"[plasma] in an N-body scenario", "[plasma]\ncells = 16\n",
         {"s.toml:1: ", "[plasma]", "model = \"pic\""}},
        {"2-D langmuir", head + "dimensions = 2\n", {"s.toml:4: ", "[plasma] dimensions", "species"}},
        {"4-D", head + "setup = \"species\"\ndimensions = 4\n", {"s.toml:5: ", "[plasma] dimensions", "1, 2 or 3"}},
        {"3-D grid too large", head + "setup = \"species\"\ndimensions = 3\ncells = 512\n",
         {"s.toml:6: ", "[plasma] cells", "2^24"}},
        {"mode beyond the grid", head + "mode = [1, 1]\n", {"s.toml:4: ", "[plasma] mode", "beyond", "[1, 1, 0]"}},
        {"zero mode", head + "mode = [0, 0, 0]\n", {"s.toml:4: ", "[plasma] mode", "not be 0"}},
        {"mode of four", head + "mode = [1, 0, 0, 0]\n", {"s.toml:4: ", "[plasma] mode", "1 to 3"}},
        {"species of langmuir", head + "[[plasma.species]]\ncharge = 1.0\n",
         {"s.toml:", "[plasma] species", "setup = \"species\"", "langmuir"}},
        {"no species", head + "setup = \"species\"\n", {"s.toml:", "[plasma] species", "at least one"}},
        {"species mass", head + "setup = \"species\"\n[[plasma.species]]\nname = \"ions\"\nmass = -1.0\n",
         {"s.toml:", "[plasma] species 1 (\"ions\") mass", "positive"}},
        {"species lattice", head + "setup = \"species\"\ndimensions = 2\nmode = [1, 1]\n[[plasma.species]]\nparticles_per_cell = 3\n",
         {"s.toml:", "particles_per_cell must be m^2", "3"}},
        {"species drift beyond the grid", head + "setup = \"species\"\n[[plasma.species]]\ndrift = [0.0, 1.0]\n",
         {"s.toml:", "drift must be 0 beyond", "axis 1"}},
        {"species crossing displacement", head + "setup = \"species\"\n[[plasma.species]]\namplitude = 2.0\n",
         {"s.toml:", "species 1", "amplitude", "cross"}},
        {"species dt unstable", head + "setup = \"species\"\ndt = 0.5\n[[plasma.species]]\ndensity = 25.0\n",
         {"s.toml:5: ", "[plasma] dt", "unstable", "0.4"}},
        {"misspelt species key", head + "setup = \"species\"\n[[plasma.species]]\ncharg = 1.0\n",
         {"s.toml:6: ", "unknown key 'charg'", "[[plasma.species]] 1", "charge"}},
        {"species of the wrong type", head + "setup = \"species\"\n[[plasma.species]]\ndrift = \"fast\"\n",
         {"s.toml:6: ", "[[plasma.species]] 1 drift", "numbers"}},
        {"species not tables", head + "species = 3\n", {"s.toml:4: ", "[plasma] species", "array of tables"}},
    };
    check_scenario_errors(cases);
    Scenario changed = builtin_scenario("two-stream");
    changed.plasma.beam_speed = -1;
    CHECK(contains(usage_error([&] { validate(changed); }), "[plasma] beam_speed"));
}

// A short Langmuir run: 2 plasma periods on the built-in's grid. Expected: a cosine field mode
// sin(t) in time, zero crossings at t = pi, 2 pi: the frequency within 1% as in pic_physics.
// The energy moves between field and particles while their sum holds; the sum is off by the
// kinetic energy's half-step lag, dt / 2 x its rate of change W0 sin 2t: up to dt / 2 = 5% of
// W0 (omega_p = 1), measured 4.9%; bound 6%.
TEST_CASE("a short langmuir run writes diagnostics.csv, frames, and measures omega_p") {
    TempDir dir("pic-langmuir");
    Scenario s = builtin_scenario("langmuir");
    s.plasma.end_time = 13;  // two periods and a bit: 130 steps
    s.plasma.sample_every = 10;
    s.plasma.frame_every = 50;
    s.render.width = 128;
    PicRun run(test_context(), s, dir.path());
    CHECK(run.particles() == 64 * 32);
    CHECK(run.steps() == 130);
    std::size_t calls = 0;
    run.on_progress([&](const RunProgress& p) {
        ++calls;
        CHECK(p.steps == 130);
    });
    const PicRunSummary summary = run.run();
    std::string header;
    const auto rows = read_csv(dir / "diagnostics.csv", header);
    CHECK(header == "t,field_energy,kinetic_energy,total,momentum,mode_sin,mode_cos");
    REQUIRE(rows.size() == 14);  // t = 0, 1, ..., 13
    CHECK(calls == 14);
    double most_field = 0, most_kinetic = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CAPTURE(i);
        REQUIRE(rows[i].size() == 7);
        CHECK(rows[i][0] == doctest::Approx(double(i)).epsilon(1e-6));
        CHECK(rows[i][3] == doctest::Approx(rows[i][1] + rows[i][2]).epsilon(1e-6));
        CHECK(std::abs(rows[i][3] / rows[0][3] - 1) < 0.06);
        most_field = std::max(most_field, rows[i][1]);
        most_kinetic = std::max(most_kinetic, rows[i][2]);
    }
    CHECK(rows[0][2] == 0);                       // a cold start at rest
    CHECK(most_kinetic > 0.5 * rows[0][3]);       // the energy moved into the particles and back
    CHECK(most_field == doctest::Approx(rows[0][1]).epsilon(0.05));
    CHECK(count_frames(dir.path()) == 4);  // steps 0, 50, 100, 130
    CHECK(fs::exists(dir / "frame_000130.png"));
    CHECK(summary.last_step == 130);
    CHECK(summary.crossings >= 4);
    CHECK(summary.plasma_frequency == 1);
    CHECK(std::abs(summary.frequency - 1) < 0.01);
    CHECK(summary.energy_error < 0.06);
    CHECK(summary.energy_error > 0);
    CHECK(std::isnan(summary.growth_rate));
    MESSAGE("langmuir run: omega / omega_p = " << summary.frequency << ", energy within "
                                               << summary.energy_error << ", wall " << summary.wall_seconds << " s");
}

// A two-stream run long enough to see the linear phase (the fit needs it to start e^1.5 above
// the seed and end e^2 below the peak, which comes near t = 20): the full built-in, 320 steps.
// Within 10% of theory as asked by the issue; momentum conserved by the momentum-conserving
// scheme to rounding (float: ~1e-7 of the sum of |momenta| per step, 1e-4 leaves room).
TEST_CASE("the two-stream run fits its growth rate against linear theory") {
    TempDir dir("pic-two-stream");
    Scenario s = builtin_scenario("two-stream");
    s.plasma.sample_every = 8;
    s.plasma.frame_every = 0;
    PicRun run(test_context(), s, dir.path());
    const PicRunSummary summary = run.run();
    std::string header;
    const auto rows = read_csv(dir / "diagnostics.csv", header);
    REQUIRE(rows.size() == 41);  // steps 0, 8, ..., 320
    CHECK(count_frames(dir.path()) == 0);
    CHECK(summary.growth_theory == doctest::Approx(1 / (2 * std::sqrt(2.0))));
    CHECK(std::abs(summary.growth_rate / summary.growth_theory - 1) < 0.1);
    CHECK(summary.fit_to - summary.fit_from > 5);
    CHECK(summary.momentum_error < 1e-4);
    CHECK(summary.energy_error < 0.05);
    // The field grows by orders of magnitude from the seed.
    CHECK(rows.back()[1] > 1e4 * rows[0][1]);
    MESSAGE("two-stream run: gamma = " << summary.growth_rate << " (theory " << summary.growth_theory
                                       << "), energy within " << summary.energy_error << ", wall "
                                       << summary.wall_seconds << " s");
}

// Pixel (col, row) from the top holds x in [col, col + 1) L / width and v in the row's band;
// v = 0 is the first row of the lower half.
TEST_CASE("phase-space frames put each particle at its (x, v) pixel") {
    PhaseSpaceFrame frame;
    frame.width = 8;  // 8 x 4 pixels
    frame.length = 2;
    frame.max_speed = 1;
    PicParticles p;
    p.position = {1.1, 0.1, 0.1, 5.0, 0.3};  // the fourth off the picture
    p.velocity = {0.0, -0.9, -0.9, 0.0, std::nan("")};  // the fifth not finite
    p.species = {0, 0, 0, 0, 0};
    const auto rgb = render_phase_space_rgb(p, frame);
    REQUIRE(rgb.size() == 8 * 4 * 3);
    auto lit = [&](int col, int row) {
        const std::size_t i = (std::size_t(row) * 8 + col) * 3;
        return rgb[i] + rgb[i + 1] + rgb[i + 2] > 0;
    };
    int count = 0;
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 8; ++col) count += lit(col, row);
    CHECK(count == 2);
    CHECK(lit(4, 1));  // x = 1.1 -> column 4; v = 0 -> y = 2 -> row 4 - 1 - 2
    CHECK(lit(0, 3));  // x = 0.1, v = -0.9 -> the bottom row
    // Two particles in a pixel are brighter than one.
    const std::size_t one = (std::size_t(1) * 8 + 4) * 3, two = (std::size_t(3) * 8 + 0) * 3;
    CHECK(rgb[two] + rgb[two + 1] + rgb[two + 2] > rgb[one] + rgb[one + 1] + rgb[one + 2]);
    frame.max_speed = 0;
    CHECK(contains(usage_error([&] { render_phase_space_rgb(p, frame); }), "max_speed"));
}

TEST_CASE("each run refuses a PIC scenario that is not its own, and PicRun the others") {
    TempDir dir("pic-model");
    Context& context = test_context();
    CHECK(contains(usage_error([&] { PicRun(context, builtin_scenario("plummer"), dir.path()); }),
                   "not a PIC plasma run"));
    CHECK(contains(usage_error([&] { NBodyRun(context, builtin_scenario("langmuir"), dir.path()); }),
                   "not an N-body run"));
    CHECK(fs::is_empty(dir.path()));
}

// A 2-D plasma of two species with thermal velocities (particles cross cells every step):
// stopped after a checkpoint (by an exception from the progress callback, as a crash would
// stop it, with diagnostics rows written after the checkpoint) and resumed from it, the run
// ends bitwise as the uninterrupted one: checkpoint.bin (particles, measurements), the
// diagnostics.csv and the frames byte for byte, the summary's measurements bit for bit.
TEST_CASE("a resumed PIC run ends bitwise as the uninterrupted one") {
    const std::string toml = R"([scenario]
name = "resume"
model = "pic"
[plasma]
setup = "species"
dimensions = 2
cells = 16
mode = [1, 1]
end_time = 4.0
sample_every = 5
frame_every = 20
checkpoint_every = 10
[[plasma.species]]
particles_per_cell = 4
thermal_speed = 0.05
amplitude = 0.01
[[plasma.species]]
name = "ions"
charge = 1.0
mass = 25.0
particles_per_cell = 1
thermal_speed = 0.01
[render]
width = 64
)";
    const Scenario s = parse_scenario(toml, "resume.toml");
    TempDir whole("pic-whole"), parts("pic-parts");
    Context& context = test_context();
    PicRun uninterrupted(context, s, whole.path());
    CHECK(uninterrupted.steps() == 40);
    const PicRunSummary a = uninterrupted.run();

    struct Stop {};
    {
        PicRun first(context, s, parts.path());
        first.on_progress([](const RunProgress& p) {
            if (p.step == 25) throw Stop{};
        });
        CHECK_THROWS_AS(first.run(), Stop);
    }
    CHECK(read_checkpoint(parts / "checkpoint.bin").step == 20);
    PicRun resumed = PicRun::resume(context, parts / "checkpoint.bin", parts.path());
    CHECK(resumed.first_step() == 20);
    CHECK(resumed.steps() == 40);
    const PicRunSummary b = resumed.run();

    CHECK(read_file(whole / "checkpoint.bin") == read_file(parts / "checkpoint.bin"));
    CHECK(read_file(whole / "diagnostics.csv") == read_file(parts / "diagnostics.csv"));
    for (const char* frame : {"frame_000000.png", "frame_000020.png", "frame_000040.png"})
        CHECK(read_file(whole / frame) == read_file(parts / frame));
    const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    CHECK(same(a.frequency, b.frequency));
    CHECK(same(a.energy_error, b.energy_error));
    CHECK(same(a.momentum_error, b.momentum_error));
    CHECK(same(a.time, b.time));
    CHECK(b.last_step == 40);
    const Checkpoint end = read_checkpoint(whole / "checkpoint.bin");
    CHECK(end.particle_types.size() == 16 * 16 * 5);
    CHECK(end.state.size() == 2 * 2 * end.particle_types.size());
    CHECK(end.series.size() == 3);
    CHECK(end.series[0].size() == 41);

    // Running on past the end with a later end_time; nothing to do at or before it.
    CHECK(contains(usage_error([&] { PicRun::resume(context, whole / "checkpoint.bin", whole.path()); }),
                   "nothing to do"));
    PicRun longer = PicRun::resume(context, whole / "checkpoint.bin", whole.path(), RunLength{0, 5.0});
    CHECK(longer.steps() == 50);
    CHECK(longer.run().last_step == 50);
}

TEST_CASE("checkpoints of one model do not resume the other") {
    TempDir dir("pic-other");
    Context& context = test_context();
    const fs::path checkpoint = nbody_checkpoint(context, dir / "nbody");
    CHECK(contains(usage_error([&] { PicRun::resume(context, checkpoint, dir / "x"); }),
                   "not a PIC plasma run"));
    Scenario langmuir = builtin_scenario("langmuir");
    langmuir.plasma.end_time = 0.3;
    langmuir.plasma.frame_every = 0;
    PicRun(context, langmuir, dir / "pic").run();
    CHECK(contains(usage_error([&] { NBodyRun::resume(context, dir / "pic" / "checkpoint.bin", dir / "y", RunLength{10}); }),
                   "not an N-body run"));
}

}

TEST_SUITE("pic_physics") {

// Cold plasmas of two mobile species oscillate at sqrt(sum n q^2 / m) at any k: electrons and
// positrons (sqrt 2) in 2-D along the diagonal mode [1, 1] (the built-in pair-plasma), and
// electrons and ions of mass 4 (sqrt 1.25) in 3-D along x. The grid lowers the frequency: CIC
// weights in deposit and gather and the centred difference give omega^2 / omega_0^2 about
// prod_a sinc^4(k_a dx / 2) sum_a k_a sin(k_a dx) / (k^2 dx), leapfrog raises it by
// (omega dt)^2 / 24. 2-D, 64 cells (k_a dx = 0.098), omega dt = 0.14: -0.16% expected,
// -0.21% measured; 3-D, 32 cells (k dx = 0.196), omega dt = 0.11: -0.59% expected. (A diagonal
// 3-D mode at 32 cells is off by 1.6%, grid dispersion on all three axes: 64^3 cells would be
// needed for 1%, too slow for a test on a CPU.) Asked: within 1%.
TEST_CASE("2-D and 3-D two-species oscillations at the cold-plasma frequency") {
    Context& context = test_context();
    {
        TempDir dir("pic-pair");
        Scenario s = builtin_scenario("pair-plasma");
        s.plasma.frame_every = 0;
        s.plasma.sample_every = 50;
        const PicRunSummary summary = PicRun(context, s, dir.path()).run();
        CHECK(summary.plasma_frequency == doctest::Approx(std::sqrt(2.0)).epsilon(1e-15));
        CHECK(summary.crossings >= 10);
        CHECK(std::abs(summary.frequency / summary.plasma_frequency - 1) < 0.01);
        CHECK(summary.momentum_error < 1e-4);
        MESSAGE("2-D pair plasma: omega = " << summary.frequency << " against " << summary.plasma_frequency
                                            << " (" << 100 * (summary.frequency / summary.plasma_frequency - 1)
                                            << "%), energy within " << summary.energy_error << ", wall "
                                            << summary.wall_seconds << " s");
    }
    {
        TempDir dir("pic-3d");
        const Scenario s = parse_scenario(R"([scenario]
name = "ions3d"
model = "pic"
[plasma]
setup = "species"
dimensions = 3
cells = 32
mode = [1, 0, 0]
end_time = 11.5
sample_every = 100
frame_every = 0
[[plasma.species]]
particles_per_cell = 1
amplitude = 0.006
[[plasma.species]]
name = "ions"
charge = 1.0
mass = 4.0
particles_per_cell = 1
)", "ions3d.toml");
        const PicRunSummary summary = PicRun(context, s, dir.path()).run();
        CHECK(summary.plasma_frequency == doctest::Approx(std::sqrt(1.25)).epsilon(1e-15));
        CHECK(summary.crossings >= 4);  // two periods
        CHECK(std::abs(summary.frequency / summary.plasma_frequency - 1) < 0.01);
        MESSAGE("3-D electrons and ions: omega = " << summary.frequency << " against " << summary.plasma_frequency
                                                   << " (" << 100 * (summary.frequency / summary.plasma_frequency - 1)
                                                   << "%), wall " << summary.wall_seconds << " s");
    }
}

}
