#include <partcl/io/plot.hpp>

#include <partcl/backend/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io/png.hpp"

// stb_easy_font: a bitmap font made of quads, public domain, static functions only; not every
// one of them is used here.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace partcl {

namespace {

using Rgb = std::array<unsigned char, 3>;

constexpr Rgb background{255, 255, 255};
constexpr Rgb ink{25, 25, 25};          // text
constexpr Rgb axis_colour{40, 40, 40};  // frame and ticks
constexpr Rgb grid_colour{226, 226, 226};
constexpr Rgb legend_border{160, 160, 160};

// Easy_font's capitals and digits are 7 of its units high (descenders reach 9); a unit is
// `scale` pixels.
constexpr int cap_height = 7;

// Integer pixel rectangle, [x0, x1) x [y0, y1).
struct Box {
    int x0, y0, x1, y1;
};

struct Canvas {
    int width, height;
    std::vector<unsigned char> rgb;
    std::vector<std::uint8_t> data;  // 1 where a series drew: where the legend should not go

    Canvas(int w, int h)
        : width(w), height(h), rgb(std::size_t(w) * std::size_t(h) * 3, 255),
          data(std::size_t(w) * std::size_t(h), 0) {}

    void fill(Box b, const Box& clip, const Rgb& c, bool is_data = false) {
        b.x0 = std::max({b.x0, clip.x0, 0}), b.x1 = std::min({b.x1, clip.x1, width});
        b.y0 = std::max({b.y0, clip.y0, 0}), b.y1 = std::min({b.y1, clip.y1, height});
        for (int y = b.y0; y < b.y1; ++y)
            for (int x = b.x0; x < b.x1; ++x) {
                const std::size_t p = std::size_t(y) * std::size_t(width) + std::size_t(x);
                rgb[3 * p] = c[0], rgb[3 * p + 1] = c[1], rgb[3 * p + 2] = c[2];
                if (is_data) data[p] = 1;
            }
    }
    void fill(const Box& b, const Rgb& c) { fill(b, Box{0, 0, width, height}, c); }

