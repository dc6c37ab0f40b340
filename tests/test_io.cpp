// The io layer: checkpoints, atomic file replacement and frames (test_scenario.cpp and
// test_snapshot.cpp have scenarios, initial conditions and snapshots). Host only: no device, no
// kernels.
#include <doctest/doctest.h>


#include <hdf5.h>

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

#include <partcl/support/digest.hpp>

#include "io_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::awkward_bodies;
using partcl_test::bits;
using partcl_test::contains;
using partcl_test::entries;
using partcl_test::read_file;
using partcl_test::same_bits;
using partcl_test::TempDir;
using partcl_test::temporaries;
using partcl_test::write_file;
using partcl_test::usage_error;
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

double from_bits(std::uint64_t b) {
    double value;
    std::memcpy(&value, &b, sizeof value);
    return value;
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
    CHECK(a.tree_order == b.tree_order);
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
// Checkpoints

TEST_CASE("checkpoints round-trip exactly") {
    TempDir dir("io-ck");
    const Checkpoint c = sample_checkpoint();
    const std::string bytes = encode_checkpoint(c);

    // The documented header: magic, version 3, reserved 0, payload size; SHA-1 at the end.
    REQUIRE(bytes.size() > 44);
    CHECK(bytes.substr(0, 8) == "PARTCLCK");
    CHECK(bytes.substr(8, 8) == std::string("\x03\0\0\0\0\0\0\0", 8));
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

    // Version 1 (before PIC and MPS runs had checkpoints) and version 2 (before the tree
    // order) still read: the same payload without its last five items (four empty vectors' and
    // one empty string's counts, 40 bytes) or its last (8 bytes), under the older header and
    // its own SHA-1.
    for (const auto& [older, cut] : {std::pair<char, std::size_t>{1, 40}, {2, 8}}) {
        CAPTURE(int(older));
        const std::string v3 = encode_checkpoint(c);
        std::string payload = v3.substr(24, v3.size() - 24 - 20 - cut);
        std::string old = v3.substr(0, 24);
        old[8] = older;
        for (int i = 0; i < 8; ++i) old[std::size_t(16 + i)] = char((payload.size() >> (8 * i)) & 0xff);
        old += payload;
        old += sha1_digest(payload.data(), payload.size());
        check_same_checkpoint(decode_checkpoint(old, "older"), c);
    }
    // A cosmological run's tree order round-trips.
    Checkpoint cosmological = c;
    cosmological.tree_order = {2, 0, 0xffffffffu};
    cosmological.run_state = {1};
    check_same_checkpoint(decode_checkpoint(encode_checkpoint(cosmological), "memory"), cosmological);

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
    version[8] = 4;
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

// The digests that seal checkpoints and key the program cache, against FIPS 180's examples, so a
// checkpoint's seal is SHA-1 as the format says and not only what the library computes.
TEST_CASE("sha1_digest and sha256_digest give the published digests") {
    const std::string abc = "abc", empty;
    CHECK(to_hex(sha1_digest(abc.data(), abc.size())) == "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK(to_hex(sha1_digest(empty.data(), 0)) == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(to_hex(sha256_digest(abc.data(), abc.size())) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string million(1000000, 'a');
    CHECK(to_hex(sha256_digest(million.data(), million.size())) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

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
    partcl_test::check_png_header(png, 40, 24);
    CHECK(temporaries(dir.path()).empty());
}

} // TEST_SUITE
