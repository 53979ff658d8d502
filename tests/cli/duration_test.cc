#include "cli/duration.h"

#include <boost/test/unit_test.hpp>

#include "cli/table.h"

using namespace sluice;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(duration)

BOOST_AUTO_TEST_CASE(accepts_a_number_and_one_unit) {
  BOOST_TEST(cli::parseDuration("90s").value() == seconds(90));
  BOOST_TEST(cli::parseDuration("30m").value() == minutes(30));
  BOOST_TEST(cli::parseDuration("1h").value() == hours(1));
  BOOST_TEST(cli::parseDuration("7d").value() == hours(24 * 7));
  BOOST_TEST(cli::parseDuration("30d").value() == hours(24 * 30));
  BOOST_TEST(cli::parseDuration("2w").value() == hours(24 * 14));
}

BOOST_AUTO_TEST_CASE(rejects_everything_else) {
  for (const char* text : {"", "h", "1", "0h", "-1h", "1.5h", "1h30m", "1 h", "1y", "99999999999d"}) {
    BOOST_TEST(!cli::parseDuration(text).has_value(), text);
  }
}

BOOST_AUTO_TEST_CASE(money_and_counts_read_well) {
  BOOST_TEST(cli::formatDollars(0) == "$0.00");
  BOOST_TEST(cli::formatDollars(123) == "$0.000123");
  BOOST_TEST(cli::formatDollars(120000) == "$0.12");
  BOOST_TEST(cli::formatDollars(2'500'000) == "$2.50");
  BOOST_TEST(cli::formatDollars(1'234'567'890) == "$1,234.57");
  BOOST_TEST(cli::groupThousands(1234567) == "1,234,567");
  BOOST_TEST(cli::groupThousands(-1000) == "-1,000");
  BOOST_TEST(cli::csvField("a,b") == "\"a,b\"");
  BOOST_TEST(cli::csvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

BOOST_AUTO_TEST_SUITE_END()
