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
  const auto report = stats.report(3600, 300, 5000, now - hours(1));
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

BOOST_AUTO_TEST_SUITE_END()
