#pragma once
// The lexical pieces of the Prometheus text exposition format 0.0.4 that Registry::render()
// writes: numbers, escaped label values and HELP text, label sets. Pure functions.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::metrics {

// Integers of magnitude up to 2^53 without exponent or fraction ("42", "-3", "1048576"),
// "+Inf", "-Inf", "NaN"; any other value as the shortest digits that read back to the same
// double, in scientific form when the exponent is below -4 or at least 6 ("0.1", "0.0001",
// "2.5e-05", "1.2345675e+06", "1e+300"), as the Go client libraries write them.
std::string formatValue(double value);

// Backslash, double quote and newline escaped as \\, \" and \n; bytes that are not valid UTF-8
// replaced by U+FFFD (a scraper refuses invalid UTF-8 in label values).
std::string escapeLabelValue(std::string_view value);

// Backslash and newline escaped as \\ and \n; invalid UTF-8 replaced by U+FFFD.
std::string escapeHelp(std::string_view help);

// Appends `{name="value",...}` for the pairs of `names` and `values` (the same length), then
// le="<le>" when `le` is not empty; nothing at all when there is no pair and no le.
void writeLabels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                 std::string_view le);

}  // namespace sluice::metrics
