// The server skeleton end to end: real `sluice` and the mock provider on port 0.

#include <csignal>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <boost/test/unit_test.hpp>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include "tests/integration/audit_rows.h"
#include "tests/integration/counting_proxy.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

const std::string kChat = R"({"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"Hello there"}]})";
const std::string kMessages =
    R"({"model":"claude-sonnet-5-5","max_tokens":64,"messages":[{"role":"user","content":"Hello there"}]})";

}  // namespace

BOOST_AUTO_TEST_SUITE(server)

BOOST_AUTO_TEST_CASE(health_and_readiness_answer_with_a_request_id) {
  Gateway gateway;
  auto health = gateway.call("GET", "/healthz");
  BOOST_TEST(health.status == 200);
  BOOST_TEST(health.json()["status"] == "ok");
  BOOST_TEST(health.header("x-sluice-request-id").size() == 36u);
  auto ready = gateway.call("GET", "/readyz");
  BOOST_TEST(ready.status == 200);
  BOOST_TEST(ready.json()["catalog"]["loaded"] == true);
}

BOOST_AUTO_TEST_CASE(readiness_reports_the_configured_database) {
  const std::string url = sluice::test::testDatabaseUrl();  // fails the test when unset
  GatewayOptions options;
  options.extra_args = {"--database-url", url};
  Gateway gateway(options);
  auto ready = gateway.call("GET", "/readyz");
  BOOST_TEST(ready.status == 200);
  BOOST_TEST(ready.json()["database"]["reachable"] == true);
}

