// The inference pipeline in-process: real sockets to the client, a FakeTransport to the providers,
// audit rows in memory. Each case runs in milliseconds; waits are on conditions with a deadline.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

#include "server/pipeline/admission.h"
#include "server/pipeline/request_ledger.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;
using fakes::FakeTransport;
using upstream::TransportFailure;

std::vector<std::string> results(const audit::Record& row) {
  std::vector<std::string> out;
  for (const auto& attempt : row.attempts) out.push_back(attempt.endpoint + " " + attempt.result);
  return out;
}

const std::string kStreamEvents[] = {
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
    "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":7,"
    "\"output_tokens\":1}}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"
    "\"text\",\"text\":\"\"}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
    "\"text_delta\",\"text\":\"Hi\"}}",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":"
    "{\"output_tokens\":2}}",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}",
};

}  // namespace

BOOST_AUTO_TEST_SUITE(exchange)

BOOST_AUTO_TEST_CASE(a_passthrough_answer_is_relayed_and_leaves_exactly_one_row) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer("hello")));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"x-api-key", "sk-caller"}});
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "hello");
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sentHeader(sent[0], "x-api-key") == "sk-primary");  // the catalog's credential, never the caller's
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.status == 200);
  BOOST_TEST(row.served_endpoint == "primary/api");
  BOOST_TEST(row.usage.input_tokens == 10);
  BOOST_TEST(row.usage.output_tokens == 3);
  BOOST_TEST(row.cost_microdollars == 16);  // 10 x $1/M + 3 x $2/M
}

BOOST_AUTO_TEST_CASE(cache_reads_are_priced_and_their_savings_recorded_in_the_row_and_the_metric) {
  RequestPath path;
  auto answer = nlohmann::json::parse(anthropicAnswer("cached"));
  answer["usage"]["cache_read_input_tokens"] = 2000;  // Anthropic counts them beside input_tokens
  path.transport.script("primary.example", FakeTransport::json(200, answer.dump()));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"x-api-key", "sk-caller"}});
  BOOST_TEST(reply.status == 200);
  const auto row = path.onlyRow();
  BOOST_TEST(row.usage.input_tokens == 2010);
  BOOST_TEST(row.usage.cache_read_tokens == 2000);
  BOOST_TEST(row.cost_microdollars == 216);            // 10 x $1/M + 2000 x $0.10/M + 3 x $2/M
  BOOST_TEST(row.cache_savings_microdollars == 1800);  // 2000 x ($1.00 - $0.10)/M
  const std::string text = path.gateway().registry().render();
  BOOST_TEST(text.find("gateway_cache_savings_microdollars_total{route=\"" + row.route_id +
                       "\",model=\"chain-model\",served_provider=\"primary\"} 1800\n") != std::string::npos,
             text);
}

BOOST_AUTO_TEST_CASE(an_answer_without_cache_reads_saves_nothing) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer("plain")));
  BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"x-api-key", "sk-caller"}}).status == 200);
  BOOST_TEST(path.onlyRow().cache_savings_microdollars == 0);
  BOOST_TEST(path.gateway().registry().render().find("gateway_cache_savings_microdollars_total{") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(failover_follows_the_plans_order_before_the_first_byte) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::json(500, R"({"type":"error","error":{"type":"api_error","message":"boom"}})"));
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "from second");
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  BOOST_TEST(sent[0].url.starts_with("https://primary.example"));
  BOOST_TEST(sent[1].url.starts_with("https://second.example"));
  BOOST_TEST(sentHeader(sent[1], "x-api-key") == "sk-second");
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.route_match.find("failover:primary->second") != std::string::npos, row.route_match);
  BOOST_TEST(results(row) == (std::vector<std::string>{"primary/api status_500", "second/api ok"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_retry_budget_retries_the_same_endpoint_then_moves_on) {
  RequestPath path;
  path.transport.script("primary.example",
                        FakeTransport::json(503, R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})")
                            .repeating());
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"));
  BOOST_TEST(reply.status == 200);
  const auto sent = path.transport.sent();
  // attempts: 2 → the first try and two retries on primary, then second.
  BOOST_REQUIRE_EQUAL(sent.size(), 4u);
  for (size_t i = 0; i < 3; ++i) BOOST_TEST(sent[i].url.starts_with("https://primary.example"));
  BOOST_TEST(sent[3].url.starts_with("https://second.example"));
  const auto row = path.onlyRow();
  BOOST_TEST(row.attempts.size() == 4u);
  BOOST_TEST(row.attempts.back().result == "ok");
}

BOOST_AUTO_TEST_CASE(max_attempts_caps_the_upstream_calls_of_one_request) {
  auto limited = std::make_shared<catalog::Catalog>(*requestPathCatalog());
  limited->limits.max_attempts = 2;
  RequestPath path(limited);
  path.transport.script("primary.example",
                        FakeTransport::json(503, R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})")
                            .repeating());
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"));
  // Two calls (the first try and one retry), then nothing more: the last failure is the answer.
  BOOST_TEST(reply.status == 529);  // the provider's overloaded_error, as Anthropic answers it
  BOOST_TEST(path.transport.sentCount() == 2u);
  const auto row = path.onlyRow();
  BOOST_TEST(row.route_match.find("limit:max_attempts") != std::string::npos, row.route_match);
}

