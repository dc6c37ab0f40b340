// Suite fuzz: the readers of what users and crashes hand partcl, fed mutated inputs. Each input
// must be read or refused with a UsageError naming the source; anything else (another
// exception, a crash, an out-of-bounds read under the sanitizer build) fails. Pure garbage
// must be refused, never read.
//   scenarios   the built-in scenarios' TOML, mutated by bytes, lines and values
//   checkpoints valid checkpoints of the three models, truncated, bit-flipped, and mutated
//               inside a payload resealed with a correct header and checksum, so the decoder's
//               own bounds are what stops them
//   snapshots   an HDF5 initial-conditions file, truncated and bit-flipped; no HDF5 object
//               may stay open after a read or a refusal. (Debian 12's libhdf5 1.10.8 leaks
//               inside itself when H5Gopen2 meets some damaged headers, "actual len exceeds
//               EOA", and prints "HDF5: infinite loop closing library" at exit; the process
//               still ends normally.)
// The seed is fresh each run and printed; PARTCL_FUZZ_SEED=N replays a run, and
// PARTCL_FUZZ_INPUTS=N sets the number of scenario inputs (checkpoints get the same number,
// snapshots a tenth).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include <hdf5.h>

#include <partcl/io/checkpoint.hpp>
#include <partcl/run/scenario.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/support/digest.hpp>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

std::uint32_t fuzz_seed() {
    const char* given = std::getenv("PARTCL_FUZZ_SEED");
    const std::uint32_t seed = given ? std::uint32_t(std::strtoul(given, nullptr, 10)) : fresh_seed();
    std::fprintf(stderr, "fuzz: PARTCL_FUZZ_SEED=%u replays this run\n", seed);
    return seed;
}

std::size_t fuzz_inputs() {
    const char* given = std::getenv("PARTCL_FUZZ_INPUTS");
    return given ? std::size_t(std::strtoull(given, nullptr, 10)) : 10000;
}

// The values a mutation swaps in for a number: edges of every range a key has.
const std::vector<std::string> extreme_values = {
    "0", "-0", "-1", "1", "0.0", "-0.0", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf",
    "+inf", "4294967295", "4294967296", "18446744073709551615", "9223372036854775807",
    "-9223372036854775808", "2.5", "1e9", "\"text\"", "[]", "[1, 2]", "{}", "true"};

// One of many small edits, chosen at random.
std::string mutate_text(std::string text, std::mt19937& rng) {
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const int edits = 1 + int(pick(4));
    for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = pick(text.size());
        switch (pick(8)) {
        case 0: text[at] = char(pick(256)); break;                        // any byte
        case 1: text.insert(at, 1, "=[]{}\"'#.,\n\\ 0x"[pick(16)]); break;  // TOML syntax
        case 2: text.erase(at, 1 + pick(16)); break;
        case 3: text.resize(at); break;                                   // truncated
        case 4: {                                                         // a line doubled
            const std::size_t begin = text.rfind('\n', at) + 1;
            const std::size_t end = std::min(text.find('\n', at), text.size());
            text.insert(begin, text.substr(begin, end - begin) + "\n");
            break;
        }
        default: {  // a number (or the value after '=') replaced by an extreme one
            std::size_t begin = text.find_first_of("0123456789\"", at);
            if (begin == std::string::npos) begin = text.find_first_of("0123456789\"");
            if (begin == std::string::npos) break;
            std::size_t end = text.find_first_of(" \n#,]", begin + 1);
            if (end == std::string::npos) end = text.size();
            text.replace(begin, end - begin, extreme_values[pick(extreme_values.size())]);
        }
        }
    }
    return text;
}

// Random bytes with at least one that is never valid UTF-8 (0xff), so never a scenario.
std::string garbage(std::mt19937& rng) {
    std::string text(std::uniform_int_distribution<std::size_t>(1, 200)(rng), '\0');
    for (char& c : text) c = char(std::uniform_int_distribution<int>(0, 255)(rng));
    text[std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(rng)] = char(0xff);
    return text;
}

// A checkpoint's bytes with its payload replaced and the header and checksum made right
// again (the layout of checkpoint.hpp), so only the decoder's checks can refuse it.
std::string reseal(const std::string& bytes, std::string payload) {
    std::string out = bytes.substr(0, 16);
    for (int i = 0; i < 8; ++i) out += char((std::uint64_t(payload.size()) >> (8 * i)) & 0xff);
    out += payload;
    out += sha1_digest(payload.data(), payload.size());
    return out;
}

// The outcome of reading one input: read, refused (UsageError naming the source), or failed.
struct Tally {
    std::size_t read = 0, refused = 0;
};

template <class Read>
void read_or_refuse(Tally& tally, const std::string& source, const std::string& input,
                    Read&& read, bool must_refuse = false) {
    try {
        read();
        if (must_refuse) FAIL("garbage read as valid: " << doctest::String(input.c_str()));
        ++tally.read;
    } catch (const UsageError& e) {
        const std::string message = e.what();
        if (message.find(source) == std::string::npos)
            FAIL("the message does not name " << source << ": " << message);
        ++tally.refused;
    } catch (const std::exception& e) {
        FAIL("not a UsageError: " << std::string(typeid(e).name()) << ": " << std::string(e.what())
                                  << "\ninput (" << input.size() << " bytes): " << input);
    }
}

} // namespace