// /readyz opened a PostgreSQL session per call on the event loop's thread (50 calls, 50 sessions;
// a slow database stalled the loop up to the connect timeout). It now answers from a background
// check's verdict: the gateway reaches PostgreSQL through a relay that counts connections, and
// 50 probes (10 at once) open none.
BOOST_AUTO_TEST_CASE(row7_readiness_never_touches_the_database_on_the_request_path) {
  const std::string database_url = sluice::test::testDatabaseUrl();  // fails the test when unset
  std::smatch at;
  BOOST_REQUIRE(std::regex_search(database_url, at, std::regex(R"(@([0-9.]+):([0-9]+)/)")));
  sluice::test::CountingProxy proxy(at[1].str(), std::stoi(at[2].str()));
  const std::string relayed = at.prefix().str() + "@127.0.0.1:" + std::to_string(proxy.port()) + "/" + at.suffix().str();
  {
    GatewayOptions options;
    options.extra_args = {"--database-url", relayed};
    options.auth = true;
    Gateway gateway(options);
    auto first = gateway.call("GET", "/readyz");
    BOOST_TEST(first.status == 200, first.body);
    BOOST_TEST(first.json()["database"]["reachable"] == true);
    const int before = proxy.accepted();
    std::vector<std::thread> clients;
    std::atomic<int> ready{0};
    for (int c = 0; c < 10; ++c) {
      clients.emplace_back([&] {
        for (int k = 0; k < 5; ++k) ready += gateway.call("GET", "/readyz").status == 200 ? 1 : 0;
      });
    }
    for (auto& client : clients) client.join();
    BOOST_TEST(ready.load() == 50);
    BOOST_TEST(proxy.accepted() - before == 0, "sessions opened by 50 /readyz calls: " << proxy.accepted() - before);

    // The database goes away: within a few checks /readyz says so, at once, without libpq's text.
    proxy.cut();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    sluice::test::HttpResponse down;
    for (;;) {
      const auto asked = std::chrono::steady_clock::now();
      down = gateway.call("GET", "/readyz");
      const auto took_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - asked).count();
      BOOST_TEST(took_ms < 500);  // from the verdict, never a connect on the request's thread
      if (down.status == 503 || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    BOOST_TEST(down.status == 503, down.body);
    BOOST_TEST(down.json()["database"]["error"] == "database unreachable", down.body);
    const std::string database = down.json()["database"].dump();
    BOOST_TEST(database.find("127.0.0.1") == std::string::npos, database);  // no host or user
    BOOST_TEST(database.find("sluice") == std::string::npos, database);
  }
}

BOOST_AUTO_TEST_CASE(models_are_listed_per_client_family) {
  Gateway gateway;
  auto claude = gateway.call("GET", "/v1/models", {{"anthropic-version", "2023-06-01"}});
  BOOST_REQUIRE_EQUAL(claude.status, 200);
  std::vector<std::string> ids;
  const auto claude_models = claude.json();  // keep the document alive for the loop
  for (const auto& model : claude_models["data"]) ids.push_back(model["id"]);
  BOOST_TEST(ids == (std::vector<std::string>{"claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"}),
             boost::test_tools::per_element());
  auto opencode = gateway.call("GET", "/v1/models", {{"User-Agent", "opencode/1.2.3"}});
  ids.clear();
  const auto opencode_models = opencode.json();
  for (const auto& model : opencode_models["data"]) ids.push_back(model["id"]);
  auto listed = [&](const std::string& id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  BOOST_TEST(listed("deepseek-v4-pro"));
  BOOST_TEST(listed("go-deepseek-v4-pro"));
  BOOST_TEST(!listed("claude-sonnet-5-5"));
  auto codex = gateway.call("GET", "/v1/models", {{"x-sluice-client", "codex"}});
  BOOST_TEST(codex.json()["data"][0]["id"] == "gpt-5-5");
}

BOOST_AUTO_TEST_CASE(messages_are_answered_by_the_mock_through_the_gateway) {
  Gateway gateway;
  auto response = gateway.call("POST", "/v1/messages", {{"x-api-key", "client-key"}}, kMessages);
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const auto body = response.json();
  BOOST_TEST(body["content"][0]["text"] == "Hello from the mock provider (claude-sonnet-5-5).");
  BOOST_TEST(!response.header("x-sluice-request-id").empty());
  // The caller's credentials are consumed, never forwarded: the mock saw the catalog's key.
  const auto last = gateway.mockJson("/_mock/last");
  BOOST_TEST(last["headers"]["x-api-key"] == "mock-anthropic-key");
  BOOST_TEST(last["headers"].contains("authorization") == false);
}

BOOST_AUTO_TEST_CASE(chat_completions_for_a_claude_model_are_translated) {
  Gateway gateway;
  auto response = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer client"}}, kChat);
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const auto body = response.json();
  BOOST_TEST(body["object"] == "chat.completion");
  BOOST_TEST(body["choices"][0]["message"]["content"] == "Hello from the mock provider (claude-sonnet-5-5).");
  BOOST_TEST(body["usage"]["prompt_tokens"] == 3);
  const auto last = gateway.mockJson("/_mock/last");
  BOOST_TEST(last["path"] == "/v1/messages");
  BOOST_TEST(last["json"]["max_tokens"] == 128000);  // Anthropic requires it: the model's ceiling
}

BOOST_AUTO_TEST_CASE(unknown_and_retired_models_are_refused_in_the_callers_format) {
  Gateway gateway;
  auto chat = gateway.call("POST", "/v1/chat/completions", {},
                           R"({"model":"gpt-9","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(chat.status == 404);
  BOOST_TEST(chat.json()["error"]["code"] == "model_not_found");
  auto messages = gateway.call("POST", "/v1/messages", {},
                               R"({"model":"claude-sonnet-4-5","max_tokens":5,"messages":[]})");
  BOOST_TEST(messages.status == 404);
  BOOST_TEST(messages.json()["type"] == "error");
  BOOST_TEST(messages.json()["error"]["error_key"] == "retired_model");
  BOOST_TEST(messages.json()["error"]["message"].get<std::string>().find("claude-sonnet-5-5") != std::string::npos);
}

// A body nested past the bound is refused before it is parsed (parsed values are walked
// recursively), in the caller's format, and the gateway keeps serving.
BOOST_AUTO_TEST_CASE(a_body_nested_too_deep_is_a_400_and_the_gateway_keeps_serving) {
  Gateway gateway;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto messages = gateway.call(
      "POST", "/v1/messages", {},
      R"({"model":"claude-sonnet-5-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":{"type":"object","x":)" +
          deep + "}}]}");
  BOOST_TEST(messages.status == 400);
  BOOST_TEST(messages.json()["type"] == "error");
  BOOST_TEST(messages.json()["error"]["message"].get<std::string>().find("deeper than 200") != std::string::npos);
  auto chat = gateway.call("POST", "/v1/chat/completions", {},
                           R"({"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"hi"}],"x":)" + deep + "}");
  BOOST_TEST(chat.status == 400);
  BOOST_TEST(chat.json()["error"]["type"] == "invalid_request_error");
  BOOST_TEST(gateway.call("POST", "/v1/messages", {}, kMessages).status == 200);
}

BOOST_AUTO_TEST_CASE(malformed_json_is_a_400_in_the_callers_format) {
  Gateway gateway;
  auto responses = gateway.call("POST", "/v1/responses", {}, "{not json");
  BOOST_TEST(responses.status == 400);
  BOOST_TEST(responses.json()["error"]["code"] == "invalid_json");
  auto wrong_method = gateway.call("GET", "/v1/messages");
  BOOST_TEST(wrong_method.status == 405);
  auto unknown = gateway.call("GET", "/v2/nothing");
  BOOST_TEST(unknown.status == 404);
}

