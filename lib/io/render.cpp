#include <partcl/io/render.hpp>

#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/png.hpp"

// stb_image_write, compiled here with internal linkage, so it cannot clash with another copy
// (Debian's libstb, or one in the program).
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace partcl {

namespace fs = std::filesystem;

namespace {

// matplotlib's 'inferno' (perceptually uniform, dark to bright), sampled at 17 points.
constexpr float inferno[17][3] = {
    {0.0015f, 0.0005f, 0.0139f}, {0.0423f, 0.0281f, 0.1411f}, {0.1293f, 0.0473f, 0.2908f},
    {0.2383f, 0.0366f, 0.3964f}, {0.3415f, 0.0623f, 0.4294f}, {0.4412f, 0.0993f, 0.4316f},
    {0.5409f, 0.1347f, 0.4151f}, {0.6401f, 0.1714f, 0.3811f}, {0.7357f, 0.2159f, 0.3302f},
    {0.8224f, 0.2752f, 0.2661f}, {0.8943f, 0.3534f, 0.1936f}, {0.9470f, 0.4492f, 0.1153f},
    {0.9784f, 0.5579f, 0.0349f}, {0.9879f, 0.6753f, 0.0653f}, {0.9746f, 0.7977f, 0.2063f},
    {0.9476f, 0.9174f, 0.4107f}, {0.9884f, 0.9984f, 0.6449f},
};

void colour(double t, unsigned char* rgb) {
    t = std::min(1.0, std::max(0.0, t));
    const double position = t * 16.0;
    const int i = std::min(15, int(position));
    const double f = position - i;
    for (int c = 0; c < 3; ++c) {
        const double v = (1.0 - f) * inferno[i][c] + f * inferno[i + 1][c];
        rgb[c] = static_cast<unsigned char>(std::lround(255.0 * v));
    }
}

void gaussian_blur(std::vector<double>& image, int width, int height, double sigma) {
    const int radius = int(std::ceil(3.0 * sigma));
    if (radius < 1) return;
    std::vector<double> kernel(std::size_t(2 * radius + 1));
    double sum = 0;
    for (int k = -radius; k <= radius; ++k)
        sum += kernel[std::size_t(k + radius)] = std::exp(-0.5 * k * k / (sigma * sigma));
    for (auto& w : kernel) w /= sum;

    std::vector<double> scratch(image.size());
    // Rows, then columns; outside the frame counts as empty.
    for (int j = 0; j < height; ++j)
        for (int i = 0; i < width; ++i) {
            double v = 0;
            for (int k = std::max(-radius, -i); k <= std::min(radius, width - 1 - i); ++k)
                v += kernel[std::size_t(k + radius)] * image[std::size_t(j) * width + (i + k)];
            scratch[std::size_t(j) * width + i] = v;
        }
    for (int j = 0; j < height; ++j)
        for (int i = 0; i < width; ++i) {
            double v = 0;
            for (int k = std::max(-radius, -j); k <= std::min(radius, height - 1 - j); ++k)
                v += kernel[std::size_t(k + radius)] * scratch[std::size_t(j + k) * width + i];
            image[std::size_t(j) * width + i] = v;
        }
}

} // namespace

void validate(const RenderSettings& s) {
    const auto fail = [](const std::string& what) { throw UsageError("render: " + what); };
    if (s.width < 1 || s.width > 16384)
        fail("width must be in 1..16384 (got " + std::to_string(s.width) + ")");
    if (s.height < 1 || s.height > 16384)
        fail("height must be in 1..16384 (got " + std::to_string(s.height) + ")");
    if (!std::isfinite(s.extent) || s.extent < 0)
        fail("extent must be a finite number >= 0 (got " + std::to_string(s.extent) + ")");
    if (!std::isfinite(s.decades) || s.decades <= 0)
        fail("decades must be positive (got " + std::to_string(s.decades) + ")");
    if (!std::isfinite(s.smoothing) || s.smoothing < 0 || s.smoothing > 64)
        fail("smoothing must be in [0, 64] (got " + std::to_string(s.smoothing) + ")");
}

double auto_extent(const Bodies& bodies) {
    std::vector<double> reach;
    reach.reserve(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const double r = std::max(std::abs(bodies.x[i]), std::abs(bodies.y[i]));
        if (std::isfinite(r)) reach.push_back(r);
    }
    if (reach.empty()) return 1.0;
    const std::size_t k = std::size_t(0.95 * double(reach.size() - 1));
    std::nth_element(reach.begin(), reach.begin() + std::ptrdiff_t(k), reach.end());
    const double extent = 1.2 * reach[k];
    return extent > 0 && std::isfinite(extent) ? extent : 1.0;
}

std::vector<unsigned char> render_density_rgb(const Bodies& bodies,
                                              const RenderSettings& settings) {
    validate(settings);
    const int width = settings.width, height = settings.height;
    const double half_x = settings.extent > 0 ? settings.extent : auto_extent(bodies);
    const double half_y = half_x * double(height) / double(width);
    const double pixel = 2.0 * half_x / double(width);  // pixels are square

    // Cloud-in-cell: each body spreads its mass over the four nearest pixel centres.
    std::vector<double> density(std::size_t(width) * std::size_t(height), 0.0);
    const std::size_t n = std::min({bodies.x.size(), bodies.y.size(), bodies.m.size()});
    for (std::size_t b = 0; b < n; ++b) {
        const double u = (bodies.x[b] + half_x) / pixel - 0.5;
        const double v = (bodies.y[b] + half_y) / pixel - 0.5;
        if (!(u > -1.0 && u < double(width) && v > -1.0 && v < double(height))) continue;
        const int i = int(std::floor(u)), j = int(std::floor(v));
        const double fu = u - i, fv = v - j;
        const double weights[2][2] = {{(1 - fu) * (1 - fv), (1 - fu) * fv},
                                      {fu * (1 - fv), fu * fv}};
        for (int di = 0; di < 2; ++di)
            for (int dj = 0; dj < 2; ++dj) {
                const int pi = i + di, pj = j + dj;
                if (pi < 0 || pi >= width || pj < 0 || pj >= height) continue;
                density[std::size_t(pj) * width + pi] += weights[di][dj] * bodies.m[b];
            }
    }
    if (settings.smoothing > 0) gaussian_blur(density, width, height, settings.smoothing);

    double peak = 0;
    for (double d : density) peak = std::max(peak, d);
    const double log_peak = peak > 0 ? std::log10(peak) : 0.0;

    std::vector<unsigned char> rgb(std::size_t(width) * std::size_t(height) * 3);
    for (int row = 0; row < height; ++row) {
        const int j = height - 1 - row;  // image rows go down, y goes up
        for (int i = 0; i < width; ++i) {
            const double d = density[std::size_t(j) * width + i];
            // Surface density relative to the peak: the pixel area cancels out.
            const double t =
                d > 0 && peak > 0 ? 1.0 + (std::log10(d) - log_peak) / settings.decades : 0.0;
            colour(t, &rgb[(std::size_t(row) * width + i) * 3]);
        }
    }
    return rgb;
}

// Encoded in memory, then written by write_file_atomically, which checks every write (stb's own
// file output ignores write errors such as a full disk).
void detail::write_png(const fs::path& png, const std::vector<unsigned char>& rgb, int width,
                       int height) {
    std::string encoded;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                                   std::size_t(size));
    };
    if (!stbi_write_png_to_func(append, &encoded, width, height, 3, rgb.data(), width * 3))
        throw Error("cannot write " + png.string() + ": PNG encoding failed");
    write_file_atomically(png, encoded);
}

