// Failover, retry budgets, breakers, timeouts, optional-field retry, context windows and client
// hang-ups, each fault injected through the mock provider and checked the way an operator sees it:
// the client's answer, the audit row (real PostgreSQL) and what the provider received.
//
// The catalog is tests/integration/catalogs/resilience: `primary` and `secondary` pass the test's
// x-mock-script on (the fault), `backup` always answers normally, `dead` refuses connections.

#include <chrono>
#include <string>

#include <boost/test/unit_test.hpp>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/sse.h"
#include "tests/support/test_env.h"
#include "tests/support/wait_until.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;
using sluice::test::waitUntil;
using Clock = std::chrono::steady_clock;

namespace {

struct Fixture {
  explicit Fixture(const std::vector<std::string>& more_args = {})
      : url(testDatabaseUrl()), gateway(options(url, more_args)) {}

  static GatewayOptions options(const std::string& database_url, const std::vector<std::string>& more_args) {
    GatewayOptions options;
    options.services = sluice::test::sourceDir() + "/tests/integration/catalogs/resilience";
    options.extra_args = {"--database-url", database_url, "--audit-spool",
                          "/tmp/sluice-it-resilience-" + std::to_string(::getpid())};
    for (const auto& arg : more_args) options.extra_args.push_back(arg);
    return options;
  }

  // Anthropic Messages request for `model`, with the mock script `script` ("" = none).
  sluice::test::HttpResponse messages(const std::string& model, const std::string& script,
                                      const std::string& extra = "") {
    sluice::test::Headers headers;
    if (!script.empty()) headers.emplace_back("x-mock-script", script);
    return gateway.call("POST", "/v1/messages", headers,
                        R"({"model":")" + model + R"(","max_tokens":50,)" + extra +
                            R"("messages":[{"role":"user","content":"hi"}]})");
  }

  sluice::test::StreamResult messagesStream(const std::string& model, const std::string& script,
                                            const sluice::test::OnData& on_data =
                                                [](std::string_view, const std::string&) { return true; }) {
    sluice::test::Headers headers;
    if (!script.empty()) headers.emplace_back("x-mock-script", script);
    return gateway.stream("/v1/messages", headers,
                          R"({"model":")" + model +
                              R"(","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]})",
                          on_data);
  }

  // Requests the mock received on `path` (e.g. "/primary/v1/messages").
  int received(const std::string& path) {
    const json stats = gateway.mockJson("/_mock/stats");
    if (!stats["paths"].contains(path)) return 0;
    return stats["paths"][path]["requests"].get<int>();
  }

  json mockCounter(const std::string& path, const std::string& counter) {
    const json stats = gateway.mockJson("/_mock/stats");
    if (!stats["paths"].contains(path)) return 0;
    return stats["paths"][path][counter];
  }

