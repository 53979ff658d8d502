#include <boost/test/unit_test.hpp>

#include <random>

#include <nlohmann/json.hpp>

#include "server/audit/record_json.h"
#include "server/telemetry/audit_log.h"
#include "server/telemetry/otlp_encode.h"

using namespace sluice;
using namespace sluice::telemetry;

namespace {

const std::string kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
const std::string kSpan = "00f067aa0ba902b7";

nlohmann::json row() {
  return {{"id", "0192f0c4-aaaa"},
          {"created_at", "2026-12-05T10:41:07.000000Z"},
          {"completed_at", "2026-12-05T10:41:08.250000Z"},
          {"user_name", "alice"},
          {"project", nullptr},
          {"model", "claude-sonnet-5-5"},
          {"status", 200},
          {"outcome", "ok"},
          {"is_streaming", true},
          {"cost_microdollars", 1234},
          {"attempts", nlohmann::json::array({{{"endpoint", "anthropic/api"}, {"status", 200}}})},
          {"masked", {{"email", 2}}},
          {"request_body", "{\"messages\":[\"secret\"]}"},
          {"response_body", "answer"},
          {"trace_id", kTrace},
          {"span_id", kSpan}};
}

const Attribute* find(const LogRecord& record, std::string_view key) {
  for (const auto& attribute : record.attributes) {
    if (attribute.key == key) return &attribute;
  }
  return nullptr;
}

audit::Record committedRow() {
  using namespace std::chrono_literals;
  audit::Record record;
  record.id = "0192f0c4-bbbb";
  record.created_at = audit::TimePoint{} + 1'796'467'267s;
  record.completed_at = record.created_at + 1250ms;
  record.user = "alice";
  record.requested_model = "claude-latest";
  record.model = "claude-sonnet-5-5";
  record.route_match = "route:claude-latest;note:tab\there\nand a backslash \\";
  record.attempts.push_back({"anthropic/api", "anthropic", 503, "status_503", "overloaded", 200});
  record.attempts.push_back({"openai/chat", "openai", 200, "ok", "", 600});
  record.is_streaming = true;
  record.status = 200;
  record.outcome = "ok";
  record.usage = {120, 30, 100, 0, 0};
  record.cost_microdollars = 1234;
  record.ttfb_ms = 400;
  record.request_body = "{\"messages\":[\"secret\"]}";
  record.response_body = "answer";
  record.masked = {{"email", 2}};
  record.trace_id = kTrace;
  record.span_id = kSpan;
  return record;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(audit_log)

BOOST_AUTO_TEST_CASE(a_row_is_one_record_with_its_fields_its_trace_and_no_bodies) {
  const LogRecord record = logRecordOfRow(row(), 42);
  BOOST_TEST(record.time_unix_nano == 1796467268250000000ull);  // completed_at
  BOOST_TEST(record.observed_time_unix_nano == 42u);
  BOOST_TEST(record.severity_text == "INFO");
  BOOST_TEST(record.body == "ok 200 claude-sonnet-5-5");
  BOOST_TEST(record.trace_id == kTrace);
  BOOST_TEST(record.span_id == kSpan);
  BOOST_TEST(std::get<std::string>(find(record, "event.name")->value) == "sluice.request");
  BOOST_TEST(std::get<std::string>(find(record, "sluice.id")->value) == "0192f0c4-aaaa");
  BOOST_TEST(std::get<int64_t>(find(record, "sluice.cost_microdollars")->value) == 1234);
  BOOST_TEST(std::get<bool>(find(record, "sluice.is_streaming")->value));
  BOOST_TEST(std::get<std::string>(find(record, "sluice.attempts")->value) ==
             R"([{"endpoint":"anthropic/api","status":200}])");
  BOOST_TEST(std::get<std::string>(find(record, "sluice.masked")->value) == R"({"email":2})");
  BOOST_TEST(find(record, "sluice.project") == nullptr);  // null: left out
  BOOST_TEST(find(record, "sluice.request_body") == nullptr);
  BOOST_TEST(find(record, "sluice.response_body") == nullptr);
}

BOOST_AUTO_TEST_CASE(severity_follows_the_status_and_bad_trace_ids_are_left_out) {
  nlohmann::json refused = row();
  refused["status"] = 429;
  refused["trace_id"] = "not-hex-not-32";
  BOOST_TEST(logRecordOfRow(refused, 0).severity_text == "WARN");
  BOOST_TEST(logRecordOfRow(refused, 0).severity_number == 13);
  BOOST_TEST(logRecordOfRow(refused, 0).trace_id.empty());
  BOOST_TEST(logRecordOfRow(refused, 0).span_id.empty());  // no span without its trace
  nlohmann::json failed = row();
  failed["status"] = 502;
  failed["completed_at"] = nullptr;
  const LogRecord record = logRecordOfRow(failed, 0);
  BOOST_TEST(record.severity_text == "ERROR");
  BOOST_TEST(record.time_unix_nano == 1796467267000000000ull);  // created_at when not completed
  BOOST_CHECK_THROW(logRecordOfRow(std::string_view("[1,2]"), 0), std::invalid_argument);
  BOOST_CHECK_THROW(logRecordOfRow(std::string_view("{not json"), 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_copy_line_is_read_field_by_field_to_the_record_its_json_row_gives) {
  const std::string line = audit::toCopyLine(committedRow());
  const LogRecord fast = logRecordOfLine(line, 42);
  const LogRecord slow = logRecordOfRow(std::string_view(audit::rowJsonOfLine(line)), 42);
  BOOST_TEST(fast.time_unix_nano == slow.time_unix_nano);
  BOOST_TEST(fast.time_unix_nano == 1796467268250000000ull);
  BOOST_TEST(fast.severity_text == slow.severity_text);
  BOOST_TEST(fast.body == slow.body);
  BOOST_TEST(fast.body == "ok 200 claude-sonnet-5-5");
  BOOST_TEST(fast.trace_id == kTrace);
  BOOST_TEST(fast.span_id == kSpan);
  BOOST_REQUIRE(fast.attributes.size() == slow.attributes.size());
  for (const auto& attribute : slow.attributes) {
    const Attribute* same = find(fast, attribute.key);
    BOOST_REQUIRE_MESSAGE(same != nullptr, attribute.key);
    if (attribute.key == "sluice.attempts" || attribute.key == "sluice.masked") {
      // JSON text either way; the JSON path re-spells it with its keys sorted.
      BOOST_TEST(nlohmann::json::parse(std::get<std::string>(same->value)) ==
                 nlohmann::json::parse(std::get<std::string>(attribute.value)));
    } else {
      BOOST_TEST_CONTEXT(attribute.key) { BOOST_TEST((same->value == attribute.value)); }
    }
  }
  BOOST_TEST(std::get<std::string>(find(fast, "sluice.route_match")->value) ==
             "route:claude-latest;note:tab\there\nand a backslash \\");
  BOOST_TEST(find(fast, "sluice.request_body") == nullptr);
  BOOST_TEST(find(fast, "sluice.response_body") == nullptr);
  BOOST_TEST(find(fast, "sluice.project") == nullptr);  // NULL: left out
}

BOOST_AUTO_TEST_CASE(fields_full_of_tabs_backslashes_and_line_breaks_read_back_exactly) {
  std::mt19937 random(7);
  const std::string alphabet = "ab\\\t\n\rxyz \"{}";
  for (int round = 0; round < 2000; ++round) {
    audit::Record record = committedRow();
    for (std::string* field : {&record.user, &record.route_match, &record.model, &record.error_message}) {
      field->clear();
      for (size_t n = random() % 24; n > 0; --n) *field += alphabet[random() % alphabet.size()];
    }
    const std::string line = audit::toCopyLine(record);
    const LogRecord fast = logRecordOfLine(line, 0);
    const LogRecord slow = logRecordOfRow(std::string_view(audit::rowJsonOfLine(line)), 0);
    BOOST_TEST_REQUIRE(fast.body == slow.body);
    for (const char* key : {"sluice.user_name", "sluice.route_match", "sluice.model", "sluice.error_message"}) {
      const Attribute* a = find(fast, key);
      const Attribute* b = find(slow, key);
      BOOST_TEST_REQUIRE((a == nullptr) == (b == nullptr));
      if (a != nullptr) BOOST_TEST_REQUIRE((a->value == b->value));
    }
  }
}

BOOST_AUTO_TEST_CASE(committed_lines_encode_to_the_bytes_of_their_records_and_torn_lines_are_left_out) {
  Sender sender;
  sender.resource = {{"service.name", std::string("sluice")}};
  const std::string copy = audit::toCopyLine(committedRow());
  const std::string json = audit::toRowJson(committedRow());
  const std::string torn = copy.substr(0, copy.size() / 2);
  BOOST_CHECK_THROW(logRecordOfLine(torn, 0), std::invalid_argument);
  BOOST_CHECK_THROW(logRecordOfLine("{not json", 0), std::invalid_argument);
  const std::vector<std::string> lines{copy, torn, json, "{not json"};
  const std::string direct = encodeAuditLinesProtobuf(sender, lines, 42);
  const std::string values = encodeLogsProtobuf(sender, {logRecordOfLine(copy, 42), logRecordOfLine(json, 42)});
  BOOST_TEST(direct == values);
  const auto decoded = nlohmann::json::parse(encodeAuditLinesJson(sender, lines, 42));
  BOOST_TEST(decoded["resourceLogs"][0]["scopeLogs"][0]["logRecords"].size() == 2u);
}


BOOST_AUTO_TEST_CASE(row_timestamps_are_read_strictly) {
  BOOST_TEST(unixNanoOf("1970-01-01T00:00:01Z") == 1'000'000'000u);
  BOOST_TEST(unixNanoOf("2026-12-05T10:41:08.25Z") == 1796467268250000000ull);
  BOOST_TEST(unixNanoOf("2026-02-30T10:41:08Z") == 0u);
  BOOST_TEST(unixNanoOf("2026-12-05T10:41:08") == 0u);
  BOOST_TEST(unixNanoOf("2026-12-05T10:41:08.1234567890Z") == 0u);
  BOOST_TEST(unixNanoOf("garbage") == 0u);
}

BOOST_AUTO_TEST_CASE(log_records_encode_as_otlp_json) {
  Sender sender;
  sender.resource = {{"service.name", std::string("sluice")}};
  const auto request = nlohmann::json::parse(encodeLogsJson(sender, {logRecordOfRow(row(), 42)}));
  const auto& record = request["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
  BOOST_TEST(record["traceId"] == kTrace);
  BOOST_TEST(record["spanId"] == kSpan);
  BOOST_TEST(record["timeUnixNano"] == "1796467268250000000");
  BOOST_TEST(record["observedTimeUnixNano"] == "42");
  BOOST_TEST(record["severityNumber"] == 9);
  BOOST_TEST(record["body"]["stringValue"] == "ok 200 claude-sonnet-5-5");
  BOOST_TEST(request["resourceLogs"][0]["resource"]["attributes"][0]["key"] == "service.name");
  BOOST_TEST(!encodeLogsProtobuf(sender, {logRecordOfRow(row(), 42)}).empty());
}

BOOST_AUTO_TEST_SUITE_END()
