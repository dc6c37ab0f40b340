#pragma once
// Frames of a run: the projected (x-y) surface density of the bodies, on a log scale through a
// perceptual colour map (inferno), written as PNG.
#include <filesystem>

#include <array>

#include <partcl/models/mps/mps_particles.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/models/pic/pic_particles.hpp>

namespace partcl {

struct RenderSettings {
    int width = 512;
    int height = 512;
    // Half-width of the frame in x, centred on the origin; the half-height is
    // extent * height / width (square pixels). 0 = auto_extent() of the bodies being drawn, so
    // a run fixes it once from its initial positions and passes it to every frame.
    double extent = 0;
    // Dynamic range in decades of surface density below the frame's densest pixel; anything
    // fainter is black.
    double decades = 3;
    // Gaussian smoothing of the density in pixels (0 = none; cloud-in-cell deposit only).
    double smoothing = 2.0;
};

// Throws UsageError for sizes outside 1..16384, a negative or non-finite extent, decades <= 0,
// smoothing outside 0..64.
void validate(const RenderSettings& settings);

// 1.2 x the 95th percentile of max(|x|, |y|) over the bodies (runs are in the centre-of-mass
// frame, so the origin is the centre of mass); 1 when that is 0. (The 99th percentile would be
// dominated by a Plummer sphere's long tail: 8.4 a against 4.0 a.)
double auto_extent(const Bodies& bodies);

// Mass-weighted cloud-in-cell histogram of (x, y) on width x height pixels, optionally smoothed,
// log-scaled and coloured; written atomically. y grows upwards in the image.
void render_density(const std::filesystem::path& png, const Bodies& bodies,
                    const RenderSettings& settings);

// The same picture as 8-bit RGB rows (top row first), for callers that want the pixels.
std::vector<unsigned char> render_density_rgb(const Bodies& bodies,
                                              const RenderSettings& settings);

// MPS frames: every particle a square of side `spacing` (at least one pixel) seen along the
// horizontal axis x and the vertical one (y in 2-D; z in 3-D, a side view), fluid coloured by
// pressure on inferno from 0 (black) to `max_pressure`, walls and dummies grey, on white.
// `lower` and `upper` bound the picture (x, up); pixels are square, the height follows the
// width. UsageError for a width outside 1..16384, an empty region, max_pressure <= 0, or a
// pressure list of another length than the particles.
struct PressureFrame {
    int width = 800;
    std::array<double, 2> lower{0, 0}, upper{1, 1};
    double max_pressure = 1;
    int height() const;
};
std::vector<unsigned char> render_pressure_rgb(const MpsParticles& particles,
                                               const std::vector<double>& pressure, double spacing,
                                               const PressureFrame& frame);
void render_pressure(const std::filesystem::path& png, const MpsParticles& particles,
                     const std::vector<double>& pressure, double spacing,
                     const PressureFrame& frame);

// PIC frames: the phase space of a plasma, position x in [0, length) across and velocity v_x
// in [-max_speed, max_speed] up (v = 0 in the middle row; 2-D and 3-D particles projected on
// x), the particles per pixel on inferno (square-root scale, black = none). Height = width / 2.
// UsageError for a width outside 2..16384 or a non-positive or non-finite length or max_speed.
struct PhaseSpaceFrame {
    int width = 512;
    double length = 1, max_speed = 1;
    int height() const { return width / 2; }
};
std::vector<unsigned char> render_phase_space_rgb(const PicParticles& particles,
                                                  const PhaseSpaceFrame& frame);
void render_phase_space(const std::filesystem::path& png, const PicParticles& particles,
                        const PhaseSpaceFrame& frame);

} // namespace partcl
