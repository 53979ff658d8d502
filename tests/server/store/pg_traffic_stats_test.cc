// PgTrafficStats (the console's analytics and gateway pages) against a scratch PostgreSQL.
#include "server/store/pg_traffic_stats.h"

#include <boost/test/unit_test.hpp>

#include "server/audit/fields.h"
#include "server/store/audit_store.h"
#include "tests/server/store/scratch_database.h"

using namespace sluice;
using namespace std::chrono;

namespace {

nlohmann::json row(const std::string& id, system_clock::time_point created, const std::string& model,
                   const std::string& outcome, int latency_ms, bool probe = false) {
  return {{"id", id},
          {"created_at", store::formatTimestamp(created)},
          {"user_name", "alice"},
          {"project", "p1"},
          {"model", model},
          {"endpoint", "e1"},
          {"served_endpoint", outcome == "ok" ? "e2" : "e1"},
          {"status", outcome == "ok" ? 200 : 502},
          {"outcome", outcome},
          {"latency_ms", latency_ms},
          {"input_tokens", 10},
          {"output_tokens", 5},
          {"cost_microdollars", 100},
          {"probe", probe},
          {"attempts", nlohmann::json::array()}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pg_traffic_stats)

BOOST_AUTO_TEST_CASE(reports_models_series_cost_and_recent_traffic_without_probes) {
  test::ScratchDatabase database;
  const auto now = system_clock::now();
  {
    auto connection = database.connect();
    store::insertAuditRows(*connection, audit::auditColumns(), nlohmann::json::array({row("tr-1", now - minutes(5), "m1", "ok", 100),
                                                               row("tr-2", now - minutes(4), "m1", "ok", 9000),
                                                               row("tr-3", now - minutes(3), "m2", "upstream_error", 50),
                                                               row("tr-4", now - minutes(2), "m1", "ok", 100, true)})
                                                .dump());
  }
  store::PgTrafficStats stats(std::make_shared<store::ConnectionPool>(database.url()));
  const auto report = stats.report(now - hours(1), std::nullopt, 300, 5000);
  BOOST_REQUIRE(report.models.size() == 2u);
  BOOST_TEST(report.models[0].model == "m1");
  BOOST_TEST(report.models[0].requests == 2);
  BOOST_TEST(report.models[0].over_slo == 1);
  BOOST_TEST(report.models[0].p50_ms.value() == 4550.0);
  BOOST_TEST(report.models[1].failed == 1);
  int64_t bucketed = 0;
  for (const auto& bucket : report.series) bucketed += bucket.requests;
  BOOST_TEST(bucketed == 3);
  BOOST_TEST(report.cost.size() == 6u);
  BOOST_TEST(report.cost.at(store::UsageDimension::Model).size() == 2u);
  BOOST_TEST(stats.usage(store::UsageDimension::User, now - hours(1)).at(0).requests == 3);
  const auto recent = stats.recentByModel();
  BOOST_TEST(recent.at("m1").requests == 2);
  BOOST_TEST(recent.at("m1").failed_over == 2);
  BOOST_TEST(recent.at("m2").failed == 1);
}

BOOST_AUTO_TEST_CASE(a_dated_range_reports_only_its_requests) {
  test::ScratchDatabase database;
  const auto now = system_clock::now();
  const sys_days today = floor<days>(now);
  const auto earlier_today = today + (now - today) / 2;  // between midnight and now, whenever the test runs
  {
    auto connection = database.connect();
    store::insertAuditRows(*connection, audit::auditColumns(),
                           nlohmann::json::array({row("dr-1", today - days(1) + hours(10), "m1", "ok", 100),
                                                  row("dr-2", today - days(1) + hours(11), "m2", "ok", 100),
                                                  row("dr-3", today - days(2) + hours(11), "m2", "ok", 100),
                                                  row("dr-4", earlier_today, "m1", "ok", 100)})
                               .dump());
  }
  store::PgTrafficStats stats(std::make_shared<store::ConnectionPool>(database.url()));
  const auto report = stats.report(today - days(1), today, 3600, 5000);
  BOOST_REQUIRE(report.models.size() == 2u);
  BOOST_TEST(report.models[0].requests + report.models[1].requests == 2);
  BOOST_TEST(report.series.size() == 2u);
  BOOST_TEST(report.cost.at(store::UsageDimension::User).at(0).requests == 2);
  BOOST_TEST(report.cost.at(store::UsageDimension::User).at(0).cost_microdollars == 200);
  BOOST_TEST(stats.usage(store::UsageDimension::Model, today - days(2), today).size() == 2u);
}

BOOST_AUTO_TEST_CASE(today_counts_quota_refusals_apart_from_provider_failures) {
  test::ScratchDatabase database;
  const auto now = system_clock::now();
  const sys_days today = floor<days>(now);
  const auto at = today + (now - today) / 2;
  {
    auto connection = database.connect();
    store::insertAuditRows(*connection, audit::auditColumns(),
                           nlohmann::json::array({row("to-1", at, "m1", "ok", 100),
                                                  row("to-2", at, "m1", "quota_exceeded", 1),
                                                  row("to-3", at, "m1", "quota_exceeded", 1),
                                                  row("to-4", at, "m1", "upstream_timeout", 1),
                                                  row("to-5", at, "m1", "access_denied", 1),
                                                  row("to-6", at, "m1", "all_deployments_failed", 1, true),
                                                  row("to-7", today - hours(1), "m1", "upstream_error", 1)})
                               .dump());
  }
  store::PgTrafficStats stats(std::make_shared<store::ConnectionPool>(database.url()));
  const auto outcomes = stats.todayOutcomes(now);
  BOOST_TEST(outcomes.requests == 5);  // the probe and yesterday's row left out
  BOOST_TEST(outcomes.failed == 4);
  BOOST_TEST(outcomes.quota_refused == 2);
  BOOST_TEST(outcomes.provider_failed == 1);
}

BOOST_AUTO_TEST_SUITE_END()
