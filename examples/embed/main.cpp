// partcl embedded in a program of its own: builds softened_potential.cl (this example's kernel,
// not one of partcl's) through the installed library, runs it as one multi-device launch over
// every selected device of the first platform (sched: MultiDeviceLaunch, PartitionedOutput), and
// checks the result against a float64 computation on the host and bit for bit against device 0
// computing everything alone.
//
//   partcl_embed [float|double] [--device FILTER] [--n N] [--softening EPS]
//
// The device comes from --device, else PARTCL_DEVICE, else the default "gpu|cpu". Prints one
// line per device (its part of the range), one for the checks, and PASS or FAIL; exit status 0
// on PASS, 1 on FAIL or error, 2 on a usage error, 77 when the device cannot run the precision
// asked for (double without fp64).
#include <algorithm>
#include <cmath>
#include <cstdint>
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

// Runs the kernel in precision T over every device of `context` at once: [0, n) split between
// them by weight, each device computing its part of phi, the parts gathered into one buffer.
// True when every phi_i agrees with the float64 host value within the bound for T, and is bit
// for bit what device 0 computes alone.
template <class T>
bool run(partcl::Context& context, const partcl::Program& program, const Options& options,
         const Particles& particles) {
    const std::size_t n = options.n;
    auto& queue = context.queue(0);

    // The inputs as the devices see them (rounded to T); the reference uses exactly these.
    // Written on device 0's queue; the launch makes them readable by every device.
    const auto x = as<T>(particles.x), y = as<T>(particles.y), z = as<T>(particles.z),
               m = as<T>(particles.m);
    partcl::Buffer<T> bx(context, n), by(context, n), bz(context, n), bm(context, n);
    bx.write(queue, x);
    by.write(queue, y);
    bz.write(queue, z);
    bm.write(queue, m);

    // A kernel object per device (each holds its own arguments), all launched in groups of one
    // size, so the split falls between whole groups.
    std::vector<partcl::Kernel> kernels;
    std::size_t group = 64;
    for (std::size_t d = 0; d < context.size(); ++d) {
        kernels.emplace_back(program, "softened_potential");
        group = std::min(group, kernels.back().max_work_group_size(context.device(d)));
    }

    partcl::MultiDeviceLaunch spread(context);  // weights from compute units x clock
    partcl::PartitionedOutput<partcl::Buffer<T>> phi_parts(context, 1);
    std::vector<partcl::Event> events(context.size());
    // One launch over `partition` into `phi`: device 0 writes its part in place, the others
    // into slices that gather() copies into place, in device order.
    auto launch = [&](const partcl::Partition& partition, partcl::Buffer<T>& phi) {
        phi_parts.assign(partition, phi, {});
        spread.run(partition, [&](std::size_t d, partcl::Range r) {
            const partcl::OutputPart<partcl::Buffer<T>> part = phi_parts.part(d);
            kernels[d].args(std::uint32_t(r.begin), std::uint32_t(r.end), std::uint32_t(n),
                            partcl::Real{options.G}, bx, by, bz, bm, part.buffer,
                            std::uint32_t(part.offset));
            return events[d] = kernels[d].launch(context.queue(d), r.size(), group);
        });
        phi_parts.gather();
    };

    partcl::Buffer<T> alone(context, n), phi(context, n);
    launch(partcl::Partition::on_one_device(n, context.size()), alone);
    const partcl::Partition split = spread.split(n, group);
    launch(split, phi);
    for (std::size_t d = 0; d < context.size(); ++d)
        std::printf("  %s: items [%zu, %zu), kernel %.3f ms\n",
                    context.device(d).info().name.c_str(), split[d].begin, split[d].end,
                    split[d].empty() ? 0.0 : events[d].seconds() * 1e3);
    const std::vector<T> result = phi.read(queue);
    const bool same_bits = result == alone.read(queue);

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
    const bool pass = finite && worst <= tolerance && same_bits;
    std::printf("  %zu device(s), N %zu: max relative error %.3g at i=%zu (tolerance %.3g), "
                "%s device 0 alone: %s\n",
                context.size(), n, worst, worst_i, tolerance,
                same_bits ? "the same bits as" : "NOT the bits of", pass ? "ok" : "WRONG");
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
        const bool pass = options.precision == partcl::Precision::float64
                              ? run<double>(context, program, options, particles)
                              : run<float>(context, program, options, particles);
        std::printf("%s\n", pass ? "PASS" : "FAIL");
        std::fflush(stdout);  // the verdict is out even if something fails during exit
        return pass ? 0 : 1;
    } catch (const std::exception& e) {
        std::printf("FAIL: %s\n", e.what());
        return 1;
    }
}
