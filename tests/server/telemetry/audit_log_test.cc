#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "server/telemetry/audit_log.h"
#include "server/telemetry/otlp_encode.h"

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
