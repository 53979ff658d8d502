#include "server/audit/record_json.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/store/audit_store.h"

using namespace sluice;

BOOST_AUTO_TEST_SUITE(record_json)

BOOST_AUTO_TEST_CASE(every_column_is_present_and_empty_values_are_null) {
  audit::Record record;
  record.id = "0192-abc";
  record.created_at = audit::TimePoint(std::chrono::seconds(1'700'000'000));
  record.user = "alice";
  record.status = 200;
  record.outcome = "ok";
  record.usage.input_tokens = 12;
  record.usage.cache_read_tokens = 3;
  record.cost_microdollars = 4567;
  record.ttfb_ms = 40;
  record.attempts.push_back({"ep", "prov", 503, "status_503", "overloaded", 12});
  const auto row = nlohmann::json::parse(audit::toRowJson(record));
  for (const auto column : store::kAuditColumns) BOOST_TEST(row.contains(std::string(column)), column);
  BOOST_TEST(row.size() == store::kAuditColumns.size());
  BOOST_TEST(row["id"] == "0192-abc");
  BOOST_TEST(row["created_at"] == "2023-11-14T22:13:20.000000Z");
  BOOST_TEST(row["completed_at"].is_null());
  BOOST_TEST(row["project"].is_null());
  BOOST_TEST(row["user_name"] == "alice");
  BOOST_TEST(row["cache_read_tokens"] == 3);
  BOOST_TEST(row["latency_ms"].is_null());
  BOOST_TEST(row["ttfb_ms"] == 40);
  BOOST_TEST(row["attempts"][0]["result"] == "status_503");
  BOOST_TEST(row["attempts"][0]["error"] == "overloaded");
  BOOST_TEST(row["request_body"].is_null());
}

BOOST_AUTO_TEST_CASE(text_postgres_cannot_store_is_cleaned) {
  audit::Record record;
  record.id = "x";
  record.error_message = std::string("bad\0byte \xff end", 14);
  const std::string line = audit::toRowJson(record);
  BOOST_TEST(line.find('\n') == std::string::npos);
  const auto row = nlohmann::json::parse(line);
  BOOST_TEST(row["error_message"].get<std::string>().find('\0') == std::string::npos);
  BOOST_TEST(row["error_message"].get<std::string>().starts_with("badbyte "));
  BOOST_TEST(row["outcome"] == "internal_error");  // never NULL
}

BOOST_AUTO_TEST_CASE(every_value_round_trips_through_a_parse) {
  audit::Record record;
  record.id = "01a2-id";
  record.created_at = audit::TimePoint(std::chrono::seconds(1'700'000'000));
  record.completed_at = record.created_at + std::chrono::milliseconds(1234);
  record.user = "bob \"the\" builder\\";
  record.client_wire = "anthropic";
  record.route_match = "alias:fast;failover:a->b";
  record.is_streaming = true;
  record.status = 499;
  record.outcome = "client_gone_mid_stream";
  record.usage.input_tokens = 9'000'000'000;
  record.usage.reasoning_tokens = 5;
  record.cost_microdollars = -1;
  record.latency_ms = 0;
  record.aborted = true;
  record.request_body = std::string("{\"a\":\"line\nbreak\ttab\x01\"}");
  record.response_body = std::string();
  record.attempts.push_back({"ep-1", "p1", 0, "transport:reset", "", 3});
  record.attempts.push_back({"ep-2", "p2", 200, "ok", "", 40});
  const auto row = nlohmann::json::parse(audit::toRowJson(record));
  BOOST_TEST(row.size() == store::kAuditColumns.size());
  BOOST_TEST(row["user_name"] == "bob \"the\" builder\\");
  BOOST_TEST(row["completed_at"] == "2023-11-14T22:13:21.234000Z");
  BOOST_TEST(row["is_streaming"] == true);
  BOOST_TEST(row["status"] == 499);
  BOOST_TEST(row["input_tokens"] == 9'000'000'000);
  BOOST_TEST(row["cost_microdollars"] == -1);
  BOOST_TEST(row["latency_ms"] == 0);
  BOOST_TEST(row["upstream_ms"].is_null());
  BOOST_TEST(row["aborted"] == true);
  BOOST_TEST(row["probe"] == false);
  BOOST_TEST(row["request_body"] == "{\"a\":\"line\nbreak\ttab\x01\"}");
  BOOST_TEST(row["response_body"].is_null());  // empty text is NULL, as for every column
  BOOST_REQUIRE(row["attempts"].size() == 2u);
  BOOST_TEST(!row["attempts"][0].contains("error"));
  BOOST_TEST(row["attempts"][0]["status"] == 0);
  BOOST_TEST(row["attempts"][1]["duration_ms"] == 40);
}

BOOST_AUTO_TEST_SUITE_END()
