// Routing from the model name and own machines as targets, against the real gateway, the mock
// provider and PostgreSQL: an ad-hoc chain fails over from piece to piece and is audited as such;
// a chain holding a piece the caller is denied is refused; an own machine is used only while the
// presence hub (a tiny one in this test) says it is available; a body over max_input_bytes skips
// its endpoint.
//
// The catalog is tests/integration/catalogs/routing: the resilience catalog (`primary` and
// `secondary` pass the test's x-mock-script on, `backup` always answers) plus `own/studio`, an own
// machine with no url (the hub reports the mock provider's address), and `small/api` with
// max_input_bytes: 600.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/integration/members.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

// A presence hub: GET /presence answers the document the test last set.
class PresenceHub {
 public:
  PresenceHub() : socket_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    auto* params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(4);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket_, params);
    server_->start();
  }
  ~PresenceHub() { server_->stopAll(true); }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(socket_.address().port()); }
  void set(std::string document) {
    std::lock_guard lock(mutex_);
    document_ = std::move(document);
  }
  int polls() const { return polls_.load(); }

 private:
  struct Handler : Poco::Net::HTTPRequestHandler {
    explicit Handler(PresenceHub& hub) : hub_(hub) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override {
      if (request.getURI() != "/presence") {
        response.setStatus(Poco::Net::HTTPResponse::HTTP_NOT_FOUND);
        response.send() << "{}";
        return;
      }
      ++hub_.polls_;
      std::string body;
      {
        std::lock_guard lock(hub_.mutex_);
        body = hub_.document_;
      }
      response.setContentType("application/json");
      response.setContentLength(static_cast<std::streamsize>(body.size()));
      response.send() << body;
    }
    PresenceHub& hub_;
  };
  struct Factory : Poco::Net::HTTPRequestHandlerFactory {
    explicit Factory(PresenceHub& hub) : hub_(hub) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
      return new Handler(hub_);
    }
    PresenceHub& hub_;
  };

  Poco::Net::ServerSocket socket_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  mutable std::mutex mutex_;
  std::string document_ = R"({"nodes": {}})";
  std::atomic<int> polls_{0};
};

// A private copy of the routing catalog (the access test rewrites its rules).
std::string routingCatalog() {
  namespace fs = std::filesystem;
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("sluice-it-routing-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::copy(sluice::test::sourceDir() + "/tests/integration/catalogs/routing", dir, fs::copy_options::recursive);
  return dir.string();
}

GatewayOptions routingOptions(const PresenceHub& hub, const std::string& services, bool auth = false) {
  GatewayOptions options;
  options.services = services;
  options.auth = auth;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-routing-" + std::to_string(::getpid())};
  options.extra_env = {{"PRESENCE_HUB_URL", hub.url()}};
  return options;
}

std::string messagesBody(const std::string& model, size_t padding = 0) {
  return R"({"model":")" + model + R"(","max_tokens":50,"messages":[{"role":"user","content":"hi)" +
         std::string(padding, 'x') + R"("}]})";
}

std::string chatBody(const std::string& model) {
  return R"({"model":")" + model + R"(","messages":[{"role":"user","content":"hi"}]})";
}

json rowOf(const sluice::test::HttpResponse& response) {
  return auditRow(testDatabaseUrl(), response.header("x-sluice-request-id"));
}

std::string attemptResults(const json& row) {
  std::string out;
  for (const auto& attempt : row["attempts"]) {
    if (!out.empty()) out += ",";
    out += attempt["endpoint"].get<std::string>() + "=" + attempt["result"].get<std::string>();
  }
  return out;
}

std::string studioDocument(bool available, int mock_port, const std::string& reason) {
  return R"({"nodes": {"studio": {"available": )" + std::string(available ? "true" : "false") + R"(, "reason": ")" +
         reason + R"(", "host": "127.0.0.1", "port": )" + std::to_string(mock_port) + R"(, "busy": false}}})";
}