BOOST_AUTO_TEST_CASE(oversized_bodies_and_headers_get_413_and_431_as_json) {
  GatewayOptions options;
  options.extra_args = {"--max-body-bytes", "1000", "--max-header-bytes", "2000"};
  Gateway gateway(options);
  auto big = gateway.call("POST", "/v1/messages", {}, std::string(5000, ' ') + kMessages);
  BOOST_TEST(big.status == 413);
  BOOST_TEST(big.json()["error"]["error_key"] == "request_too_large");
  auto headers = gateway.call("POST", "/v1/messages", {{"x-padding", std::string(3000, 'a')}}, kMessages);
  BOOST_TEST(headers.status == 431);
  BOOST_TEST(headers.json()["error"]["code"] == "request_header_fields_too_large");
  BOOST_TEST(!headers.header("x-sluice-request-id").empty());
  auto huge_field = gateway.call("POST", "/v1/messages", {{"x-padding", std::string(10000, 'a')}}, kMessages);
  BOOST_TEST(huge_field.status == 431);
}

BOOST_AUTO_TEST_CASE(sigterm_drains_and_exits_zero) {
  Gateway gateway;
  BOOST_TEST(gateway.call("GET", "/healthz").status == 200);
  BOOST_TEST(gateway.process().stop() == 0);
  BOOST_TEST(gateway.process().stderrText().find("\"msg\":\"stopped\"") != std::string::npos);
}

// Draining: a kept-alive connection waiting for its next request is closed at once, a request in
// flight is answered, and the gateway exits 0 with nothing abandoned.
BOOST_AUTO_TEST_CASE(draining_closes_idle_connections_at_once_and_answers_the_request_in_flight) {
  Gateway gateway;
  Poco::Net::StreamSocket idle(Poco::Net::SocketAddress(gateway.process().host(), gateway.process().port()));
  const std::string health = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
  idle.sendBytes(health.data(), static_cast<int>(health.size()));
  char buffer[4096];
  BOOST_REQUIRE(idle.receiveBytes(buffer, sizeof buffer) > 0);  // answered; the connection stays open

  sluice::test::HttpResponse slow;
  std::thread in_flight([&] {
    slow = gateway.call("POST", "/v1/messages", {{"x-mock-script", R"({"delay_ms":1000})"}}, kMessages);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto signalled = std::chrono::steady_clock::now();
  BOOST_REQUIRE(::kill(gateway.process().pid(), SIGTERM) == 0);
  idle.setReceiveTimeout(Poco::Timespan(5, 0));
  int got = -1;
  try {
    got = idle.receiveBytes(buffer, sizeof buffer);
  } catch (const Poco::Exception&) {
    got = -2;  // reset counts as closed too
  }
  const auto closed_after = std::chrono::steady_clock::now() - signalled;
  BOOST_TEST(got <= 0);
  BOOST_TEST((closed_after < std::chrono::seconds(2)));
  in_flight.join();
  BOOST_TEST(slow.status == 200);
  const auto code = gateway.process().waitForExit(std::chrono::seconds(10));
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 0);
  BOOST_TEST(gateway.process().stderrText().find("\"abandoned_connections\":0") != std::string::npos);
}

// A second gateway on a port already served refuses to start (it must not share the port and take
// half of the connections with whatever catalog it has).
BOOST_AUTO_TEST_CASE(a_second_gateway_on_a_port_in_use_refuses_to_start) {
  Gateway first;
  BOOST_TEST(first.call("GET", "/healthz").status == 200);
  sluice::test::ChildProcess second(
      {.binary = sluice::test::binPath("sluice"),
       .args = {"--services", sluice::test::sourceDir() + "/services", "--listen",
                "127.0.0.1:" + std::to_string(first.process().port()), "--insecure-no-auth"},
       .wait_for_listening = false});
  const auto code = second.waitForExit(std::chrono::seconds(10));
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 1);
  BOOST_TEST(second.stderrText().find("cannot listen on 127.0.0.1:") != std::string::npos, second.stderrText());
  BOOST_TEST(first.call("GET", "/healthz").status == 200);
}

BOOST_AUTO_TEST_CASE(an_invalid_catalog_refuses_to_start_with_every_diagnostic) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sluice-bad-catalog-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/services", dir, fs::copy_options::recursive);
  {
    std::ofstream gateway_yaml(dir / "ai/gateway.yaml");
    gateway_yaml << "gateway:\n  default_model: claude-nonexistent\n  routez: []\n";
  }
  sluice::test::ChildProcess sluice({.binary = sluice::test::binPath("sluice"),
                                     .args = {"--services", dir.string(), "--listen", "127.0.0.1:0", "--insecure-no-auth"},
                                     .wait_for_listening = false});
  const auto code = sluice.waitForExit(std::chrono::seconds(10));
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 2);
  const std::string errors = sluice.stderrText();
  BOOST_TEST(errors.find("gateway.yaml:2:") != std::string::npos);
  BOOST_TEST(errors.find("gateway.yaml:3:") != std::string::npos);
  BOOST_TEST(errors.find("routez") != std::string::npos);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
