// What SREs and platform teams see: /metrics checked by promtool and scraped by a real Prometheus
// server, and live reload of the catalog (file watch and SIGHUP; a refused catalog leaves the last
// good one serving and says why).

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <Poco/Net/ServerSocket.h>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/child_process.h"
#include "tests/support/http_client.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

namespace {

std::string writeTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path.string();
}

int freePort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  return socket.address().port();
}

// Whether the gateway serves `id` now (404 model_not_found before it is declared).
bool modelListed(Gateway& gateway, const std::string& id) {
  const auto answer = gateway.call("POST", "/v1/messages", {},
                                   R"({"model":")" + id + R"(","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})");
  return answer.status == 200;
}

template <typename Predicate>
bool eventually(Predicate predicate, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return predicate();
}

void append(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

std::string readText(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(observability)

BOOST_AUTO_TEST_CASE(metrics_are_valid_exposition_and_count_what_happened) {
  GatewayOptions options;
  options.services = sluice::test::sourceDir() + "/tests/integration/catalogs/resilience";
  Gateway gateway(options);
  const std::string body = R"(,"max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";
  BOOST_REQUIRE_EQUAL(gateway.call("POST", "/v1/messages", {}, R"({"model":"deadfirst")" + body).status, 200);
  BOOST_REQUIRE_EQUAL(gateway.call("POST", "/v1/messages", {}, R"({"model":"nope")" + body).status, 404);
  BOOST_REQUIRE_EQUAL(gateway.call("POST", "/v1/chat/completions", {},
                                   R"({"model":"m","messages":[{"role":"user","content":"hi"}]})")
                          .status,
                      200);

  // A request is counted just after its answer went out, maybe while a scrape is being rendered:
  // scrape until one shows none in flight, then once more for a scrape rendered wholly after.
  for (int i = 0; i < 200; ++i) {
    if (gateway.call("GET", "/metrics").body.find("\ngateway_inflight_requests 0\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto scrape = gateway.call("GET", "/metrics");
  BOOST_REQUIRE_EQUAL(scrape.status, 200);
  BOOST_TEST(scrape.header("content-type").find("text/plain; version=0.0.4") == 0u);
  const std::string text = scrape.body;
  const std::string file = writeTemp("sluice-metrics.txt", text);
  int code = -1;
  const std::string lint = sluice::test::capture("promtool check metrics < " + file + " 2>&1", &code);
  BOOST_TEST(code == 0, lint);
  BOOST_TEST(lint.empty(), lint);

  auto has = [&](const std::string& line) {
    BOOST_TEST(text.find(line) != std::string::npos, "missing: " << line);
  };
  has(R"(gateway_requests_total{route="deadfirst",model="deadfirst",served_provider="backup",client_wire="anthropic",status="200",outcome="ok"} 1)");
  has(R"(gateway_requests_total{route="",model="",served_provider="",client_wire="anthropic",status="404",outcome="unknown_model"} 1)");
  has(R"(gateway_requests_total{route="m",model="m",served_provider="primary",client_wire="openai-chat",status="200",outcome="ok"} 1)");
  has(R"(gateway_upstream_failovers_total{from="dead",to="backup",reason="transport"} 1)");
  has(R"(gateway_upstream_attempts_total{provider="dead",endpoint="api",result="transport:connect"} 1)");
  has(R"(gateway_deployment_selected_total{route="deadfirst",provider="dead",strategy="ordered"} 1)");
  has(R"(gateway_breaker_state{provider="primary",endpoint="api"} 0)");
  has(R"(gateway_overhead_seconds_count{lane="translation"} 1)");
  has(R"(gateway_tokens_total{model="m",type="input"})");
  has("gateway_inflight_requests 0");
  has("gateway_catalog_info{version=");
}

BOOST_AUTO_TEST_CASE(a_real_prometheus_server_scrapes_the_gateway) {
  Gateway gateway;
  BOOST_REQUIRE_EQUAL(gateway.call("POST", "/v1/messages", {},
                                   R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})")
                          .status,
                      200);
  const std::string target = gateway.process().host() + ":" + std::to_string(gateway.process().port());
  const std::string config = writeTemp("sluice-prometheus.yml",
                                       "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                       "rule_files: ['" + sluice::test::sourceDir() + "/docs/prometheus-alerts.yml']\n"
                                       "scrape_configs:\n  - job_name: sluice\n"
                                       "    authorization: { type: Bearer, credentials: '" + std::string(sluice::test::kOpsToken) + "' }\n"
                                       "    static_configs:\n"
                                       "      - targets: ['" + target + "']\n");
  const std::string storage = std::filesystem::temp_directory_path() / ("sluice-prom-" + std::to_string(::getpid()));
  std::filesystem::remove_all(storage);
  const int port = freePort();
  sluice::test::ChildProcess prometheus({
      .binary = "/usr/bin/prometheus",
      .args = {"--config.file=" + config, "--storage.tsdb.path=" + storage,
               "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"},
      .wait_for_listening = false,
  });
  const std::string api = "http://127.0.0.1:" + std::to_string(port) + "/api/v1/query?query=";
  json sample;
  const bool scraped = eventually(
      [&] {
        try {
          const auto up = sluice::test::request("GET", api + "up%7Bjob%3D%22sluice%22%7D");
          if (up.status != 200) return false;
          const json result = up.json()["data"]["result"];
          if (result.empty() || result[0]["value"][1] != "1") return false;
          const auto requests = sluice::test::request("GET", api + "sum(gateway_requests_total)");
          sample = requests.json()["data"]["result"];
          return !sample.empty();
        } catch (const std::exception&) {
          return false;
        }
      },
      std::chrono::milliseconds(20000));
  BOOST_TEST(scraped, "Prometheus never scraped the gateway successfully");
  if (scraped) BOOST_TEST(sample[0]["value"][1] == "1");
  std::filesystem::remove_all(storage);
}

BOOST_AUTO_TEST_CASE(a_catalog_change_is_live_without_a_restart_and_a_bad_one_is_refused) {
  GatewayOptions options;
  options.extra_args = {"--watch-ms", "100"};
  Gateway gateway(options);
  const std::string models = gateway.servicesDir() + "/ai/models.yaml";
  const std::string deployments = gateway.servicesDir() + "/ai/deployments.yaml";
  const json before = gateway.call("GET", "/admin/api/catalog/status").json();
  BOOST_TEST(before["loaded_by"] == "boot");
  BOOST_TEST(!modelListed(gateway, "claude-live-1"));

  // A new model, written the way an editor or `git pull` does: two files, one after the other.
  append(models, "\n  claude-live-1:\n    clients: [claude]\n    limits: { context_window: 200000, max_output: 8000 }\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  append(deployments, "\n  claude-live-1: [anthropic/api]\n");
  BOOST_TEST(eventually([&] { return modelListed(gateway, "claude-live-1"); }));
  const json after = gateway.call("GET", "/admin/api/catalog/status").json();
  BOOST_TEST(after["loaded_by"] == "watch");
  BOOST_TEST(after["version"] != before["version"]);
  BOOST_TEST(gateway.call("POST", "/v1/messages", {},
                          R"({"model":"claude-live-1","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})")
                 .status == 200);

  // A broken catalog: refused with its diagnostics; the last good one keeps serving.
  BOOST_TEST(after["reload_refused_now"] == false);
  const std::string good_deployments = readText(deployments);
  append(deployments, "\n  no-such-model: [anthropic/api]\n");
  BOOST_TEST(eventually([&] {
    return gateway.call("GET", "/admin/api/catalog/status").json()["reloads_refused"] == 1;
  }));
  const json refused = gateway.call("GET", "/admin/api/catalog/status").json();
  BOOST_TEST(refused["version"] == after["version"]);
  BOOST_TEST(refused["last_refused"]["diagnostics"].dump().find("no-such-model") != std::string::npos,
             refused.dump());
  BOOST_TEST(modelListed(gateway, "claude-live-1"));
  const std::string text = gateway.call("GET", "/metrics").body;
  BOOST_TEST(text.find(R"(gateway_catalog_reloads_total{result="refused"} 1)") != std::string::npos);
  BOOST_TEST(text.find(R"(gateway_catalog_reloads_total{result="ok"} 1)") != std::string::npos);
  BOOST_TEST(refused["reload_refused_now"] == true);

  // The broken file put back as it was: the reload compiles to the catalog already serving, so
  // nothing is swapped or counted, and the refusal no longer stands (the console's banner goes).
  std::ofstream(deployments, std::ios::trunc) << good_deployments;
  BOOST_TEST(eventually([&] { return gateway.call("GET", "/admin/api/catalog/status").json()["reload_refused_now"] == false; }));
  const json mended = gateway.call("GET", "/admin/api/catalog/status").json();
  BOOST_TEST(mended["version"] == after["version"]);
  BOOST_TEST(mended["reloads_accepted"] == after["reloads_accepted"]);
  BOOST_TEST(mended["last_refused"]["at"] == refused["last_refused"]["at"]);
}

BOOST_AUTO_TEST_CASE(sighup_reloads_when_the_watch_is_off) {
  GatewayOptions options;
  options.extra_args = {"--watch-ms", "0"};
  Gateway gateway(options);
  append(gateway.servicesDir() + "/ai/models.yaml",
         "\n  claude-hup-1:\n    clients: [claude]\n    limits: { context_window: 200000, max_output: 8000 }\n");
  append(gateway.servicesDir() + "/ai/deployments.yaml", "\n  claude-hup-1: [anthropic/api]\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(!modelListed(gateway, "claude-hup-1"));
  gateway.process().sendSignal(SIGHUP);
  BOOST_TEST(eventually([&] { return modelListed(gateway, "claude-hup-1"); }));
  BOOST_TEST(gateway.call("GET", "/admin/api/catalog/status").json()["loaded_by"] == "sighup");
}

BOOST_AUTO_TEST_SUITE_END()
