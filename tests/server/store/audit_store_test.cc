#include "server/store/audit_store.h"

#include <cstdio>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/store/audit_queries.h"
#include "tests/server/store/scratch_database.h"

using namespace sluice;
using namespace std::chrono;

namespace {

test::ScratchDatabase& database() {
  static test::ScratchDatabase instance(true);
  return instance;
}

struct Fresh {
  Fresh() : connection(database().connect()) {
    pqxx::nontransaction query(*connection);
    query.exec("TRUNCATE ai_requests, ai_usage_hourly, ai_usage_daily, ai_route_usage_hourly, ai_route_usage_daily");
  }
  std::unique_ptr<pqxx::connection> connection;
};

system_clock::time_point at(const std::string& text) {
  // "2030-01-01T10:30:00Z"
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  BOOST_REQUIRE(std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &s) == 6);
  return sys_days(year(y) / mo / d) + hours(h) + minutes(mi) + seconds(s);
}

nlohmann::json row(const std::string& id, system_clock::time_point created, const std::string& user = "alice",
                   const std::string& model = "m1", int64_t cost = 100, const std::string& outcome = "ok") {
  return {{"id", id},
          {"created_at", store::formatTimestamp(created)},
          {"user_name", user},
          {"project", "p1"},
          {"model", model},
          {"served_provider", "prov"},
          {"status", outcome == "ok" ? 200 : 502},
          {"outcome", outcome},
          {"input_tokens", 10},
          {"output_tokens", 5},
          {"cost_microdollars", cost},
          {"attempts", nlohmann::json::array({{{"endpoint", "e1"}, {"status", 200}, {"result", "ok"}}})}};
}