  // A client that hangs up while its request waits on the provider (before the first byte, then
  // mid-stream) closes the upstream connection at once, and the audit row says so.
  void checkHangUpsCloseTheProviderAtOnce() {
    const std::string path = "/patient/v1/messages";
    const std::string body =
        R"({"model":"slow","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]})";
    const std::string head = "POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                             "x-mock-script: {\"delay_ms\":15000}\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n";
    Poco::Net::StreamSocket socket(Poco::Net::SocketAddress(gateway.process().host(), gateway.process().port()));
    socket.sendBytes(head.data(), static_cast<int>(head.size()));
    socket.sendBytes(body.data(), static_cast<int>(body.size()));
    // Wait until the provider has the request, then hang up.
    waitUntil([&] { return received(path) != 0; }, std::chrono::seconds(5), "the provider to get the request");
    BOOST_REQUIRE_EQUAL(received(path), 1);
    const auto hung_up = Clock::now();
    socket.close();
    waitUntil([&] { return mockCounter(path, "delays_abandoned") == 1; }, std::chrono::seconds(5),
              "the provider to see the gateway close its connection (before the first byte)");
    auto noticed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - hung_up);
    BOOST_TEST_MESSAGE("upstream closed " << noticed.count() << " ms after the client hung up (before the first byte)");
    BOOST_TEST(noticed.count() < 500);  // 20 ms watch + 10 ms mock poll; generous for a shared machine

    // Mid-stream: the first events reached the client, then the provider went silent.
    Clock::time_point cut;
    auto result = messagesStream("slow", R"({"stall_after_events":3})", [&](std::string_view, const std::string& so_far) {
      if (sluice::test::parseSse(so_far).size() < 2) return true;
      cut = Clock::now();
      return false;
    });
    BOOST_TEST(result.hung_up);
    waitUntil([&] { return mockCounter(path, "streams_aborted") == 1; }, std::chrono::seconds(5),
              "the provider to see the gateway close its connection (mid-stream)");
    noticed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut);
    BOOST_TEST_MESSAGE("upstream closed " << noticed.count() << " ms after the client hung up (mid-stream)");
    BOOST_TEST(noticed.count() < 500);

    const json audit = row(result);
    BOOST_REQUIRE(audit.is_object());
    BOOST_TEST(audit["outcome"] == "client_gone_mid_stream");
    BOOST_TEST(audit["status"] == 499);
    BOOST_TEST(audit["input_tokens"].get<int>() > 0);  // the usage produced so far is accounted
  }

  json row(const sluice::test::HttpResponse& response) { return auditRow(url, response.header("x-sluice-request-id")); }
  json row(const sluice::test::StreamResult& response) { return auditRow(url, response.header("x-sluice-request-id")); }

  std::string url;
  Gateway gateway;
};

const std::string kPrimary = "/primary/v1/messages";
const std::string kSecondary = "/secondary/v1/messages";
const std::string kBackup = "/backup/v1/messages";

std::string attemptResults(const json& row) {
  std::string out;
  for (const auto& attempt : row["attempts"]) {
    if (!out.empty()) out += ",";
    out += attempt["endpoint"].get<std::string>() + "=" + attempt["result"].get<std::string>();
  }
  return out;
}

