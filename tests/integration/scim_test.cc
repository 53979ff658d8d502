// SCIM provisioning against the real gateway and PostgreSQL, with requests shaped exactly as Okta
// and Microsoft Entra ID send them: users created, looked up, deactivated; groups created, filled,
// emptied, renamed and deleted; a wrong token refused and never echoed; and deprovisioning during
// an open console session, which ends the session and stops the member's key within seconds.

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

const std::string kToken = "scim-it-token-" + std::string(40, 'k') + "-0123456789abcdef";

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

GatewayOptions scimOptions(bool with_token = true) {
  GatewayOptions options;
  options.auth = true;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-scim-" + std::to_string(::getpid())};
  if (with_token) {
    const std::string path = "/tmp/sluice-it-scim-token-" + std::to_string(::getpid());
    std::ofstream(path) << kToken << "\n";
    options.extra_args.push_back("--scim-token-file");
    options.extra_args.push_back(path);
  }
  return options;
}

struct Scim {
  Gateway& gateway;
  sluice::test::HttpResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                                  const std::string& token = kToken) {
    sluice::test::Headers headers{{"Authorization", "Bearer " + token}};
    if (!body.empty()) headers.emplace_back("Content-Type", "application/scim+json; charset=utf-8");
    return gateway.call(method, "/scim/v2" + path, headers, body);
  }
  json ok(const std::string& method, const std::string& path, const std::string& body = "", int status = 200) {
    const auto answer = call(method, path, body);
    BOOST_REQUIRE_MESSAGE(answer.status == status, method + " " + path + ": " + std::to_string(answer.status) + " " + answer.body);
    if (status == 204) return json();
    BOOST_TEST(answer.header("Content-Type").starts_with("application/scim+json"));
    return answer.json();
  }
};

// The member as `sluicectl users list --json` shows it.
json cliMember(const std::string& name) {
  int code = -1;
  const std::string listed = sluicectl("users list --json", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, listed);
  for (const auto& member : json::parse(listed)) {
    if (member["name"] == name) return member;
  }
  return json();
}

std::string newKey(const std::string& member) {
  int code = -1;
  std::string created = sluicectl("keys create " + member + " --name scim-it", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, created);
  while (!created.empty() && created.back() == '\n') created.pop_back();
  return created.substr(created.rfind('\n') == std::string::npos ? 0 : created.rfind('\n') + 1);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scim)

