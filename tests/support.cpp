#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include <doctest/doctest.h>

namespace partcl_test {

TempDir::TempDir(const std::string& tag) {
    static std::atomic<unsigned> counter{0};
    std::random_device rd;
    for (int attempt = 0;; ++attempt) {
        std::ostringstream name;
        name << "partcl-test-" << tag << '-' << ::getpid() << '-' << counter++ << '-' << std::hex
             << rd();
        path_ = fs::temp_directory_path() / name.str();
        std::error_code ec;
        if (fs::create_directories(path_, ec)) return;
        if (attempt > 100) throw std::runtime_error("cannot create a temp dir " + path_.string());
    }
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

EnvGuard::EnvGuard(std::string name, const std::optional<std::string>& value)
    : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value)
        ::setenv(name_.c_str(), value->c_str(), 1);
    else
        ::unsetenv(name_.c_str());
}

EnvGuard::~EnvGuard() {
    if (old_)
        ::setenv(name_.c_str(), old_->c_str(), 1);
    else
        ::unsetenv(name_.c_str());
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::vector<double>> read_csv(const fs::path& file, std::string& header) {
    std::istringstream in(read_file(file));
    std::getline(in, header);
    std::vector<std::vector<double>> rows;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<double> row;
        std::istringstream fields(line);
        std::string field;
        while (std::getline(fields, field, ',')) row.push_back(std::stod(field));
        rows.push_back(row);
    }
    return rows;
}

std::size_t count_frames(const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir))
        n += entry.path().extension() == ".png" && entry.path().stem().string().rfind("frame_", 0) == 0;
    return n;
}

std::string usage_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const partcl::UsageError& error) {
        return error.what();
    } catch (const std::exception& error) {
        return std::string("<not a UsageError: ") + error.what() + ">";
    } catch (...) {
        return "<not a std::exception>";
    }
    return "<no exception>";
}

void write_file(const fs::path& path, const std::string& text) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

namespace {
std::unique_ptr<partcl::Context> shared_context;
std::unique_ptr<partcl::ProgramCache> shared_cache;
} // namespace

partcl::Context& test_context() {
    if (!shared_context)
        shared_context = std::make_unique<partcl::Context>(
            partcl::Context::from_filter(partcl::DeviceFilter::from_environment()));
    return *shared_context;
}

void release_shared_objects() {
    shared_context.reset();
    shared_cache.reset();
}

std::vector<partcl::Device> pocl_devices() {
    std::vector<partcl::Device> pocl;
    for (auto& device : partcl::enumerate_devices())
        if (device.info().platform == "Portable Computing Language") pocl.push_back(device);
    REQUIRE_MESSAGE(!pocl.empty(), "the tests need PoCL (apt-get install pocl-opencl-icd)");
    return pocl;
}

partcl::Context split_context(std::size_t parts) {
    const std::vector<partcl::Device>& all = test_context().devices();
    std::vector<partcl::Device> chosen;
    for (std::size_t d = 0; d < parts; ++d) chosen.push_back(all.size() >= parts ? all[d] : all[0]);
    return partcl::Context(std::move(chosen), test_memory_model());
}

partcl::MemoryModel test_memory_model() {
    const char* value = std::getenv("PARTCL_TEST_MEMORY");
    const std::string model = value ? value : "";
    if (model.empty() || model == "automatic") return partcl::MemoryModel::automatic;
    if (model == "shared") return partcl::MemoryModel::shared;
    if (model == "separate") return partcl::MemoryModel::separate;
    FAIL("PARTCL_TEST_MEMORY must be automatic, shared or separate, not '" << model << "'");
    return partcl::MemoryModel::automatic;
}

bool under_oclgrind() {
    return test_context().device(0).info().name.find("Oclgrind") != std::string::npos;
}

partcl::ProgramCache& memory_cache() {
    if (!shared_cache)
        shared_cache =
            std::make_unique<partcl::ProgramCache>(partcl::ProgramCache::Settings{false, {}});
    return *shared_cache;
}

std::uint32_t fresh_seed() {
    // PARTCL_TEST_SEED replays a failure's printed seed.
    if (const char* seed = std::getenv("PARTCL_TEST_SEED")) return std::uint32_t(std::stoul(seed));
    std::random_device rd;
    return rd();
}

std::uint32_t shared_seed(const partcl::dist::Communicator& ranks) {
    std::uint32_t seed = fresh_seed();
    ranks.broadcast(&seed, sizeof seed);
    return seed;
}