int mockPort(Gateway& gateway) { return gateway.mock().port(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(routing)

BOOST_AUTO_TEST_CASE(an_ad_hoc_chain_whose_first_piece_fails_is_served_by_the_second_and_audited_so) {
  PresenceHub hub;
  Gateway gateway(routingOptions(hub, routingCatalog()));
  // `both` is primary/api then secondary/api, both failing with the script's 500; `big` is backup/api.
  auto response = gateway.call("POST", "/v1/messages", {{"x-mock-script", R"({"status":500})"}}, messagesBody("both|big"));
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json row = rowOf(response);
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["outcome"] == "ok");
  BOOST_TEST(row["requested_model"] == "both|big");
  BOOST_TEST(row["model"] == "big");
  BOOST_TEST(row["route_id"] == "big");
  BOOST_TEST(row["served_endpoint"] == "backup/api");
  const std::string route_match = row["route_match"];
  BOOST_TEST(route_match.starts_with("chain:both|big;piece:big;route:big"), route_match);
  BOOST_TEST(route_match.find("failover:primary->secondary->backup") != std::string::npos, route_match);
  BOOST_TEST(attemptResults(row) == "primary/api=status_500,secondary/api=status_500,backup/api=ok");
}

BOOST_AUTO_TEST_CASE(endpoint_pieces_the_sluice_prefix_and_bad_chains_answer_in_the_callers_wire) {
  PresenceHub hub;
  Gateway gateway(routingOptions(hub, routingCatalog()));
  // An OpenAI client naming an endpoint piece behind a prefix, after a piece whose deployments fail.
  auto chat = gateway.call("POST", "/v1/chat/completions", {{"x-mock-script", R"({"status":503})"}},
                           chatBody("sluice/both|sluice/backup/chat"));
  BOOST_REQUIRE_EQUAL(chat.status, 200);
  const json row = rowOf(chat);
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["served_endpoint"] == "backup/chat");
  BOOST_TEST(row["route_match"].get<std::string>().find(";piece:sluice/backup/chat;endpoint:backup/chat") !=
             std::string::npos, row["route_match"]);

  // The prefix alone on a plain model.
  BOOST_TEST(gateway.call("POST", "/v1/messages", {}, messagesBody("sluice/big")).status == 200);

  auto unknown = gateway.call("POST", "/v1/chat/completions", {}, chatBody("big|no-such-model"));
  BOOST_TEST(unknown.status == 404);
  BOOST_TEST(unknown.json()["error"]["code"] == "model_not_found");
  BOOST_TEST(unknown.json()["error"]["message"].get<std::string>().find("'no-such-model'") != std::string::npos);
  const json unknown_row = rowOf(unknown);
  BOOST_REQUIRE(unknown_row.is_object());
  BOOST_TEST(unknown_row["route_match"] == "chain:big|no-such-model");

  std::string long_chain = "big";
  for (int i = 0; i < 40; ++i) long_chain += "|big";
  auto too_long = gateway.call("POST", "/v1/messages", {}, messagesBody(long_chain));
  BOOST_TEST(too_long.status == 400);
  BOOST_TEST(too_long.json()["type"] == "error");
  BOOST_TEST(too_long.json()["error"]["type"] == "invalid_request_error");
  BOOST_TEST(too_long.json()["error"]["message"].get<std::string>().find("more than 40") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_chain_holding_a_piece_the_caller_is_denied_is_refused_as_that_piece_alone) {
  PresenceHub hub;
  const std::string services = routingCatalog();
  std::ofstream(services + "/access-control/rules.yaml")
      << "entities:\n"
         "  - entity: gateway_route/*\n    default: open\n    why: Open by default.\n"
         "  - entity: gateway_route/big\n    default: open\n    why: Big is for staff, not contractors.\n"
         "    deny:\n      group: [contractors]\n";
  Gateway gateway(routingOptions(hub, services, true));
  const auto member = sluice::test::newMember("chainer");
  const std::string key = sluice::test::newMember("contractor", "member", "--group contractors").key;

  auto alone = gateway.call("POST", "/v1/messages", {{"x-api-key", key}}, messagesBody("big"));
  BOOST_TEST(alone.status == 403);
  auto chained = gateway.call("POST", "/v1/messages", {{"x-api-key", key}}, messagesBody("m|big"));
  BOOST_TEST(chained.status == 403);
  BOOST_TEST(chained.json()["error"] == alone.json()["error"]);
  BOOST_TEST(chained.json()["error"]["message"] == "authz denied [gateway_route/big]: Big is for staff, not contractors.");
  // Through an endpoint piece too: backup/api serves `big` among others.
  BOOST_TEST(gateway.call("POST", "/v1/messages", {{"x-api-key", key}}, messagesBody("backup/api")).status == 403);
  // The allowed piece alone is served, and so is the denied piece for another member.
  BOOST_TEST(gateway.call("POST", "/v1/messages", {{"x-api-key", key}}, messagesBody("m")).status == 200);
  BOOST_TEST(gateway.call("POST", "/v1/messages", {{"x-api-key", member.key}}, messagesBody("m|big")).status == 200);
  const json row = rowOf(chained);
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["outcome"] == "access_denied");
  BOOST_TEST(row["route_match"] == "chain:m|big");
}