    std::size_t data_in(Box b) const {
        b.x0 = std::max(b.x0, 0), b.x1 = std::min(b.x1, width);
        b.y0 = std::max(b.y0, 0), b.y1 = std::min(b.y1, height);
        std::size_t n = 0;
        for (int y = b.y0; y < b.y1; ++y)
            for (int x = b.x0; x < b.x1; ++x)
                n += data[std::size_t(y) * std::size_t(width) + std::size_t(x)];
        return n;
    }
};

// Easy_font indexes its tables by character - 32 and reads one entry past it: anything outside
// printable ASCII (a newline, UTF-8 bytes) would read outside them.
std::string printable(const std::string& text) {
    std::string s = text;
    for (char& c : s)
        if (c < 32 || c > 126) c = '?';
    return s;
}

// Drawn width in pixels (easy_font's width counts the gap after the last character too).
int text_width(const std::string& text, int scale) {
    if (text.empty()) return 0;
    std::string s = printable(text);
    return (stb_easy_font_width(s.data()) - 1) * scale;
}

// Top-left corner at (x, y): the top of the capitals.
void draw_text(Canvas& canvas, int x, int y, const std::string& text, int scale, const Rgb& c) {
    if (text.empty()) return;
    std::string s = printable(text);
    std::vector<char> quads(s.size() * 400 + 64);  // easy_font's estimate is ~270 bytes a character
    const int n = stb_easy_font_print(0, 0, s.data(), nullptr, quads.data(), int(quads.size()));
    for (int q = 0; q < n; ++q) {
        const float* v0 = reinterpret_cast<const float*>(quads.data() + 64 * q);
        const float* v2 = reinterpret_cast<const float*>(quads.data() + 64 * q + 32);
        // Vertices 0 and 2 are opposite corners, on easy_font's integer grid.
        canvas.fill(Box{x + int(std::lround(v0[0])) * scale, y + int(std::lround(v0[1])) * scale,
                        x + int(std::lround(v2[0])) * scale, y + int(std::lround(v2[1])) * scale},
                    c);
    }
}

// One axis: log10 of its ends and the pixel coordinates they map to. Pixel p covers the
// continuous coordinates [p - 0.5, p + 0.5).
struct Axis {
    double lo, hi;        // log10 of the range
    double first, last;   // pixel coordinates of lo and hi (for y, first > last: rows go down)
    double at(double log_value) const {
        return first + (log_value - lo) / (hi - lo) * (last - first);
    }
    double pixels_per_decade() const { return std::abs(last - first) / (hi - lo); }
};

// The labels of decades: "1e-2", "0.1", "1", "10", "100", "1e3"; between them m x 10^e alike
// ("2e-3", "0.2", "20").
std::string tick_text(int m, int e) {
    if (e >= 0 && e <= 2) return std::to_string(m) + std::string(std::size_t(e), '0');
    if (e == -1) return "0." + std::to_string(m);
    return std::to_string(m) + "e" + std::to_string(e);
}

struct Tick {
    double log_value;
    int m, e;  // m x 10^e
};

// Decades (m = 1) and, when the axis spans at most 6 decades and there is room, the minor ticks
// 2..9 x 10^e, within [lo, hi] up to rounding.
std::vector<Tick> ticks(const Axis& axis) {
    constexpr double slack = 1e-9;
    const bool with_minor = axis.hi - axis.lo <= 6 + slack && axis.pixels_per_decade() >= 24;
    std::vector<Tick> out;
    for (double e = std::floor(axis.lo); e <= std::ceil(axis.hi); ++e)
        for (int m = 1; m <= (with_minor ? 9 : 1); ++m) {
            const double v = e + std::log10(double(m));
            if (v >= axis.lo - slack && v <= axis.hi + slack) out.push_back({v, m, int(e)});
        }
    return out;
}

// Which ticks get a label: every n-th decade, n the smallest that keeps them apart by `gap`
// pixels; when fewer than two decades are in range, minor ticks too where they fit.
std::vector<std::size_t> labelled(const std::vector<Tick>& t, const Axis& axis, bool horizontal,
                                  int scale) {
    const int gap = 4 * scale;
    const auto extent = [&](std::size_t i) {  // along the axis, in pixels
        return horizontal ? text_width(tick_text(t[i].m, t[i].e), scale) : cap_height * scale;
    };
    int widest = 0, decades = 0;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (t[i].m == 1) widest = std::max(widest, extent(i)), ++decades;
    const int step = std::max(1, int(std::ceil((widest + gap) / axis.pixels_per_decade())));
    std::vector<std::size_t> out;
    std::vector<std::pair<double, double>> taken;  // placed labels' spans along the axis
    const auto place = [&](std::size_t i) {
        const double c = axis.at(t[i].log_value), half = 0.5 * extent(i);
        for (const auto& [a, b] : taken)
            if (c - half < b + gap && a < c + half + gap) return;
        taken.emplace_back(c - half, c + half);
        out.push_back(i);
    };
    for (std::size_t i = 0; i < t.size(); ++i)
        if (t[i].m == 1 && t[i].e % step == 0) place(i);
    if (decades < 2)
        for (std::size_t i = 0; i < t.size(); ++i)
            if (t[i].m != 1) place(i);
    return out;
}

// Liang-Barsky: clips the segment a-b to the rectangle; false when nothing is left.
bool clip_segment(double& ax, double& ay, double& bx, double& by, double x0, double y0, double x1,
                  double y1) {
    double t0 = 0, t1 = 1;
    const double dx = bx - ax, dy = by - ay;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {ax - x0, x1 - ax, ay - y0, y1 - ay};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        const double r = q[i] / p[i];
        if (p[i] < 0) t0 = std::max(t0, r);
        else t1 = std::min(t1, r);
        if (t0 > t1) return false;
    }
    bx = ax + t1 * dx, by = ay + t1 * dy;
    ax = ax + t0 * dx, ay = ay + t0 * dy;
    return true;
}

struct Pen {
    Rgb colour;
    int thickness;
    bool dashed;
    double dash, period;  // pixels drawn, then period - dash left blank
    double phase = 0;     // along the polyline, so a dash runs on over a corner
};

