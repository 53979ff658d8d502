// The time range of a spend question, from strings and a fixed clock: named periods, dates,
// durations and the messages for bad input. Also CSV cells a spreadsheet would run as formulas.

#include "server/store/usage_range.h"

#include <memory>

#include <boost/test/unit_test.hpp>

#include "catalog/zone_rules.h"
#include "cli/duration.h"
#include "cli/table.h"
#include "server/store/audit_store.h"

using namespace sluice;
using namespace std::chrono;

namespace {

// Thursday 3 December 2026, 15:20:05 UTC.
const store::UsageClock::time_point kNow = sys_days{2026y / December / 3} + hours(15) + minutes(20) + seconds(5);

sys_days utcDay(int y, unsigned m, unsigned d) { return sys_days{year{y} / month{m} / d}; }

store::UsageRangeQuestion ask(std::optional<std::string> since, std::optional<std::string> from = std::nullopt,
                              std::optional<std::string> until = std::nullopt) {
  store::UsageRangeQuestion question;
  question.since = std::move(since);
  question.from = std::move(from);
  question.until = std::move(until);
  question.duration = [](std::string_view text) -> std::optional<seconds> {
    const auto parsed = cli::parseDuration(text);
    return parsed ? std::optional(*parsed) : std::nullopt;
  };
  return question;
}

std::string failure(const store::UsageRangeQuestion& question) {
  const auto range = store::resolveUsageRange(question, kNow);
  BOOST_REQUIRE_MESSAGE(!range.has_value(), "expected an error");
  return range.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(usage_range)

BOOST_AUTO_TEST_CASE(yesterday_is_the_whole_previous_utc_day) {
  const auto range = store::resolveUsageRange(ask("yesterday"), kNow);
  BOOST_REQUIRE(range.has_value());
  BOOST_TEST((range->from == utcDay(2026, 12, 2)));
  BOOST_REQUIRE(range->until.has_value());
  BOOST_TEST((*range->until == utcDay(2026, 12, 3)));
}

BOOST_AUTO_TEST_CASE(named_periods_start_at_calendar_boundaries) {
  const auto today = store::namedUsagePeriod("today", kNow);
  BOOST_TEST((today->from == utcDay(2026, 12, 3) && !today->until));
  const auto week = store::namedUsagePeriod("this-week", kNow);  // Monday 30 November
  BOOST_TEST((week->from == utcDay(2026, 11, 30) && !week->until));
  const auto last_week = store::namedUsagePeriod("last-week", kNow);
  BOOST_TEST((last_week->from == utcDay(2026, 11, 23) && *last_week->until == utcDay(2026, 11, 30)));
  const auto month = store::namedUsagePeriod("this-month", kNow);
  BOOST_TEST((month->from == utcDay(2026, 12, 1) && !month->until));
  const auto january = store::namedUsagePeriod("last-month", sys_days{2027y / January / 1} + hours(1));
  BOOST_TEST((january->from == utcDay(2026, 12, 1) && *january->until == utcDay(2027, 1, 1)));
  // A Monday's week starts that very day.
  BOOST_TEST((store::namedUsagePeriod("this-week", utcDay(2026, 11, 30) + hours(1))->from == utcDay(2026, 11, 30)));
  BOOST_TEST(!store::namedUsagePeriod("tomorrow", kNow).has_value());
}

BOOST_AUTO_TEST_CASE(durations_and_dates_still_work_for_since) {
  const auto hour = store::resolveUsageRange(ask("1h"), kNow);
  BOOST_TEST((hour->from == kNow - hours(1) && !hour->until));
  const auto date = store::resolveUsageRange(ask("2026-11-15"), kNow);
  BOOST_TEST((date->from == utcDay(2026, 11, 15)));
}

BOOST_AUTO_TEST_CASE(from_and_until_are_a_half_open_utc_range) {
  const auto range = store::resolveUsageRange(ask(std::nullopt, "2026-12-01", "2026-12-02"), kNow);
  BOOST_REQUIRE(range.has_value());
  BOOST_TEST((range->from == utcDay(2026, 12, 1) && *range->until == utcDay(2026, 12, 2)));
  const auto instant = store::parseUsageInstant("2026-12-01T09:30Z");
  BOOST_TEST((*instant == utcDay(2026, 12, 1) + hours(9) + minutes(30)));
  BOOST_TEST((*store::parseUsageInstant("2026-12-01 09:30:15") == utcDay(2026, 12, 1) + hours(9) + minutes(30) + seconds(15)));
}

BOOST_AUTO_TEST_CASE(bad_dates_say_what_is_wrong) {
  BOOST_TEST(failure(ask(std::nullopt, "2026-13-01")) == "--from 2026-13-01: month 13 does not exist");
  BOOST_TEST(failure(ask(std::nullopt, "2026-02-29")) == "--from 2026-02-29: February 2026 has 28 days");
  BOOST_TEST(store::parseUsageInstant("2028-02-29").has_value());  // a leap year
  BOOST_TEST(failure(ask(std::nullopt, "2026-12-01", "2026-12-01T24:00")) ==
             "--until 2026-12-01T24:00: hour 24 does not exist");
  BOOST_TEST(failure(ask(std::nullopt, "12/01/2026")).find("expected a date such as 2026-12-01") != std::string::npos);
  BOOST_TEST(failure(ask(std::nullopt, "2026-12-1")).find("expected a date") != std::string::npos);
  BOOST_TEST(failure(ask(std::nullopt, "1969-12-31")) == "--from 1969-12-31: year 1969 is before 1970");
  // Hostile text is cut short and control bytes are not echoed.
  const std::string message = failure(ask(std::nullopt, std::string(5000, 'x') + "\x1b[2J"));
  BOOST_TEST(message.size() < 200u);
  BOOST_TEST(message.find('\x1b') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_range_that_ends_before_it_starts_is_refused) {
  BOOST_TEST(failure(ask(std::nullopt, "2026-12-03", "2026-12-02")) ==
             "--until 2026-12-02 00:00 is not after the start 2026-12-03 00:00 UTC");
  BOOST_TEST(failure(ask(std::nullopt, "2026-12-02", "2026-12-02")).find("is not after") != std::string::npos);
  BOOST_TEST(failure(ask("yesterday", std::nullopt, "2026-12-03")) ==
             "--since yesterday has an end of its own; drop --until");
  BOOST_TEST(failure(ask("today", "2026-12-01")) == "--since and --from exclude each other: give one");
  BOOST_TEST(failure(ask("fortnight")).starts_with("--since 'fortnight': expected today, yesterday"));
}

BOOST_AUTO_TEST_CASE(a_bounded_question_refuses_longer_ranges) {
  auto question = ask(std::nullopt, "2025-01-01", "2026-12-01");
  question.max_span = days(400);
  question.from_name = "from";
  BOOST_TEST(failure(question) == "the range 2025-01-01 00:00 to 2026-12-01 00:00 UTC is longer than 400 days");
  question.from = "2026-01-01";
  BOOST_TEST(store::resolveUsageRange(question, kNow).has_value());
  auto open = ask(std::nullopt, "2020-01-01");
  open.max_span = days(400);
  BOOST_TEST(failure(open).find("to 2026-12-03 15:20 UTC is longer") != std::string::npos);
}

namespace {

int64_t utcSeconds(sys_days day, int hour = 0) { return duration_cast<seconds>((day + hours(hour)).time_since_epoch()).count(); }

// Europe/Paris in 2026: +1 h, +2 h from 29 March 01:00 UTC, +1 h again from 25 October 01:00 UTC
// (the tz database's rules, written out so the test reads no file).
store::UsageZone paris() {
  auto rules = std::make_shared<catalog::ZoneRules>();
  rules->name = "Europe/Paris";
  rules->initial_offset = 3600;
  rules->transitions = {{utcSeconds(utcDay(2026, 3, 29), 1), 7200}, {utcSeconds(utcDay(2026, 10, 25), 1), 3600}};
  store::UsageZone zone;
  zone.name = rules->name;
  zone.offset_at = [rules](int64_t utc) { return rules->offsetAt(utc); };
  zone.utc_of = [rules](int64_t local) { return rules->utcOf(local); };
  return zone;
}

}  // namespace

BOOST_AUTO_TEST_CASE(named_periods_follow_the_calendar_of_the_zone_asked_for) {
  const store::UsageZone zone = paris();
  // 15:20 UTC on 3 December is 16:20 in Paris: yesterday there is 1 December 23:00 UTC to 2 December 23:00 UTC.
  const auto yesterday = store::namedUsagePeriod("yesterday", kNow, zone);
  BOOST_TEST((yesterday->from == utcDay(2026, 12, 1) + hours(23) && *yesterday->until == utcDay(2026, 12, 2) + hours(23)));
  // 23:30 UTC on 3 December is already the 4th in Paris.
  const auto today = store::namedUsagePeriod("today", utcDay(2026, 12, 3) + hours(23) + minutes(30), zone);
  BOOST_TEST((today->from == utcDay(2026, 12, 3) + hours(23)));
  // March 2026 in Paris has a 23-hour day: it starts at +1 h and ends at +2 h.
  const auto march = store::namedUsagePeriod("last-month", utcDay(2026, 4, 2) + hours(12), zone);
  BOOST_TEST((march->from == utcDay(2026, 2, 28) + hours(23) && *march->until == utcDay(2026, 3, 31) + hours(22)));
}

BOOST_AUTO_TEST_CASE(dates_are_local_to_the_zone_and_instants_with_z_stay_utc) {
  auto question = ask(std::nullopt, "2026-12-01", "2026-12-02T09:30");
  question.zone = paris();
  const auto range = store::resolveUsageRange(question, kNow);
  BOOST_REQUIRE(range.has_value());
  BOOST_TEST((range->from == utcDay(2026, 11, 30) + hours(23)));
  BOOST_TEST((*range->until == utcDay(2026, 12, 2) + hours(8) + minutes(30)));
  question.until = "2026-12-02T09:30Z";
  BOOST_TEST((*store::resolveUsageRange(question, kNow)->until == utcDay(2026, 12, 2) + hours(9) + minutes(30)));
  // Messages speak the zone's wall clock and name it.
  question.from = "2026-12-03";
  question.until = "2026-12-02";
  BOOST_TEST(failure(question) == "--until 2026-12-02 00:00 is not after the start 2026-12-03 00:00 Europe/Paris");
  BOOST_TEST(store::formatUsageMinute(utcDay(2026, 7, 1), paris()) == "2026-07-01 02:00");
}

BOOST_AUTO_TEST_CASE(csv_cells_that_a_spreadsheet_would_run_are_neutralised) {
  BOOST_TEST(cli::csvField("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  BOOST_TEST(cli::csvField("+1+2") == "\"'+1+2\"");
  BOOST_TEST(cli::csvField("-2+3") == "\"'-2+3\"");
  BOOST_TEST(cli::csvField("@SUM(A1)") == "\"'@SUM(A1)\"");
  BOOST_TEST(cli::csvField("\tcmd") == "\"'\tcmd\"");
  BOOST_TEST(cli::csvField("-12") == "-12");  // numbers stay numbers
  BOOST_TEST(cli::csvField("0.8333") == "0.8333");
  BOOST_TEST(cli::csvField("alice") == "alice");
  BOOST_TEST(cli::csvField("") == "");
}

BOOST_AUTO_TEST_SUITE_END()
