// `sluicectl usage --timezone`: today, yesterday, this-month and dates cut at a zone's local
// midnight, a date ending in Z kept in UTC, and a day of a clock change 23 hours long.

#include <boost/test/unit_test.hpp>

#include "catalog/zone_rules.h"
#include "cli/zone_option.h"
#include "server/store/usage_range.h"

using namespace sluice;
using namespace std::chrono;

namespace {

sys_seconds utc(int y, unsigned m, unsigned d, int h = 0, int min = 0) {
  return sys_days{year{y} / month{m} / d} + hours(h) + minutes(min);
}

int64_t epoch(sys_seconds time) { return time.time_since_epoch().count(); }

// New York in 2026: EST (-5), EDT (-4) from 2026-03-08T07:00Z to 2026-11-01T06:00Z.
catalog::ZoneRules newYork() {
  catalog::ZoneRules rules;
  rules.name = "America/New_York";
  rules.initial_offset = -5 * 3600;
  rules.transitions = {{epoch(utc(2026, 3, 8, 7)), -4 * 3600}, {epoch(utc(2026, 11, 1, 6)), -5 * 3600}};
  return rules;
}

store::UsageRange resolve(std::optional<std::string> since, std::optional<std::string> from, std::optional<std::string> until,
                          store::UsageClock::time_point now, const catalog::ZoneRules* zone) {
  store::UsageRangeQuestion question;
  question.since = std::move(since);
  question.from = std::move(from);
  question.until = std::move(until);
  question.zone = zone;
  const auto range = store::resolveUsageRange(question, now);
  BOOST_REQUIRE_MESSAGE(range.has_value(), (range ? "" : range.error()));
  return *range;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(usage_zone)

BOOST_AUTO_TEST_CASE(yesterday_and_today_begin_at_the_zones_midnight) {
  const catalog::ZoneRules zone = newYork();
  // 3 December 2026, 02:00 UTC is still 2 December, 21:00 in New York.
  const auto now = utc(2026, 12, 3, 2);
  const auto yesterday = resolve("yesterday", std::nullopt, std::nullopt, now, &zone);
  BOOST_TEST(epoch(floor<seconds>(yesterday.from)) == epoch(utc(2026, 12, 1, 5)));
  BOOST_TEST(epoch(floor<seconds>(*yesterday.until)) == epoch(utc(2026, 12, 2, 5)));
  const auto today = resolve("today", std::nullopt, std::nullopt, now, &zone);
  BOOST_TEST(epoch(floor<seconds>(today.from)) == epoch(utc(2026, 12, 2, 5)));
  // Without a zone, the same instant's today is 3 December UTC.
  BOOST_TEST(epoch(floor<seconds>(resolve("today", std::nullopt, std::nullopt, now, nullptr).from)) ==
             epoch(utc(2026, 12, 3)));
}

BOOST_AUTO_TEST_CASE(this_month_and_dates_are_local_and_a_z_date_stays_utc) {
  const catalog::ZoneRules zone = newYork();
  const auto month = resolve("this-month", std::nullopt, std::nullopt, utc(2026, 12, 1, 3), &zone);
  BOOST_TEST(epoch(floor<seconds>(month.from)) == epoch(utc(2026, 11, 1, 4)));  // 1 November 00:00 EDT
  const auto dates = resolve(std::nullopt, "2026-12-01", "2026-12-02", utc(2026, 12, 5), &zone);
  BOOST_TEST(epoch(floor<seconds>(dates.from)) == epoch(utc(2026, 12, 1, 5)));
  BOOST_TEST(epoch(floor<seconds>(*dates.until)) == epoch(utc(2026, 12, 2, 5)));
  const auto utc_dates = resolve(std::nullopt, "2026-12-01T00:00Z", std::nullopt, utc(2026, 12, 5), &zone);
  BOOST_TEST(epoch(floor<seconds>(utc_dates.from)) == epoch(utc(2026, 12, 1)));
}

BOOST_AUTO_TEST_CASE(the_day_clocks_go_forward_lasts_23_hours) {
  const catalog::ZoneRules zone = newYork();
  const auto day = resolve(std::nullopt, "2026-03-08", "2026-03-09", utc(2026, 3, 10), &zone);
  BOOST_TEST((*day.until - day.from == hours(23)));
}

BOOST_AUTO_TEST_CASE(a_timezone_option_is_an_iana_name_read_from_the_tz_database) {
  BOOST_TEST(cli::loadZone("UTC").value() == nullptr);
  const auto refused = cli::loadZone("../../etc/passwd");
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error() == "--timezone must be an IANA name such as Europe/Paris or UTC, got '../../etc/passwd'");
  const auto missing = cli::loadZone("Mars/Olympus_Mons");
  BOOST_REQUIRE(!missing.has_value());
  BOOST_TEST(missing.error() == "--timezone Mars/Olympus_Mons: no such zone in /usr/share/zoneinfo");
}

BOOST_AUTO_TEST_SUITE_END()