// A square of side `thickness` at every step of at most one pixel along the longer axis, so the
// line has no holes however steep it is.
void stroke(Canvas& canvas, const Box& area, Pen& pen, double ax, double ay, double bx,
            double by) {
    const double length = std::hypot(bx - ax, by - ay);
    const int steps = std::max(1, int(std::ceil(std::max(std::abs(bx - ax), std::abs(by - ay)))));
    const double offset = 0.5 - 0.5 * (pen.thickness - 1);
    for (int i = 0; i <= steps; ++i) {
        const double f = double(i) / steps;
        const double along = pen.phase + f * length;
        if (pen.dashed && std::fmod(along, pen.period) >= pen.dash) continue;
        const int x = int(std::floor(ax + f * (bx - ax) + offset));
        const int y = int(std::floor(ay + f * (by - ay) + offset));
        canvas.fill(Box{x, y, x + pen.thickness, y + pen.thickness}, area, pen.colour, true);
    }
    pen.phase += length;
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

bool drawable(double x, double y) { return x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y); }

// One end of an axis: the given value, or the data's extreme rounded out to a whole decade.
double axis_end(double given, double data_log, bool upper) {
    if (given != 0) return std::log10(given);
    constexpr double slack = 1e-9;  // log10(1e-5) need not be exactly -5
    return upper ? std::ceil(data_log - slack) : std::floor(data_log + slack);
}

void check(const LogLogPlot& plot) {
    const auto fail = [](const std::string& what) { throw UsageError("plot: " + what); };
    if (plot.width < 160 || plot.width > 8192 || plot.height < 160 || plot.height > 8192)
        fail("size " + std::to_string(plot.width) + "x" + std::to_string(plot.height) +
             " outside 160..8192 per side");
    for (const char* axis : {"x", "y"}) {
        const bool x = axis[0] == 'x';
        for (double end : {x ? plot.x_min : plot.y_min, x ? plot.x_max : plot.y_max})
            if (end != 0 && !(end > 0 && std::isfinite(end)))
                fail(std::string(axis) + " range: an end given as " + number(end) +
                     " (ends are positive and finite, or 0 for the data's)");
    }
    bool any = false;
    for (const PlotSeries& s : plot.series) {
        if (s.x.size() != s.y.size())
            fail("series '" + s.label + "' has " + std::to_string(s.x.size()) + " x and " +
                 std::to_string(s.y.size()) + " y values");
        for (std::size_t i = 0; i < s.x.size() && !any; ++i) any = drawable(s.x[i], s.y[i]);
    }
    if (!any) fail("no point with positive, finite x and y to draw");
}

} // namespace