void render_density(const fs::path& png, const Bodies& bodies, const RenderSettings& settings) {
    detail::write_png(png, render_density_rgb(bodies, settings), settings.width, settings.height);
}

int PressureFrame::height() const {
    const double aspect = (upper[1] - lower[1]) / (upper[0] - lower[0]);
    return std::max(1, int(std::lround(width * aspect)));
}

std::vector<unsigned char> render_pressure_rgb(const MpsParticles& particles,
                                               const std::vector<double>& pressure, double spacing,
                                               const PressureFrame& frame) {
    if (frame.width < 1 || frame.width > 16384)
        throw UsageError("pressure frame: width " + std::to_string(frame.width) + " (1..16384)");
    if (!(frame.upper[0] > frame.lower[0]) || !(frame.upper[1] > frame.lower[1]) ||
        !std::isfinite(frame.upper[0] - frame.lower[0]) ||
        !std::isfinite(frame.upper[1] - frame.lower[1]))
        throw UsageError("pressure frame: an empty or non-finite region");
    if (!(frame.max_pressure > 0)) throw UsageError("pressure frame: max_pressure must be positive");
    if (pressure.size() != particles.size())
        throw UsageError("pressure frame: " + std::to_string(pressure.size()) + " pressures for " +
                         std::to_string(particles.size()) + " particles");
    const int width = frame.width, height = frame.height();
    if (height > 16384) throw UsageError("pressure frame: taller than 16384 pixels");
    std::vector<unsigned char> rgb(std::size_t(width) * std::size_t(height) * 3, 255);
    const double scale = width / (frame.upper[0] - frame.lower[0]);  // pixels per metre
    const int side = std::max(1, int(std::lround(spacing * scale)));
    const std::size_t n = particles.size();
    const std::size_t up = std::size_t(particles.dimensions - 1);
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char c[3] = {128, 128, 128};
        if (particles.type[i] == MpsType::fluid) colour(pressure[i] / frame.max_pressure, c);
        const double x = (particles.position[i] - frame.lower[0]) * scale;
        const double y = (particles.position[up * n + i] - frame.lower[1]) * scale;
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        const int x0 = int(std::floor(x - 0.5 * side + 0.5)), y0 = int(std::floor(y - 0.5 * side + 0.5));
        for (int row = std::max(0, y0); row < std::min(height, y0 + side); ++row)
            for (int col = std::max(0, x0); col < std::min(width, x0 + side); ++col) {
                unsigned char* p = &rgb[(std::size_t(height - 1 - row) * width + col) * 3];
                p[0] = c[0], p[1] = c[1], p[2] = c[2];
            }
    }
    return rgb;
}

