// The console's sign-in and sessions against the real gateway and PostgreSQL: a session ends with
// the key it was opened with, failed sign-ins are throttled per peer address, and status lines
// carry their own reason phrase. And the pages that read members, keys and quota counters through
// server/store's interfaces.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

// A name no earlier run used (members persist in the test database).
std::string unique(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

std::string sluicectl(const std::string& args, int* code) {
  return capture(sluice::test::binPath("sluicectl") + " --database-url '" + testDatabaseUrl() + "' --services '" +
                     sluice::test::sourceDir() + "/services' " + args + " 2>&1",
                 code);
}

std::string newKey(const std::string& member) {
  int code = -1;
  std::string created = sluicectl("keys create " + member + " --name console", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, created);
  while (!created.empty() && created.back() == '\n') created.pop_back();
  const std::string key = created.substr(created.rfind('\n') == std::string::npos ? 0 : created.rfind('\n') + 1);
  BOOST_REQUIRE(key.starts_with("sk-sluice-"));
  return key;
}

std::string newAdmin() {
  const std::string name = unique("root");
  int code = -1;
  const std::string added = sluicectl("users add " + name + " --role admin", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, added);
  return name;
}

GatewayOptions consoleOptions() {
  GatewayOptions options;
  options.auth = true;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-console-" + std::to_string(::getpid())};
  return options;
}

sluice::test::HttpResponse signIn(Gateway& gateway, const std::string& key) {
  return gateway.call("POST", "/admin/login", {{"Origin", gateway.baseUrl()}, {"Content-Type", "application/json"}},
                      "{\"key\":\"" + key + "\"}");
}

// The Cookie header that carries the session a successful sign-in set.
std::string sessionCookie(const sluice::test::HttpResponse& signed_in) {
  const std::string set_cookie = signed_in.header("Set-Cookie");
  BOOST_REQUIRE_MESSAGE(set_cookie.starts_with("sluice_console="), set_cookie);
  return set_cookie.substr(0, set_cookie.find(';'));
}

int sessionStatus(Gateway& gateway, const std::string& cookie) {
  return gateway.call("GET", "/admin/api/session", {{"Cookie", cookie}}).status;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(console_session)

BOOST_AUTO_TEST_CASE(row4_revoking_the_key_ends_its_console_session) {
  Gateway gateway(consoleOptions());
  const std::string admin = newAdmin();
  const std::string stolen = newKey(admin);
  const std::string kept = newKey(admin);
  auto by_stolen = signIn(gateway, stolen);
  BOOST_REQUIRE_MESSAGE(by_stolen.status == 200, by_stolen.body);
  auto by_kept = signIn(gateway, kept);
  BOOST_REQUIRE_MESSAGE(by_kept.status == 200, by_kept.body);
  const std::string stolen_session = sessionCookie(by_stolen);
  const std::string kept_session = sessionCookie(by_kept);
  BOOST_TEST(sessionStatus(gateway, stolen_session) == 200);

  int code = -1;
  const std::string revoked = sluicectl("keys revoke " + stolen.substr(10, 8), &code);
  BOOST_REQUIRE_MESSAGE(code == 0, revoked);
  const auto at = std::chrono::steady_clock::now();
  int status = 200;
  while (status == 200 && std::chrono::steady_clock::now() - at < std::chrono::seconds(8)) {
    status = sessionStatus(gateway, stolen_session);
    if (status == 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - at);
  BOOST_TEST_MESSAGE("the revoked key's console session ended after " << took.count() << " ms");
  BOOST_TEST(status == 401);
  BOOST_TEST(took.count() < 5000);
  // Bound to the key, not the member: the same admin's session by another key goes on.
  BOOST_TEST(sessionStatus(gateway, kept_session) == 200);
  // And the revoked key cannot sign in again.
  BOOST_TEST(signIn(gateway, stolen).status == 401);

  // Disabling the member ends the sessions of all its keys.
  const std::string disabled = sluicectl("users disable " + admin, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, disabled);
  const auto since = std::chrono::steady_clock::now();
  status = 200;
  while (status == 200 && std::chrono::steady_clock::now() - since < std::chrono::seconds(8)) {
    status = sessionStatus(gateway, kept_session);
    if (status == 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto ended = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since);
  BOOST_TEST(status == 401);
  BOOST_TEST(ended.count() < 5000);
}

BOOST_AUTO_TEST_CASE(row11_sign_in_is_throttled_per_peer) {
  Gateway gateway(consoleOptions());
  const std::string admin = newAdmin();
  const std::string key = newKey(admin);
  const std::string wrong = "sk-sluice-" + std::string(51, 'A');
  for (int i = 0; i < 5; ++i) {
    const auto refused = signIn(gateway, wrong);
    BOOST_TEST(refused.status == 401, refused.body);
  }
  // The sixth try within the minute is not looked up, even with a good key.
  const auto throttled = signIn(gateway, key);
  BOOST_TEST(throttled.status == 429);
  BOOST_TEST(throttled.json()["error"]["key"] == "too_many_sign_ins");
  const std::string retry_after = throttled.header("Retry-After");
  BOOST_REQUIRE(!retry_after.empty());
  BOOST_TEST(std::stoi(retry_after) >= 1);
  BOOST_TEST(std::stoi(retry_after) <= 60);
  // Counted where an SRE looks.
  const std::string metrics = gateway.call("GET", "/metrics").body;
  BOOST_TEST(metrics.find("\ngateway_console_sign_ins_refused_total 1\n") != std::string::npos);
  // API calls with a key are not the console's sign-in: untouched.
  BOOST_TEST(gateway.call("GET", "/v1/models", {{"x-api-key", key}}).status == 200);
}

BOOST_AUTO_TEST_CASE(the_members_and_access_pages_read_members_keys_and_live_quota_counters) {
  Gateway gateway(consoleOptions());
  const std::string admin = newAdmin();
  const std::string key = newKey(admin);
  const std::string cookie = sessionCookie(signIn(gateway, key));
  // One request counted in the shipped catalog's member-hourly window (warn mode: after the answer).
  const auto served = gateway.call("POST", "/v1/messages", {{"x-api-key", key}},
                                   R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_MESSAGE(served.status == 200, served.body);

  nlohmann::json mine;
  const auto at = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - at < std::chrono::seconds(5)) {
    const auto members = gateway.call("GET", "/admin/api/members", {{"Cookie", cookie}});
    BOOST_REQUIRE_MESSAGE(members.status == 200, members.body);
    const nlohmann::json page = members.json();
    for (const auto& member : page["members"]) {
      if (member["name"] == admin) mine = member;
    }
    if (!mine.is_null() && !mine["quota"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_REQUIRE(!mine.is_null());
  BOOST_TEST(mine["role"] == "admin");
  BOOST_REQUIRE_EQUAL(mine["keys"].size(), 1u);
  BOOST_TEST(mine["keys"][0]["prefix"] == key.substr(0, 18));
  BOOST_TEST(mine["keys"][0]["status"] == "active");
  BOOST_TEST(mine["keys"][0]["name"] == "console");
  BOOST_REQUIRE_EQUAL(mine["quota"].size(), 1u);
  const auto& counter = mine["quota"][0];
  BOOST_TEST(counter["window_id"] == "member-hourly");
  BOOST_TEST(counter["requests"] == 1);
  BOOST_TEST(counter["ceilings"]["requests"] == 600);
  BOOST_TEST(counter["window_end"].get<std::string>().ends_with(":00:00.000Z"), counter.dump());
  // Which limit applies to the member, and why: each window they spend from, with what is spent.
  bool hourly = false;
  for (const auto& entry : mine["limits"]) {
    if (entry["window_id"] != "member-hourly") continue;
    hourly = true;
    BOOST_TEST(entry["limit_source"] == "default");
    BOOST_TEST(entry["ceilings"]["requests"] == 600);
    BOOST_TEST(entry["requests"] == 1);
  }
  BOOST_TEST(hourly, mine["limits"].dump());
  BOOST_TEST(gateway.call("GET", "/admin/api/members", {{"Cookie", cookie}}).body.find(key.substr(18)) ==
             std::string::npos);  // prefixes only, never a key

  const auto check = gateway.call("GET", "/admin/api/access/check?user=" + admin, {{"Cookie", cookie}});
  BOOST_TEST(check.status == 200, check.body);
  BOOST_TEST(check.json()["role"] == "admin");
  BOOST_TEST(gateway.call("GET", "/admin/api/access/check?user=nobody-" + admin, {{"Cookie", cookie}}).status == 404);
  bool listed = false;
  const nlohmann::json access = gateway.call("GET", "/admin/api/access", {{"Cookie", cookie}}).json();
  for (const auto& member : access["members"]) listed = listed || member["name"] == admin;
  BOOST_TEST(listed);
}

BOOST_AUTO_TEST_CASE(row11_status_lines_carry_their_own_reason) {
  Gateway gateway(consoleOptions());
  const auto not_allowed = gateway.call("PUT", "/admin/login");
  BOOST_TEST(not_allowed.status == 405);
  BOOST_TEST(not_allowed.reason == "Method Not Allowed");
  const auto not_signed_in = gateway.call("GET", "/admin/api/session");
  BOOST_TEST(not_signed_in.status == 401);
  BOOST_TEST(not_signed_in.reason == "Unauthorized");
}

BOOST_AUTO_TEST_SUITE_END()
