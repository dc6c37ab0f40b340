#include "text.hpp"

#include <algorithm>
#include <cstdio>

namespace partcl::cli {

void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                 const std::vector<std::size_t>& right_aligned) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            const std::string padding(widths[c] - row[c].size(), ' ');
            const bool right = std::find(right_aligned.begin(), right_aligned.end(), c) !=
                               right_aligned.end();
            if (c > 0) line += "  ";
            line += right ? padding + row[c] : row[c] + (c + 1 < row.size() ? padding : "");
        }
        out << line << '\n';
    }
}

std::string format_bytes(std::uint64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < sizeof units / sizeof *units) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    // Whole numbers print without a fraction ("512 KiB"), others with one digit ("5.8 GiB").
    if (unit == 0 || value == double(static_cast<std::uint64_t>(value)))
        std::snprintf(text, sizeof text, "%.0f %s", value, units[unit]);
    else
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::string one_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

} // namespace partcl::cli