BOOST_AUTO_TEST_CASE(without_the_flag_scim_answers_404_saying_provisioning_is_off) {
  Gateway gateway(scimOptions(false));
  const auto off = gateway.call("GET", "/scim/v2/Users", {{"Authorization", "Bearer " + kToken}});
  BOOST_TEST(off.status == 404);
  BOOST_TEST(off.json()["schemas"][0] == "urn:ietf:params:scim:api:messages:2.0:Error");
  BOOST_TEST(off.json()["detail"].get<std::string>().find("provisioning is off") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_wrong_token_is_refused_throttled_and_never_echoed) {
  Gateway gateway(scimOptions());
  Scim scim{gateway};
  const std::string wrong = "wrong-scim-token-" + std::string(30, 'w');
  const auto refused = scim.call("GET", "/Users", "", wrong);
  BOOST_TEST(refused.status == 401);
  BOOST_TEST(refused.json()["status"] == "401");
  BOOST_TEST(refused.header("WWW-Authenticate").starts_with("Bearer"));
  BOOST_TEST(refused.body.find(wrong) == std::string::npos);
  BOOST_TEST(gateway.call("GET", "/scim/v2/Users").status == 401);  // no Authorization at all
  // Neither token reaches the log.
  BOOST_TEST(gateway.process().stderrText().find(wrong) == std::string::npos);
  BOOST_TEST(gateway.process().stderrText().find(kToken) == std::string::npos);
  // Guessing is throttled per address: the right token waits too.
  for (int i = 0; i < 10; ++i) scim.call("GET", "/Users", "", wrong);
  const auto throttled = scim.call("GET", "/Users");
  BOOST_TEST(throttled.status == 429);
  BOOST_TEST(!throttled.header("Retry-After").empty());
  BOOST_TEST(gateway.call("GET", "/metrics").body.find("gateway_scim_requests_total{resource=\"other\",method=\"GET\",status=\"401\"}") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(okta_provisions_looks_up_and_deactivates_a_user) {
  Gateway gateway(scimOptions());
  Scim scim{gateway};
  BOOST_TEST(scim.ok("GET", "/ServiceProviderConfig")["patch"]["supported"] == true);
  const std::string name = unique("okta") + "@example.com";
  // Okta's "Test Connector Configuration", then its create.
  scim.ok("GET", "/Users?startIndex=1&count=2");
  BOOST_TEST(scim.ok("GET", "/Users?filter=userName%20eq%20%22" + name + "%22&startIndex=1&count=100")["totalResults"] == 0);
  const json created = scim.ok("POST", "/Users", json{
      {"schemas", {"urn:ietf:params:scim:schemas:core:2.0:User"}},
      {"userName", name},
      {"name", {{"givenName", "Okta"}, {"familyName", "Person"}}},
      {"emails", {{{"primary", true}, {"value", name}, {"type", "work"}}}},
      {"displayName", "Okta Person"},
      {"locale", "en-US"},
      {"externalId", "00u" + name.substr(5, 8)},
      {"groups", json::array()},
      {"password", "Okta-Sent-This-1"},
      {"active", true}}.dump(), 201);
  const std::string id = created["id"];
  BOOST_TEST(created["userName"] == name);
  const json member = cliMember(name);
  BOOST_TEST(member["source"] == "scim");
  BOOST_TEST(member["disabled_at"].is_null());
  const json found = scim.ok("GET", "/Users?filter=userName%20eq%20%22" + name + "%22&startIndex=1&count=100");
  BOOST_REQUIRE(found["totalResults"] == 1);
  BOOST_TEST(found["Resources"][0]["id"] == id);
  // Okta's profile push and deactivation.
  scim.ok("PUT", "/Users/" + id, json{{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:User"}}, {"id", id},
                                      {"userName", name}, {"name", {{"givenName", "Okta2"}, {"familyName", "Person"}}},
                                      {"emails", {{{"primary", true}, {"value", name}, {"type", "work"}}}},
                                      {"active", true}}.dump());
  const json off = scim.ok("PATCH", "/Users/" + id,
                           R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]})");
  BOOST_TEST(off["active"] == false);
  BOOST_TEST(!cliMember(name)["disabled_at"].is_null());
  BOOST_TEST(scim.ok("GET", "/Users/" + id)["name"]["givenName"] == "Okta2");
  // Changes by SCIM are the identity provider's: the CLI needs --force.
  int code = -1;
  const std::string refused = sluicectl("users enable " + name, &code);
  BOOST_TEST(code == 1);
  BOOST_TEST(refused.find("provisioned by SCIM") != std::string::npos);
  const std::string history = sluicectl("users history " + name + " --json", &code);
  BOOST_REQUIRE_EQUAL(code, 0);
  const json events = json::parse(history);
  BOOST_REQUIRE_GE(events.size(), 3u);
  BOOST_TEST(events[0]["actor"] == "scim");
  BOOST_TEST(events[0]["action"] == "member.disable");
  BOOST_TEST(history.find("Okta-Sent-This-1") == std::string::npos);
  BOOST_TEST(scim.call("POST", "/Users", json{{"userName", name}}.dump()).json()["scimType"] == "uniqueness");
  BOOST_TEST(scim.ok("DELETE", "/Users/" + id, "", 204).is_null());
  BOOST_TEST(scim.call("GET", "/Users/" + id).status == 404);
}

BOOST_AUTO_TEST_CASE(entra_provisions_users_and_groups) {
  Gateway gateway(scimOptions());
  Scim scim{gateway};
  const std::string upn = unique("entra") + "@contoso.com";
  const std::string other = unique("entra2") + "@contoso.com";
  // Entra's "Test Connection": a random filter that must come back empty.
  BOOST_TEST(scim.ok("GET", "/Users?filter=userName+eq+%22" + unique("probe") + "%22")["totalResults"] == 0);
  const auto make = [&](const std::string& user) {
    return scim.ok("POST", "/Users", json{
        {"schemas", {"urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"}},
        {"externalId", user.substr(0, user.find('@'))},
        {"userName", user},
        {"active", true},
        {"displayName", "Entra Person"},
        {"emails", {{{"primary", true}, {"type", "work"}, {"value", user}}}},
        {"meta", {{"resourceType", "User"}}},
        {"name", {{"formatted", "Entra Person"}, {"familyName", "Person"}, {"givenName", "Entra"}}},
        {"roles", json::array()},
        {"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", {{"department", "R&D"}}}}.dump(), 201)["id"]
        .get<std::string>();
  };
  const std::string id = make(upn);
  const std::string other_id = make(other);
  BOOST_TEST(scim.ok("GET", "/Users?filter=externalId+eq+%22" + upn.substr(0, upn.find('@')) + "%22")["totalResults"] == 1);

  const std::string group_name = "Entra Group " + unique("g");
  std::string encoded = group_name;
  for (size_t at = encoded.find(' '); at != std::string::npos; at = encoded.find(' ', at)) encoded.replace(at, 1, "%20");
  BOOST_TEST(scim.ok("GET", "/Groups?excludedAttributes=members&filter=displayName+eq+%22" + encoded + "%22")["totalResults"] == 0);
  const json group = scim.ok("POST", "/Groups", json{{"schemas", {"urn:ietf:params:scim:schemas:core:2.0:Group"}},
                                                     {"externalId", "8aa1a0c0-c4c3-4bc0-8c7f-9b2d6d3a1e55"},
                                                     {"displayName", group_name},
                                                     {"members", json::array()}}.dump(), 201);
  const std::string group_id = group["id"];
  scim.ok("PATCH", "/Groups/" + group_id,
          json{{"schemas", {"urn:ietf:params:scim:api:messages:2.0:PatchOp"}},
               {"Operations", {{{"op", "Add"}, {"path", "members"}, {"value", {{{"value", id}}, {{"value", other_id}}}}}}}}.dump(),
          204);
  BOOST_TEST(cliMember(upn)["groups"] == json::array({group_name}));
  BOOST_TEST(scim.ok("GET", "/Groups/" + group_id)["members"].size() == 2u);
  scim.ok("PATCH", "/Groups/" + group_id,
          json{{"schemas", {"urn:ietf:params:scim:api:messages:2.0:PatchOp"}},
               {"Operations", {{{"op", "Remove"}, {"path", "members"}, {"value", {{{"value", other_id}}}}}}}}.dump(), 204);
  BOOST_TEST(cliMember(other)["groups"] == json::array());
  // Okta's removal of one member by a filtered path works the same.
  const std::string renamed = group_name + " renamed";
  scim.ok("PATCH", "/Groups/" + group_id,
          json{{"schemas", {"urn:ietf:params:scim:api:messages:2.0:PatchOp"}},
               {"Operations", {{{"op", "Replace"}, {"path", "displayName"}, {"value", renamed}}}}}.dump(), 204);
  BOOST_TEST(cliMember(upn)["groups"] == json::array({renamed}));
  scim.ok("PATCH", "/Groups/" + group_id,
          R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"remove","path":"members[value eq \")" +
              id + R"(\"]"}]})",
          204);
  BOOST_TEST(cliMember(upn)["groups"] == json::array());
  scim.ok("PATCH", "/Groups/" + group_id,
          json{{"Operations", {{{"op", "Add"}, {"path", "members"}, {"value", {{{"value", id}}}}}}}}.dump(), 204);
  scim.ok("DELETE", "/Groups/" + group_id, "", 204);
  BOOST_TEST(cliMember(upn)["groups"] == json::array());
  BOOST_TEST(scim.call("GET", "/Groups/" + group_id).status == 404);
  // Entra's disable: a string boolean.
  const json off = scim.ok("PATCH", "/Users/" + id,
                           R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]})");
  BOOST_TEST(off["active"] == false);
  BOOST_TEST(!cliMember(upn)["disabled_at"].is_null());
  // Bounds.
  BOOST_TEST(scim.call("GET", "/Users?count=5000").json()["itemsPerPage"].get<int>() <= 200);
  BOOST_TEST(scim.call("GET", "/Users?filter=title+co+%22x%22").json()["scimType"] == "invalidFilter");
  BOOST_TEST(scim.call("POST", "/Users", std::string(100, '[')).json()["scimType"] == "invalidSyntax");
  // A body announced over 1 MiB is refused before it is read. Only the head is sent: the gateway
  // answers and closes at once, and a client still writing a whole MiB would race that close
  // (a reset on its socket before it reads the answer).
  const auto oversized = gateway.call("POST", "/scim/v2/Users",
                                      {{"Authorization", "Bearer " + std::string(kToken)},
                                       {"Content-Type", "application/scim+json"},
                                       {"Content-Length", std::to_string((1 << 20) + 10)}},
                                      "");
  BOOST_TEST(oversized.status == 413);
}