partcl::Bodies random_bodies(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> position(-1.0, 1.0), mass(0.5, 1.5);
    partcl::Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = position(rng);
        b.y[i] = position(rng);
        b.z[i] = position(rng);
        b.m[i] = mass(rng) / double(n);
    }
    if (n > 3) b.x[3] = b.x[2], b.y[3] = b.y[2], b.z[3] = b.z[2];
    return b;
}

void absolute_sums(const partcl::Bodies& b, double eps2, double G, std::vector<double>& acc,
                   std::vector<double>& pot) {
    const std::size_t n = b.size();
    acc.assign(n, 0.0);
    pot.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double dx = b.x[j] - b.x[i], dy = b.y[j] - b.y[i], dz = b.z[j] - b.z[i];
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 == 0) continue;
            const double s2 = r2 + eps2;
            acc[i] += G * b.m[j] * std::sqrt(r2) / (s2 * std::sqrt(s2));
            pot[i] += G * b.m[j] / std::sqrt(s2);
        }
}

RealCheckInput real_check_input(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> exponent_x(-6.0, 6.0), exponent_y(-3.0, 3.0);
    std::bernoulli_distribution sign;
    RealCheckInput input;
    for (std::size_t i = 0; i < n; ++i) {
        input.xs.push_back(std::exp2(exponent_x(rng)));
        input.ys.push_back((sign(rng) ? -1.0 : 1.0) * std::exp2(exponent_y(rng)));
    }
    return input;
}

namespace {

template <class T>
RealCheckRun run_typed(partcl::Context& context, std::size_t device, const partcl::Program& program,
                       const RealCheckInput& input, std::size_t local) {
    const std::size_t n = input.xs.size();
    std::vector<T> xs(input.xs.begin(), input.xs.end()), ys(input.ys.begin(), input.ys.end());
    auto& queue = context.queue(device);
    partcl::Buffer<T> bx(context, n), by(context, n), bout(context, real_check_rows * n);
    bx.write(queue, xs).wait();
    by.write(queue, ys).wait();
    // Poison the output so a row the kernel does not write cannot pass by accident.
    bout.fill(queue, T(-12345)).wait();
    partcl::Kernel kernel(program, "real_check");
    kernel.args(std::uint32_t(n), bx, by, bout);
    kernel.launch(queue, n, local).wait();
    std::vector<T> out = bout.read(queue);
    RealCheckRun run;
    run.xs.assign(xs.begin(), xs.end());
    run.ys.assign(ys.begin(), ys.end());
    run.out.assign(out.begin(), out.end());
    return run;
}

} // namespace

RealCheckRun run_real_check(partcl::Context& context, std::size_t device,
                            const partcl::Program& program, const RealCheckInput& input,
                            std::size_t local) {
    if (program.precision() == partcl::Precision::float64)
        return run_typed<double>(context, device, program, input, local);
    return run_typed<float>(context, device, program, input, local);
}

