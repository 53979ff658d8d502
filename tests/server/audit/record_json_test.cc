#include "server/audit/record_json.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/audit/fields.h"
#include "server/store/audit_store.h"
#include "tests/server/audit/audit_test_support.h"

#include <algorithm>

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
  for (const auto& field : audit::fields()) BOOST_TEST(row.contains(std::string(field.column.name)), field.column.name);
  BOOST_TEST(row.size() == audit::fields().size());
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
  BOOST_TEST(row["masked"].is_null());  // nothing masked
}

BOOST_AUTO_TEST_CASE(masked_counts_are_a_json_object_of_kinds) {
  audit::Record record;
  record.id = "m";
  record.masked = {{"email", 2}, {"api_key", 1}};
  const auto row = nlohmann::json::parse(audit::toRowJson(record));
  BOOST_TEST(row["masked"] == nlohmann::json::parse(R"({"api_key":1,"email":2})"));
  const std::string line = audit::toCopyLine(record);
  // masked, then the unit columns (no unit: NULL, 0 units), then the client address and the trace
  // and span ids (none: NULL).
  BOOST_TEST(line.ends_with("\t{\"api_key\":1,\"email\":2}\t\\N\t0\t\\N\t\\N\t\\N\n"), line);
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
  BOOST_TEST(row.size() == audit::fields().size());
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

BOOST_AUTO_TEST_SUITE(record_copy)

// The live path (COPY) and the replay path (JSON) must store the same row and the same rollups.
BOOST_AUTO_TEST_CASE(a_copy_line_stores_exactly_what_the_json_row_stores_and_the_same_rollups) {
  test::truncateAudit();
  audit::Record record;
  record.created_at = audit::Clock::now();
  record.completed_at = record.created_at + std::chrono::milliseconds(1500);
  record.project = "tab\there";
  record.client_family = "back\\slash \\N and \\. and \\t";
  record.client_wire = "openai-chat";
  record.requested_model = "m\r\nodel";
  record.model = "model-ü-日本";
  record.route_id = "route";
  record.strategy = "ordered";
  record.served_provider = "prov";
  record.served_endpoint = "prov/ep";
  record.route_match = "route:x;failover:a->b";
  record.attempts.push_back({"prov/ep", "prov", 503, "status_503", "tab\tquote\"back\\slash\nnl", 12});
  record.attempts.push_back({"prov/ep2", "prov", 200, "ok", "", 40});
  record.status = 200;
  record.outcome = "ok";
  record.error_message = std::string("nul\0and \xff\xfe broken \xe2\x82 end", 26);
  record.usage = {1000, 200, 300, 50, 20};
  record.cost_microdollars = 777;
  record.cache_savings_microdollars = 55;
  record.ttfb_ms = 33;
  record.request_body = std::string("{\"a\":\"line\nbreak\ttab\x01\\\"}");
  record.response_body = std::string();
  record.replica = "r1";
  record.masked = {{"email", 3}, {"vault", 1}};

  audit::Record by_copy = record;
  by_copy.id = "copy-row";
  by_copy.user = "copy-user";
  audit::Record by_json = record;
  by_json.id = "json-row";
  by_json.user = "json-user";
  auto connection = test::auditDatabase().connect();
  const std::string copy_line = audit::toCopyLine(by_copy);
  BOOST_TEST(copy_line.back() == '\n');
  BOOST_TEST(std::count(copy_line.begin(), copy_line.end(), '\n') == 1);
  BOOST_TEST(std::count(copy_line.begin(), copy_line.end(), '\t') == static_cast<long>(audit::fields().size() - 1));
  store::copyAuditRows(*connection, audit::auditColumns(), copy_line, {audit::rollupFacts(by_copy)});
  store::insertAuditRows(*connection, audit::auditColumns(), "[" + audit::toRowJson(by_json) + "]");

  const auto& db = test::auditDatabase();
  const std::string row_sql = "SELECT (to_jsonb(r) - 'id' - 'user_name')::text FROM ai_requests r WHERE id = ";
  const std::string copied = db.scalar(row_sql + "'copy-row'");
  BOOST_TEST(!copied.empty());
  BOOST_TEST(copied == db.scalar(row_sql + "'json-row'"));
  BOOST_TEST(db.scalar("SELECT project FROM ai_requests WHERE id = 'copy-row'") == "tab\there");
  BOOST_TEST(db.scalar("SELECT client_family FROM ai_requests WHERE id = 'copy-row'") == "back\\slash \\N and \\. and \\t");
  BOOST_TEST(db.scalar("SELECT completed_at IS NOT NULL AND latency_ms IS NULL AND response_body IS NULL "
                       "FROM ai_requests WHERE id = 'copy-row'") == "t");
  BOOST_TEST(db.scalar("SELECT masked->>'email' FROM ai_requests WHERE id = 'copy-row'") == "3");
  // A row without counts: NULL on both paths.
  audit::Record plain_copy = test::sampleRecord("copy-plain");
  audit::Record plain_json = test::sampleRecord("json-plain");
  store::copyAuditRows(*connection, audit::auditColumns(), audit::toCopyLine(plain_copy), {audit::rollupFacts(plain_copy)});
  store::insertAuditRows(*connection, audit::auditColumns(), "[" + audit::toRowJson(plain_json) + "]");
  BOOST_TEST(db.scalar("SELECT count(*) FROM ai_requests WHERE id IN ('copy-plain', 'json-plain') AND masked IS NULL") == "2");
  for (const std::string table : {"ai_usage_hourly", "ai_usage_daily"}) {
    const std::string sums = "SELECT concat_ws(',', count(*), sum(requests), sum(failed), sum(input_tokens), "
                             "sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), "
                             "sum(reasoning_tokens), sum(cost_microdollars), sum(cache_savings_microdollars), "
                             "min(project), min(model), min(provider)) FROM " + table + " WHERE user_name = ";
    BOOST_TEST(db.scalar(sums + "'copy-user'") == db.scalar(sums + "'json-user'"), table);
    BOOST_TEST(db.scalar(sums + "'copy-user'") == "1,1,0,1000,200,300,50,20,777,55,tab\there,model-ü-日本,prov", table);
  }
  for (const std::string table : {"ai_route_usage_hourly", "ai_route_usage_daily"}) {
    BOOST_TEST(db.scalar("SELECT concat_ws(',', count(*), sum(requests), sum(cost_microdollars)) FROM " + table +
                         " WHERE route_id = 'route' AND endpoint = 'prov/ep'") == "1,2,1554", table);
  }
}

BOOST_AUTO_TEST_CASE(a_copy_batch_with_a_row_already_present_writes_nothing_and_says_so) {
  test::truncateAudit();
  audit::Record first = test::sampleRecord("copy-dup-1");
  audit::Record second = test::sampleRecord("copy-dup-2");
  auto connection = test::auditDatabase().connect();
  store::copyAuditRows(*connection, audit::auditColumns(), audit::toCopyLine(first), {audit::rollupFacts(first)});
  BOOST_CHECK_THROW(store::copyAuditRows(*connection, audit::auditColumns(), audit::toCopyLine(second) + audit::toCopyLine(first),
                                         {audit::rollupFacts(second), audit::rollupFacts(first)}),
                    pqxx::unique_violation);
  BOOST_TEST(test::auditRows() == 1);
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "1");
}

