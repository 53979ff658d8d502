#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "server/telemetry/otlp_encode.h"
#include "server/telemetry/request_spans.h"

using namespace sluice;
using namespace sluice::telemetry;
using namespace std::chrono_literals;

namespace {

const audit::TimePoint kT0 = audit::TimePoint{} + 1'700'000'000s;

// A request that failed over: anthropic answered 503, the breaker skipped one, openai served.
audit::Record failedOver() {
  audit::Record row;
  row.id = "0192-req";
  row.created_at = kT0;
  row.completed_at = kT0 + 900ms;
  row.user = "alice";
  row.project = "research";
  row.client_wire = "anthropic";
  row.requested_model = "claude-latest";
  row.model = "claude-sonnet";
  row.route_id = "claude-latest";
  row.route_match = "route:claude-latest;failover:anthropic/api>openai/chat";
  row.status = 200;
  row.outcome = "ok";
  row.served_provider = "openai";
  row.served_endpoint = "openai/chat";
  row.usage.input_tokens = 120;
  row.usage.output_tokens = 30;
  row.usage.cache_read_tokens = 100;
  row.ttfb_ms = 400;
  row.is_streaming = true;
  row.masked = {{"email", 2}};
  audit::AttemptRecord first{"anthropic/api", "anthropic", 503, "status_503", "overloaded", 200, kT0 + 50ms, "aaaaaaaaaaaaaaaa"};
  audit::AttemptRecord skipped{"bedrock/claude", "bedrock", 0, "skipped:breaker_open", "", 0, kT0 + 250ms, ""};
  audit::AttemptRecord served{"openai/chat", "openai", 200, "ok", "", 600, kT0 + 260ms, "bbbbbbbbbbbbbbbb"};
  row.attempts = {first, skipped, served};
  return row;
}

catalog::Catalog catalogOf() {
  catalog::Catalog catalog;
  for (const auto& [id, endpoint, wire, url] : std::vector<std::tuple<std::string, std::string, catalog::Wire, std::string>>{
           {"anthropic", "api", catalog::Wire::Anthropic, "https://api.anthropic.com"},
           {"openai", "chat", catalog::Wire::OpenAIChat, "https://user:pw@api.openai.com:443/v1"}}) {
    catalog::Provider provider;
    provider.id = id;
    catalog::Endpoint e;
    e.key = id + "/" + endpoint;
    e.provider_id = id;
    e.id = endpoint;
    e.wire = wire;
    e.url = url;
    provider.endpoints.push_back(e);
    catalog.providers.push_back(provider);
  }
  return catalog;
}

const Attribute* find(const Span& span, std::string_view key) {
  const auto it = std::ranges::find_if(span.attributes, [&](const Attribute& a) { return a.key == key; });
  return it == span.attributes.end() ? nullptr : &*it;
}
std::string text(const Span& span, std::string_view key) {
  const Attribute* a = find(span, key);
  return a != nullptr && std::holds_alternative<std::string>(a->value) ? std::get<std::string>(a->value) : "<none>";
}
int64_t number(const Span& span, std::string_view key) {
  const Attribute* a = find(span, key);
  return a != nullptr && std::holds_alternative<int64_t>(a->value) ? std::get<int64_t>(a->value) : -1;
}

RequestTrace childOfClient() {
  RequestTrace trace;
  trace.parent = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v");
  trace.trace_id = trace.parent->trace_id;
  trace.server_span_id = "cccccccccccccccc";
  return trace;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_spans)

BOOST_AUTO_TEST_CASE(a_failed_over_request_is_a_server_span_with_one_client_span_per_attempt_sent) {
  const catalog::Catalog catalog = catalogOf();
  const auto spans = requestSpans(failedOver(), {"POST", "/v1/messages?beta=true"}, childOfClient(), &catalog, kT0 + 1s);
  BOOST_REQUIRE(spans.size() == 3u);  // server + two sent attempts; the skipped one is an event
  const Span& server = spans[0];
  BOOST_TEST(server.name == "POST /v1/messages");
  BOOST_TEST((server.kind == SpanKind::Server));
  BOOST_TEST(server.parent_span_id == "00f067aa0ba902b7");  // the client's span
  BOOST_TEST(server.trace_state == "k=v");
  BOOST_TEST(server.end_unix_nano - server.start_unix_nano == 900'000'000u);
  BOOST_TEST(text(server, "enduser.id") == "alice");
  BOOST_TEST(text(server, "sluice.project") == "research");
  BOOST_TEST(text(server, "sluice.route_match") == "route:claude-latest;failover:anthropic/api>openai/chat");
  BOOST_TEST(text(server, "sluice.outcome") == "ok");
  BOOST_TEST(number(server, "http.response.status_code") == 200);
  BOOST_TEST(find(server, "error.type") == nullptr);
  BOOST_TEST((server.status == StatusCode::Unset));
  std::vector<std::string> events;
  for (const auto& event : server.events) events.push_back(event.name);
  BOOST_TEST((events == std::vector<std::string>{"gen_ai.first_token", "sluice.data_protection.masked", "sluice.attempt.skipped"}));
  BOOST_TEST(server.events[0].time_unix_nano - server.start_unix_nano == 400'000'000u);

  const Span& failed = spans[1];
  BOOST_TEST(failed.name == "chat claude-sonnet");
  BOOST_TEST((failed.kind == SpanKind::Client));
  BOOST_TEST(failed.span_id == "aaaaaaaaaaaaaaaa");  // the id its traceparent named
  BOOST_TEST(failed.parent_span_id == "cccccccccccccccc");
  BOOST_TEST(failed.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  BOOST_TEST(text(failed, "gen_ai.provider.name") == "anthropic");
  BOOST_TEST(text(failed, "server.address") == "api.anthropic.com");
  BOOST_TEST(text(failed, "error.type") == "503");
  BOOST_TEST((failed.status == StatusCode::Error));
  BOOST_TEST(failed.end_unix_nano - failed.start_unix_nano == 200'000'000u);

  const Span& served = spans[2];
  BOOST_TEST(text(served, "gen_ai.provider.name") == "openai");
  BOOST_TEST(text(served, "server.address") == "api.openai.com");  // no user information, no port
  BOOST_TEST(text(served, "gen_ai.response.model") == "claude-sonnet");
  BOOST_TEST(number(served, "gen_ai.usage.input_tokens") == 120);
  BOOST_TEST(number(served, "gen_ai.usage.output_tokens") == 30);
  BOOST_TEST(number(served, "gen_ai.usage.cache_read.input_tokens") == 100);
  BOOST_TEST(find(served, "gen_ai.usage.cache_creation.input_tokens") == nullptr);
  BOOST_TEST((served.status == StatusCode::Unset));
}

BOOST_AUTO_TEST_CASE(a_refused_request_is_a_lone_server_span_with_its_error_and_no_usage) {
  audit::Record row;
  row.created_at = kT0;
  row.status = 429;
  row.outcome = "quota_exceeded";
  row.error_key = "quota_exceeded";
  RequestTrace trace;
  trace.trace_id = newTraceId();
  trace.server_span_id = newSpanId();
  const auto spans = requestSpans(row, {"POST", "/v1/chat/completions"}, trace, nullptr, kT0 + 5ms);
  BOOST_REQUIRE(spans.size() == 1u);
  BOOST_TEST(spans[0].parent_span_id.empty());  // a root: the client sent no traceparent
  BOOST_TEST(text(spans[0], "error.type") == "quota_exceeded");
  BOOST_TEST(find(spans[0], "gen_ai.usage.input_tokens") == nullptr);
  BOOST_TEST((spans[0].status == StatusCode::Unset));  // a 4xx is the caller's, not the server's error
  BOOST_TEST(spans[0].end_unix_nano - spans[0].start_unix_nano == 5'000'000u);
}

BOOST_AUTO_TEST_CASE(a_5xx_marks_the_server_span_as_an_error) {
  audit::Record row;
  row.created_at = kT0;
  row.status = 502;
  row.outcome = "all_deployments_failed";
  row.error_key = "all_deployments_failed";
  const auto spans = requestSpans(row, {"POST", "/v1/responses"}, childOfClient(), nullptr, kT0);
  BOOST_TEST((spans[0].status == StatusCode::Error));
  BOOST_TEST(text(spans[0], "gen_ai.operation.name") == "chat");
}

BOOST_AUTO_TEST_CASE(operation_names_follow_the_endpoint) {
  BOOST_TEST(operationName("/v1/chat/completions") == "chat");
  BOOST_TEST(operationName("/v1/messages") == "chat");
  BOOST_TEST(operationName("/v1/embeddings") == "embeddings");
  BOOST_TEST(operationName("/v1/images/generations") == "generations");
  BOOST_TEST(operationName("/v1/messages/count_tokens") == "count_tokens");
}

BOOST_AUTO_TEST_CASE(the_spans_encoded_straight_from_the_row_are_the_bytes_of_the_span_values) {
  // The request path encodes without making Span values; both ways must say the same thing.
  const catalog::Catalog catalog = catalogOf();
  for (const RequestTrace& trace : {childOfClient(), RequestTrace{"4bf92f3577b34da6a3ce929d0e0e4736", "dddddddddddddddd", {}, true}}) {
    audit::Record row = failedOver();
    const EncodedSpans direct = encodeRequestSpansProtobuf(row, {"POST", "/v1/messages?beta=true"}, trace, &catalog, kT0);
    const EncodedSpans values = encodeSpansProtobuf(requestSpans(row, {"POST", "/v1/messages?beta=true"}, trace, &catalog, kT0));
    BOOST_TEST(direct.count == 3u);  // the SERVER span and the two attempts sent
    BOOST_TEST(direct.count == values.count);
    BOOST_TEST(direct.bytes == values.bytes);
    row.status = 502;
    row.outcome = "upstream_error";
    row.error_key = "upstream_unavailable";
    row.attempts.resize(1);
    BOOST_TEST(encodeRequestSpansProtobuf(row, {"POST", "/v1/messages"}, trace, &catalog, kT0).bytes ==
               encodeSpansProtobuf(requestSpans(row, {"POST", "/v1/messages"}, trace, &catalog, kT0)).bytes);
  }
}

BOOST_AUTO_TEST_SUITE_END()
