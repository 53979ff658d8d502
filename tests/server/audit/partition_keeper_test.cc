#include "server/audit/partition_keeper.h"

#include <boost/test/unit_test.hpp>

#include "server/store/audit_store.h"
#include "tests/server/audit/audit_test_support.h"

using namespace sluice;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(partition_keeper)

BOOST_AUTO_TEST_CASE(creates_today_and_two_days_ahead_and_drops_past_retention) {
  auto& db = test::auditDatabase();
  auto connection = db.connect();
  const auto now = sys_days(year(2040) / 3 / 10) + hours(13);
  // Old partitions from an earlier life, one of them just inside retention.
  store::ensureAuditPartitions(*connection, sys_days(year(2040) / 2 / 27), sys_days(year(2040) / 3 / 3));
  audit::PartitionKeeper keeper({.database_url = db.url(), .retention_days = 7});
  const auto report = keeper.maintain(now);
  BOOST_TEST(report.ensured ==
                 (std::vector<std::string>{"ai_requests_20400310", "ai_requests_20400311", "ai_requests_20400312"}),
             boost::test_tools::per_element());
  // Keeps 7 whole days before today: 03-03 … 03-09; drops 02-27 … 03-02 (2040 is a leap year), and
  // whatever older partitions other cases left.
  for (const char* name : {"ai_requests_20400227", "ai_requests_20400228", "ai_requests_20400229",
                           "ai_requests_20400301", "ai_requests_20400302"}) {
    BOOST_TEST((std::find(report.dropped.begin(), report.dropped.end(), name) != report.dropped.end()), name);
  }
  BOOST_TEST((std::find(report.dropped.begin(), report.dropped.end(), "ai_requests_20400303") == report.dropped.end()));
  BOOST_TEST(db.scalar("SELECT to_regclass('ai_requests_20400303') IS NOT NULL") == "t");
  // A second pass changes nothing.
  BOOST_TEST(keeper.maintain(now).dropped.empty());
}

BOOST_AUTO_TEST_CASE(retention_zero_keeps_everything) {
  auto& db = test::auditDatabase();
  auto connection = db.connect();
  store::ensureAuditPartitions(*connection, sys_days(year(2041) / 1 / 1), sys_days(year(2041) / 1 / 1));
  audit::PartitionKeeper keeper({.database_url = db.url(), .retention_days = 0});
  BOOST_TEST(keeper.maintain(sys_days(year(2042) / 1 / 1)).dropped.empty());
  BOOST_TEST(db.scalar("SELECT to_regclass('ai_requests_20410101') IS NOT NULL") == "t");
}

BOOST_AUTO_TEST_CASE(the_thread_runs_a_pass_at_start) {
  auto& db = test::auditDatabase();
  audit::PartitionKeeper keeper({.database_url = db.url(), .retention_days = 90});
  keeper.start();
  const std::string today = "ai_requests_" + [] {
    std::string day = store::formatDay(floor<days>(system_clock::now()));
    day.erase(std::remove(day.begin(), day.end(), '-'), day.end());
    return day;
  }();
  BOOST_TEST(test::eventually([&] { return db.scalar("SELECT to_regclass('" + today + "') IS NOT NULL") == "t"; }));
  keeper.stop();
}

BOOST_AUTO_TEST_SUITE_END()