// The journal keeps live rows as COPY text; a replay, the spool and a refused batch need them as
// JSON again, with the same values.
BOOST_AUTO_TEST_CASE(a_copy_line_turns_back_into_the_json_row_of_the_same_record) {
  audit::Record awkward = test::sampleRecord("id\twith\\odd\nbytes");
  awkward.project = "tab\there";
  awkward.client_family = "back\\slash \\N and \\. and \\t";
  awkward.requested_model = "m\r\nodel";
  awkward.model = "model-\xC3\xBC-\xE6\x97\xA5";
  awkward.attempts.push_back({"prov/ep", "prov", 503, "status_503", "tab\tquote\"back\\slash\nnl", 12});
  awkward.error_message = std::string("nul\0and \xff\xfe broken \xe2\x82 end", 26);
  awkward.request_body = std::string("{\"a\":\"line\nbreak\ttab\x01\\\"}");
  awkward.response_body = std::string();
  awkward.masked = {{"email", 3}, {"vault", 1}};
  awkward.unit = "image";
  awkward.units = 4;
  awkward.ttfb_ms = -1;
  audit::Record empty;
  empty.id = "bare";
  empty.created_at = audit::Clock::now();
  for (const audit::Record& record : {test::sampleRecord("plain"), awkward, empty}) {
    const std::string line = audit::toCopyLine(record);
    BOOST_TEST(nlohmann::json::parse(audit::copyLineToRowJson(line)) == nlohmann::json::parse(audit::toRowJson(record)),
               record.id);
    BOOST_TEST(audit::copyLineId(line) == record.id);
  }
}