BOOST_AUTO_TEST_CASE(deprovisioning_ends_an_open_console_session_and_stops_the_key) {
  Gateway gateway(scimOptions());
  Scim scim{gateway};
  // An admin made at the CLI, with a key, signed in to the console.
  const std::string name = unique("leaver");
  int code = -1;
  const std::string added = sluicectl("users add " + name + " --role admin", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, added);
  const std::string key = newKey(name);
  const auto signed_in = gateway.call("POST", "/admin/login", {{"Origin", gateway.baseUrl()}, {"Content-Type", "application/json"}},
                                      "{\"key\":\"" + key + "\"}");
  BOOST_REQUIRE_MESSAGE(signed_in.status == 200, signed_in.body);
  const std::string set_cookie = signed_in.header("Set-Cookie");
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  BOOST_REQUIRE(gateway.call("GET", "/admin/api/session", {{"Cookie", cookie}}).status == 200);
  const std::string chat = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";
  const auto before = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + key}}, chat);
  BOOST_REQUIRE_MESSAGE(before.status == 200, before.body);

  // The identity provider links the person (Entra looks them up, then creates: adopted), then
  // disables them.
  const json adopted = scim.ok("POST", "/Users", json{{"userName", name}, {"externalId", "x-" + name}, {"active", true}}.dump(), 201);
  BOOST_TEST(adopted["urn:ietf:params:scim:schemas:extension:sluice:2.0:User"]["source"] == "cli");
  BOOST_TEST(adopted["urn:ietf:params:scim:schemas:extension:sluice:2.0:User"]["role"] == "admin");
  const std::string id = adopted["id"];
  const auto at = std::chrono::steady_clock::now();
  scim.ok("PATCH", "/Users/" + id,
          R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]})");
  int session = 200, api = 200;
  while ((session == 200 || api == 200) && std::chrono::steady_clock::now() - at < std::chrono::seconds(8)) {
    if (session == 200) session = gateway.call("GET", "/admin/api/session", {{"Cookie", cookie}}).status;
    if (api == 200) api = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + key}}, chat).status;
    if (session == 200 || api == 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - at);
  BOOST_TEST_MESSAGE("deprovisioned: session and key refused after " << took.count() << " ms");
  BOOST_TEST(session == 401);
  BOOST_TEST((api == 401 || api == 403), "the key answered " << api);
  BOOST_TEST(took.count() < 5000);
  // The key cannot sign in again either, and the record names scim.
  BOOST_TEST(gateway.call("POST", "/admin/login", {{"Origin", gateway.baseUrl()}, {"Content-Type", "application/json"}},
                          "{\"key\":\"" + key + "\"}").status != 200);
  const std::string history = sluicectl("users history " + name + " --json", &code);
  BOOST_REQUIRE_EQUAL(code, 0);
  const json events = json::parse(history);
  BOOST_TEST(events[0]["action"] == "member.disable");
  BOOST_TEST(events[0]["actor"] == "scim");
  BOOST_TEST(events[1]["action"] == "member.adopt");
  // A member with a key is never deleted: a SCIM delete disables and unlinks it (204).
  scim.ok("DELETE", "/Users/" + id, "", 204);
  BOOST_TEST(!cliMember(name).is_null());
  BOOST_TEST(scim.call("GET", "/Users/" + id).status == 404);
}

BOOST_AUTO_TEST_SUITE_END()
