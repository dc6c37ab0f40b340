// partcl embedded in a program of its own: builds softened_potential.cl (this example's kernel,
// not one of partcl's) through the installed library, runs it on every selected device of the
// first platform, and checks the result against a float64 computation on the host.
//
//   partcl_embed [float|double] [--device FILTER] [--n N] [--softening EPS]
//
// The device comes from --device, else PARTCL_DEVICE, else the default "gpu|cpu". Prints one
// line per device and PASS or FAIL; exit status 0 on PASS, 1 on FAIL or error, 2 on a usage
// error, 77 when the device cannot run the precision asked for (double without fp64).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

#ifndef EMBED_KERNEL_FILE
#error "the example's CMakeLists.txt passes EMBED_KERNEL_FILE, the path of softened_potential.cl"
#endif

namespace {

struct Options {
    partcl::Precision precision = partcl::Precision::float32;
    std::string device;
    std::size_t n = 1001;          // odd on purpose: not a multiple of any work-group size
    std::string softening = "0.05";
    double G = 0.75;
};

[[noreturn]] void usage(const std::string& message) {
    std::cerr << "partcl_embed: " << message << "\n"
              << "usage: partcl_embed [float|double] [--device FILTER] [--n N] [--softening EPS]\n";
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(arg + " needs a value");
            return argv[++i];
        };
        try {
            if (arg == "--device") {
                options.device = value();
            } else if (arg == "--n") {
                const std::string text = value();
                std::size_t used = 0;
                const long long n = std::stoll(text, &used);
                if (used != text.size() || n < 1) usage("--n needs a positive integer");
                options.n = static_cast<std::size_t>(n);
            } else if (arg == "--softening") {
                options.softening = value();
                std::size_t used = 0;
                if (std::stod(options.softening, &used) <= 0 || used != options.softening.size())
                    usage("--softening needs a positive number");
            } else if (!arg.empty() && arg[0] != '-') {
                options.precision = partcl::parse_precision(arg);
            } else {
                usage("unknown argument '" + arg + "'");
            }
        } catch (const partcl::UsageError& e) {
            usage(e.what());
        } catch (const std::logic_error&) {  // stoll / stod
            usage("bad number for " + arg);
        }
    }
    return options;
}

struct Particles {
    std::vector<double> x, y, z, m;
};

Particles make_particles(std::size_t n) {
    std::mt19937_64 rng(20240531);
    std::uniform_real_distribution<double> position(-1.0, 1.0), mass(0.5, 1.5);
    Particles p;
    for (std::size_t i = 0; i < n; ++i) {
        p.x.push_back(position(rng));
        p.y.push_back(position(rng));
        p.z.push_back(position(rng));
        p.m.push_back(mass(rng));
    }
    return p;
}

template <class T>
std::vector<T> as(const std::vector<double>& values) {
    return std::vector<T>(values.begin(), values.end());
}

// Runs the kernel in precision T on device `d` of `context`; true when every phi_i agrees with
// the float64 host value within the bound for T.
template <class T>
bool run(partcl::Context& context, std::size_t d, const partcl::Program& program,
         const Options& options, const Particles& particles) {
    const std::size_t n = options.n;
    auto& queue = context.queue(d);
    const auto& device = context.device(d);

    // The inputs as the device sees them (rounded to T); the reference uses exactly these.
    const auto x = as<T>(particles.x), y = as<T>(particles.y), z = as<T>(particles.z),
               m = as<T>(particles.m);
    partcl::Buffer<T> bx(context, n), by(context, n), bz(context, n), bm(context, n), phi(context, n);
    bx.write(queue, x);
    by.write(queue, y);
    bz.write(queue, z);
    bm.write(queue, m);
    phi.fill(queue, T(0));

    partcl::Kernel kernel(program, "softened_potential");
    kernel.args(static_cast<std::uint32_t>(n), partcl::Real{options.G}, bx, by, bz, bm, phi);
    const std::size_t local = std::min<std::size_t>(64, kernel.max_work_group_size(device));
    const partcl::Event done = kernel.launch(queue, n, local);
    const double kernel_ms = done.seconds() * 1e3;
    const std::vector<T> result = phi.read(queue);

    // Reference in double from the same T inputs. Every term is positive, so the relative error
    // of the device's sum is bounded by about (n - 1) rounding units for the summation plus a
    // few per term (differences, squares, rsqrt within 2 ulp, the product): (n + 8) * epsilon.
    const double eps = std::stod(options.softening);
    const double eps2 = double(T(eps)) * double(T(eps));
    const double tolerance = double(n + 8) * std::numeric_limits<T>::epsilon();
    double worst = 0;
    std::size_t worst_i = 0;
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const double dx = double(x[j]) - x[i], dy = double(y[j]) - y[i], dz = double(z[j]) - z[i];
            sum += double(m[j]) / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
        const double expected = -double(T(options.G)) * sum;
        if (!std::isfinite(double(result[i]))) finite = false;
        // Relative error; absolute where the exact value is 0 (n == 1: no other particle).
        const double scale = expected != 0 ? std::abs(expected) : 1.0;
        const double error = std::abs(double(result[i]) - expected) / scale;
        if (!(error <= worst)) {  // also catches NaN
            worst = error;
            worst_i = i;
        }
    }
    const bool pass = finite && worst <= tolerance;
    std::printf("  %s: N %zu, kernel %.3f ms, max relative error %.3g at i=%zu "
                "(tolerance %.3g): %s\n",
                device.info().name.c_str(), n, kernel_ms, worst, worst_i, tolerance,
                pass ? "ok" : "WRONG");
    return pass;
}

} // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        partcl::Context context =
            partcl::Context::from_filter(partcl::DeviceFilter::from_environment(options.device));

        // A device without fp64 cannot run the double build; say so before building (exit 77,
        // "skipped", rather than a failure: the kernel is not wrong, the hardware lacks it).
        for (const auto& device : context.devices()) {
            try {
                partcl::require_precision(device.info(), options.precision);
            } catch (const partcl::Unsupported& e) {
                std::printf("SKIP: %s\n", e.what());
                return 77;
            }
        }

        partcl::BuildOptions build;
        build.precision = options.precision;
        build.define("SOFTENING", options.softening);
        const partcl::Source source = partcl::Source::from_file(EMBED_KERNEL_FILE);
        const partcl::Program program = partcl::build_program(context, source, build);

        std::printf("partcl %s, kernel %s, precision %s, options '%s'\n", partcl::version,
                    source.name().c_str(), partcl::to_string(options.precision),
                    build.compiler_options().c_str());
        for (const auto& b : program.builds())
            std::printf("  %s: built (%s) in %.1f ms\n", b.device.c_str(),
                        partcl::to_string(b.origin), b.seconds * 1e3);

        const Particles particles = make_particles(options.n);
        bool pass = true;
        for (std::size_t d = 0; d < context.size(); ++d)
            pass = (options.precision == partcl::Precision::float64
                        ? run<double>(context, d, program, options, particles)
                        : run<float>(context, d, program, options, particles)) &&
                   pass;
        std::printf("%s\n", pass ? "PASS" : "FAIL");
        std::fflush(stdout);  // the verdict is out even if something fails during exit
        return pass ? 0 : 1;
    } catch (const std::exception& e) {
        std::printf("FAIL: %s\n", e.what());
        return 1;
    }
}
