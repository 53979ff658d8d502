// The standard AWS credential chain through the real gateway and the real mock provider, whose
// STS, container and IMDSv2 endpoints hand out temporary credentials that live kLifetime seconds
// and whose Bedrock checks every signature (an expired key is refused as AWS refuses it). The
// catalog is tests/integration/catalogs/bedrock-chain: `claude` signs with the chain's keys,
// `claude-role` with role_arn assumed on top; both fail over to `backup`.

#include <atomic>
#include <functional>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/support/child_process.h"
#include "tests/support/http_client.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::ChildOptions;
using sluice::test::ChildProcess;
using sluice::test::HttpConnection;
using namespace std::chrono_literals;

namespace {

constexpr int kLifetime = 12;  // seconds: refreshed 3 s ahead, so a 14 s run crosses at least one

// The mock, then a gateway whose chain variables point at it (`env(mock_url)`).
struct ChainRig {
  using Env = std::vector<std::pair<std::string, std::string>>;
  explicit ChainRig(const std::function<Env(const std::string&)>& env, std::vector<std::string> extra_args = {},
                    std::vector<std::string> mock_args = {}) {
    ChildOptions mock_options{
        .binary = sluice::test::binPath("sluice-mock-provider"),
        .args = {"--listen", "127.0.0.1:0", "--quiet", "--fixtures", sluice::test::fixturesDir(),
                 "--aws-credentials-lifetime", std::to_string(kLifetime), "--aws-container-token", "pod-identity-token"},
    };
    for (auto& arg : mock_args) mock_options.args.push_back(std::move(arg));
    mock = std::make_unique<ChildProcess>(std::move(mock_options));
    ChildOptions gateway{
        .binary = sluice::test::binPath("sluice"),
        .args = {"--services", sluice::test::sourceDir() + "/tests/integration/catalogs/bedrock-chain", "--listen",
                 "127.0.0.1:0", "--insecure-no-auth"},
        .env = {{"ANTHROPIC_BASE_URL", mock->baseUrl()}, {"ANTHROPIC_API_KEY", "mock-anthropic-key"},
                {"BEDROCK_BASE_URL", mock->baseUrl()}, {"AWS_REGION", "us-east-1"}},
        .unset_env = {"SLUICE_DATABASE_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                      "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                      "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                      "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_EC2_METADATA_DISABLED", "AWS_PROFILE"},
    };
    for (auto& entry : env(mock->baseUrl())) gateway.env.push_back(std::move(entry));
    for (auto& arg : extra_args) gateway.args.push_back(std::move(arg));
    sluice = std::make_unique<ChildProcess>(std::move(gateway));
  }

  sluice::test::HttpResponse messages(const std::string& model) {
    HttpConnection connection(sluice->host(), sluice->port());
    return connection.request("POST", "/v1/messages",
                              {{"anthropic-version", "2023-06-01"}, {"Content-Type", "application/json"}},
                              R"({"model":")" + model + R"(","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})");
  }
  json mockJson(const std::string& path) {
    return sluice::test::request("GET", mock->baseUrl() + path).json();
  }
  json ready() { return sluice::test::request("GET", sluice->baseUrl() + "/readyz").json(); }

  std::unique_ptr<ChildProcess> mock;
  std::unique_ptr<ChildProcess> sluice;
};

struct TokenFile {
  explicit TokenFile(const std::string& text) : path("/tmp/sluice-it-web-identity-" + std::to_string(::getpid())) {
    std::ofstream(path) << text;
  }
  ~TokenFile() { std::remove(path.c_str()); }
  std::string path;
};

const std::string kFromBedrock = "Hello from the mock provider (us.anthropic.claude-sonnet-4-5-20250929-v1:0).";

}  // namespace

BOOST_AUTO_TEST_SUITE(aws_chain)

BOOST_AUTO_TEST_CASE(web_identity_keys_expire_during_the_run_and_requests_keep_succeeding) {
  TokenFile token("eyJhbGciOiJSUzI1NiJ9.irsa.token");
  ChainRig rig([&](const std::string& mock) -> ChainRig::Env {
    return {{"AWS_WEB_IDENTITY_TOKEN_FILE", token.path},
            {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/irsa"},
            {"AWS_ENDPOINT_URL_STS", mock + "/sts"}};
  });
  BOOST_TEST(rig.ready()["cloud_credentials"]["aws-chain"]["pending"] == true);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kLifetime + 2);
  int served = 0;
  std::string first_key;
  while (std::chrono::steady_clock::now() < until) {
    const auto response = rig.messages("claude");
    BOOST_REQUIRE_EQUAL(response.status, 200);
    BOOST_REQUIRE_EQUAL(response.json()["content"][0]["text"].get<std::string>(), kFromBedrock);  // never the backup
    const std::string authorization = rig.mockJson("/_mock/last")["headers"]["authorization"];
    BOOST_TEST(authorization.starts_with("AWS4-HMAC-SHA256 Credential=ASIA"));
    ++served;
    std::this_thread::sleep_for(500ms);
  }
  BOOST_TEST(served >= 20);
  const json issued = rig.mockJson("/_mock/aws");
  BOOST_TEST(issued["served"]["sts_web_identity"].get<int>() >= 2);  // refreshed before they expired
  BOOST_TEST(issued["served"]["sts_web_identity"].get<int>() <= 3);  // not once per request
  const json ready = rig.ready()["cloud_credentials"]["aws-chain"];
  BOOST_TEST(ready["usable"] == true);
  BOOST_TEST(ready["detail"].get<std::string>().starts_with("temporary keys from web identity, "));
  BOOST_TEST(rig.sluice->stderrText().find("mock-session-") == std::string::npos);  // no token logged
}

BOOST_AUTO_TEST_CASE(many_simultaneous_requests_fetch_the_container_credentials_once) {
  ChainRig rig([](const std::string& mock) -> ChainRig::Env {
    return {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", mock + "/container/credentials"},
            {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "pod-identity-token"}};
  });
  constexpr int kCallers = 24;
  std::atomic<int> from_bedrock{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&] {
      const auto response = rig.messages("claude");
      if (response.status == 200 && response.json()["content"][0]["text"] == kFromBedrock) ++from_bedrock;
    });
  }
  for (auto& caller : callers) caller.join();
  BOOST_TEST(from_bedrock.load() == kCallers);
  BOOST_TEST(rig.mockJson("/_mock/aws")["served"]["container"] == 1);
}

BOOST_AUTO_TEST_CASE(a_slow_credential_fetch_parks_its_request_not_the_event_loop) {
  // One event loop: were the fetch a blocking call on it, /healthz would wait for it too.
  ChainRig rig([](const std::string& mock) -> ChainRig::Env {
    return {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", mock + "/container/credentials"},
            {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "pod-identity-token"}};
  }, {"--workers", "1"}, {"--aws-credentials-delay-ms", "2000"});
  sluice::test::HttpResponse slow;
  const auto sent = std::chrono::steady_clock::now();
  std::thread caller([&] { slow = rig.messages("claude"); });
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  const auto health = sluice::test::request("GET", rig.sluice->baseUrl() + "/healthz");
  const auto health_took = std::chrono::steady_clock::now() - asked;
  caller.join();
  BOOST_TEST(health.status == 200);
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(health_took).count() < 1000);
  BOOST_TEST(slow.status == 200);
  const auto slow_took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent);
  BOOST_TEST(slow_took.count() >= 2000);  // the request did wait for its keys
}

BOOST_AUTO_TEST_CASE(role_arn_is_assumed_with_sts_signed_by_the_instance_roles_keys) {
  ChainRig rig([](const std::string& mock) -> ChainRig::Env {
    return {{"AWS_EC2_METADATA_SERVICE_ENDPOINT", mock}, {"AWS_ENDPOINT_URL_STS", mock + "/sts"}};
  });
  const auto response = rig.messages("claude-role");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(response.json()["content"][0]["text"] ==
             "Hello from the mock provider (anthropic.claude-haiku-4-5-20251001-v1:0).");
  const json issued = rig.mockJson("/_mock/aws")["served"];
  BOOST_TEST(issued["imds"] == 1);
  BOOST_TEST(issued["sts_assume_role"] == 1);  // the mock checked its SigV4 with the IMDS keys
  const std::string authorization = rig.mockJson("/_mock/last")["headers"]["authorization"];
  BOOST_TEST(authorization.find("/us-west-2/bedrock/aws4_request") != std::string::npos);
  BOOST_TEST(rig.ready()["cloud_credentials"]["aws-role"]["detail"].get<std::string>().starts_with(
      "temporary keys from STS AssumeRole, "));
}

BOOST_AUTO_TEST_CASE(a_chain_without_keys_fails_the_attempt_over_with_the_reason_in_the_row) {
  const std::string database = sluice::test::testDatabaseUrl();
  ChainRig rig([](const std::string&) -> ChainRig::Env { return {{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9"}}; },
               {"--database-url", database, "--audit-spool", "/tmp/sluice-it-aws-chain-" + std::to_string(::getpid())});
  const auto response = rig.messages("claude");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(response.json()["content"][0]["text"] == "Hello from the mock provider (claude-backup).");
  const json row = sluice::test::auditRow(database, response.header("x-sluice-request-id"));
  BOOST_TEST(row["attempts"][0]["result"] == "skipped:credential_unavailable");
  BOOST_TEST(row["attempts"][0]["error"].get<std::string>().find("instance metadata (IMDSv2) could not be reached") !=
             std::string::npos);
  const json ready = rig.ready()["cloud_credentials"]["aws-chain"];
  BOOST_TEST(ready["usable"] == false);
  BOOST_TEST(ready["error"].get<std::string>().find("IMDSv2") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