std::vector<unsigned char> render_plot_rgb(const LogLogPlot& plot) {
    check(plot);
    const int width = plot.width, height = plot.height;
    // Everything (text, margins, lines) grows with the picture: 2 at 640x480.
    const int s = std::clamp(std::min(width, height) / 240, 1, 4);
    const Box area{36 * s, 26 * s, width - 12 * s, height - 28 * s};

    constexpr double inf = std::numeric_limits<double>::infinity();
    double data[4] = {inf, -inf, inf, -inf};  // log10 of the drawable points' x and y extremes
    for (const PlotSeries& series : plot.series)
        for (std::size_t i = 0; i < series.x.size(); ++i)
            if (drawable(series.x[i], series.y[i])) {
                const double lx = std::log10(series.x[i]), ly = std::log10(series.y[i]);
                data[0] = std::min(data[0], lx), data[1] = std::max(data[1], lx);
                data[2] = std::min(data[2], ly), data[3] = std::max(data[3], ly);
            }
    const auto make_axis = [&](double given_lo, double given_hi, const double* d,
                               const char* name) {
        double lo = axis_end(given_lo, d[0], false), hi = axis_end(given_hi, d[1], true);
        if (given_lo == 0 && given_hi == 0 && hi == lo) hi = lo + 1;  // all data one power of ten
        if (!(lo < hi))
            throw UsageError(std::string("plot: the ") + name + " range [" +
                             number(std::pow(10.0, lo)) + ", " + number(std::pow(10.0, hi)) +
                             "] is empty");
        return Axis{lo, hi, 0, 0};
    };
    Axis xa = make_axis(plot.x_min, plot.x_max, data, "x");
    Axis ya = make_axis(plot.y_min, plot.y_max, data + 2, "y");
    xa.first = area.x0, xa.last = area.x1 - 1;
    ya.first = area.y1 - 1, ya.last = area.y0;

    Canvas canvas(width, height);
    const std::vector<Tick> x_ticks = ticks(xa), y_ticks = ticks(ya);

    const std::vector<std::size_t> x_labels = labelled(x_ticks, xa, true, s),
                                   y_labels = labelled(y_ticks, ya, false, s);
    const auto column = [&](const Tick& t) { return int(std::floor(xa.at(t.log_value) + 0.5)); };
    const auto row = [&](const Tick& t) { return int(std::floor(ya.at(t.log_value) + 0.5)); };

    // Grid at the labelled ticks, under everything else.
    for (std::size_t i : x_labels)
        canvas.fill(Box{column(x_ticks[i]), area.y0, column(x_ticks[i]) + 1, area.y1}, area,
                    grid_colour);
    for (std::size_t i : y_labels)
        canvas.fill(Box{area.x0, row(y_ticks[i]), area.x1, row(y_ticks[i]) + 1}, area, grid_colour);

    // The series, clipped to the plot area. A skipped point breaks a line rather than joining
    // its neighbours across the gap.
    const double cx0 = area.x0 - 0.5, cx1 = area.x1 - 0.5, cy0 = area.y0 - 0.5, cy1 = area.y1 - 0.5;
    for (const PlotSeries& series : plot.series) {
        Pen pen{series.colour, s, series.dashed, 6.0 * s, 10.0 * s};
        bool have_previous = false;
        double px = 0, py = 0;
        for (std::size_t i = 0; i < series.x.size(); ++i) {
            if (!drawable(series.x[i], series.y[i])) {
                have_previous = false;
                continue;
            }
            const double x = xa.at(std::log10(series.x[i])), y = ya.at(std::log10(series.y[i]));
            if (series.markers) {
                if (x < cx0 - s || x > cx1 + s || y < cy0 - s || y > cy1 + s) continue;
                const int mx = int(std::floor(x + 0.5)), my = int(std::floor(y + 0.5));
                canvas.fill(Box{mx - s, my - s, mx + s + 1, my + s + 1}, area, series.colour, true);
                continue;
            }
            if (have_previous) {
                double ax = px, ay = py, bx = x, by = y;
                if (clip_segment(ax, ay, bx, by, cx0, cy0, cx1, cy1))
                    stroke(canvas, area, pen, ax, ay, bx, by);
                else
                    pen.phase += std::hypot(x - px, y - py);
            }
            px = x, py = y, have_previous = true;
        }
    }

    // Frame just outside the plot area, so it never hides a point on the range's edge.
    const int t = std::max(1, s / 2), back = (t - 1) / 2;  // frame and tick thickness
    const Box frame{area.x0 - t, area.y0 - t, area.x1 + t, area.y1 + t};
    canvas.fill(Box{frame.x0, frame.y0, frame.x1, area.y0}, axis_colour);
    canvas.fill(Box{frame.x0, area.y1, frame.x1, frame.y1}, axis_colour);
    canvas.fill(Box{frame.x0, frame.y0, area.x0, frame.y1}, axis_colour);
    canvas.fill(Box{area.x1, frame.y0, frame.x1, frame.y1}, axis_colour);

    // Ticks outward on the bottom and left axes: long where labelled, short elsewhere; decades
    // between labelled ones only while they stay apart.
    const int major = 3 * s, minor = 2 * s, label_gap = 2 * s;
    const auto tick_length = [&](const std::vector<std::size_t>& labels, const Axis& axis,
                                 const Tick& tick, std::size_t i) {
        if (std::find(labels.begin(), labels.end(), i) != labels.end()) return major;
        return tick.m != 1 || axis.pixels_per_decade() >= 4 ? minor : 0;
    };
    for (std::size_t i = 0; i < x_ticks.size(); ++i) {
        const int x = column(x_ticks[i]);
        canvas.fill(Box{x - back, frame.y1, x - back + t,
                        frame.y1 + tick_length(x_labels, xa, x_ticks[i], i)},
                    axis_colour);
    }
    for (std::size_t i : x_labels) {
        const std::string text = tick_text(x_ticks[i].m, x_ticks[i].e);
        draw_text(canvas, column(x_ticks[i]) - text_width(text, s) / 2,
                  frame.y1 + major + label_gap, text, s, ink);
    }
    for (std::size_t i = 0; i < y_ticks.size(); ++i) {
        const int y = row(y_ticks[i]);
        canvas.fill(Box{frame.x0 - tick_length(y_labels, ya, y_ticks[i], i), y - back, frame.x0,
                        y - back + t},
                    axis_colour);
    }
    for (std::size_t i : y_labels) {
        const std::string text = tick_text(y_ticks[i].m, y_ticks[i].e);
        draw_text(canvas, frame.x0 - major - label_gap - text_width(text, s),
                  row(y_ticks[i]) - cap_height * s / 2, text, s, ink);
    }

    // Title centred over the plot area; the y label above the y axis, the x label below the
    // tick labels.
    // Centred, but moved in from the picture's edges where that is all it takes to fit.
    const auto centred = [&](const std::string& text) {
        const int w = text_width(text, s);
        return std::max(std::min((area.x0 + area.x1 - w) / 2, width - w - 2 * s), 2 * s);
    };
    draw_text(canvas, centred(plot.title), 4 * s, plot.title, s, ink);
    draw_text(canvas, frame.x0, 15 * s, plot.y_label, s, ink);
    draw_text(canvas, centred(plot.x_label), frame.y1 + 16 * s, plot.x_label, s, ink);

    // The legend, in the corner of the plot area where it hides the fewest drawn pixels.
    std::vector<const PlotSeries*> entries;
    int widest = 0;
    for (const PlotSeries& series : plot.series)
        if (!series.label.empty()) {
            entries.push_back(&series);
            widest = std::max(widest, text_width(series.label, s));
        }
    if (!entries.empty()) {
        // The swatch holds a dash, a gap and a dash of a dashed line.
        const int pad = 4 * s, swatch = 16 * s, space = 4 * s, pitch = 11 * s, inset = 4 * s;
        const int w = 2 * pad + swatch + space + widest;
        const int h = 2 * pad + int(entries.size() - 1) * pitch + cap_height * s;
        const Box corners[4] = {
            {area.x1 - inset - w, area.y0 + inset, area.x1 - inset, area.y0 + inset + h},
            {area.x0 + inset, area.y0 + inset, area.x0 + inset + w, area.y0 + inset + h},
            {area.x0 + inset, area.y1 - inset - h, area.x0 + inset + w, area.y1 - inset},
            {area.x1 - inset - w, area.y1 - inset - h, area.x1 - inset, area.y1 - inset}};
        Box box = corners[0];
        std::size_t least = canvas.data_in(box);
        for (const Box& b : corners) {
            const std::size_t n = canvas.data_in(b);
            if (n < least) box = b, least = n;
        }
        canvas.fill(box, legend_border);
        canvas.fill(Box{box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1}, background);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const PlotSeries& series = *entries[i];
            const int top = box.y0 + pad + int(i) * pitch, middle = top + cap_height * s / 2;
            const int x0 = box.x0 + pad;
            if (series.markers) {
                canvas.fill(Box{x0 + swatch / 2 - s, middle - s, x0 + swatch / 2 + s + 1,
                                middle + s + 1},
                            series.colour);
            } else {
                Pen pen{series.colour, s, series.dashed, 6.0 * s, 10.0 * s};
                stroke(canvas, box, pen, x0, middle, x0 + swatch - 1, middle);
            }
            draw_text(canvas, x0 + swatch + space, top, series.label, s, ink);
        }
    }
    return std::move(canvas.rgb);
}

void render_plot(const std::filesystem::path& png, const LogLogPlot& plot) {
    detail::write_png(png, render_plot_rgb(plot), plot.width, plot.height);
}

} // namespace partcl
