#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "server/telemetry/otlp_encode.h"

using namespace sluice::telemetry;

namespace {

Span sample() {
  Span span;
  span.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  span.span_id = "00f067aa0ba902b7";
  span.parent_span_id = "1111111111111111";
  span.name = "chat m";
  span.kind = SpanKind::Client;
  span.start_unix_nano = 1;
  span.end_unix_nano = 2;
  span.attributes = {{"a", std::string("b")}, {"n", int64_t{300}}, {"t", true}, {"d", 0.5},
                     {"l", std::vector<std::string>{"x", "y"}}};
  span.events.push_back({"e", 3, {}});
  span.status = StatusCode::Error;
  span.status_message = "boom";
  return span;
}

Sender sender() {
  Sender s;
  s.resource = {{"service.name", std::string("sluice")}};
  s.scope_name = "sluice";
  return s;
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(otlp_encode)

BOOST_AUTO_TEST_CASE(the_protobuf_carries_each_field_with_its_number_and_wire_type) {
  const std::string bytes = encodeTracesProtobuf(sender(), {sample()});
  // Span.trace_id (1, bytes) and span_id (2, bytes) as raw bytes, parent_span_id (4).
  BOOST_TEST(contains(bytes, std::string("\x0a\x10\x4b\xf9\x2f\x35\x77\xb3\x4d\xa6\xa3\xce\x92\x9d\x0e\x0e\x47\x36", 18)));
  BOOST_TEST(contains(bytes, std::string("\x12\x08\x00\xf0\x67\xaa\x0b\xa9\x02\xb7", 10)));
  BOOST_TEST(contains(bytes, std::string("\x22\x08\x11\x11\x11\x11\x11\x11\x11\x11", 10)));
  BOOST_TEST(contains(bytes, std::string("\x2a\x06" "chat m", 8)));                      // name (5)
  BOOST_TEST(contains(bytes, std::string("\x30\x03", 2)));                               // kind (6) CLIENT
  BOOST_TEST(contains(bytes, std::string("\x39\x01\0\0\0\0\0\0\0", 9)));                 // start (7, fixed64)
  BOOST_TEST(contains(bytes, std::string("\x41\x02\0\0\0\0\0\0\0", 9)));                 // end (8, fixed64)
  // KeyValue{key "a", AnyValue{string_value "b"}}, {"n", int 300 = ac 02}, {"t", bool}.
  BOOST_TEST(contains(bytes, std::string("\x4a\x08\x0a\x01" "a" "\x12\x03\x0a\x01" "b", 10)));
  BOOST_TEST(contains(bytes, std::string("\x4a\x08\x0a\x01" "n" "\x12\x03\x18\xac\x02", 10)));
  BOOST_TEST(contains(bytes, std::string("\x4a\x07\x0a\x01" "t" "\x12\x02\x10\x01", 9)));
  // Status{message "boom" (2), code ERROR (3)}.
  BOOST_TEST(contains(bytes, std::string("\x7a\x08\x12\x04" "boom" "\x18\x02", 10)));
  // Resource attribute service.name and the scope name.
  BOOST_TEST(contains(bytes, "service.name"));
  BOOST_TEST(bytes.front() == '\x0a');  // ExportTraceServiceRequest.resource_spans (1)
}

BOOST_AUTO_TEST_CASE(the_json_uses_hex_ids_string_integers_and_numeric_enums) {
  const auto request = nlohmann::json::parse(encodeTracesJson(sender(), {sample()}));
  const auto& span = request["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
  BOOST_TEST(span["traceId"] == "4bf92f3577b34da6a3ce929d0e0e4736");
  BOOST_TEST(span["spanId"] == "00f067aa0ba902b7");
  BOOST_TEST(span["parentSpanId"] == "1111111111111111");
  BOOST_TEST(span["kind"] == 3);
  BOOST_TEST(span["startTimeUnixNano"] == "1");
  BOOST_TEST(span["attributes"][1]["value"]["intValue"] == "300");
  BOOST_TEST(span["attributes"][4]["value"]["arrayValue"]["values"][1]["stringValue"] == "y");
  BOOST_TEST(span["status"]["code"] == 2);
  BOOST_TEST(span["events"][0]["timeUnixNano"] == "3");
  BOOST_TEST(request["resourceSpans"][0]["resource"]["attributes"][0]["key"] == "service.name");
}

BOOST_AUTO_TEST_CASE(text_that_is_not_utf8_still_makes_valid_json) {
  Span span = sample();
  span.name = "bad \xff byte";
  BOOST_CHECK_NO_THROW(nlohmann::json::parse(encodeTracesJson(sender(), {span})));
}

BOOST_AUTO_TEST_SUITE_END()