BOOST_AUTO_TEST_CASE(an_own_machine_is_skipped_while_the_hub_says_unavailable_and_used_within_a_poll_of_it_saying_available) {
  PresenceHub hub;
  Gateway gateway(routingOptions(hub, routingCatalog()));
  hub.set(studioDocument(false, mockPort(gateway), "lid closed"));
  // Let the poller read the document (poll_ms 200).
  const int seen = hub.polls();
  for (int i = 0; i < 100 && hub.polls() < seen + 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));

  auto skipped = gateway.call("POST", "/v1/chat/completions", {}, chatBody("local"));
  BOOST_REQUIRE_EQUAL(skipped.status, 200);
  const json skipped_row = rowOf(skipped);
  BOOST_REQUIRE(skipped_row.is_object());
  BOOST_TEST(skipped_row["served_endpoint"] == "backup/chat");
  BOOST_TEST(skipped_row["route_match"].get<std::string>().find("presence:unavailable") != std::string::npos,
             skipped_row["route_match"]);
  BOOST_TEST(attemptResults(skipped_row) == "own/studio=skipped:presence,backup/chat=ok");
  BOOST_TEST(skipped_row["attempts"][0]["error"].get<std::string>().find("lid closed") != std::string::npos);

  // The hub says available: within one poll (200 ms, allowed 1 s here) the machine serves.
  hub.set(studioDocument(true, mockPort(gateway), "idle"));
  const auto said = std::chrono::steady_clock::now();
  json used_row;
  while (std::chrono::steady_clock::now() - said < std::chrono::seconds(3)) {
    auto used = gateway.call("POST", "/v1/chat/completions", {}, chatBody("local"));
    BOOST_REQUIRE_EQUAL(used.status, 200);
    used_row = rowOf(used);
    if (used_row.is_object() && used_row["served_endpoint"] == "own/studio") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - said);
  BOOST_REQUIRE(used_row.is_object());
  BOOST_TEST(used_row["served_endpoint"] == "own/studio");
  BOOST_TEST(took.count() < 1000, "took " << took.count() << " ms");
  BOOST_TEST(used_row["route_match"].get<std::string>().find("presence:") == std::string::npos);
  // It was reached at the hub's address: the mock received it on its root path.
  BOOST_TEST(gateway.mockJson("/_mock/stats")["paths"].contains("/v1/chat/completions"));
  // The endpoint declares its credential, so the machine at the hub's address gets it.
  BOOST_TEST(gateway.mockJson("/_mock/last")["headers"].contains("authorization"));

  // A hub reporting a host outside the endpoint's presence_hosts (default: loopback) is not obeyed.
  std::string elsewhere = studioDocument(true, mockPort(gateway), "idle");
  elsewhere.replace(elsewhere.find("127.0.0.1"), 9, "192.0.2.1");
  hub.set(elsewhere);
  const int polled = hub.polls();
  for (int i = 0; i < 100 && hub.polls() < polled + 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto refused = gateway.call("POST", "/v1/chat/completions", {}, chatBody("local"));
  BOOST_REQUIRE_EQUAL(refused.status, 200);
  const json refused_row = rowOf(refused);
  BOOST_REQUIRE(refused_row.is_object());
  BOOST_TEST(refused_row["served_endpoint"] == "backup/chat");
  BOOST_TEST(refused_row["route_match"].get<std::string>().find("presence:host_not_allowed") != std::string::npos,
             refused_row["route_match"]);

  // The hub gone quiet: after stale_ms the node is stale and skipped again, with no breaker penalty.
  hub.set("not a document");
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
  auto stale = gateway.call("POST", "/v1/chat/completions", {}, chatBody("local"));
  const json stale_row = rowOf(stale);
  BOOST_REQUIRE(stale_row.is_object());
  BOOST_TEST(stale_row["route_match"].get<std::string>().find("presence:stale") != std::string::npos);
  const std::string metrics = gateway.call("GET", "/metrics").body;
  BOOST_TEST(metrics.find("gateway_presence_node_up{node=\"studio\"} 0") != std::string::npos);
  BOOST_TEST(metrics.find("gateway_presence_polls_total{result=\"error\"}") != std::string::npos);
  BOOST_TEST(metrics.find("gateway_breaker_state{provider=\"own\",endpoint=\"own/studio\"} 2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_request_over_max_input_bytes_skips_the_endpoint) {
  PresenceHub hub;
  Gateway gateway(routingOptions(hub, routingCatalog()));
  auto small = gateway.call("POST", "/v1/messages", {}, messagesBody("tight"));
  BOOST_REQUIRE_EQUAL(small.status, 200);
  const json small_row = rowOf(small);
  BOOST_REQUIRE(small_row.is_object());
  BOOST_TEST(small_row["served_endpoint"] == "small/api");

  auto large = gateway.call("POST", "/v1/messages", {}, messagesBody("tight", 1000));
  BOOST_REQUIRE_EQUAL(large.status, 200);
  const json large_row = rowOf(large);
  BOOST_REQUIRE(large_row.is_object());
  BOOST_TEST(large_row["served_endpoint"] == "backup/api");
  BOOST_TEST(attemptResults(large_row) == "small/api=skipped:max_input_bytes,backup/api=ok");
  BOOST_TEST(large_row["route_match"].get<std::string>().find("skip:max_input_bytes") != std::string::npos,
             large_row["route_match"]);
}

BOOST_AUTO_TEST_SUITE_END()