BOOST_AUTO_TEST_CASE(max_retry_ms_spent_fails_over_instead_of_waiting) {
  auto limited = std::make_shared<catalog::Catalog>(*requestPathCatalog());
  limited->limits.max_retry_ms = 0;
  RequestPath path(limited);
  path.transport.script("primary.example",
                        FakeTransport::json(503, R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})")
                            .repeating());
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model"));
  BOOST_TEST(reply.status == 200);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);  // no retry of primary: its backoff does not fit
  BOOST_TEST(sent[1].url.starts_with("https://second.example"));
  BOOST_TEST(path.onlyRow().route_match.find("limit:max_retry_ms") != std::string::npos, path.onlyRow().route_match);
}

BOOST_AUTO_TEST_CASE(the_breaker_opens_after_its_threshold_and_the_endpoint_is_passed_over) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::failBeforeHead(TransportFailure::Connect).repeating());
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()).repeating());
  for (int i = 0; i < 2; ++i) BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model")).status == 200);
  BOOST_TEST(path.transport.sentCount() == 4u);
  BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model")).status == 200);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 5u);  // the third request never called primary
  BOOST_TEST(sent[4].url.starts_with("https://second.example"));
  const auto rows = path.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  // The plan put the open endpoint last; the first deployment served, so primary was never asked.
  BOOST_REQUIRE_EQUAL(rows[2].attempts.size(), 1u);
  BOOST_TEST(rows[2].attempts.front().endpoint == "second/api");
}

BOOST_AUTO_TEST_CASE(an_optional_field_the_provider_refused_is_dropped_once) {
  RequestPath path;
  path.transport.script("primary.example",
                        FakeTransport::json(400, R"({"type":"error","error":{"type":"invalid_request_error","message":"top_k: Extra inputs are not permitted"}})"));
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer()));
  nlohmann::json body = nlohmann::json::parse(messagesBody("chain-model"));
  body["top_k"] = 5;
  const Reply reply = path.send("POST", "/v1/messages", body.dump());
  BOOST_TEST(reply.status == 200);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  BOOST_TEST(sent[0].body.find("top_k") != std::string::npos);
  BOOST_TEST(sent[1].body.find("top_k") == std::string::npos);
  const auto row = path.onlyRow();
  BOOST_TEST(row.route_match.find("retried_without:top_k") != std::string::npos, row.route_match);
}

BOOST_AUTO_TEST_CASE(a_client_gone_before_the_first_byte_cancels_the_provider_call) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::stall());
  const auto started = std::chrono::steady_clock::now();
  path.send("POST", "/v1/messages", messagesBody("chain-model"), {}, [](int client) {
    std::this_thread::sleep_for(30ms);  // NOTE: the point of the case: the client leaves while the provider is silent
    ::close(client);
  });
  BOOST_TEST((std::chrono::steady_clock::now() - started < 5s));
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "client_gone_before_response");
  BOOST_TEST(row.status == 499);
  BOOST_TEST(path.transport.sentCount() == 1u);  // no failover after the client left
}

BOOST_AUTO_TEST_CASE(a_client_gone_after_the_first_byte_stops_the_stream) {
  RequestPath path;
  auto answer = FakeTransport::sse({kStreamEvents[0], kStreamEvents[1], kStreamEvents[2]});
  answer.stallAfterBody();
  path.transport.script("primary.example", answer);
  path.send("POST", "/v1/messages", messagesBody("chain-model", true), {}, [](int client) {
    char buffer[256];
    (void)::read(client, buffer, sizeof buffer);  // the first bytes arrived
    ::close(client);
  });
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "client_gone_mid_stream");
  BOOST_TEST(row.status == 499);
  BOOST_TEST(row.aborted);
}

BOOST_AUTO_TEST_CASE(a_stream_is_relayed_event_by_event_with_its_usage) {
  RequestPath path;
  path.transport.script("primary.example",
                        FakeTransport::sse(std::vector<std::string>(std::begin(kStreamEvents), std::end(kStreamEvents))));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("chain-model", true));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.body.find("\"text\":\"Hi\"") != std::string::npos);
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.usage.input_tokens == 7);
  BOOST_TEST(row.usage.output_tokens == 2);
}

BOOST_AUTO_TEST_CASE(a_chat_client_is_translated_onto_the_anthropic_wire) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer("translated")));
  const Reply reply = path.send("POST", "/v1/chat/completions",
                                R"({"model":"chain-model","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["choices"][0]["message"]["content"] == "translated");
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(nlohmann::json::parse(sent[0].body)["messages"][0]["role"] == "user");
  BOOST_TEST(path.onlyRow().outcome == "ok");
}

BOOST_AUTO_TEST_CASE(every_refusal_leaves_exactly_one_row_in_the_callers_format) {
  RequestPath path;
  const Reply unknown = path.send("POST", "/v1/messages", messagesBody("no-such-model"));
  BOOST_TEST(unknown.status == 404);
  BOOST_TEST(unknown.json()["type"] == "error");
  const Reply malformed = path.send("POST", "/v1/chat/completions", "{not json");
  BOOST_TEST(malformed.status == 400);
  BOOST_TEST(malformed.json()["error"]["code"] == "invalid_json");
  path.transport.script("chat.example", FakeTransport::failBeforeHead(TransportFailure::Timeout));
  const Reply unreachable = path.send("POST", "/v1/chat/completions",
                                      R"({"model":"chat-model","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(unreachable.status == 504);
  const auto rows = path.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].outcome == "unknown_model");
  BOOST_TEST(rows[1].outcome == "invalid_request");
  BOOST_TEST(rows[2].outcome == "upstream_timeout");
}

BOOST_AUTO_TEST_CASE(a_member_paid_deployment_without_the_members_key_is_skipped_not_paid_by_the_platform) {
  RequestPath path;  // no identity: nobody has personal keys
  path.transport.script("second.example", FakeTransport::json(200, anthropicAnswer()));
  const Reply reply = path.send("POST", "/v1/messages", messagesBody("member-model"));
  BOOST_TEST(reply.status == 200);
  const auto sent = path.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].url.starts_with("https://second.example"));
  BOOST_TEST(path.onlyRow().attempts.front().result == "skipped:personal_key_missing");
}

BOOST_AUTO_TEST_CASE(count_tokens_is_audited_and_asks_an_anthropic_deployment) {
  RequestPath path;
  path.transport.script("primary.example/v1/messages/count_tokens", FakeTransport::json(200, R"({"input_tokens":42})"));
  const Reply reply = path.send("POST", "/v1/messages/count_tokens",
                                R"({"model":"chain-model","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["input_tokens"] == 42);
  const auto row = path.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.route_match.starts_with("endpoint:count_tokens"), row.route_match);
  BOOST_TEST(row.usage.input_tokens == 0);  // counting is not spending
}

// {"model":"big",…,"model":"small"} was authorised, priced and clamped as `small` and forwarded
// with both pairs: a provider that keeps the first served `big`. Refused before anything is sent,
// whether the scan reads the body or (an escaped key) the parse does.
BOOST_AUTO_TEST_CASE(row8_a_duplicated_model_is_refused) {
  RequestPath path;
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer("hello")));
  const std::string bodies[] = {
      R"({"model":"big","max_tokens":999999,"model":"chain-model","max_tokens":5,"messages":[{"role":"user","content":"hi"}]})",
      R"({"model":"chain-model","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"mod\u0065l":"chain-model"})",
      R"({"model":"chain-model","max_tokens":999999,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]})",
  };
  const std::string named[] = {"model", "model", "max_tokens"};
  for (size_t k = 0; k < std::size(bodies); ++k) {
    const Reply reply = path.send("POST", "/v1/messages", bodies[k], {{"x-api-key", "sk-caller"}});
    BOOST_TEST(reply.status == 400, reply.body);
    BOOST_TEST(reply.json()["type"] == "error");  // the caller's (Anthropic) format
    BOOST_TEST(reply.json()["error"]["error_key"] == "invalid_request", reply.body);
    BOOST_TEST(reply.body.find("'" + named[k] + "'") != std::string::npos, reply.body);
  }
  // In the OpenAI caller's format too.
  const Reply chat = path.send("POST", "/v1/chat/completions",
                               R"({"model":"chain-model","stream":false,"stream":true,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(chat.status == 400, chat.body);
  BOOST_TEST(chat.json()["error"]["code"] == "invalid_request", chat.body);
  BOOST_TEST(chat.body.find("'stream'") != std::string::npos, chat.body);
  BOOST_TEST(path.transport.sent().empty());

  // count_tokens reads `model` by a parse: refused there too.
  path.transport.script("primary.example/v1/messages/count_tokens", FakeTransport::json(200, R"({"input_tokens":42})"));
  const std::string counted[] = {
      R"({"model":"big","model":"chain-model","messages":[{"role":"user","content":"hi"}]})",
      R"({"model":"big","mod\u0065l":"chain-model","messages":[{"role":"user","content":"hi"}]})",
  };
  for (const std::string& body : counted) {
    const Reply reply = path.send("POST", "/v1/messages/count_tokens", body);
    BOOST_TEST(reply.status == 400, reply.body);
    BOOST_TEST(reply.json()["error"]["error_key"] == "invalid_request", reply.body);
    BOOST_TEST(reply.body.find("'model'") != std::string::npos, reply.body);
  }
  BOOST_TEST(path.transport.sent().empty());
}

// Without keys the gateway trusts whoever reaches it: a page in a developer's browser (a form post)
// or a DNS name rebound to 127.0.0.1 must not be able to use it.
BOOST_AUTO_TEST_CASE(row11_without_keys_a_foreign_host_or_a_form_post_is_refused) {
  RequestPath path;  // no identity: the --insecure-no-auth shape
  path.transport.script("primary.example", FakeTransport::json(200, anthropicAnswer()).repeating());
  const Reply rebound = path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"Host", "attacker.example:8080"}});
  BOOST_TEST(rebound.status == 403);
  BOOST_TEST(rebound.json()["error"]["error_key"] == "forbidden_host");
  const Reply form = path.send("POST", "/v1/messages", messagesBody("chain-model"),
                               {{"Content-Type", "application/x-www-form-urlencoded"}});
  BOOST_TEST(form.status == 415);
  BOOST_TEST(path.transport.sentCount() == 0u);
  BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"Host", "localhost:9"}}).status == 200);
  BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model"), {{"Host", "[::1]:9"}}).status == 200);
  BOOST_TEST(path.send("POST", "/v1/messages", messagesBody("chain-model"),
                       {{"Content-Type", "application/json; charset=utf-8"}})
                 .status == 200);
  const auto rows = path.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 5u);
  BOOST_TEST(rows[0].outcome == "access_denied");
  BOOST_TEST(rows[0].error_key == "forbidden_host");
}

BOOST_AUTO_TEST_CASE(allowed_hosts_are_a_comma_list_and_a_star_allows_any) {
  http::ServerOptions options;
  options.listen = "0.0.0.0:8080";
  BOOST_TEST(pipeline::hostAllowed("127.0.0.1:8080", options));
  BOOST_TEST(!pipeline::hostAllowed("0.0.0.0:8080", options));
  BOOST_TEST(!pipeline::hostAllowed("sluice:8080", options));
  options.allowed_hosts = "gateway.internal, sluice";
  BOOST_TEST(pipeline::hostAllowed("sluice:8080", options));
  BOOST_TEST(pipeline::hostAllowed("GATEWAY.internal", options));
  BOOST_TEST(!pipeline::hostAllowed("evil.example", options));
  options.allowed_hosts = "*";
  BOOST_TEST(pipeline::hostAllowed("evil.example", options));
  options.allowed_hosts.clear();
  options.listen = "gw.example:8080";
  BOOST_TEST(pipeline::hostAllowed("gw.example", options));
  BOOST_TEST(pipeline::jsonMediaType("Application/JSON ; charset=utf-8"));
  BOOST_TEST(!pipeline::jsonMediaType("text/plain"));
  BOOST_TEST(!pipeline::jsonMediaType(""));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing
