#include "server/wire/retry_after.h"

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

namespace sluice::wire {
namespace {

namespace data = boost::unit_test::data;
using std::chrono::seconds;

// Wed, 21 Oct 2015 07:28:00 GMT, half a second before it, and so on.
const SystemTime kAt0728 = std::chrono::sys_days(std::chrono::year(2015) / 10 / 21) + std::chrono::hours(7) +
                           std::chrono::minutes(28);

struct Case {
  std::string text;
  std::optional<int64_t> seconds;
};
std::ostream& operator<<(std::ostream& out, const Case& c) { return out << "'" << c.text << "'"; }

// The wait in seconds, -1 when absent.
int64_t readAt(const std::string& text, std::optional<SystemTime> now) {
  const auto wait = parseRetryAfter(text, now);
  return wait ? wait->count() : -1;
}

BOOST_AUTO_TEST_SUITE(retry_after)

BOOST_DATA_TEST_CASE(delta_seconds_round_up_and_stop_at_one_day,
                     data::make(std::vector<Case>{{"30", 30},
                                                  {"0", 0},
                                                  {"000", 0},
                                                  {"1.5", 2},
                                                  {"0.001", 1},
                                                  {"3.0", 3},
                                                  {"120", 120},
                                                  {"86400", 86400},
                                                  {"86400.5", 86400},
                                                  {"86401", 86400},
                                                  {"604800", 86400},
                                                  {"99999999", 86400},
                                                  {"99999999999999999999999999999999", 86400}}),
                     c) {
  BOOST_TEST(readAt(c.text, kAt0728) == c.seconds.value_or(-1));
  BOOST_TEST(readAt(c.text, std::nullopt) == c.seconds.value_or(-1));  // delta-seconds need no clock
}

BOOST_DATA_TEST_CASE(spaces_and_tabs_around_the_value_are_ignored,
                     data::make(std::vector<Case>{{" 7 ", 7}, {"\t7", 7}, {"7\t ", 7}, {"  1.5  ", 2}}), c) {
  BOOST_TEST(readAt(c.text, kAt0728) == c.seconds.value_or(-1));
}

BOOST_DATA_TEST_CASE(garbage_is_absent,
                     data::make(std::vector<Case>{{"", std::nullopt},
                                                  {"   ", std::nullopt},
                                                  {"abc", std::nullopt},
                                                  {"-5", std::nullopt},
                                                  {"-0", std::nullopt},
                                                  {"+5", std::nullopt},
                                                  {"-1.5", std::nullopt},
                                                  {"3s", std::nullopt},
                                                  {"1e3", std::nullopt},
                                                  {"1.", std::nullopt},
                                                  {".5", std::nullopt},
                                                  {"1.5.5", std::nullopt},
                                                  {"0x10", std::nullopt},
                                                  {"nan", std::nullopt},
                                                  {"inf", std::nullopt},
                                                  {"1 2", std::nullopt},
                                                  {"7\n", std::nullopt},
                                                  {std::string("7\0", 2), std::nullopt}}),
                     c) {
  BOOST_TEST(readAt(c.text, kAt0728) == c.seconds.value_or(-1));
}

BOOST_AUTO_TEST_CASE(an_http_date_is_the_wait_from_now) {
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:28:00 GMT", kAt0728 - seconds(90)) == 90);
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:29:00 GMT", kAt0728) == 60);
  // Part of a second left rounds up to a whole one.
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:28:00 GMT", kAt0728 - std::chrono::milliseconds(1500)) == 2);
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:28:00 GMT", kAt0728 - std::chrono::milliseconds(1)) == 1);
  // Across a month and a leap day.
  BOOST_TEST(readAt("Tue, 01 Mar 2016 00:00:00 GMT", SystemTime(std::chrono::sys_days(std::chrono::year(2016) / 2 / 29)))
             == 86400);
}

BOOST_AUTO_TEST_CASE(an_http_date_in_the_past_means_now) {
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:28:00 GMT", kAt0728) == 0);
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:27:59 GMT", kAt0728) == 0);
  BOOST_TEST(readAt("Thu, 01 Jan 1970 00:00:00 GMT", kAt0728) == 0);
  BOOST_TEST(readAt("Sat, 01 Jan 0000 00:00:00 GMT", kAt0728) == 0);
}

BOOST_AUTO_TEST_CASE(an_http_date_far_ahead_stops_at_one_day) {
  BOOST_TEST(readAt("Thu, 22 Oct 2015 07:28:00 GMT", kAt0728) == 86400);
  BOOST_TEST(readAt("Thu, 22 Oct 2015 07:28:01 GMT", kAt0728) == 86400);
  BOOST_TEST(readAt("Fri, 31 Dec 9999 23:59:59 GMT", kAt0728) == 86400);  // beyond system_clock's range
  BOOST_TEST(readAt(" Wed, 21 Oct 2015 07:29:00 GMT\t", kAt0728) == 60);
}

BOOST_AUTO_TEST_CASE(an_http_date_without_now_is_absent) {
  BOOST_TEST(readAt("Wed, 21 Oct 2015 07:28:00 GMT", std::nullopt) == -1);
}

BOOST_DATA_TEST_CASE(malformed_and_obsolete_dates_are_absent,
                     data::make(std::vector<Case>{{"Wed, 21 Oct 2015 07:28:00 UTC", std::nullopt},
                                                  {"Wed, 21 Oct 2015 07:28:00", std::nullopt},
                                                  {"Wed, 21 Oct 2015 7:28:00 GMT", std::nullopt},
                                                  {"Xyz, 21 Oct 2015 07:28:00 GMT", std::nullopt},
                                                  {"Wed, 21 Okt 2015 07:28:00 GMT", std::nullopt},
                                                  {"Wed, 31 Feb 2015 07:28:00 GMT", std::nullopt},
                                                  {"Wed, 29 Feb 2015 07:28:00 GMT", std::nullopt},
                                                  {"Wed, 00 Oct 2015 07:28:00 GMT", std::nullopt},
                                                  {"Wed, 21 Oct 2015 24:00:00 GMT", std::nullopt},
                                                  {"Wed, 21 Oct 2015 07:60:00 GMT", std::nullopt},
                                                  {"Wed, 21 Oct 2015 07:28:61 GMT", std::nullopt},
                                                  {"Wed, 21 Oct 2015 07:28:00 GMTx", std::nullopt},
                                                  {"Wednesday, 21-Oct-15 07:28:00 GMT", std::nullopt},
                                                  {"Wed Oct 21 07:28:00 2015", std::nullopt}}),
                     c) {
  BOOST_TEST(readAt(c.text, kAt0728) == c.seconds.value_or(-1));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire
