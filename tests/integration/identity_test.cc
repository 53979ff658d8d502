// Identity end to end, against a real PostgreSQL: API keys made by sluicectl, used through both
// header forms, revoked; the caller's key never reaching a provider; project scope; access rules;
// quotas in warn and enforce mode, across two gateway processes; personal credentials; and no
// secret in logs, audit rows or metrics.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::auditRow;
using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

const std::string kMasterKey = "5f2c0e6a8b1d4f7e9a3c5b7d9e1f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f";
const std::string kMessages = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";

// A name no earlier run used (members persist in the test database).
std::string unique(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000) + "-" +
         std::to_string(counter++);
}

std::string sluicectl(const std::string& args, int* code, const std::string& stdin_text = "") {
  std::string command = "SLUICE_MASTER_KEY=" + kMasterKey + " " + sluice::test::binPath("sluicectl") +
                        " --database-url '" + testDatabaseUrl() + "' --services '" + sluice::test::sourceDir() + "/services' " + args +
                        " 2>&1";
  if (!stdin_text.empty()) command = "printf '%s' '" + stdin_text + "' | " + command;
  return capture(command, code);
}

std::string lastLine(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  const size_t at = trimmed.rfind('\n');
  return at == std::string::npos ? trimmed : trimmed.substr(at + 1);
}

struct Member {
  std::string name;
  std::string key;
  std::string key_id;
};

Member addMember(const std::string& base, const std::string& flags) {
  Member member;
  member.name = unique(base);
  int code = -1;
  const std::string added = sluicectl("users add " + member.name + " " + flags, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, added);
  const std::string created = sluicectl("keys create " + member.name + " --name test", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, created);
  member.key = lastLine(created);
  BOOST_REQUIRE(member.key.starts_with("sk-sluice-"));
  member.key_id = member.key.substr(10, 8);
  return member;
}

GatewayOptions authOptions(const std::string& services = "") {
  GatewayOptions options;
  options.auth = true;
  options.services = services;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-it-identity-" + std::to_string(::getpid()), "--watch-ms", "100"};
  options.extra_env = {{"SLUICE_MASTER_KEY", kMasterKey}};
  return options;
}

// Rewrites a file of the gateway's catalog and waits for live reload to take it.
void rewrite(Gateway& gateway, const std::string& relative, const std::string& text) {
  const std::string before = gateway.call("GET", "/admin/api/catalog/status").json()["version"];
  std::ofstream(gateway.servicesDir() + "/" + relative) << text;
  for (int i = 0; i < 100; ++i) {
    const json status = gateway.call("GET", "/admin/api/catalog/status").json();
    BOOST_REQUIRE_MESSAGE(status["reloads_refused"] == 0, status.dump());
    if (status["version"] != before) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  BOOST_FAIL("the catalog change was not picked up");
}

// The "status" of the gateway's log line for `request_id` (0 when none is logged within 5 s).
int requestLogStatus(Gateway& gateway, const std::string& request_id) {
  const std::string needle = "\"request_id\":\"" + request_id + "\"";
  gateway.process().waitForStderr(needle, std::chrono::milliseconds(5000));
  const std::string log = gateway.process().stderrText();
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) {
    const size_t begin = log.rfind('\n', at);
    const size_t end = log.find('\n', at);
    const json line = json::parse(log.substr(begin == std::string::npos ? 0 : begin + 1,
                                             end == std::string::npos ? std::string::npos : end - begin - 1),
                                  nullptr, false);
    if (line.is_object() && line.value("msg", "") == "request") return line.value("status", 0);
  }
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(identity)

BOOST_AUTO_TEST_CASE(keys_authenticate_in_both_header_forms_never_reach_the_provider_and_revoke_fast) {
  Gateway gateway(authOptions());
  const Member alice = addMember("alice", "--role member --group engineering --project odoo --primary-project odoo");

  auto missing = gateway.call("POST", "/v1/messages", {}, kMessages);
  BOOST_TEST(missing.status == 401);
  BOOST_TEST(missing.json()["error"]["type"] == "authentication_error");
  auto wrong = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer sk-sluice-nope"}},
                            R"({"model":"claude-haiku-5-5","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(wrong.status == 401);
  BOOST_TEST(wrong.json()["error"]["code"] == "invalid_api_key");
  BOOST_TEST(gateway.call("GET", "/v1/models").status == 401);

  auto by_x_api_key = gateway.call("POST", "/v1/messages", {{"x-api-key", alice.key}}, kMessages);
  BOOST_REQUIRE_EQUAL(by_x_api_key.status, 200);
  const json upstream = gateway.mockJson("/_mock/last")["headers"];
  BOOST_TEST(upstream["x-api-key"] == "mock-anthropic-key");  // the platform credential, not alice's key
  BOOST_TEST(upstream.dump().find(alice.key) == std::string::npos);
  auto by_bearer = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + alice.key}},
                                R"({"model":"claude-haiku-5-5","messages":[{"role":"user","content":"hi"}]})");
  BOOST_REQUIRE_EQUAL(by_bearer.status, 200);
  BOOST_TEST(gateway.mockJson("/_mock/last")["headers"].dump().find(alice.key) == std::string::npos);
  BOOST_TEST(gateway.call("GET", "/v1/models", {{"x-api-key", alice.key}}).status == 200);

  const json row = auditRow(testDatabaseUrl(), by_x_api_key.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["user_name"] == alice.name);
  BOOST_TEST(row["project"] == "odoo");
  BOOST_TEST(row["project_source"] == "primary");
  const json refused = auditRow(testDatabaseUrl(), missing.header("x-sluice-request-id"));
  BOOST_REQUIRE(refused.is_object());
  BOOST_TEST(refused["outcome"] == "unauthenticated");

  int code = -1;
  const std::string revoked = sluicectl("keys revoke " + alice.key_id, &code);
  BOOST_REQUIRE_MESSAGE(code == 0, revoked);
  const auto at = std::chrono::steady_clock::now();
  int status = 200;
  while (status == 200 && std::chrono::steady_clock::now() - at < std::chrono::seconds(6)) {
    status = gateway.call("POST", "/v1/messages", {{"x-api-key", alice.key}}, kMessages).status;
    if (status == 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - at);
  BOOST_TEST_MESSAGE("a revoked key stopped working after " << took.count() << " ms");
  BOOST_TEST(status == 401);
  BOOST_TEST(took.count() < 5000);
}

BOOST_AUTO_TEST_CASE(scope_header_is_honoured_only_for_the_callers_own_projects) {
  Gateway gateway(authOptions());
  const Member bob = addMember("bob", "--role member --project odoo --project billing --primary-project odoo");
  auto own = gateway.call("POST", "/v1/messages", {{"x-api-key", bob.key}, {"x-sluice-scope-project", "billing"}},
                          kMessages);
  BOOST_REQUIRE_EQUAL(own.status, 200);
  const json row = auditRow(testDatabaseUrl(), own.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["project"] == "billing");
  BOOST_TEST(row["project_source"] == "header");

  auto spoofed = gateway.call("POST", "/v1/messages",
                              {{"x-api-key", bob.key}, {"x-sluice-scope-project", "payroll"}}, kMessages);
  BOOST_TEST(spoofed.status == 403);
  BOOST_TEST(spoofed.json()["error"]["type"] == "permission_error");
  const json denied = auditRow(testDatabaseUrl(), spoofed.header("x-sluice-request-id"));
  BOOST_REQUIRE(denied.is_object());
  BOOST_TEST(denied["outcome"] == "access_denied");
}

BOOST_AUTO_TEST_CASE(access_rules_deny_a_route_in_the_callers_format_and_are_audited) {
  Gateway gateway(authOptions());
  const Member carol = addMember("carol", "--role member --group contractors --project odoo");
  const Member dave = addMember("dave", "--role member --group engineering --project odoo");
  rewrite(gateway, "access-control/rules.yaml",
          "entities:\n"
          "  - entity: gateway_route/*\n    default: open\n    why: Open by default.\n"
          "  - entity: gateway_route/claude-opus-5-5\n    default: open\n"
          "    why: Opus is for staff, not contractors.\n"
          "    deny:\n      group: [contractors]\n");
  const std::string opus = R"({"model":"claude-opus-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";
  auto denied = gateway.call("POST", "/v1/messages", {{"x-api-key", carol.key}}, opus);
  BOOST_TEST(denied.status == 403);
  BOOST_TEST(denied.json()["error"]["message"] ==
             "authz denied [gateway_route/claude-opus-5-5]: Opus is for staff, not contractors.");
  auto chat = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + carol.key}},
                           R"({"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(chat.status == 403);
  BOOST_TEST(chat.json()["error"]["code"] == "access_denied");
  BOOST_TEST(gateway.call("POST", "/v1/messages", {{"x-api-key", carol.key}}, kMessages).status == 200);
  BOOST_TEST(gateway.call("POST", "/v1/messages", {{"x-api-key", dave.key}}, opus).status == 200);
  const json row = auditRow(testDatabaseUrl(), denied.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["outcome"] == "access_denied");
  BOOST_TEST(row["route_id"] == "claude-opus-5-5");
}

// count_tokens is admitted like /v1/messages: a member denied a route cannot send its text to that
// route's provider by counting tokens, and every count leaves one audit row.
BOOST_AUTO_TEST_CASE(count_tokens_is_governed_and_audited_like_messages) {
  Gateway gateway(authOptions());
  const Member erin = addMember("erin", "--role member --group contractors --project odoo");
  rewrite(gateway, "access-control/rules.yaml",
          "entities:\n"
          "  - entity: gateway_route/*\n    default: open\n    why: Open by default.\n"
          "  - entity: gateway_route/claude-opus-5-5\n    default: open\n"
          "    why: Opus is for staff, not contractors.\n"
          "    deny:\n      group: [contractors]\n");
  const std::string opus = R"({"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"}]})";
  auto messages = gateway.call("POST", "/v1/messages", {{"x-api-key", erin.key}},
                               R"({"model":"claude-opus-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})");
  auto counted = gateway.call("POST", "/v1/messages/count_tokens", {{"x-api-key", erin.key}}, opus);
  BOOST_TEST(counted.status == 403);
  BOOST_TEST(counted.json()["error"] == messages.json()["error"]);  // the same body as /v1/messages, id aside
  BOOST_TEST(gateway.call("POST", "/v1/messages/count_tokens", {}, opus).status == 401);
  const json row = auditRow(testDatabaseUrl(), counted.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["outcome"] == "access_denied");
  BOOST_TEST(row["user_name"] == erin.name);
  BOOST_TEST(row["route_match"].get<std::string>().starts_with("endpoint:count_tokens"));

  const std::string haiku = R"({"model":"claude-haiku-5-5","messages":[{"role":"user","content":"hi"}]})";
  auto allowed = gateway.call("POST", "/v1/messages/count_tokens", {{"x-api-key", erin.key}}, haiku);
  BOOST_TEST(allowed.status == 200);
  BOOST_TEST(allowed.json().contains("input_tokens"));
  const json served = auditRow(testDatabaseUrl(), allowed.header("x-sluice-request-id"));
  BOOST_REQUIRE(served.is_object());
  BOOST_TEST(served["outcome"] == "ok");
  BOOST_TEST(served["route_match"].get<std::string>().starts_with("endpoint:count_tokens"));
}

