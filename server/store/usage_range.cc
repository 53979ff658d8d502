#include "server/store/usage_range.h"

#include <array>
#include <cstdio>

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

int64_t secondsOf(TimePoint time) { return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count(); }

// The wall clock of `zone` at `utc`, as a time point counted like UTC's (for calendar arithmetic).
TimePoint localOf(TimePoint utc, const UsageZone& zone) {
  if (zone.utc()) return utc;
  return utc + std::chrono::seconds(zone.offset_at(secondsOf(utc)));
}

// The instant a wall-clock time of `zone` names (the first, where a change repeats it).
TimePoint utcOf(TimePoint local, const UsageZone& zone) {
  if (zone.utc()) return local;
  return TimePoint(std::chrono::seconds(zone.utc_of(secondsOf(local))));
}

// A date or instant read as written, and whether it ended with Z.
struct Written {
  TimePoint at;
  bool utc = false;
};
std::expected<Written, std::string> parseWritten(std::string_view text);

}  // namespace

std::expected<TimePoint, std::string> parseUsageInstant(std::string_view text, const UsageZone& zone) {
  auto written = parseWritten(text);
  if (!written) return std::unexpected(written.error());
  return written->utc ? written->at : utcOf(written->at, zone);
}

namespace {

std::expected<Written, std::string> parseWritten(std::string_view text) {
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
  if (rest.empty()) return Written{at};
  const bool utc = rest.back() == 'Z' || rest.back() == 'z';
  if (utc) rest.remove_suffix(1);
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
  return Written{at + std::chrono::hours(hour) + std::chrono::minutes(minute) + std::chrono::seconds(second), utc};
}

}  // namespace

std::optional<UsageRange> namedUsagePeriod(std::string_view name, TimePoint now, const UsageZone& zone) {
  // The calendar is the zone's: boundaries are found on its wall clock, then turned into instants
  // (a day of 23 or 25 hours where the clocks change is still one day).
  const TimePoint local = localOf(now, zone);
  const auto range = [&](TimePoint from, std::optional<TimePoint> until) {
    return UsageRange{utcOf(from, zone), until ? std::optional(utcOf(*until, zone)) : std::nullopt};
  };
  if (name == "today") return range(startOfDay(local), std::nullopt);
  if (name == "yesterday") return range(startOfDay(local) - days(1), startOfDay(local));
  if (name == "this-week") return range(startOfWeek(local), std::nullopt);
  if (name == "last-week") return range(startOfWeek(local) - days(7), startOfWeek(local));
  if (name == "this-month") return range(startOfMonth(local, 0), std::nullopt);
  if (name == "last-month") return range(startOfMonth(local, 1), startOfMonth(local, 0));
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
    const auto named = namedUsagePeriod(text, now, question.zone);
    const auto duration = !named && question.duration ? question.duration(text) : std::nullopt;
    if (named) {
      range = *named;
      ends_itself = named->until.has_value();
    } else if (duration) {
      range.from = now - *duration;
    } else if (auto date = parseUsageInstant(text, question.zone); date) {
      range.from = *date;
    } else {
      return std::unexpected(question.since_name + " '" + shown(text) +
                             "': expected today, yesterday, this-week, last-week, this-month, last-month, a duration "
                             "(90s, 30m, 1h, 7d, 2w) or a date (2026-12-01)");
    }
  } else if (question.from) {
    const auto from = parseUsageInstant(*question.from, question.zone);
    if (!from) return std::unexpected(question.from_name + " " + from.error());
    range.from = *from;
  } else {
    return std::unexpected("give " + question.since_name + " or " + question.from_name);
  }
  if (question.until) {
    if (ends_itself) {
      return std::unexpected(question.since_name + " " + *question.since + " has an end of its own; drop " +
                             question.until_name);
    }
    const auto until = parseUsageInstant(*question.until, question.zone);
    if (!until) return std::unexpected(question.until_name + " " + until.error());
    if (*until <= range.from) {
      return std::unexpected(question.until_name + " " + formatUsageMinute(*until, question.zone) +
                             " is not after the start " + formatUsageMinute(range.from, question.zone) + " " +
                             question.zone.name);
    }
    range.until = *until;
  }
  if (question.max_span) {
    const TimePoint end = range.until.value_or(std::max(now, range.from));
    if (end - range.from > *question.max_span) {
      return std::unexpected("the range " + formatUsageMinute(range.from, question.zone) + " to " +
                             formatUsageMinute(end, question.zone) + " " + question.zone.name + " is longer than " +
                             std::to_string(question.max_span->count()) + " days");
    }
  }
  return range;
}

std::string formatUsageMinute(TimePoint utc, const UsageZone& zone) {
  const TimePoint time = localOf(utc, zone);
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
