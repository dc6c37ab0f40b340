// Log-log line plots (partcl/io/plot.hpp): where lines and markers land by the documented layout,
// clipping, text, the legend, bad input and the PNG file.
#include <doctest/doctest.h>

#include <partcl/backend/error.hpp>
#include <partcl/io/plot.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::contains;
using partcl_test::read_file;
using partcl_test::TempDir;
using partcl_test::temporaries;
using partcl_test::usage_error;
namespace fs = std::filesystem;

namespace {

using Rgb = std::array<unsigned char, 3>;
constexpr Rgb red{255, 0, 0}, blue{0, 0, 255};

Rgb pixel(const std::vector<unsigned char>& rgb, int width, int row, int column) {
    const std::size_t p = (std::size_t(row) * std::size_t(width) + std::size_t(column)) * 3;
    return {rgb[p], rgb[p + 1], rgb[p + 2]};
}

// Text and axes; not a series' colour, the grid or the legend's border.
bool dark(const Rgb& c) { return c[0] < 100 && c[1] < 100 && c[2] < 100; }

// plot.hpp's layout: the scale s and the plot area [x0, x1) x [y0, y1).
struct Layout {
    int s, x0, y0, x1, y1;
    explicit Layout(const LogLogPlot& p)
        : s(std::clamp(std::min(p.width, p.height) / 240, 1, 4)), x0(36 * s), y0(26 * s),
          x1(p.width - 12 * s), y1(p.height - 28 * s) {}
    // Continuous pixel coordinates of (x, y) on the plot's (explicit) ranges.
    double column(const LogLogPlot& p, double x) const {
        return x0 + std::log10(x / p.x_min) / std::log10(p.x_max / p.x_min) * (x1 - 1 - x0);
    }
    double row(const LogLogPlot& p, double y) const {
        return (y1 - 1) - std::log10(y / p.y_min) / std::log10(p.y_max / p.y_min) * (y1 - 1 - y0);
    }
};

int count(const std::vector<unsigned char>& rgb, int width, int height, const Rgb& c, int row0 = 0,
          int row1 = -1, int column0 = 0, int column1 = -1) {
    if (row1 < 0) row1 = height;
    if (column1 < 0) column1 = width;
    int n = 0;
    for (int row = row0; row < row1; ++row)
        for (int column = column0; column < column1; ++column)
            n += pixel(rgb, width, row, column) == c;
    return n;
}

int count_dark(const std::vector<unsigned char>& rgb, int width, int row0, int row1, int column0,
               int column1) {
    int n = 0;
    for (int row = row0; row < row1; ++row)
        for (int column = column0; column < column1; ++column)
            n += dark(pixel(rgb, width, row, column));
    return n;
}

// y = x^-2 over [from, to], in red, on the ranges x in [1e-2, 1], y in [1, 1e4].
LogLogPlot power_law(double from, double to, int points = 60) {
    LogLogPlot p;
    p.x_min = 1e-2, p.x_max = 1, p.y_min = 1, p.y_max = 1e4;
    PlotSeries s;
    s.colour = red;
    for (int i = 0; i < points; ++i) {
        const double x = from * std::pow(to / from, double(i) / (points - 1));
        s.x.push_back(x);
        s.y.push_back(1 / (x * x));
    }
    p.series.push_back(s);
    return p;
}

} // namespace