BOOST_AUTO_TEST_CASE(personal_credentials_are_used_only_with_the_callers_own_key) {
  Gateway gateway(authOptions());
  const Member erin = addMember("erin", "--role member --project odoo");
  const std::string kimi = R"({"model":"go-kimi-k3","messages":[{"role":"user","content":"hi"}]})";
  auto without = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + erin.key}}, kimi);
  // Erin's to fix, not a provider outage: a 4xx no SDK retries, naming the command, and the log
  // line records the status she was sent.
  BOOST_TEST(without.status == 424);
  BOOST_TEST(without.json()["error"]["code"] == "personal_key_missing", without.body);
  BOOST_TEST(without.json()["error"]["message"].get<std::string>().find(
                 "sluicectl credentials set opencode-go --user " + erin.name) != std::string::npos,
             without.body);
  BOOST_TEST(requestLogStatus(gateway, without.header("x-sluice-request-id")) == 424);

  const std::string personal = "go-personal-" + std::to_string(::getpid()) + "-secret";
  int code = -1;
  const std::string set = sluicectl("credentials set opencode-go --user " + erin.name, &code, personal);
  BOOST_REQUIRE_MESSAGE(code == 0, set);
  const std::string stored = capture("psql '" + testDatabaseUrl() +
                                         "' -Atc \"select encode(ciphertext, 'escape') from personal_credentials\" 2>&1",
                                     &code);
  BOOST_TEST(stored.find(personal) == std::string::npos);  // encrypted at rest

  // The gateway caches lookups for at most 2 s, so a newly stored key is used within that.
  auto with = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + erin.key}}, kimi);
  for (int i = 0; i < 30 && with.status == 424; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    with = gateway.call("POST", "/v1/chat/completions", {{"Authorization", "Bearer " + erin.key}}, kimi);
  }
  BOOST_REQUIRE_MESSAGE(with.status == 200, with.body);
  const json headers = gateway.mockJson("/_mock/last")["headers"];
  BOOST_TEST(headers["authorization"] == "Bearer " + personal);

  // No secret anywhere an operator looks: the log, the metrics, the audit row.
  const std::string metrics = gateway.call("GET", "/metrics").body;
  const json row = auditRow(testDatabaseUrl(), with.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  for (const std::string& secret : {personal, erin.key, kMasterKey, std::string("mock-anthropic-key"),
                                    std::string("mock-deepseek-key")}) {
    BOOST_TEST(gateway.process().stderrText().find(secret) == std::string::npos, "log leaks " << secret);
    BOOST_TEST(metrics.find(secret) == std::string::npos, "metrics leak " << secret);
    BOOST_TEST(row.dump().find(secret) == std::string::npos, "audit leaks " << secret);
  }
}

// A refusal the gateway spells 503 is sent to an Anthropic client as 529: the log line says 529.
BOOST_AUTO_TEST_CASE(the_request_log_line_records_the_status_actually_sent) {
  Gateway gateway;  // no identity: nobody has a personal key, so nothing can serve go-kimi-k3
  const auto answer = gateway.call("POST", "/v1/messages", {{"anthropic-version", "2023-06-01"}},
                                   R"({"model":"go-kimi-k3","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})");
  BOOST_TEST(answer.status == 529, answer.body);
  BOOST_TEST(requestLogStatus(gateway, answer.header("x-sluice-request-id")) == 529);
}

// Finance's form across replicas: each project is refused at its own monthly limit, not before.
BOOST_AUTO_TEST_CASE(two_projects_are_refused_at_their_own_monthly_limits_across_two_gateways) {
  const std::string small = unique("marketing");
  const std::string large = unique("research");
  Gateway first(authOptions());
  rewrite(first, "ai/gateway.yaml",
          "gateway:\n  default_model: claude-sonnet-5-5\n  quotas:\n    mode: enforce\n    windows:\n"
          "      - id: team-month\n        per: project\n        period: month\n        timezone: Europe/Paris\n"
          "        max_requests: 1\n        overrides:\n          project/" + small + ": { max_requests: 3 }\n"
          "          project/" + large + ": { max_requests: 6 }\n");
  Gateway second(authOptions(first.servicesDir()));
  const Member mia = addMember("mia", "--role member --project " + small + " --project " + large);
  const auto served = [&](const std::string& project, int calls) {
    int ok = 0;
    for (int i = 0; i < calls; ++i) {
      Gateway& target = i % 2 == 0 ? first : second;
      const auto answer = target.call("POST", "/v1/messages",
                                      {{"x-api-key", mia.key}, {"x-sluice-scope-project", project}}, kMessages);
      if (answer.status == 200) ++ok;
      else BOOST_TEST(answer.json()["error"]["message"].get<std::string>().find("(the limit of project/" + project + ")") !=
                          std::string::npos, answer.body);
    }
    return ok;
  };
  BOOST_TEST(served(small, 5) == 3);
  BOOST_TEST(served(large, 8) == 6);  // research's own six: marketing's spending is not its
}

