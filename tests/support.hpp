#pragma once
// Helpers shared by the partcl tests: temporary directories, environment overrides, the device
// the tests run on, and the host reference for cl/common/real_check.cl.
#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

namespace partcl_test {

namespace fs = std::filesystem;

// The order std::stable_sort gives keys[0, n) (by key, then by position): what a stable sort by
// key on the device must carry each value to.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys, std::size_t n) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    return order;
}

// A fresh, empty directory under the system temp dir; removed (recursively) on destruction.
class TempDir {
public:
    explicit TempDir(const std::string& tag = "t");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const noexcept { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

// Sets (or unsets, with nullopt) an environment variable for the lifetime of the guard.
class EnvGuard {
public:
    EnvGuard(std::string name, const std::optional<std::string>& value);
    ~EnvGuard();
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

std::string read_file(const fs::path& path);
// A CSV file of numbers: its header line into `header`, then one row of values per line.
std::vector<std::vector<double>> read_csv(const fs::path& file, std::string& header);
// The PNG frames (frame_*.png) a run wrote into `dir`.
std::size_t count_frames(const fs::path& dir);
// The message of the UsageError `f` throws; a marker that no needle matches otherwise.
std::string usage_error(const std::function<void()>& f);

// A malformed scenario text and what its error message must hold.
struct ScenarioErrorCase {
    const char* what;
    std::string toml;  // parsed as the file "s.toml"
    std::vector<std::string> needles;
};
// Each case's parse_scenario is a UsageError whose message starts with "s.toml:" (the
// location) and holds every needle.
void check_scenario_errors(const std::vector<ScenarioErrorCase>& cases);
void write_file(const fs::path& path, const std::string& text);
// Checks (doctest) that `png` is a PNG file's bytes: signature, IHDR of width x height, 8-bit RGB.
void check_png_header(const std::string& png, std::uint32_t width, std::uint32_t height);
std::string lower(std::string text);
bool contains(const std::string& haystack, const std::string& needle);

// The context the tests run on: the devices DeviceFilter::from_environment() selects (PoCL's
// CPU device on a plain Debian machine), built once per process, destroyed by
// release_shared_objects().
partcl::Context& test_context();
// The PoCL devices of this machine (the tests need PoCL; fails the test when there is none).
std::vector<partcl::Device> pocl_devices();
// A context of `parts` devices for the multi-device tests: the first `parts` devices of the
// tests' platform when it has that many (POCL_DEVICES="pthread pthread pthread"), else its first
// device named `parts` times, a queue each (Oclgrind's single device). Its memory model is
// test_memory_model(): the split suites run once with each.
partcl::Context split_context(std::size_t parts);
// PARTCL_TEST_MEMORY=separate: the multi-device tests' contexts copy inputs to every device and
// keep outputs apart as on two GPUs (MemoryModel::separate); unset or automatic: automatic
// (shared on CPU devices); shared: shared.
partcl::MemoryModel test_memory_model();
// Whether the tests' device is Oclgrind's simulator (tests then take small sizes).
bool under_oclgrind();
// A cache that keeps nothing on disk, shared by the tests of one process, so a kernel is
// compiled once per process and precision.
partcl::ProgramCache& memory_cache();
// Destroys test_context() and memory_cache(); the runner calls it when the tests are done.
void release_shared_objects();

// A new std::random_device seed, to be printed in failure messages.
std::uint32_t fresh_seed();
// Rank 0's fresh_seed(), the same on every rank of `ranks`.
std::uint32_t shared_seed(const partcl::dist::Communicator& ranks);

// Bodies uniform in [-1, 1]^3 with masses in [0.5, 1.5] / n; bodies 2 and 3 coincide (when
// n > 3), so every gravity test meets a pair at zero separation.
partcl::Bodies random_bodies(std::size_t n, std::uint32_t seed);

// Per body, the sums of the magnitudes of its gravity terms (acceleration and potential):
// rounding error is bounded relative to these, not to the net sum, which cancels.
void absolute_sums(const partcl::Bodies& b, double eps2, double G, std::vector<double>& acc,
                   std::vector<double>& pot);

// Inputs for real_check: x in [1/64, 64], y in +-[1/8, 8] (never 0), log-uniform.
struct RealCheckInput {
    std::vector<double> xs, ys;
};
RealCheckInput real_check_input(std::size_t n, std::uint32_t seed);

constexpr std::size_t real_check_rows = 9;

// Runs kernel real_check of `program` on device `device` of `context` over the inputs
// (rounded to the program's precision) and returns the 9 x n results as doubles, plus the
// inputs as the device saw them (rounded).
struct RealCheckRun {
    std::vector<double> xs, ys;  // inputs after rounding to the program's real type
    std::vector<double> out;     // out[row * n + i]
};
RealCheckRun run_real_check(partcl::Context& context, std::size_t device,
                            const partcl::Program& program, const RealCheckInput& input,
                            std::size_t local = 0);

// Compares a real_check run with the host float64 computation at `precision`'s tolerances;
// reports through doctest CHECKs (with the seed). Returns the number of failed rows.
int check_real_check(const RealCheckRun& run, partcl::Precision precision, std::uint32_t seed,
                     double expected_row7 = -1);

// A Source for cl/common/real_check.cl (the embedded one).
partcl::Source real_check_source();

// The source tree's cl/ directory (compile-time PARTCL_SOURCE_DIR).
fs::path source_cl_dir();

// A two-step kepler N-body run into `out`, no snapshots or frames; its checkpoint's path (for
// the tests that other models refuse it).
fs::path nbody_checkpoint(partcl::Context& context, const fs::path& out);

// The separable DFT of a grid of n[0] x n[1] x n[2] complex values (x fastest) along the axes
// where `along` is true: sum_j a_j exp(sign 2 pi i j k / N) along each, in double.
std::vector<std::complex<double>> dft(std::vector<std::complex<double>> a,
                                      const std::array<std::size_t, 3>& n, int sign,
                                      const std::array<bool, 3>& along = {true, true, true});

} // namespace partcl_test
