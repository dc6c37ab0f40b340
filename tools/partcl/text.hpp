#pragma once
// Small text helpers for the CLI's output: aligned tables, byte sizes, one-line messages.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace partcl::cli {

// Prints rows with every column padded to its widest cell; the first row is the header.
// Columns listed in `right_aligned` (by index) are padded on the left.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                 const std::vector<std::size_t>& right_aligned = {});

// "512 KiB", "5.8 GiB".
std::string format_bytes(std::uint64_t bytes);

// Newlines folded into blanks, for messages that must fit on one line.
std::string one_line(std::string text);

} // namespace partcl::cli