int check_real_check(const RealCheckRun& run, partcl::Precision precision, std::uint32_t seed,
                     double expected_row7) {
    const bool dbl = precision == partcl::Precision::float64;
    const double eps = dbl ? DBL_EPSILON : double(FLT_EPSILON);
    if (expected_row7 < 0) expected_row7 = eps;
    const std::size_t n = run.xs.size();
    REQUIRE(run.out.size() == real_check_rows * n);
    // Allowed error, in units of eps times the row's scale: the OpenCL C ulp limits of each
    // built-in (sqrt 3, rsqrt 2, exp 3, division 2.5, fma exact, geometric functions a few) plus
    // one rounding of the host's float64 reference, with a little margin. A float result fails
    // the double tolerance by some 8 orders of magnitude, so passing both proves the precision
    // switch.
    static const char* const names[real_check_rows] = {
        "x*y+0.5", "sqrt(x)", "rsqrt(x)", "exp(-y)", "fma(x,y,-x)", "dot(v,v)", "length(w)",
        "REAL_EPSILON", "x/y"};
    static const double ulps[real_check_rows] = {2, 4, 4, 4, 2, 6, 8, 0, 4};
    int failed_rows = 0;
    for (std::size_t row = 0; row < real_check_rows; ++row) {
        double worst = 0;  // error / allowed
        std::size_t worst_i = 0;
        double worst_got = 0, worst_want = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double x = run.xs[i], y = run.ys[i];
            double want = 0, scale = 0;
            switch (row) {
            case 0: want = x * y + 0.5; scale = std::fabs(x * y) + 0.5; break;
            case 1: want = std::sqrt(x); scale = want; break;
            case 2: want = 1.0 / std::sqrt(x); scale = want; break;
            case 3: want = std::exp(-y); scale = want; break;
            case 4: want = std::fma(x, y, -x); scale = std::fabs(x * y) + std::fabs(x); break;
            case 5: want = x * x + y * y + 1.0; scale = want; break;
            case 6: want = std::sqrt(2 * x * x + 2 * y * y); scale = want; break;
            case 7: want = expected_row7; scale = 0; break;
            case 8: want = x / y; scale = std::fabs(want); break;
            }
            const double got = run.out[row * n + i];
            const double allowed = ulps[row] * eps * scale;
            const double error = std::fabs(got - want);
            double ratio;
            if (!(error <= allowed))  // also catches NaN
                ratio = std::isnan(error) ? INFINITY : (allowed > 0 ? error / allowed : INFINITY);
            else
                ratio = allowed > 0 ? error / allowed : 0;
            if (ratio > worst || (i == 0 && row == 7)) {
                if (ratio > worst) worst = ratio;
                worst_i = i;
                worst_got = got;
                worst_want = want;
            }
        }
        INFO("seed " << seed << ", precision " << partcl::to_string(precision) << ", n " << n
                     << std::setprecision(17) << ", row " << row << " (" << names[row] << "), worst element " << worst_i
                     << ": x " << run.xs[worst_i] << " y " << run.ys[worst_i] << " got "
                     << worst_got << " want "
                     << worst_want << ", error/allowed " << worst);
        CHECK(worst <= 1.0);
        if (worst > 1.0) ++failed_rows;
    }
    return failed_rows;
}

partcl::Source real_check_source() { return partcl::Source::builtin("common/real_check.cl"); }

fs::path source_cl_dir() { return fs::path(PARTCL_SOURCE_DIR) / "cl"; }

fs::path nbody_checkpoint(partcl::Context& context, const fs::path& out) {
    partcl::Scenario kepler = partcl::builtin_scenario("kepler");
    kepler.steps = 2;
    kepler.snapshot_every = 0;
    kepler.frame_every = 0;
    partcl::NBodyRun(context, kepler, out).run();
    return out / "checkpoint.bin";
}

void check_png_header(const std::string& png, std::uint32_t width, std::uint32_t height) {
    REQUIRE(png.size() > 33);
    CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
    CHECK(png.substr(12, 4) == "IHDR");
    const auto be32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
        return v;
    };
    CHECK(be32(16) == width);
    CHECK(be32(20) == height);
    CHECK(png[24] == 8);  // bit depth
    CHECK(png[25] == 2);  // colour type RGB
}

void check_scenario_errors(const std::vector<ScenarioErrorCase>& cases) {
    for (const auto& c : cases) {
        INFO(c.what);
        const std::string message = usage_error([&] { partcl::parse_scenario(c.toml, "s.toml"); });
        INFO("message: " << message);
        for (const auto& needle : c.needles) CHECK(contains(message, needle));
        CHECK(message.rfind("s.toml:", 0) == 0);  // the message starts with the location
    }
}

std::vector<std::complex<double>> dft(std::vector<std::complex<double>> a,
                                      const std::array<std::size_t, 3>& n, int sign,
                                      const std::array<bool, 3>& along) {
    const double pi = std::acos(-1.0);
    const std::size_t stride[3] = {1, n[0], n[0] * n[1]};
    for (std::size_t axis = 0; axis < 3; ++axis) {
        if (n[axis] == 1 || !along[axis]) continue;
        std::vector<std::complex<double>> out(a.size());
        for (std::size_t index = 0; index < a.size(); ++index) {
            const std::size_t k = index / stride[axis] % n[axis];
            const std::size_t base = index - k * stride[axis];
            std::complex<double> sum = 0;
            for (std::size_t j = 0; j < n[axis]; ++j)
                sum += a[base + j * stride[axis]] *
                       std::polar(1.0, sign * 2 * pi * double(j * k % n[axis]) / double(n[axis]));
            out[index] = sum;
        }
        a = std::move(out);
    }
    return a;
}

} // namespace partcl_test
