#pragma once
// Durations on the command line: a positive whole number and a unit, "90s", "30m", "1h", "7d",
// "2w". No spaces, no fractions, no mixing ("1h30m" is invalid).

#include <chrono>
#include <expected>
#include <string>
#include <string_view>

namespace sluice::cli {

// The duration, or a message naming the text and the accepted forms.
std::expected<std::chrono::seconds, std::string> parseDuration(std::string_view text);

}  // namespace sluice::cli
