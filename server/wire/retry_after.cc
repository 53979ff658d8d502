#include "server/wire/retry_after.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace sluice::wire {

namespace {

using std::chrono::seconds;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view trimSpaces(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

// DIGITS [ "." DIGITS ], rounded up, saturating at the cap (so no length of digits overflows).
std::optional<seconds> deltaSeconds(std::string_view value) {
  size_t at = 0;
  int64_t whole = 0;
  for (; at < value.size() && isDigit(value[at]); ++at) {
    whole = std::min<int64_t>(whole * 10 + (value[at] - '0'), kMaxRetryAfter.count() + 1);
  }
  if (at == 0) return std::nullopt;
  bool fraction = false;
  if (at < value.size() && value[at] == '.') {
    const size_t first = ++at;
    for (; at < value.size() && isDigit(value[at]); ++at) fraction |= value[at] != '0';
    if (at == first) return std::nullopt;
  }
  if (at != value.size()) return std::nullopt;
  return std::min(seconds(whole + (fraction ? 1 : 0)), kMaxRetryAfter);
}

// Reads exactly `width` digits at `at`.
std::optional<int> digitsAt(std::string_view text, size_t at, size_t width) {
  if (at + width > text.size()) return std::nullopt;
  int out = 0;
  for (size_t k = at; k < at + width; ++k) {
    if (!isDigit(text[k])) return std::nullopt;
    out = out * 10 + (text[k] - '0');
  }
  return out;
}

// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT", exactly 29 characters.
std::optional<std::chrono::sys_seconds> imfFixdate(std::string_view text) {
  static constexpr std::array<std::string_view, 7> kDays = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (text.size() != 29 || text.substr(3, 2) != ", " || text[7] != ' ' || text[11] != ' ' || text[16] != ' ' ||
      text[19] != ':' || text[22] != ':' || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  bool day_name = false;
  for (std::string_view name : kDays) day_name |= text.substr(0, 3) == name;
  unsigned month = 0;
  for (unsigned k = 0; k < kMonths.size(); ++k) {
    if (text.substr(8, 3) == kMonths[k]) month = k + 1;
  }
  const auto day = digitsAt(text, 5, 2);
  const auto year = digitsAt(text, 12, 4);
  const auto hour = digitsAt(text, 17, 2);
  const auto minute = digitsAt(text, 20, 2);
  const auto second = digitsAt(text, 23, 2);
  if (!day_name || month == 0 || !day || !year || !hour || !minute || !second) return std::nullopt;
  // NOTE: 60 is allowed for a leap second, as the grammar allows it; it reads as the next second.
  if (*hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year), std::chrono::month(month),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days(date) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         seconds(*second);
}

}  // namespace

std::optional<seconds> parseRetryAfter(std::string_view value, std::optional<SystemTime> now) {
  value = trimSpaces(value);
  if (value.empty()) return std::nullopt;
  if (isDigit(value.front())) return deltaSeconds(value);
  if (!now) return std::nullopt;
  const auto date = imfFixdate(value);
  if (!date) return std::nullopt;
  // In whole seconds: a year-9999 date does not fit system_clock's nanoseconds. The date is whole,
  // so date - floor(now) is the wait rounded up.
  const seconds wait = *date - std::chrono::floor<seconds>(*now);
  return std::clamp(wait, seconds(0), kMaxRetryAfter);
}

}  // namespace sluice::wire