TEST_SUITE("fuzz") {

TEST_CASE("the scenario reader reads or refuses every mutated scenario") {
    const std::uint32_t seed = fuzz_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::vector<std::string> corpus;
    for (const auto& name : builtin_scenario_names()) corpus.push_back(builtin_scenario_toml(name));
    const std::size_t inputs = fuzz_inputs();
    Tally tally;
    for (std::size_t i = 0; i < inputs; ++i) {
        const bool is_garbage = i % 10 == 9;
        const std::string text = is_garbage
                                     ? garbage(rng)
                                     : mutate_text(corpus[i % corpus.size()], rng);
        read_or_refuse(tally, "fuzz.toml", text, [&] {
            const Scenario s = parse_scenario(text, "fuzz.toml");
            // What was read is whole: it validates and survives its own TOML.
            validate(s);
            if (parse_scenario(to_toml(s), "fuzz.toml") != s)
                throw std::logic_error("to_toml does not round-trip:\n" + to_toml(s));
        }, is_garbage);
    }
    MESSAGE(inputs << " scenarios: " << tally.read << " read, " << tally.refused << " refused");
    CHECK(tally.read + tally.refused == inputs);
    CHECK(tally.refused > inputs / 10);  // the garbage, at least
    CHECK(tally.read > 0);               // mutations that keep a scenario valid exist
}

TEST_CASE("the checkpoint reader reads or refuses every damaged checkpoint") {
    const std::uint32_t seed = fuzz_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };

    std::vector<std::string> corpus;
    {
        Checkpoint nbody;
        nbody.scenario_toml = builtin_scenario_toml("kepler");
        nbody.step = 7;
        nbody.time = 0.5;
        nbody.dt = 0.01;
        nbody.precision = "double";
        nbody.state = {1, 0, 0, -1, 0, 0, 0, 0.5, 0, 0, -0.5, 0};
        nbody.mass = {0.5, 0.5};
        nbody.integrator.vectors = {{1, 2, 3}};
        nbody.integrator.scalars = {0.25};
        nbody.initial_diagnostics = {-0.25, 2};
        nbody.output_text = "step,time\n0,0\n";
        corpus.push_back(encode_checkpoint(nbody));
        Checkpoint fluid = nbody;
        fluid.scenario_toml = builtin_scenario_toml("dambreak");
        fluid.mass.clear();
        fluid.state.assign(12, 0.25);  // 3 particles in 2-D
        fluid.particle_types = {0, 1, 2};
        fluid.series = {{1, 2}, {}};
        fluid.run_state = {1, 2, 3};
        corpus.push_back(encode_checkpoint(fluid));
    }
    const std::size_t inputs = fuzz_inputs();
    Tally tally;
    for (std::size_t i = 0; i < inputs; ++i) {
        const std::string& valid = corpus[i % corpus.size()];
        std::string bytes = valid;
        switch (i % 3) {
        case 0: bytes.resize(pick(bytes.size())); break;  // truncated
        case 1:                                           // bits flipped anywhere
            for (std::size_t k = 1 + pick(3); k > 0; --k) bytes[pick(bytes.size())] ^= char(1 << pick(8));
            break;
        default: {  // the payload edited, the header and checksum made right again
            std::string payload = valid.substr(24, valid.size() - 44);
            for (std::size_t k = 1 + pick(4); k > 0; --k) {
                const std::size_t at = pick(payload.size());
                if (pick(2))
                    payload[at] ^= char(1 << pick(8));
                else  // a length or count turned huge or off by a little
                    for (std::size_t b = 0; b < 8 && at + b < payload.size(); ++b)
                        payload[at + b] = char(pick(2) ? 0xff : pick(256));
            }
            bytes = reseal(valid, std::move(payload));
        }
        }
        read_or_refuse(tally, "fuzz.ck", bytes, [&] {
            const Checkpoint c = decode_checkpoint(bytes, "fuzz.ck");
            parse_scenario(c.scenario_toml, "fuzz.ck");  // what a resume reads next
        });
    }
    MESSAGE(inputs << " checkpoints: " << tally.read << " read, " << tally.refused << " refused");
    CHECK(tally.read + tally.refused == inputs);
    CHECK(tally.refused > inputs / 2);
}

TEST_CASE("the snapshot reader reads or refuses every damaged HDF5 file") {
    const std::uint32_t seed = fuzz_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    TempDir dir("fuzz-h5");
    // With units and an offset, so damaged /Units and PositionOffset are read too.
    write_snapshot(dir / "valid.h5", random_bodies(5, seed), 0.25, 0.0,
                   unit_system_from("1 kpc", "1e10 Msun", ""));
    const std::string valid = read_file(dir / "valid.h5");
    const std::size_t inputs = std::max<std::size_t>(1, fuzz_inputs() / 10);
    const fs::path file = dir / "fuzz.h5";
    Tally tally;
    for (std::size_t i = 0; i < inputs; ++i) {
        std::string bytes = valid;
        if (i % 2 == 0) {
            bytes.resize(pick(bytes.size()));
        } else {
            for (std::size_t k = 1 + pick(4); k > 0; --k) bytes[pick(bytes.size())] ^= char(1 << pick(8));
        }
        write_file(file, bytes);
        read_or_refuse(tally, file.string(), "(HDF5 bytes)", [&] { read_snapshot(file); });
        // Nothing of the file stays open in the library, read or refused: no file, group,
        // dataset, named datatype or attribute. (HDF5 1.10 has no count of open dataspaces or
        // transient datatypes: H5Inmembers refuses library types; partcl's handles close them.)
        const ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
        if (open_objects != 0) {
            write_file(dir / "leak.h5", bytes);
            FAIL(open_objects << " HDF5 objects left open after input " << i);
            break;
        }
    }
    MESSAGE(inputs << " snapshots: " << tally.read << " read, " << tally.refused << " refused");
    CHECK(tally.read + tally.refused == inputs);
    CHECK(tally.refused >= inputs / 2);  // every truncated one, at least
}

} // TEST_SUITE