std::string lastSseEvent(const std::string& body) {
  const auto events = sluice::test::parseSse(body);
  return events.empty() ? std::string() : events.back().event;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(resilience, Fixture)

BOOST_AUTO_TEST_CASE(connection_refused_fails_over_to_the_next_deployment) {
  auto response = messages("deadfirst", "");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json audit = row(response);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(audit["outcome"] == "ok");
  BOOST_TEST(audit["served_provider"] == "backup");
  BOOST_TEST(audit["provider"] == "dead");
  BOOST_TEST(audit["route_match"].get<std::string>().find("failover:dead->backup") != std::string::npos);
  BOOST_TEST(attemptResults(audit) == "dead/api=transport:connect,backup/api=ok");
}

// Each status on a fresh gateway: three failures in a row would open primary's breaker.
BOOST_AUTO_TEST_CASE(server_errors_fail_over_and_overload_spends_the_retry_budget_first) {
  for (const int status : {500, 502, 503, 529}) {
    BOOST_TEST_CONTEXT("status " << status) {
      Fixture fresh;
      auto response = fresh.messages("m", R"({"status":)" + std::to_string(status) + "}");
      BOOST_REQUIRE_EQUAL(response.status, 200);
      const int tries = status == 503 || status == 529 ? 2 : 1;  // retry: { attempts: 1 }
      BOOST_TEST(fresh.received(kPrimary) == tries);
      BOOST_TEST(fresh.received(kBackup) == 1);
      const json audit = fresh.row(response);
      BOOST_REQUIRE(audit.is_object());
      BOOST_TEST(audit["served_provider"] == "backup");
      BOOST_TEST(audit["attempts"].size() == static_cast<size_t>(tries + 1));
      BOOST_TEST(audit["attempts"][0]["status"] == status);
      BOOST_TEST(audit["route_match"].get<std::string>().find("failover:primary->backup") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(rate_limit_honours_retry_after_then_fails_over) {
  const auto started = Clock::now();
  auto response = messages("m", R"({"status":429,"retry_after":1})");
  const auto waited = Clock::now() - started;
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(received(kPrimary) == 2);
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() >= 950);
  const json audit = row(response);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(attemptResults(audit) == "primary/api=status_429,primary/api=status_429,backup/api=ok");

  // A Retry-After beyond what a request may wait: straight to the next deployment.
  const auto again = Clock::now();
  auto long_wait = messages("m", R"({"status":429,"retry_after":120})");
  BOOST_REQUIRE_EQUAL(long_wait.status, 200);
  BOOST_TEST(received(kPrimary) == 3);
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - again).count() < 900);

  // Without Retry-After: the policy's backoff (50 ms), then the next deployment. (A fresh gateway:
  // three 429s in a row opened primary's breaker.)
  Fixture fresh;
  auto plain = fresh.messages("m", R"({"status":429})");
  BOOST_REQUIRE_EQUAL(plain.status, 200);
  BOOST_TEST(fresh.received(kPrimary) == 2);
  const json plain_row = fresh.row(plain);
  BOOST_REQUIRE(plain_row.is_object());
  BOOST_TEST(attemptResults(plain_row) == "primary/api=status_429,primary/api=status_429,backup/api=ok");
}

BOOST_AUTO_TEST_CASE(a_client_error_never_fails_over) {
  for (const int status : {400, 401, 403, 404}) {
    BOOST_TEST_CONTEXT("status " << status) {
      auto response = messages("m", R"({"status":)" + std::to_string(status) + "}");
      BOOST_TEST(response.status == status);
      BOOST_TEST(response.json()["type"] == "error");
      BOOST_TEST(received(kBackup) == 0);
      const json audit = row(response);
      BOOST_REQUIRE(audit.is_object());
      BOOST_TEST(audit["outcome"] == "upstream_error");
      BOOST_TEST(audit["attempts"].size() == 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_deployment_failing_gives_the_last_real_error_in_the_clients_format) {
  auto response = messages("both", R"({"status":500,"error_message":"primary and secondary are down"})");
  BOOST_REQUIRE_EQUAL(response.status, 500);
  const json body = response.json();
  BOOST_TEST(body["type"] == "error");
  BOOST_TEST(body["error"]["type"] == "api_error");
  BOOST_TEST(body["error"]["message"].get<std::string>().find("primary and secondary are down") != std::string::npos);
  BOOST_TEST(received(kPrimary) == 1);
  BOOST_TEST(received(kSecondary) == 1);
  const json audit = row(response);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(audit["outcome"] == "all_deployments_failed");
  BOOST_TEST(audit["route_match"].get<std::string>().find("failover:primary->secondary") != std::string::npos);

  // The same through the OpenAI Chat client: its own error shape and code.
  auto chat = gateway.call("POST", "/v1/chat/completions", {{"x-mock-script", R"({"status":529})"}},
                           R"({"model":"both","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(chat.status == 503);
  BOOST_TEST(chat.json()["error"]["code"] == "server_is_overloaded");
}

BOOST_AUTO_TEST_CASE(a_reset_before_the_first_byte_fails_over_after_it_the_stream_ends_with_an_error) {
  auto plain = messages("m", R"({"reset_after_events":0})");
  BOOST_REQUIRE_EQUAL(plain.status, 200);
  BOOST_TEST(plain.json()["content"][0]["text"].get<std::string>().find("Hello from the mock provider") == 0u);

  auto before = messagesStream("m", R"({"reset_after_events":0})");
  BOOST_REQUIRE_EQUAL(before.status, 200);
  BOOST_TEST(before.complete);
  BOOST_TEST(lastSseEvent(before.body) == "message_stop");
  const json failed_over = row(before);
  BOOST_REQUIRE(failed_over.is_object());
  BOOST_TEST(failed_over["served_provider"] == "backup");
  BOOST_TEST(attemptResults(failed_over) == "primary/api=transport:reset,backup/api=ok");

  const int backup_before = received(kBackup);
  auto after = messagesStream("m", R"({"reset_after_events":3})");
  BOOST_REQUIRE_EQUAL(after.status, 200);
  BOOST_TEST(after.complete);  // the client's stream still ends cleanly
  BOOST_TEST(lastSseEvent(after.body) == "error");
  BOOST_TEST(received(kBackup) == backup_before);  // never switched after the first byte
  const json broken = row(after);
  BOOST_REQUIRE(broken.is_object());
  BOOST_TEST(broken["outcome"] == "upstream_error");
  BOOST_TEST(broken["served_provider"] == "primary");
}

BOOST_AUTO_TEST_CASE(a_slow_first_byte_times_out_and_fails_over_a_stalled_stream_ends_with_an_error) {
  const auto started = Clock::now();
  auto slow = messages("m", R"({"delay_ms":3000})");  // first_byte_ms: 500
  BOOST_REQUIRE_EQUAL(slow.status, 200);
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count() < 2500);
  const json audit = row(slow);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(attemptResults(audit) == "primary/api=transport:timeout,backup/api=ok");

  auto stalled = messagesStream("m", R"({"stall_after_events":3})");  // idle_ms: 500
  BOOST_REQUIRE_EQUAL(stalled.status, 200);
  BOOST_TEST(stalled.complete);
  BOOST_TEST(lastSseEvent(stalled.body) == "error");
  const json stall_row = row(stalled);
  BOOST_REQUIRE(stall_row.is_object());
  BOOST_TEST(stall_row["outcome"] == "upstream_error");
}

BOOST_AUTO_TEST_CASE(an_optional_field_the_target_refuses_is_dropped_and_the_same_target_retried) {
  auto response = gateway.call("POST", "/v1/chat/completions", {{"x-mock-script", R"({"reject_fields":["seed"]})"}},
                               R"({"model":"chatty","seed":7,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json history = gateway.mockJson("/_mock/requests");
  BOOST_REQUIRE(history.size() == 2u);
  BOOST_TEST(history[0]["path"] == "/primary-chat/v1/chat/completions");
  BOOST_TEST(history[0]["json"].contains("seed"));
  BOOST_TEST(history[1]["path"] == "/primary-chat/v1/chat/completions");
  BOOST_TEST(!history[1]["json"].contains("seed"));
  const json audit = row(response);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(audit["served_provider"] == "primary");
  BOOST_TEST(audit["route_match"].get<std::string>().find("retried_without:seed") != std::string::npos);

  // A required field is never dropped: the 400 reaches the client.
  auto required = gateway.call("POST", "/v1/chat/completions",
                               {{"x-mock-script", R"({"reject_fields":["messages"]})"}},
                               R"({"model":"chatty","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(required.status == 400);
}

BOOST_AUTO_TEST_CASE(a_failing_endpoint_opens_its_breaker_and_a_probe_closes_it) {
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE_EQUAL(messages("m", R"({"status":500})").status, 200);
  BOOST_TEST(received(kPrimary) == 3);  // breaker: { failures: 3, cooldown_s: 1 }
  auto skipped = messages("m", R"({"status":500})");
  BOOST_REQUIRE_EQUAL(skipped.status, 200);
  BOOST_TEST(received(kPrimary) == 3);  // open: not tried while a healthy deployment is left
  const json audit = row(skipped);
  BOOST_REQUIRE(audit.is_object());
  // An open breaker moves its deployment to the end: backup answers first, primary is never asked.
  BOOST_TEST(attemptResults(audit) == "backup/api=ok");

  // The cooldown (1 s) ends inside the gateway, out of sight: ask until a request goes to primary
  // again. Until then backup answers each one and primary is not asked.
  sluice::test::HttpResponse probe;
  waitUntil(
      [&] {
        probe = messages("m", "");
        return probe.status != 200 || received(kPrimary) != 3;
      },
      std::chrono::seconds(5), "primary's breaker to let a probe through after its 1 s cooldown");
  BOOST_REQUIRE_EQUAL(probe.status, 200);
  BOOST_TEST(received(kPrimary) == 4);  // half-open: this request was the probe
  const json probed = row(probe);
  BOOST_REQUIRE(probed.is_object());
  BOOST_TEST(probed["served_provider"] == "primary");
  BOOST_REQUIRE_EQUAL(messages("m", "").status, 200);
  BOOST_TEST(received(kPrimary) == 5);  // closed again
}

BOOST_AUTO_TEST_CASE(when_every_breaker_is_open_all_are_tried_anyway) {
  for (int i = 0; i < 3; ++i) messages("both", R"({"status":500})");
  BOOST_TEST(received(kPrimary) == 3);
  BOOST_TEST(received(kSecondary) == 3);
  auto response = messages("both", "");
  BOOST_TEST(response.status == 200);  // never left unsent
  BOOST_TEST(received(kPrimary) == 4);
}

BOOST_AUTO_TEST_CASE(weighted_strategy_spreads_by_weight) {
  for (int i = 0; i < 80; ++i) BOOST_REQUIRE_EQUAL(messages("pool", "").status, 200);
  const int primary = received(kPrimary);
  const int backup = received(kBackup);
  BOOST_TEST(primary + backup == 80);
  BOOST_TEST_MESSAGE("weighted 3:1 over 80 requests: primary " << primary << ", backup " << backup);
  BOOST_TEST(primary >= 45);  // expected 60; binomial sd ~3.9
  BOOST_TEST(primary <= 75);
}

BOOST_AUTO_TEST_CASE(a_prompt_too_large_moves_to_a_fitting_fallback_or_is_refused_before_any_call) {
  const std::string prompt(600, 'x');  // ~150 tokens; small and tiny hold 50
  auto moved = gateway.call("POST", "/v1/messages", {},
                            R"({"model":"small","max_tokens":10,"messages":[{"role":"user","content":")" + prompt +
                                R"("}]})");
  BOOST_REQUIRE_EQUAL(moved.status, 200);
  const json audit = row(moved);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(audit["model"] == "big");
  BOOST_TEST(audit["route_match"].get<std::string>().find("context_window:small->big") != std::string::npos);

  const int before = received(kBackup);
  auto refused = gateway.call("POST", "/v1/chat/completions", {},
                              R"({"model":"tiny","messages":[{"role":"user","content":")" + prompt + R"("}]})");
  BOOST_TEST(refused.status == 400);
  const json error = refused.json()["error"];
  BOOST_TEST(error["code"] == "context_window_exceeded");
  const std::string message = error["message"].get<std::string>();
  BOOST_TEST(message.find("tiny") != std::string::npos, message);
  BOOST_TEST(message.find("50") != std::string::npos, message);
  BOOST_TEST(received(kBackup) == before);  // no upstream call
  const json refused_row = row(refused);
  BOOST_REQUIRE(refused_row.is_object());
  BOOST_TEST(refused_row["outcome"] == "context_window_exceeded");
}

BOOST_AUTO_TEST_CASE(an_oversized_max_tokens_is_clamped_to_the_models_ceiling) {
  auto response = gateway.call("POST", "/v1/messages", {},
                               R"({"model":"m","max_tokens":5000,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["json"]["max_tokens"] == 100);
}

// Hanging up while the provider is silent closes the upstream connection at once: that is what
// stops generation and billing. The mock notices its client (the gateway) leaving within ~10 ms.
BOOST_AUTO_TEST_CASE(a_hang_up_while_the_provider_is_silent_closes_the_upstream_connection_at_once) {
  checkHangUpsCloseTheProviderAtOnce();
}

// The passthrough lane never re-serialises the client's body: the members it changes are
// rewritten in place, and the provider receives every other byte as the client wrote it.
BOOST_AUTO_TEST_CASE(passthrough_rewrites_only_the_members_it_changes) {
  const std::string body =
      "{ \"model\" :\"renamed\",\n  \"max_tokens\": 64, \"x-unknown\": {\"model\": \"kept\", \"n\": 1.50e+1},"
      " \"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"caf\xC3\xA9 \\\"q\\\" \\u00e9\","
      "\"cache_control\":{\"type\":\"ephemeral\"}}]}] }";
  auto response = gateway.call("POST", "/v1/messages", {}, body);
  BOOST_REQUIRE_MESSAGE(response.status == 200, response.status << " " << response.body);
  std::string expected = body;
  expected.replace(expected.find("\"renamed\""), 9, "\"upstream-name\"");
  BOOST_TEST(gateway.mockJson("/_mock/last")["body"].get<std::string>() == expected);

  // A Chat stream gets stream_options.include_usage appended (the relay hides the usage chunk again).
  auto streamed = gateway.call("POST", "/v1/chat/completions", {},
                               R"({"model":"renamed-chat","stream":true,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(streamed.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["body"].get<std::string>() ==
             R"({"model":"upstream-chat","stream":true,"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}})");

  // stream_options of the client's own keeps its other members.
  auto own_options = gateway.call(
      "POST", "/v1/chat/completions", {},
      R"({"model":"renamed-chat","stream":true,"stream_options":{"include_usage":false,"x":1},"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(own_options.status, 200);
  const auto sent = gateway.mockJson("/_mock/last")["json"];
  BOOST_TEST(sent["stream_options"]["include_usage"] == true);
  BOOST_TEST(sent["stream_options"]["x"] == 1);
  BOOST_TEST(sent["model"] == "upstream-chat");

  // A key written with escapes is still read (the parse serves it).
  auto escaped = gateway.call("POST", "/v1/chat/completions", {},
                              R"({"mod\u0065l":"renamed-chat","messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(escaped.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["json"]["model"] == "upstream-chat");

  // Nesting up to the bound is walked and passed through; past it the body is refused before any
  // parse (a parsed value that deep would be walked recursively), and nothing reaches the provider.
  auto nestedBody = [](int depth) {
    return R"({"model":"renamed-chat","x_deep":)" + std::string(depth - 1, '[') + std::string(depth - 1, ']') +
           R"(,"messages":[{"role":"user","content":"hi"}]})";
  };
  auto nested = gateway.call("POST", "/v1/chat/completions", {}, nestedBody(200));
  BOOST_REQUIRE_EQUAL(nested.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["json"]["model"] == "upstream-chat");
  const json before = gateway.mockJson("/_mock/stats");
  auto too_deep = gateway.call("POST", "/v1/chat/completions", {}, nestedBody(300));
  BOOST_TEST(too_deep.status == 400);
  BOOST_TEST(too_deep.json()["error"]["message"].get<std::string>().find("deeper than 200 levels") != std::string::npos);
  BOOST_TEST(gateway.mockJson("/_mock/stats") == before);
}

BOOST_AUTO_TEST_CASE(a_body_that_is_not_utf8_is_refused_before_any_provider_call) {
  const auto before = gateway.mockJson("/_mock/stats");
  auto response = gateway.call("POST", "/v1/messages", {},
                               "{\"model\":\"renamed\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"\xFF\"}]}");
  BOOST_TEST(response.status == 400);
  BOOST_TEST(response.json()["type"] == "error");
  BOOST_TEST(response.json()["error"]["message"] == "request body is not valid JSON");
  BOOST_TEST(gateway.mockJson("/_mock/stats") == before);
}

BOOST_AUTO_TEST_SUITE_END()

// The thread-per-connection form (--workers 0) keeps working: failover, a stream, and hang-ups
// noticed by the polling watch thread instead of the connection's own socket.
namespace {
struct ThreadPerConnection : Fixture {
  ThreadPerConnection() : Fixture({"--workers", "0"}) {}
};
}  // namespace

BOOST_FIXTURE_TEST_SUITE(thread_per_connection, ThreadPerConnection)

BOOST_AUTO_TEST_CASE(failover_streams_and_hang_ups_work_with_a_thread_per_connection) {
  // The listening log line goes to stderr just before "listening on" goes to stdout; the two pipes
  // are read by different threads, so wait for it.
  BOOST_TEST(gateway.process().waitForStderr("\"workers\":0", std::chrono::seconds(5)));
  auto response = messages("deadfirst", "");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json audit = row(response);
  BOOST_REQUIRE(audit.is_object());
  BOOST_TEST(attemptResults(audit) == "dead/api=transport:connect,backup/api=ok");
  const auto stream = messagesStream("deadfirst", "");
  BOOST_TEST(lastSseEvent(stream.body) == "message_stop");
  checkHangUpsCloseTheProviderAtOnce();
}

BOOST_AUTO_TEST_SUITE_END()