TEST_SUITE("plot") {

TEST_CASE("a line lands where the axes map it, continuous, descending and clipped") {
    for (const auto& [from, to] : {std::pair{1e-2, 1.0}, std::pair{1e-3, 10.0}}) {
        INFO("data over [" << from << ", " << to << "]");
        const LogLogPlot p = power_law(from, to);
        const Layout l(p);
        REQUIRE(l.s == 2);
        const std::vector<unsigned char> rgb = render_plot_rgb(p);
        REQUIRE(rgb.size() == std::size_t(p.width) * std::size_t(p.height) * 3);

        // Nothing red outside the plot area: clipped.
        const int inside = count(rgb, p.width, p.height, red, l.y0, l.y1, l.x0, l.x1);
        CHECK(inside > 0);
        CHECK(count(rgb, p.width, p.height, red) == inside);

        // A red pixel within 2 px of where the mapping puts a few points of the curve.
        for (double x : {0.0125, 0.03, 0.1, 0.4, 0.9}) {
            const double c = l.column(p, x), r = l.row(p, 1 / (x * x));
            INFO("x " << x << " at column " << c << ", row " << r);
            bool found = false;
            for (int row = int(r) - 2; row <= int(r) + 3; ++row)
                for (int column = int(c) - 2; column <= int(c) + 3; ++column)
                    found = found || pixel(rgb, p.width, row, column) == red;
            CHECK(found);
        }

        // Every column of the plot area has red, in rows that go down as x goes right, each
        // column's touching the last's (no holes).
        int columns = 0, previous_top = -1, previous_bottom = -1, backwards = 0, holes = 0;
        for (int column = l.x0; column < l.x1; ++column) {
            int top = -1, bottom = -1;
            for (int row = l.y0; row < l.y1; ++row)
                if (pixel(rgb, p.width, row, column) == red) {
                    if (top < 0) top = row;
                    bottom = row;
                }
            if (top < 0) continue;
            ++columns;
            if (previous_top >= 0) {
                backwards += top < previous_top;
                holes += top > previous_bottom + 1;
            }
            previous_top = top, previous_bottom = bottom;
        }
        CHECK(columns >= l.x1 - l.x0 - 2);
        CHECK(backwards == 0);
        CHECK(holes == 0);
    }
}

TEST_CASE("a dashed line has gaps a solid one has not") {
    LogLogPlot p = power_law(1e-2, 1.0);
    const int solid = count(render_plot_rgb(p), p.width, p.height, red);
    p.series[0].dashed = true;
    const int dashed = count(render_plot_rgb(p), p.width, p.height, red);
    CHECK(dashed > solid / 3);
    CHECK(dashed < solid * 3 / 4);
}

TEST_CASE("markers: squares at the mapped points; ranges from the data round out to decades") {
    LogLogPlot p;
    p.x_min = 1e-2, p.x_max = 1, p.y_min = 1, p.y_max = 1e4;
    PlotSeries s;
    s.colour = blue;
    s.markers = true;
    s.x = {0.02, 0.1, 0.5, 0.3, -1.0, 0.2};
    s.y = {2000, 100, 3, std::numeric_limits<double>::quiet_NaN(), 5.0, 0.0};  // 3 drawable
    p.series.push_back(s);
    const Layout l(p);
    const std::vector<unsigned char> rgb = render_plot_rgb(p);
    for (std::size_t i = 0; i < 3; ++i) {
        const int c = int(std::floor(l.column(p, s.x[i]) + 0.5));
        const int r = int(std::floor(l.row(p, s.y[i]) + 0.5));
        INFO("point " << i << " at column " << c << ", row " << r);
        // A (2 s + 1)-pixel square around it (up to a pixel of rounding), and nothing more.
        CHECK(count(rgb, p.width, p.height, blue, r - 1, r + 2, c - 1, c + 2) == 9);
        CHECK(count(rgb, p.width, p.height, blue, r - 5, r + 6, c - 5, c + 6) == 25);
    }
    CHECK(count(rgb, p.width, p.height, blue) == 3 * 25);

    // On the ranges' corner, only the quarter in the plot area; beyond them, nothing.
    LogLogPlot edge = p;
    edge.series[0].x = {1, 2, 1e-3};
    edge.series[0].y = {1e4, 100, 1e5};
    const std::vector<unsigned char> corner = render_plot_rgb(edge);
    CHECK(count(corner, p.width, p.height, blue) == 9);
    CHECK(count(corner, p.width, p.height, blue, l.y0, l.y0 + 3, l.x1 - 3, l.x1) == 9);

    // The data span [0.02, 0.5] x [3, 2000]: rounded out, the same ranges as given above.
    LogLogPlot automatic = p;
    automatic.x_min = automatic.x_max = automatic.y_min = automatic.y_max = 0;
    CHECK(render_plot_rgb(automatic) == rgb);
    // One end given, the other from the data.
    automatic.x_max = 1;
    automatic.y_min = 1;
    CHECK(render_plot_rgb(automatic) == rgb);
}

TEST_CASE("text: title, axis labels, tick labels and the legend are drawn only when there") {
    LogLogPlot p = power_law(1e-2, 1.0);
    const Layout l(p);
    const auto dark_in = [&](const LogLogPlot& plot, int row0, int row1, int column0, int column1) {
        return count_dark(render_plot_rgb(plot), plot.width, row0, row1, column0, column1);
    };
    // Bands: the title's (above the y label), the y label's (above the frame, right of the
    // y tick labels), the x label's (below the tick labels), the legend's corner (top right:
    // the curve runs from top left to bottom right).
    const auto title = [&](const LogLogPlot& q) { return dark_in(q, 0, 13 * l.s, 0, q.width); };
    const auto y_label = [&](const LogLogPlot& q) {
        return dark_in(q, 14 * l.s, l.y0 - 2, l.x0 - 1, q.width);
    };
    const auto x_label = [&](const LogLogPlot& q) {
        return dark_in(q, l.y1 + 15 * l.s, q.height, 0, q.width);
    };
    const auto legend = [&](const LogLogPlot& q) {
        return dark_in(q, l.y0 + 2, l.y0 + 40, l.x1 - 200, l.x1 - 2);
    };
    CHECK(title(p) == 0);
    CHECK(y_label(p) == 0);
    CHECK(x_label(p) == 0);
    CHECK(legend(p) == 0);
    // Tick labels: "1e-2", "0.1", "1" under the x axis; "1" .. "1e4" left of the y axis.
    CHECK(dark_in(p, l.y1 + 4 * l.s, l.y1 + 14 * l.s, l.x0 - 20, l.x1 + 20) > 30);
    CHECK(dark_in(p, l.y0 - 10, l.y1 + 10, 0, l.x0 - 4 * l.s) > 50);

    p.title = "Matter power spectrum, z = 0";
    p.y_label = "P(k) [(Mpc/h)^3]";
    p.x_label = "k [h/Mpc]";
    p.series[0].label = "y = x^-2";
    CHECK(title(p) > 50);
    CHECK(y_label(p) > 30);
    CHECK(x_label(p) > 30);
    CHECK(legend(p) > 30);
    // Text out of printable ASCII (UTF-8, a newline) is drawn, as '?'.
    p.title = "P(k) \xc3\xa0 z\n= 0";
    CHECK(title(p) > 30);
}

TEST_CASE("other sizes: the smallest, a wide one, many decades, less than one decade") {
    LogLogPlot p = power_law(1e-2, 1.0);
    p.title = "t";
    p.series[0].label = "a";
    for (const auto& [w, h] : {std::pair{160, 160}, std::pair{2000, 200}, std::pair{1280, 960}}) {
        INFO(w << "x" << h);
        p.width = w, p.height = h;
        const std::vector<unsigned char> rgb = render_plot_rgb(p);
        REQUIRE(rgb.size() == std::size_t(w) * std::size_t(h) * 3);
        CHECK(count(rgb, w, h, red) > std::min(w, h) / 2);
    }
    p.width = 640, p.height = 480;
    p.x_min = 1e-30, p.x_max = 1e30;  // 60 decades: every n-th labelled
    CHECK(count(render_plot_rgb(p), 640, 480, red) > 0);
    p.x_min = 0.012, p.x_max = 0.045;  // no decade in range: minor ticks labelled
    p.y_min = 2000, p.y_max = 9000;
    const Layout l(p);
    const std::vector<unsigned char> rgb = render_plot_rgb(p);
    CHECK(count(rgb, 640, 480, red) > 300);
    CHECK(count_dark(rgb, 640, l.y1 + 4 * l.s, l.y1 + 14 * l.s, 0, 640) > 20);
}

TEST_CASE("bad input is a UsageError") {
    const LogLogPlot good = power_law(1e-2, 1.0);
    CHECK_NOTHROW(render_plot_rgb(good));
    LogLogPlot p = good;
    p.series[0].y.pop_back();
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "y values"));
    p = good;
    p.width = 10;
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "160..8192"));
    p = good;
    p.height = 9000;
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "160..8192"));
    p = good;
    for (double& y : p.series[0].y) y = -y;
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "no point"));
    p.series[0].y.assign(p.series[0].x.size(), std::numeric_limits<double>::infinity());
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "no point"));
    p.series.clear();
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "no point"));
    p = good;
    p.x_min = -1;
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "x range"));
    p = good;
    p.y_max = std::numeric_limits<double>::quiet_NaN();
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "y range"));
    p = good;
    p.x_min = 2, p.x_max = 1;
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "is empty"));
    p = good;
    p.y_min = 1e5, p.y_max = 0;  // the data's upper end, 1e4, is below it
    CHECK(contains(usage_error([&] { render_plot_rgb(p); }), "is empty"));
    p = good;
    p.width = 10;
    TempDir dir("plot-bad");
    CHECK(contains(usage_error([&] { render_plot(dir / "p.png", p); }), "160..8192"));
    CHECK(!fs::exists(dir / "p.png"));
}

TEST_CASE("render_plot writes a PNG of the requested size, atomically") {
    TempDir dir("plot-png");
    LogLogPlot p = power_law(1e-2, 1.0);
    p.width = 640, p.height = 480;
    const fs::path file = dir / "pk.png";
    render_plot(file, p);
    const std::string png = read_file(file);
    partcl_test::check_png_header(png, 640, 480);
    CHECK(temporaries(dir.path()).empty());
    CHECK_THROWS_AS(render_plot(dir / "no" / "pk.png", p), Error);
}

} // TEST_SUITE
