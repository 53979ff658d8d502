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

BOOST_AUTO_TEST_SUITE_END()
