#pragma once
// The time range a spend question is asked about ("who spent the most yesterday?"), shared by
// `sluicectl usage` and the console's analytics. Pure: strings and a clock reading in, a range or
// a message out. Dates and named periods are UTC, or local to UsageRangeQuestion::zone (a date
// ending in Z stays UTC). A range is half-open, [from, until): `--from 2026-12-01
// --until 2026-12-02` is the whole of 1 December and nothing of the 2nd.

#include <chrono>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::catalog {
struct ZoneRules;
}

namespace sluice::store {

using UsageClock = std::chrono::system_clock;

struct UsageRange {
  UsageClock::time_point from;
  std::optional<UsageClock::time_point> until;  // none: up to now and on
};

// "2026-12-01" (midnight UTC) or "2026-12-01T10:30[:15][Z]" (a space for the T works too). The
// message says what is wrong ("month 13 does not exist", "February 2026 has 28 days").
std::expected<UsageClock::time_point, std::string> parseUsageInstant(std::string_view text);

// today, yesterday, this-week (from Monday), last-week, this-month, last-month; none for other text.
std::optional<UsageRange> namedUsagePeriod(std::string_view name, UsageClock::time_point now);

struct UsageRangeQuestion {
  std::optional<std::string> since;  // a named period, a duration back from now, or a date
  std::optional<std::string> from;
  std::optional<std::string> until;
  // What the caller calls each input, for the messages ("--since" or "since").
  std::string since_name = "--since";
  std::string from_name = "--from";
  std::string until_name = "--until";
  // Durations ("7d") as the caller spells them; none when the text is not one.
  std::function<std::optional<std::chrono::seconds>(std::string_view)> duration;
  // Longer ranges are refused (none: no bound). An open range counts up to `now`.
  std::optional<std::chrono::days> max_span;
  // Where days begin (`sluicectl usage --timezone`): named periods and dates without a Z are cut
  // at this zone's local midnights (a day of a clock change lasts 23 or 25 hours). Null: UTC.
  const catalog::ZoneRules* zone = nullptr;
};

// The range, or a message naming the input at fault. `since` and `from` exclude each other; a
// named period with an end of its own (yesterday, last-week, last-month) excludes `until`; `from`
// must come before `until`. Neither since nor from given: an error (callers supply their default).
std::expected<UsageRange, std::string> resolveUsageRange(const UsageRangeQuestion& question,
                                                         UsageClock::time_point now);

// "2026-12-01 00:00" (UTC, minutes) for headers.
std::string formatUsageMinute(UsageClock::time_point time);

}  // namespace sluice::store
