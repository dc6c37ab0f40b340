#pragma once
// Line plots on log-log axes, written as PNG: what a run draws of a spectrum (the cosmology's
// P(k) per output) for people who would rather see it than read its CSV.
#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace partcl {

struct PlotSeries {
    std::string label;         // the legend's text; empty: not in the legend
    // Same length. Points with x or y <= 0 or not finite are skipped, and a line is broken
    // there rather than joined across the gap.
    std::vector<double> x, y;
    std::array<unsigned char, 3> colour{0, 0, 0};
    bool markers = false;      // true: a small square at each point (measured data); false: a line
    bool dashed = false;       // lines only
};

// The layout, in pixels, for a picture of width x height, with the scale
//   s = clamp(min(width, height) / 240, 1, 4)   (integer division; 2 at 640x480)
// by which text (stb_easy_font, 7 s high), line width (s), markers (2 s + 1) and margins grow:
// the plot area spans columns [36 s, width - 12 s) and rows [26 s, height - 28 s), its first
// column is x_min and its last x_max, its top row y_max and its bottom row y_min, both axes
// logarithmic. The frame is drawn just outside it, with decade ticks labelled "1e-2", "0.1",
// "1", "10", "100", "1e3" (every n-th decade where they would crowd), minor ticks at 2..9 x 10^e
// when the axis spans at most 6 decades (labelled "2e-2", "0.2", "20" where fewer than two
// decades are in range), and a light grid at the labelled ticks. The title is centred above
// the plot area, the y label written horizontally above the y axis, the x label below the tick
// labels, and the legend (the series with a label) goes in the corner of the plot area where
// it hides the fewest drawn pixels.
struct LogLogPlot {
    int width = 640, height = 480;
    std::string title, x_label, y_label;
    std::vector<PlotSeries> series;  // drawn in order, later ones on top
    // Axis ranges. An end left 0 is taken from the drawable points of every series: their
    // smallest (largest) value rounded down (up) to a whole decade; an axis whose data are all
    // one power of ten spans the decade above it.
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
};

// Both throw UsageError for a size outside 160..8192 per side, mismatched x/y lengths, an axis
// end that is given but not positive and finite, a range (given or from the data) without
// min < max, or no drawable point at all.

// 8-bit RGB rows, top row first: width * height * 3 bytes.
std::vector<unsigned char> render_plot_rgb(const LogLogPlot& plot);
// Written atomically.
void render_plot(const std::filesystem::path& png, const LogLogPlot& plot);

} // namespace partcl
