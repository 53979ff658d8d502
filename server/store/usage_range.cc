#include "server/store/usage_range.h"

#include <array>
#include <cstdio>

#include "catalog/zone_rules.h"

namespace sluice::store {

namespace {

using std::chrono::days;
using TimePoint = UsageClock::time_point;

constexpr size_t kMaxText = 40;  // longer input is never a date; echo only this much

std::string shown(std::string_view text) {
  std::string out(text.substr(0, kMaxText));
  for (auto& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return text.size() > kMaxText ? out + "…" : out;
}

// Exactly `width` ASCII digits at `at`, or -1.
int digits(std::string_view text, size_t at, size_t width) {
  if (at + width > text.size()) return -1;
  int value = 0;
  for (size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

constexpr std::array<const char*, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                                  "July",    "August",   "September", "October", "November", "December"};

TimePoint startOfDay(TimePoint time) { return std::chrono::floor<days>(time); }

TimePoint startOfMonth(TimePoint time, int months_back) {
  const std::chrono::year_month_day day{std::chrono::floor<days>(time)};
  const auto month = std::chrono::year_month{day.year(), day.month()} - std::chrono::months(months_back);
  return std::chrono::sys_days{month / 1};
}

TimePoint startOfWeek(TimePoint time) {  // Monday, as ISO 8601 has it
  const std::chrono::sys_days day = std::chrono::floor<days>(time);
  const unsigned since_monday = (std::chrono::weekday{day} - std::chrono::Monday).count();
  return day - days(since_monday);
}

int64_t secondsOf(TimePoint time) { return std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count(); }

// A zone's local clock reading shown as if it were UTC, and back: named periods and dates are cut
// on the local reading, then each bound is mapped to the instant it happens at.
TimePoint localOf(TimePoint utc, const catalog::ZoneRules* zone) {
  return zone == nullptr ? utc : utc + std::chrono::seconds(zone->offsetAt(secondsOf(utc)));
}

TimePoint utcOf(TimePoint local, const catalog::ZoneRules* zone) {
  return zone == nullptr ? local : TimePoint(std::chrono::seconds(zone->utcOf(secondsOf(local))));
}

UsageRange inZone(const UsageRange& local, const catalog::ZoneRules* zone) {
  UsageRange range{utcOf(local.from, zone), std::nullopt};
  if (local.until) range.until = utcOf(*local.until, zone);
  return range;
}

bool endsInZ(std::string_view text) { return !text.empty() && (text.back() == 'Z' || text.back() == 'z'); }

}  // namespace

std::expected<TimePoint, std::string> parseUsageInstant(std::string_view text) {
  const auto bad = [&](const std::string& why) { return std::unexpected(shown(text) + ": " + why); };
  const std::string expected = "expected a date such as 2026-12-01 or 2026-12-01T09:30Z (UTC)";
  if (text.size() > kMaxText) return bad(expected);
  const int year = digits(text, 0, 4);
  const int month = digits(text, 5, 2);
  const int day = digits(text, 8, 2);
  if (text.size() < 10 || year < 0 || month < 0 || day < 0 || text[4] != '-' || text[7] != '-') return bad(expected);
  if (year < 1970) return bad("year " + std::to_string(year) + " is before 1970");
  if (month < 1 || month > 12) return bad("month " + std::to_string(month) + " does not exist");
  const std::chrono::year_month_day_last last{std::chrono::year{year} / std::chrono::month(static_cast<unsigned>(month)) /
                                              std::chrono::last};
  const int last_day = static_cast<int>(static_cast<unsigned>(last.day()));
  if (day < 1 || day > last_day) {
    return bad(std::string(kMonths[static_cast<size_t>(month - 1)]) + " " + std::to_string(year) + " has " +
               std::to_string(last_day) + " days");
  }
  TimePoint at = std::chrono::sys_days{std::chrono::year{year} / month / day};
  std::string_view rest = text.substr(10);
  if (rest.empty()) return at;
  if (rest.back() == 'Z' || rest.back() == 'z') rest.remove_suffix(1);
  const int hour = digits(rest, 1, 2);
  const int minute = digits(rest, 4, 2);
  const int second = rest.size() == 9 ? digits(rest, 7, 2) : 0;
  if ((rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ') || (rest.size() != 6 && rest.size() != 9) || hour < 0 ||
      minute < 0 || second < 0 || rest[3] != ':' || (rest.size() == 9 && rest[6] != ':')) {
    return bad(expected);
  }
  if (hour > 23) return bad("hour " + std::to_string(hour) + " does not exist");
  if (minute > 59) return bad("minute " + std::to_string(minute) + " does not exist");
  if (second > 59) return bad("second " + std::to_string(second) + " does not exist");
  return at + std::chrono::hours(hour) + std::chrono::minutes(minute) + std::chrono::seconds(second);
}

std::optional<UsageRange> namedUsagePeriod(std::string_view name, TimePoint now) {
  if (name == "today") return UsageRange{startOfDay(now), std::nullopt};
  if (name == "yesterday") return UsageRange{startOfDay(now) - days(1), startOfDay(now)};
  if (name == "this-week") return UsageRange{startOfWeek(now), std::nullopt};
  if (name == "last-week") return UsageRange{startOfWeek(now) - days(7), startOfWeek(now)};
  if (name == "this-month") return UsageRange{startOfMonth(now, 0), std::nullopt};
  if (name == "last-month") return UsageRange{startOfMonth(now, 1), startOfMonth(now, 0)};
  return std::nullopt;
}

std::expected<UsageRange, std::string> resolveUsageRange(const UsageRangeQuestion& question, TimePoint now) {
  if (question.since && question.from) {
    return std::unexpected(question.since_name + " and " + question.from_name + " exclude each other: give one");
  }
  UsageRange range;
  bool ends_itself = false;
  if (question.since) {
    const std::string& text = *question.since;
    const auto named_local = namedUsagePeriod(text, localOf(now, question.zone));
    const auto named = named_local ? std::optional(inZone(*named_local, question.zone)) : std::nullopt;
    const auto duration = !named && question.duration ? question.duration(text) : std::nullopt;
    if (named) {
      range = *named;
      ends_itself = named->until.has_value();
    } else if (duration) {
      range.from = now - *duration;
    } else if (auto date = parseUsageInstant(text); date) {
      range.from = endsInZ(text) ? *date : utcOf(*date, question.zone);
    } else {
      return std::unexpected(question.since_name + " '" + shown(text) +
                             "': expected today, yesterday, this-week, last-week, this-month, last-month, a duration "
                             "(90s, 30m, 1h, 7d, 2w) or a date (2026-12-01)");
    }
  } else if (question.from) {
    const auto from = parseUsageInstant(*question.from);
    if (!from) return std::unexpected(question.from_name + " " + from.error());
    range.from = endsInZ(*question.from) ? *from : utcOf(*from, question.zone);
  } else {
    return std::unexpected("give " + question.since_name + " or " + question.from_name);
  }
  if (question.until) {
    if (ends_itself) {
      return std::unexpected(question.since_name + " " + *question.since + " has an end of its own; drop " +
                             question.until_name);
    }
    const auto until = parseUsageInstant(*question.until);
    if (!until) return std::unexpected(question.until_name + " " + until.error());
    const TimePoint until_at = endsInZ(*question.until) ? *until : utcOf(*until, question.zone);
    if (until_at <= range.from) {
      return std::unexpected(question.until_name + " " + formatUsageMinute(until_at) + " is not after the start " +
                             formatUsageMinute(range.from) + " UTC");
    }
    range.until = until_at;
  }
  if (question.max_span) {
    const TimePoint end = range.until.value_or(std::max(now, range.from));
    if (end - range.from > *question.max_span) {
      return std::unexpected("the range " + formatUsageMinute(range.from) + " to " + formatUsageMinute(end) +
                             " UTC is longer than " + std::to_string(question.max_span->count()) + " days");
    }
  }
  return range;
}

std::string formatUsageMinute(TimePoint time) {
  const auto day = std::chrono::floor<days>(time);
  const std::chrono::year_month_day date{day};
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(time - day).count();
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u %02lld:%02lld", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<long long>(minutes / 60), static_cast<long long>(minutes % 60));
  return text;
}

}  // namespace sluice::store
