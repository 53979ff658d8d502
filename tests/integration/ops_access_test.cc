// Who may read the operations endpoints and the process's environment, against the real gateway
// and PostgreSQL: /admin/api/catalog/status needs a signed-in admin or the --ops-token (which
// /metrics then needs too), and the console's route editor never reads or shows a secret.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/raw_connection.h"
#include "tests/support/test_env.h"
#include "tests/support/wait_until.h"

using nlohmann::json;
using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::kOpsToken;
using sluice::test::testDatabaseUrl;

namespace {

const std::string kMasterKey = "5f2c0e6a8b1d4f7e9a3c5b7d9e1f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f";
const std::string kUnrelatedSecret = "unrelated-secret-of-the-process";

// A name no earlier run used (members persist in the test database).
std::string unique(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

std::string sluicectl(const std::string& args) {
  int code = -1;
  const std::string out = capture("SLUICE_MASTER_KEY=" + kMasterKey + " " + sluice::test::binPath("sluicectl") +
                                      " --database-url '" + testDatabaseUrl() + "' --services '" +
                                      sluice::test::sourceDir() + "/services' " + args + " 2>&1",
                                  &code);
  BOOST_REQUIRE_MESSAGE(code == 0, out);
  return out;
}

// A new member with `role` and one API key; returns the key.
std::string memberKey(const std::string& role) {
  const std::string name = unique(role);
  sluicectl("users add " + name + " --role " + role);
  std::string created = sluicectl("keys create " + name + " --name ops");
  while (!created.empty() && created.back() == '\n') created.pop_back();
  const std::string key = created.substr(created.rfind('\n') == std::string::npos ? 0 : created.rfind('\n') + 1);
  BOOST_REQUIRE(key.starts_with("sk-sluice-"));
  return key;
}

GatewayOptions authOptions() {
  GatewayOptions options;
  options.auth = true;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-ops-" + std::to_string(::getpid())};
  options.extra_env = {{"SLUICE_MASTER_KEY", kMasterKey}, {"SLUICE_IT_UNRELATED_SECRET", kUnrelatedSecret}};
  return options;
}

struct Console {
  std::string cookie;
  std::string csrf;
};

Console signIn(Gateway& gateway, const std::string& key) {
  const auto reply = gateway.call("POST", "/admin/login", {{"Origin", gateway.baseUrl()}}, json{{"key", key}}.dump());
  BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
  const std::string set_cookie = reply.header("Set-Cookie");
  return {set_cookie.substr(0, set_cookie.find(';')), reply.json()["csrf"]};
}

sluice::test::HttpResponse post(Gateway& gateway, const Console& console, const std::string& path, const json& body) {
  return gateway.call("POST", path,
                      {{"Origin", gateway.baseUrl()}, {"Cookie", console.cookie}, {"X-CSRF-Token", console.csrf}},
                      body.dump());
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

// The --admin-listen address, as the gateway printed it ("http://HOST:PORT").
std::string operationsUrl(Gateway& gateway) {
  const std::string marker = "operations listening on ";
  std::string text;
  sluice::test::pollUntil([&] {  // printed just after "listening on", which the fixture waited for
    text = gateway.process().stdoutText();
    return text.find('\n', text.find(marker)) != std::string::npos && text.find(marker) != std::string::npos;
  }, std::chrono::seconds(10));
  const size_t at = text.find(marker);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, text);
  return "http://" + text.substr(at + marker.size(), text.find('\n', at) - at - marker.size());
}

// How long one GET takes on a fresh connection, and its status.
std::pair<double, int> timedGet(const std::string& url) {
  const auto started = std::chrono::steady_clock::now();
  const int status = sluice::test::request("GET", url).status;
  return {std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count(), status};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ops_access)

// Connections holding part of a head on the operations address used to hold its few threads until
// their head deadline (10 s), and the kubelet's probes (3 s timeout) failed behind them. They now
// park fibers on the address's own loop: probes are answered at once while 40 of them wait, one
// address holds at most 32 (more are refused at once), and each is cut at the 2 s head deadline.
BOOST_AUTO_TEST_CASE(slowloris_connections_on_the_operations_address_never_delay_a_probe) {
  GatewayOptions options;
  options.extra_args = {"--admin-listen", "127.0.0.1:0"};
  Gateway gateway(options);
  const std::string ops = operationsUrl(gateway);
  const int port = sluice::test::portOf(ops);
  std::vector<sluice::test::RawConnection> loris;
  loris.reserve(40);
  for (int i = 0; i < 40; ++i) {
    // From two other addresses than the probe's: 20 each, under the per-address cap.
    loris.emplace_back(port, i % 2 == 0 ? "127.0.0.2" : "127.0.0.3");
    BOOST_REQUIRE(loris.back().send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::vector<double> took;
  for (int i = 0; i < 10; ++i) {
    const auto [ms, status] = timedGet(ops + "/readyz");
    BOOST_TEST(status == 200);
    took.push_back(ms);
  }
  std::sort(took.begin(), took.end());
  BOOST_TEST_MESSAGE("/readyz with 40 slowloris connections open: median " << took[5] << " ms, slowest "
                                                                           << took[9] << " ms");
  BOOST_TEST(took[5] < 100.0);
  BOOST_TEST(took[9] < 1000.0);
  for (auto& connection : loris) BOOST_TEST(!connection.drain());  // all still held, none answered yet

  // One address holds at most 32: the 33rd is refused at once.
  std::vector<sluice::test::RawConnection> more;
  for (int i = 0; i < 13; ++i) more.emplace_back(port, "127.0.0.2");
  bool closed = false;
  BOOST_TEST(more.back().readUntilClosed(std::chrono::seconds(1), &closed).starts_with("HTTP/1.1 503"));
  BOOST_TEST(closed);

  // The 2 s head deadline cuts each of them with 408.
  bool cut = false;
  const std::string answer = loris.front().readUntilClosed(std::chrono::seconds(5), &cut);
  BOOST_TEST(answer.starts_with("HTTP/1.1 408"), answer);
  BOOST_TEST(answer.find("within 2000 ms") != std::string::npos, answer);
  BOOST_TEST(cut);
}

// RFC 9110 §11.1: `bearer` in any case presents the token.
BOOST_AUTO_TEST_CASE(the_ops_token_is_taken_with_the_scheme_in_any_case) {
  Gateway gateway;
  for (const std::string scheme : {"Bearer", "bearer", "BEARER"}) {
    BOOST_TEST(gateway.call("GET", "/metrics", {{"Authorization", scheme + " " + kOpsToken}}).status == 200, scheme);
  }
  BOOST_TEST(gateway.call("GET", "/metrics", {{"Authorization", std::string("bearer x") + kOpsToken}}).status == 401);
  BOOST_TEST(gateway.call("GET", "/metrics", {{"Authorization", "bearer"}}).status == 401);
}

BOOST_AUTO_TEST_CASE(row10_catalog_status_needs_an_admin_or_the_ops_token) {
  Gateway gateway(authOptions());
  const std::string status_path = "/admin/api/catalog/status";
  const auto anonymous = gateway.call("GET", status_path, {{"Authorization", ""}});
  BOOST_TEST(anonymous.status == 401);
  BOOST_TEST(anonymous.body.find("services_dir") == std::string::npos);
  BOOST_TEST(gateway.call("GET", status_path, {{"Authorization", "Bearer wrong-token"}}).status == 401);
  // A member's API key is not the ops token, and neither is an admin's.
  BOOST_TEST(gateway.call("GET", status_path, {{"Authorization", "Bearer " + memberKey("member")}}).status == 401);
  const std::string admin_key = memberKey("admin");
  BOOST_TEST(gateway.call("GET", status_path, {{"Authorization", "Bearer " + admin_key}}).status == 401);

  const auto by_token = gateway.call("GET", status_path, {{"Authorization", std::string("Bearer ") + kOpsToken}});
  BOOST_REQUIRE_MESSAGE(by_token.status == 200, by_token.body);
  BOOST_TEST(by_token.json()["services_dir"] == gateway.servicesDir());

  const Console console = signIn(gateway, admin_key);
  const auto by_admin = gateway.call("GET", status_path, {{"Authorization", ""}, {"Cookie", console.cookie}});
  BOOST_REQUIRE_MESSAGE(by_admin.status == 200, by_admin.body);
  BOOST_TEST(by_admin.json()["version"] == by_token.json()["version"]);

  // With the token set, /metrics needs it too.
  BOOST_TEST(gateway.call("GET", "/metrics", {{"Authorization", ""}}).status == 401);
  BOOST_TEST(gateway.call("GET", "/metrics", {{"Authorization", "Bearer wrong-token"}}).status == 401);
  BOOST_TEST(gateway.call("GET", "/metrics").status == 200);  // the fixture presents the token

  // Without a token /metrics stays open, and catalog/status answers no one but a signed-in admin
  // (with --insecure-no-auth, no one).
  GatewayOptions open;
  open.ops_token = false;
  Gateway insecure(open);
  BOOST_TEST(insecure.call("GET", "/metrics").status == 200);
  BOOST_TEST(insecure.call("GET", status_path).status == 401);
  BOOST_TEST(insecure.call("GET", status_path, {{"Authorization", std::string("Bearer ") + kOpsToken}}).status == 401);
}

// With --admin-listen the operations endpoints answer on their own address, and the main address
// (the one callers and the internet reach) answers 404 for them; /healthz and the API stay there.
BOOST_AUTO_TEST_CASE(row10_operations_endpoints_on_their_own_address) {
  GatewayOptions options = authOptions();
  options.extra_args.push_back("--admin-listen");
  options.extra_args.push_back("127.0.0.1:0");
  Gateway gateway(options);
  const std::string ops = operationsUrl(gateway);
  const sluice::test::Headers token{{"Authorization", std::string("Bearer ") + kOpsToken}};

  // The main address: no metrics, no readiness, no token-read status; health and the API stay.
  BOOST_TEST(gateway.call("GET", "/metrics").status == 404);
  BOOST_TEST(gateway.call("GET", "/readyz").status == 404);
  BOOST_TEST(gateway.call("GET", "/admin/api/catalog/status").status == 404);
  BOOST_TEST(gateway.call("GET", "/healthz").status == 200);
  BOOST_TEST(gateway.call("GET", "/v1/models", {{"Authorization", "Bearer " + memberKey("member")}}).status == 200);

  // The operations address: those endpoints, and nothing of the request path.
  const auto metrics = sluice::test::request("GET", ops + "/metrics", token);
  BOOST_TEST(metrics.status == 200);
  BOOST_TEST(metrics.body.find("gateway_requests_total") != std::string::npos);
  BOOST_TEST(sluice::test::request("GET", ops + "/metrics").status == 401);  // the token still counts
  BOOST_TEST(sluice::test::request("GET", ops + "/readyz").status == 200);
  BOOST_TEST(sluice::test::request("GET", ops + "/healthz").status == 200);
  const auto status = sluice::test::request("GET", ops + "/admin/api/catalog/status", token);
  BOOST_TEST(status.status == 200);
  BOOST_TEST(status.body.find("\"version\"") != std::string::npos);
  BOOST_TEST(sluice::test::request("POST", ops + "/v1/messages", {}, R"({"model":"x"})").status == 404);
  BOOST_TEST(sluice::test::request("GET", ops + "/admin/login").status == 404);
}

BOOST_AUTO_TEST_CASE(row3_the_editor_never_echoes_an_interpolated_secret) {
  Gateway gateway(authOptions());
  const std::string admin_key = memberKey("admin");
  const Console console = signIn(gateway, admin_key);
  const auto source = gateway.call("GET", "/admin/api/routes/source", {{"Cookie", console.cookie}});
  BOOST_REQUIRE_MESSAGE(source.status == 200, source.body);
  const std::string text = source.json()["text"];
  const std::string tag = source.json()["tag"];
  const std::string kDefault = "default_model: claude-sonnet-5-5";

  const auto validate = [&](const std::string& value) {
    const auto reply = post(gateway, console, "/admin/api/routes/validate",
                            {{"text", replaced(text, kDefault, "default_model: \"" + value + "\"")}});
    BOOST_REQUIRE_MESSAGE(reply.status == 200, reply.body);
    BOOST_TEST(reply.json()["ok"] == false, reply.body);
    for (const std::string& secret : {kMasterKey, kUnrelatedSecret, std::string("mock-anthropic-key"), gateway.mockUrl()}) {
      BOOST_TEST(reply.body.find(secret) == std::string::npos, value << " echoed " << secret << ": " << reply.body);
    }
    return reply.body;
  };
  BOOST_TEST(validate("${SLUICE_MASTER_KEY}").find("secret variable SLUICE_MASTER_KEY used outside a credential") !=
             std::string::npos);
  BOOST_TEST(validate("${ANTHROPIC_API_KEY}").find("secret variable ANTHROPIC_API_KEY used outside a credential") !=
             std::string::npos);
  BOOST_TEST(validate("${SLUICE_IT_UNRELATED_SECRET:-x}").find("variable SLUICE_IT_UNRELATED_SECRET is not used by the catalog files on disk") !=
             std::string::npos);
  // A variable the catalog on disk reads (a provider's URL) may be read, but is shown as ${NAME}.
  const std::string shown = validate("${ANTHROPIC_BASE_URL}");
  BOOST_TEST(shown.find("${ANTHROPIC_BASE_URL}") != std::string::npos, shown);

  // Saving a secret into a label is refused, so it never reaches GET /v1/models.
  const auto saved = post(gateway, console, "/admin/api/routes/save",
                          {{"base_tag", tag},
                           {"text", replaced(text, "label: DeepSeek V4 Pro on your own Go key", "label: \"${ANTHROPIC_API_KEY}\"")}});
  BOOST_TEST(saved.status == 422, saved.body);
  BOOST_TEST(saved.body.find("mock-anthropic-key") == std::string::npos, saved.body);
  const auto models = gateway.call("GET", "/v1/models", {{"Authorization", "Bearer " + admin_key}});
  BOOST_REQUIRE_MESSAGE(models.status == 200, models.body);
  BOOST_TEST(models.body.find("mock-anthropic-key") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
