#include "cli/duration.h"

#include <charconv>

namespace sluice::cli {

std::expected<std::chrono::seconds, std::string> parseDuration(std::string_view text) {
  const auto invalid = [&] {
    return std::unexpected("invalid duration '" + std::string(text) + "' (expected e.g. 90s, 30m, 1h, 7d, 2w)");
  };
  if (text.size() < 2) return invalid();
  long long count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
  if (error != std::errc{} || end != text.data() + text.size() - 1 || count <= 0) return invalid();
  long long unit = 0;
  switch (text.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: return invalid();
  }
  if (count > 100LL * 365 * 86400 / unit) return invalid();  // more than a century is a typo
  return std::chrono::seconds(count * unit);
}

}  // namespace sluice::cli
