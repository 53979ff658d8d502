#pragma once
// Reads tables out of Markdown text, so that the docs tests can hold what README.md says against
// what the code and the shipped catalog say. Pure: strings in, values out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::docs {

using TableRow = std::vector<std::string>;

// The body rows of the first table after the first line that contains `marker`: the header row
// and its |---| separator are skipped, each cell is trimmed, and an escaped pipe (\|) stays in its
// cell as `|`. Prose may stand between the marker and the table; the table ends at the first line
// that does not start with '|'. nullopt when the marker is missing, or when a heading (a line
// starting with '#') or the end of the text comes before any table line.
std::optional<std::vector<TableRow>> tableAfter(std::string_view markdown, std::string_view marker);

// The contents of a cell's `code spans`, in order.
std::vector<std::string> codeSpans(std::string_view cell);

// The cell's first word (up to a space, a comma or a parenthesis), code-span backticks removed.
std::string firstWord(std::string_view cell);

}  // namespace sluice::docs