BOOST_AUTO_TEST_CASE(an_enforced_budget_holds_across_two_gateways_sharing_one_database) {
  // One catalog for both replicas: enforce 20 requests per user per hour.
  namespace fs = std::filesystem;
  Gateway first(authOptions());
  const std::string gateway_yaml =
      "gateway:\n  default_model: claude-sonnet-5-5\n  quotas:\n    mode: enforce\n    windows:\n"
      "      - { id: member-hourly, per: user, seconds: 3600, max_requests: 20 }\n";
  rewrite(first, "ai/gateway.yaml", gateway_yaml);
  Gateway second(authOptions(first.servicesDir()));
  const Member frank = addMember("frank", "--role member --project odoo");

  std::atomic<int> ok{0};
  std::atomic<int> limited{0};
  std::atomic<int> other{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 50; ++i) {
    callers.emplace_back([&, i] {
      Gateway& target = i % 2 == 0 ? first : second;
      const auto answer = target.call("POST", "/v1/messages", {{"x-api-key", frank.key}}, kMessages);
      if (answer.status == 200) ++ok;
      else if (answer.status == 429) ++limited;
      else ++other;
    });
  }
  for (auto& caller : callers) caller.join();
  BOOST_TEST_MESSAGE("50 concurrent callers over two gateways: " << ok << " served, " << limited << " refused");
  BOOST_TEST(ok.load() == 20);
  BOOST_TEST(limited.load() == 30);
  BOOST_TEST(other.load() == 0);

  const auto refused = first.call("POST", "/v1/messages", {{"x-api-key", frank.key}}, kMessages);
  BOOST_TEST(refused.status == 429);
  BOOST_TEST(refused.json()["error"]["type"] == "rate_limit_error");
  BOOST_TEST(refused.json()["error"]["message"].get<std::string>().find("member-hourly") != std::string::npos);
  BOOST_TEST(!refused.header("retry-after").empty());
  const json row = auditRow(testDatabaseUrl(), refused.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["outcome"] == "quota_exceeded");
}

BOOST_AUTO_TEST_CASE(a_warned_budget_serves_and_records_the_breach) {
  Gateway gateway(authOptions());
  rewrite(gateway, "ai/gateway.yaml",
          "gateway:\n  default_model: claude-sonnet-5-5\n  quotas:\n    mode: warn\n    windows:\n"
          "      - { id: member-minute, per: user, seconds: 60, max_requests: 1 }\n");
  const Member gina = addMember("gina", "--role member --project odoo");
  BOOST_REQUIRE_EQUAL(gateway.call("POST", "/v1/messages", {{"x-api-key", gina.key}}, kMessages).status, 200);
  // In warn mode a request is counted once answered, off the caller's path: the next request may
  // arrive before that count lands. Every one is served; one soon carries the breach.
  json row;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto over = gateway.call("POST", "/v1/messages", {{"x-api-key", gina.key}}, kMessages);
    BOOST_REQUIRE_EQUAL(over.status, 200);
    row = auditRow(testDatabaseUrl(), over.header("x-sluice-request-id"));
    BOOST_REQUIRE(row.is_object());
    BOOST_TEST(row["outcome"] == "ok");
    if (row["error_key"] == "quota_warning") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_TEST(row["error_key"] == "quota_warning");
  BOOST_TEST(row["error_message"].is_string());
  if (row["error_message"].is_string()) {
    BOOST_TEST(row["error_message"].get<std::string>().find("member-minute") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