void render_pressure(const fs::path& png, const MpsParticles& particles,
                     const std::vector<double>& pressure, double spacing,
                     const PressureFrame& frame) {
    detail::write_png(png, render_pressure_rgb(particles, pressure, spacing, frame), frame.width,
                      frame.height());
}

std::vector<unsigned char> render_phase_space_rgb(const PicParticles& particles,
                                                  const PhaseSpaceFrame& frame) {
    if (frame.width < 2 || frame.width > 16384)
        throw UsageError("phase-space frame: width " + std::to_string(frame.width) + " (2..16384)");
    if (!(frame.length > 0) || !std::isfinite(frame.length) || !(frame.max_speed > 0) ||
        !std::isfinite(frame.max_speed))
        throw UsageError("phase-space frame: length and max_speed must be positive and finite");
    const int width = frame.width, height = frame.height();
    std::vector<std::uint32_t> count(std::size_t(width) * std::size_t(height), 0);
    std::uint32_t most = 0;
    for (std::size_t i = 0; i < particles.size(); ++i) {
        const double x = particles.position[i] / frame.length * width;
        const double y = (particles.velocity[i] / frame.max_speed + 1) * 0.5 * height;
        if (!(x >= 0 && x < width && y >= 0 && y < height)) continue;  // off the picture, or NaN
        std::uint32_t& c = count[std::size_t(height - 1 - int(y)) * width + std::size_t(x)];
        most = std::max(most, ++c);
    }
    std::vector<unsigned char> rgb(count.size() * 3, 0);
    for (std::size_t p = 0; p < count.size(); ++p)
        if (count[p]) colour(0.25 + 0.75 * std::sqrt(double(count[p]) / most), &rgb[3 * p]);
    return rgb;
}

void render_phase_space(const fs::path& png, const PicParticles& particles,
                        const PhaseSpaceFrame& frame) {
    detail::write_png(png, render_phase_space_rgb(particles, frame), frame.width, frame.height());
}

} // namespace partcl