BOOST_AUTO_TEST_CASE(an_interrupted_line_is_what_the_request_had_with_the_interruption) {
  audit::Record so_far = test::sampleRecord("in-flight");
  so_far.outcome.clear();
  so_far.status = 0;
  so_far.completed_at = {};
  so_far.latency_ms.reset();
  std::string line;
  audit::appendInterruptedCopyLine(line, so_far);
  const auto row = nlohmann::json::parse(audit::copyLineToRowJson(line));
  BOOST_TEST(row["id"] == "in-flight");
  BOOST_TEST(row["outcome"] == "interrupted");
  BOOST_TEST(row["status"] == 500);
  BOOST_TEST(row["error_key"] == "replica_stopped");
  BOOST_TEST(row["completed_at"] == row["created_at"]);
  BOOST_TEST(row["user_name"] == "alice");
  BOOST_TEST(row["model"] == "claude-sonnet-4");
  // The record itself is untouched.
  BOOST_TEST(so_far.outcome.empty());
}

// A journal left by the release before client_address: read after an upgrade, not dropped as torn.
BOOST_AUTO_TEST_CASE(a_copy_line_of_the_previous_release_still_turns_into_its_row) {
  audit::Record record = test::sampleRecord("older");
  record.client_address = "203.0.113.9";
  const std::string line = audit::toCopyLine(record);
  // Without client_address, trace_id and span_id: the last three columns.
  std::string older = line;
  for (int column = 0; column < 3; ++column) older = older.substr(0, older.rfind('\t'));
  older += "\n";
  const auto row = nlohmann::json::parse(audit::copyLineToRowJson(older));
  BOOST_TEST(row["id"] == "older");
  BOOST_TEST(row["user_name"] == "alice");
  BOOST_TEST(!row.contains("client_address"));
  BOOST_TEST(nlohmann::json::parse(audit::copyLineToRowJson(line))["client_address"] == "203.0.113.9");
}

BOOST_AUTO_TEST_CASE(what_is_not_a_whole_copy_line_is_refused) {
  const std::string line = audit::toCopyLine(test::sampleRecord("whole"));
  BOOST_CHECK_THROW(audit::copyLineToRowJson(line.substr(0, line.size() / 2)), std::invalid_argument);
  BOOST_CHECK_THROW(audit::copyLineToRowJson(""), std::invalid_argument);
  BOOST_CHECK_THROW(audit::copyLineToRowJson(line.substr(0, line.size() - 1) + "\textra\n"), std::invalid_argument);
  std::string bad_number = line;
  bad_number.replace(bad_number.find("\t200\t"), 5, "\t2x0");
  BOOST_CHECK_THROW(audit::copyLineToRowJson(bad_number), std::invalid_argument);
  BOOST_TEST(audit::copyLineId("") == "");
}

BOOST_AUTO_TEST_SUITE_END()