// The rows of one call carry the same keys: the columns named are the first row's keys (the store
// inserts exactly the columns it is given).
size_t insert(pqxx::connection& connection, std::initializer_list<nlohmann::json> rows) {
  std::vector<store::AuditColumn> columns;
  const nlohmann::json& first = *rows.begin();
  for (auto key = first.begin(); key != first.end(); ++key) columns.push_back({key.key(), "", ""});
  return store::insertAuditRows(connection, columns, nlohmann::json(rows).dump());
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(audit_store, Fresh)

BOOST_AUTO_TEST_CASE(inserting_a_row_twice_keeps_one_and_counts_it_once_in_the_hourly_usage) {
  const auto now = system_clock::now();
  BOOST_TEST(insert(*connection, {row("a1", now), row("a2", now)}) == 2u);
  BOOST_TEST(insert(*connection, {row("a1", now), row("a3", now)}) == 1u);
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_requests") == "3");
  BOOST_TEST(database().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "3");
  BOOST_TEST(database().scalar("SELECT sum(cost_microdollars) FROM ai_usage_hourly") == "300");
  BOOST_TEST(database().scalar("SELECT sum(requests) FROM ai_usage_daily") == "3");
  BOOST_TEST(database().scalar("SELECT attempts->0->>'endpoint' FROM ai_requests WHERE id = 'a1'") == "e1");
}

BOOST_AUTO_TEST_CASE(a_row_for_a_day_without_a_partition_creates_it) {
  const auto when = at("2031-03-04T05:06:07Z");
  BOOST_TEST(insert(*connection, {row("future", when)}) == 1u);
  BOOST_TEST(database().scalar("SELECT to_regclass('ai_requests_20310304') IS NOT NULL") == "t");
}

BOOST_AUTO_TEST_CASE(probes_are_stored_but_not_counted_as_usage) {
  auto probe = row("probe1", system_clock::now());
  probe["probe"] = true;
  BOOST_TEST(insert(*connection, {probe}) == 1u);
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_usage_hourly") == "0");
}

BOOST_AUTO_TEST_CASE(partitions_are_created_listed_and_dropped_by_day) {
  const auto first = sys_days(year(2032) / 1 / 30);
  const auto names = store::ensureAuditPartitions(*connection, first, first + days(3));
  BOOST_TEST(names == (std::vector<std::string>{"ai_requests_20320130", "ai_requests_20320131", "ai_requests_20320201",
                                               "ai_requests_20320202"}),
             boost::test_tools::per_element());
  // Idempotent.
  BOOST_TEST(store::ensureAuditPartitions(*connection, first, first).size() == 1u);
  insert(*connection, {row("old", sys_days(year(2032) / 1 / 31) + hours(23) + minutes(59))});
  const auto dropped = store::dropAuditPartitionsBefore(*connection, sys_days(year(2032) / 2 / 1));
  // Earlier cases' partitions (all before 2032) go too.
  const auto has = [&](const std::string& name) { return std::find(dropped.begin(), dropped.end(), name) != dropped.end(); };
  BOOST_TEST(has("ai_requests_20320130"));
  BOOST_TEST(has("ai_requests_20320131"));
  BOOST_TEST(!has("ai_requests_20320201"));
  const auto left = store::listAuditPartitions(*connection);
  BOOST_TEST((std::find(left.begin(), left.end(), first + days(2)) != left.end()));
  BOOST_TEST((std::find(left.begin(), left.end(), first) == left.end()));
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_requests WHERE id = 'old'") == "0");
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_usage_hourly WHERE hour < '2032-02-01'") == "0");
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_usage_daily WHERE day < '2032-02-01'") == "0");
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_route_usage_hourly WHERE hour < '2032-02-01'") == "0");
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_route_usage_daily WHERE day < '2032-02-01'") == "0");
}

BOOST_AUTO_TEST_CASE(id_prefix_lookup_finds_one_many_or_none_and_escapes_like_patterns) {
  const auto now = system_clock::now();
  insert(*connection, {row("0192aaaa-1111", now), row("0192aaaa-2222", now), row("0192bbbb-3333", now),
                       row("x_y%z", now)});
  BOOST_TEST(store::findRequestsByIdPrefix(*connection, "0192bb").size() == 1u);
  BOOST_TEST(store::findRequestsByIdPrefix(*connection, "0192aaaa").size() == 2u);
  BOOST_TEST(store::findRequestsByIdPrefix(*connection, "0193").empty());
  BOOST_TEST(store::findRequestsByIdPrefix(*connection, "x_").size() == 1u);
  BOOST_TEST(store::findRequestsByIdPrefix(*connection, "x%").empty());  // % is literal, not a wildcard
  const auto one = store::findRequestsByIdPrefix(*connection, "0192bbbb-3333").front();
  BOOST_TEST(one["user_name"] == "alice");
  BOOST_TEST(one["attempts"].is_array());
  BOOST_TEST(one["cost_microdollars"] == 100);
}

BOOST_AUTO_TEST_CASE(list_filters_orders_newest_first_and_limits) {
  const auto now = system_clock::now();
  insert(*connection, {row("r1", now - minutes(50), "alice", "m1"), row("r2", now - minutes(20), "bob", "m1"),
                       row("r3", now - minutes(10), "alice", "m2", 5, "upstream_error"),
                       row("r4", now - hours(3), "alice", "m1")});
  store::RequestFilter filter{now - hours(1), {}, {}, {}, {}, 100};
  auto rows = store::listRequests(*connection, filter);
  BOOST_REQUIRE(rows.size() == 3u);
  BOOST_TEST(rows[0].id == "r3");
  BOOST_TEST(rows[2].id == "r1");
  filter.user = "alice";
  BOOST_TEST(store::listRequests(*connection, filter).size() == 2u);
  filter.model = "m2";
  BOOST_TEST(store::listRequests(*connection, filter).size() == 1u);
  filter.model.reset();
  filter.outcome = "upstream_error";
  rows = store::listRequests(*connection, filter);
  BOOST_REQUIRE(rows.size() == 1u);
  BOOST_TEST(rows[0].status == 502);
  filter = {now - hours(5), {}, {}, {}, {}, 2};
  BOOST_TEST(store::listRequests(*connection, filter).size() == 2u);
  filter.project = "nope";
  BOOST_TEST(store::listRequests(*connection, filter).empty());
}

BOOST_AUTO_TEST_CASE(usage_is_exact_at_a_window_starting_mid_hour) {
  // The 10:00 hour holds one row before and one after the window's start.
  insert(*connection, {row("u1", at("2030-01-01T10:20:00Z"), "alice", "m1", 1000),
                       row("u2", at("2030-01-01T10:40:00Z"), "alice", "m1", 2000),
                       row("u3", at("2030-01-01T11:10:00Z"), "bob", "m2", 4000),
                       row("u4", at("2030-01-01T12:59:00Z"), "bob", "m2", 8000, "upstream_error")});
  const auto by_user = store::usageBy(*connection, store::UsageDimension::User, at("2030-01-01T10:30:00Z"));
  BOOST_REQUIRE(by_user.size() == 2u);
  BOOST_TEST(by_user[0].key == "bob");  // costliest first
  BOOST_TEST(by_user[0].requests == 2);
  BOOST_TEST(by_user[0].failed == 1);
  BOOST_TEST(by_user[0].cost_microdollars == 12000);
  BOOST_TEST(by_user[1].key == "alice");
  BOOST_TEST(by_user[1].requests == 1);
  BOOST_TEST(by_user[1].cost_microdollars == 2000);
  BOOST_TEST(by_user[1].input_tokens == 10);
  const auto by_model = store::usageBy(*connection, store::UsageDimension::Model, at("2030-01-01T10:00:00Z"));
  BOOST_REQUIRE(by_model.size() == 2u);
  BOOST_TEST(by_model[1].key == "m1");
  BOOST_TEST(by_model[1].requests == 2);
  const auto by_provider = store::usageBy(*connection, store::UsageDimension::Provider, at("2030-01-01T12:00:00Z"));
  BOOST_REQUIRE(by_provider.size() == 1u);
  BOOST_TEST(by_provider[0].key == "prov");
  BOOST_TEST(by_provider[0].requests == 1);
}

BOOST_AUTO_TEST_CASE(usage_is_exact_across_days_from_the_daily_hourly_and_raw_parts) {
  // From 22:30: [22:30, 23:00) is read from ai_requests, [23:00, 00:00) from the hourly rollup,
  // whole days from the daily one.
  insert(*connection, {row("d1", at("2030-02-01T22:10:00Z"), "alice", "m1", 1),
                       row("d2", at("2030-02-01T22:50:00Z"), "alice", "m1", 10),
                       row("d3", at("2030-02-01T23:20:00Z"), "alice", "m1", 100),
                       row("d4", at("2030-02-02T05:00:00Z"), "alice", "m1", 1000),
                       row("d5", at("2030-02-04T12:00:00Z"), "alice", "m1", 10000)});
  auto usage = store::usageBy(*connection, store::UsageDimension::User, at("2030-02-01T22:30:00Z"));
  BOOST_REQUIRE(usage.size() == 1u);
  BOOST_TEST(usage[0].requests == 4);
  BOOST_TEST(usage[0].cost_microdollars == 11110);
  usage = store::usageBy(*connection, store::UsageDimension::Model, at("2030-02-02T00:00:00Z"));
  BOOST_REQUIRE(usage.size() == 1u);
  BOOST_TEST(usage[0].cost_microdollars == 11000);
  usage = store::usageBy(*connection, store::UsageDimension::Project, at("2030-02-01T23:00:00Z"));
  BOOST_REQUIRE(usage.size() == 1u);
  BOOST_TEST(usage[0].cost_microdollars == 11100);
  BOOST_TEST(database().scalar("SELECT count(*) FROM ai_usage_daily WHERE day = '2030-02-01'") == "1");
}

BOOST_AUTO_TEST_CASE(usage_by_route_and_deployment_is_exact_across_days_with_cache_savings) {
  const auto cached = [](nlohmann::json row, const std::string& route, const std::string& endpoint, int64_t reads,
                         int64_t savings) {
    row["route_id"] = route;
    row["served_endpoint"] = endpoint;
    row["input_tokens"] = 1000;
    row["cache_read_tokens"] = reads;
    row["cache_savings_microdollars"] = savings;
    return row;
  };
  insert(*connection, {cached(row("r1", at("2030-03-01T22:10:00Z")), "chat", "prov/a", 900, 1),
                       cached(row("r2", at("2030-03-01T22:50:00Z")), "chat", "prov/a", 900, 10),
                       cached(row("r3", at("2030-03-01T23:20:00Z")), "chat", "prov/b", 500, 100),
                       cached(row("r4", at("2030-03-02T05:00:00Z")), "code", "prov/b", 0, 0),
                       cached(row("r5", at("2030-03-04T12:00:00Z"), "alice", "m1", 100, "upstream_error"), "code", "",
                              0, 0)});
  auto probe = cached(row("r6", at("2030-03-02T06:00:00Z")), "chat", "prov/a", 1000, 5000);
  probe["probe"] = true;
  insert(*connection, {probe});

  // [22:30, 23:00) from ai_requests, [23:00, 00:00) from the hourly route rollup, days from the daily one.
  const auto routes = store::usageBy(*connection, store::UsageDimension::Route, at("2030-03-01T22:30:00Z"));
  BOOST_REQUIRE(routes.size() == 2u);
  BOOST_TEST(routes[0].key == "chat");  // the same cost and requests: by name
  BOOST_TEST(routes[0].requests == 2);  // r2 and r3; r1 is before the window, the probe is not usage
  BOOST_TEST(routes[0].cache_read_tokens == 1400);
  BOOST_TEST(routes[0].cache_savings_microdollars == 110);
  BOOST_TEST(routes[0].cacheHitRatio() == 0.7);
  BOOST_TEST(routes[1].key == "code");
  BOOST_TEST(routes[1].requests == 2);
  BOOST_TEST(routes[1].failed == 1);
  BOOST_TEST(routes[1].cache_savings_microdollars == 0);
  BOOST_TEST(routes[1].cacheHitRatio() == 0.0);

  const auto deployments = store::usageBy(*connection, store::UsageDimension::Deployment, at("2030-03-01T00:00:00Z"));
  BOOST_REQUIRE(deployments.size() == 3u);
  BOOST_TEST(deployments[0].key == "prov/a");
  BOOST_TEST(deployments[0].requests == 2);
  BOOST_TEST(deployments[0].cache_savings_microdollars == 11);
  BOOST_TEST(deployments[0].cacheHitRatio() == 0.9);
  BOOST_TEST(deployments[1].key == "prov/b");
  BOOST_TEST(deployments[1].cache_savings_microdollars == 100);
  BOOST_TEST(deployments[1].cacheHitRatio() == 0.25);
  BOOST_TEST(deployments[2].key == "");  // nothing served
  BOOST_TEST(deployments[2].failed == 1);

  // The per-user rollups carry the savings as well.
  const auto users = store::usageBy(*connection, store::UsageDimension::User, at("2030-03-01T00:00:00Z"));
  BOOST_REQUIRE(users.size() == 1u);
  BOOST_TEST(users[0].cache_savings_microdollars == 111);
  BOOST_TEST(database().scalar("SELECT sum(cache_savings_microdollars) FROM ai_usage_daily") == "111");
  BOOST_TEST(database().scalar("SELECT sum(requests) FROM ai_route_usage_daily") == "5");
}

BOOST_AUTO_TEST_CASE(a_row_without_cache_savings_stores_zero) {
  insert(*connection, {row("z1", at("2030-04-01T10:00:00Z"))});
  BOOST_TEST(database().scalar("SELECT cache_savings_microdollars FROM ai_requests WHERE id = 'z1'") == "0");
  BOOST_TEST(database().scalar("SELECT cache_savings_microdollars FROM ai_route_usage_hourly") == "0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(audit_store_format)

BOOST_AUTO_TEST_CASE(timestamps_are_utc_with_microseconds) {
  const auto time = sys_days(year(2025) / 5 / 1) + hours(12) + minutes(3) + seconds(4) + microseconds(5067);
  BOOST_TEST(store::formatTimestamp(time) == "2025-05-01T12:03:04.005067Z");
  BOOST_TEST(store::formatDay(sys_days(year(2025) / 12 / 31)) == "2025-12-31");
}

BOOST_AUTO_TEST_SUITE_END()
