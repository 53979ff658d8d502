// The AWS credential chain and its cache, over a FakeTransport and a given environment: the links
// in AWS's order, AssumeRole on top, refresh before expiry, one fetch for many callers, failures
// remembered briefly, and never a key in a reason.
#include "server/cloud/aws_credentials.h"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include <strings.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "tests/fakes/fake_transport.h"

using namespace sluice;
using namespace std::chrono_literals;
using fakes::FakeTransport;

namespace {

using Clock = std::chrono::system_clock;
const Clock::time_point kT0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1);  // 2026-01-01T00:00:00Z

cloud::Environment mapEnvironment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end() || found->second.empty()) return std::nullopt;
    return found->second;
  };
}

catalog::Credential chainCredential(std::string role_arn = "") {
  catalog::Credential credential;
  credential.id = "aws-eks";
  credential.aws = catalog::AwsCredential{};
  credential.aws->chain = true;
  credential.aws->role_arn = std::move(role_arn);
  return credential;
}

std::string stsXml(const std::string& action, const std::string& key_id, const std::string& expiration) {
  return "<" + action + "Response><" + action + "Result><Credentials><AccessKeyId>" + key_id +
         "</AccessKeyId><SecretAccessKey>secret-of-" + key_id + "</SecretAccessKey><SessionToken>token-of-" + key_id +
         "</SessionToken><Expiration>" + expiration + "</Expiration></Credentials></" + action + "Result></" + action +
         "Response>";
}

std::string keysJson(const std::string& key_id, const std::string& expiration) {
  return R"({"Code":"Success","AccessKeyId":")" + key_id + R"(","SecretAccessKey":"secret-of-)" + key_id +
         R"(","Token":"token-of-)" + key_id + R"(","Expiration":")" + expiration + R"("})";
}

std::string header(const upstream::Request& request, std::string_view name) {
  for (const auto& [key, value] : request.headers) {
    if (key.size() == name.size() && strncasecmp(key.c_str(), name.data(), name.size()) == 0) return value;
  }
  return "";
}

struct TokenFile {
  explicit TokenFile(const std::string& text) {
    char name[] = "/tmp/sluice-web-identity-XXXXXX";
    const int fd = mkstemp(name);
    path = name;
    ::close(fd);
    std::ofstream(path) << text;
  }
  ~TokenFile() { std::remove(path.c_str()); }
  std::string path;
};

const std::map<std::string, std::string> kContainer = {
    {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"},
    {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "pod-token"}};

}  // namespace

BOOST_AUTO_TEST_SUITE(aws_credentials_suite)

BOOST_AUTO_TEST_CASE(web_identity_is_exchanged_at_sts_unsigned_and_comes_first_in_the_chain) {
  TokenFile token("eyJhbGciOi.web-identity.token\n");
  FakeTransport transport;
  transport.script("sts.test", FakeTransport::json(200, stsXml("AssumeRoleWithWebIdentity", "ASIAWEB1", "2026-01-01T01:00:00Z")));
  auto env = kContainer;  // set too: web identity comes first
  env.insert({{"AWS_WEB_IDENTITY_TOKEN_FILE", token.path},
              {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/irsa"},
              {"AWS_ROLE_SESSION_NAME", "pod-a"},
              {"AWS_ENDPOINT_URL_STS", "http://sts.test:8443"}});
  cloud::AwsCredentialStore store(transport, mapEnvironment(env));
  auto keys = store.get(chainCredential(), kT0);
  BOOST_REQUIRE(keys.has_value());
  BOOST_TEST(keys->access_key_id == "ASIAWEB1");
  BOOST_TEST(keys->session_token == "token-of-ASIAWEB1");
  const auto sent = transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].url == "http://sts.test:8443/");
  BOOST_TEST(sent[0].body == "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A"
                             "123456789012%3Arole%2Firsa&RoleSessionName=pod-a&WebIdentityToken=eyJhbGciOi.web-identity.token");
  BOOST_TEST(header(sent[0], "authorization").empty());
}

BOOST_AUTO_TEST_CASE(container_credentials_send_the_token_file_as_authorization) {
  TokenFile token("eks-pod-identity-token");
  FakeTransport transport;
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIAPOD1", "2026-01-01T06:00:00Z")));
  auto env = kContainer;
  env["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = token.path;  // the file wins over the variable
  cloud::AwsCredentialStore store(transport, mapEnvironment(env));
  BOOST_TEST(store.get(chainCredential(), kT0)->access_key_id == "ASIAPOD1");
  BOOST_TEST(header(transport.sent()[0], "authorization") == "eks-pod-identity-token");
  BOOST_TEST(transport.sent()[0].method == "GET");
}

BOOST_AUTO_TEST_CASE(a_full_uri_to_another_host_over_http_is_refused_before_any_request) {
  FakeTransport transport;
  cloud::AwsCredentialStore store(transport, mapEnvironment({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://10.1.2.3/creds"}}));
  auto keys = store.get(chainCredential(), kT0);
  BOOST_REQUIRE(!keys.has_value());
  BOOST_TEST(keys.error().starts_with("credential 'aws-eks': container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI over http"));
  BOOST_TEST(transport.sentCount() == 0u);
}

BOOST_AUTO_TEST_CASE(imdsv2_takes_a_session_token_then_the_role_then_its_keys) {
  FakeTransport transport;
  transport.script("/latest/api/token", FakeTransport::json(200, "imds-session-token"));
  transport.script("/security-credentials/sluice-role", FakeTransport::json(200, keysJson("ASIAEC2", "2026-01-01T06:00:00Z")));
  transport.script("/security-credentials/", FakeTransport::json(200, "sluice-role\n"));
  cloud::AwsCredentialStore store(transport, mapEnvironment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1338/"}}));
  BOOST_TEST(store.get(chainCredential(), kT0)->access_key_id == "ASIAEC2");
  const auto sent = transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);
  BOOST_TEST(sent[0].method == "PUT");
  BOOST_TEST(sent[0].url == "http://127.0.0.1:1338/latest/api/token");
  BOOST_TEST(header(sent[0], "x-aws-ec2-metadata-token-ttl-seconds") == "21600");
  BOOST_TEST(sent[1].url == "http://127.0.0.1:1338/latest/meta-data/iam/security-credentials/");
  BOOST_TEST(sent[2].url == "http://127.0.0.1:1338/latest/meta-data/iam/security-credentials/sluice-role");
  for (size_t i : {1u, 2u}) BOOST_TEST(header(sent[i], "x-aws-ec2-metadata-token") == "imds-session-token");
  BOOST_TEST(sent[0].timeouts.connect_ms == 1000);
}

BOOST_AUTO_TEST_CASE(an_imds_role_name_is_an_iam_name_never_a_path) {
  const std::string longest(64, 'r');
  FakeTransport transport;
  transport.script("/latest/api/token", FakeTransport::json(200, "imds-session-token").repeating());
  transport.script("/security-credentials/" + longest, FakeTransport::json(200, keysJson("ASIALONG", "2026-01-01T06:00:00Z")));
  transport.script("/security-credentials/", FakeTransport::json(200, longest));
  transport.script("/security-credentials/", FakeTransport::json(200, "../../user-data"));
  cloud::AwsCredentialStore store(transport, mapEnvironment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1338"}}));
  BOOST_TEST(store.get(chainCredential(), kT0)->access_key_id == "ASIALONG");
  cloud::AwsCredentialStore other(transport, mapEnvironment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:1338"}}));
  BOOST_TEST(other.get(chainCredential(), kT0).error() ==
             "credential 'aws-eks': instance metadata (IMDSv2): the role name request answered 200");
  BOOST_TEST(transport.sentCount() == 5u);  // token, role, keys; token, role: the odd name is not asked for
}

BOOST_AUTO_TEST_CASE(imds_disabled_leaves_the_chain_without_keys) {
  FakeTransport transport;
  cloud::AwsCredentialStore store(transport, mapEnvironment({{"AWS_EC2_METADATA_DISABLED", "TRUE"}}));
  BOOST_TEST(store.get(chainCredential(), kT0).error().find("AWS_EC2_METADATA_DISABLED=true") != std::string::npos);
  BOOST_TEST(transport.sentCount() == 0u);
}

BOOST_AUTO_TEST_CASE(role_arn_is_assumed_with_sts_signed_by_the_chains_keys) {
  FakeTransport transport;
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIABASE", "2026-01-01T06:00:00Z")));
  transport.script("sts.test", FakeTransport::json(200, stsXml("AssumeRole", "ASIAROLE", "2026-01-01T01:00:00Z")));
  auto env = kContainer;
  env.insert({{"AWS_ENDPOINT_URL_STS", "http://sts.test"}, {"AWS_REGION", "eu-west-1"}});
  cloud::AwsCredentialStore store(transport, mapEnvironment(env));
  auto keys = store.get(chainCredential("arn:aws:iam::123456789012:role/sluice"), kT0);
  BOOST_REQUIRE(keys.has_value());
  BOOST_TEST(keys->access_key_id == "ASIAROLE");
  const auto sent = transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 2u);
  BOOST_TEST(sent[1].body.starts_with("Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fsluice"));
  BOOST_TEST(header(sent[1], "authorization").starts_with("AWS4-HMAC-SHA256 Credential=ASIABASE/20260101/eu-west-1/sts/aws4_request"));
  BOOST_TEST(header(sent[1], "x-amz-security-token") == "token-of-ASIABASE");
  // The assumed keys are kept: a second call fetches nothing.
  BOOST_TEST(store.get(chainCredential("arn:aws:iam::123456789012:role/sluice"), kT0 + 10min)->access_key_id == "ASIAROLE");
  BOOST_TEST(transport.sentCount() == 2u);
}

BOOST_AUTO_TEST_CASE(short_lived_keys_are_refreshed_before_they_expire_and_kept_while_a_refresh_fails) {
  FakeTransport transport;
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIAONE", "2026-01-01T00:00:20Z")));
  transport.script("169.254.170.23", FakeTransport::json(500, R"({"message":"busy"})"));
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIATWO", "2026-01-01T00:00:40Z")));
  cloud::AwsCredentialStore store(transport, mapEnvironment(kContainer));
  BOOST_TEST(store.get(chainCredential(), kT0)->access_key_id == "ASIAONE");
  BOOST_TEST(store.get(chainCredential(), kT0 + 14s)->access_key_id == "ASIAONE");  // before the lead: cached
  BOOST_TEST(transport.sentCount() == 1u);
  BOOST_TEST(store.get(chainCredential(), kT0 + 16s)->access_key_id == "ASIAONE");  // refresh failed: still valid
  BOOST_TEST(transport.sentCount() == 2u);
  BOOST_TEST(store.get(chainCredential(), kT0 + 17s)->access_key_id == "ASIAONE");  // the failure is remembered
  BOOST_TEST(transport.sentCount() == 2u);
  BOOST_TEST(store.get(chainCredential(), kT0 + 18500ms)->access_key_id == "ASIATWO");
  BOOST_TEST(transport.sentCount() == 3u);
}

BOOST_AUTO_TEST_CASE(expired_keys_and_failed_fetches_fail_with_the_reason_and_are_retried_after_a_pause) {
  FakeTransport transport;
  transport.script("169.254.170.23", FakeTransport::json(403, R"({"code":"AccessDenied","message":"bad token"})"));
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIAOLD", "2025-12-31T23:00:00Z")));
  cloud::AwsCredentialStore store(transport, mapEnvironment(kContainer));
  const auto first = store.get(chainCredential(), kT0);
  BOOST_TEST(first.error() == "credential 'aws-eks': container credentials answered 403: AccessDenied: bad token");
  BOOST_TEST(store.get(chainCredential(), kT0 + 1s).error() == first.error());
  BOOST_TEST(transport.sentCount() == 1u);
  BOOST_TEST(store.get(chainCredential(), kT0 + 3s).error() ==
             "credential 'aws-eks': container credentials answered keys that have already expired");
  BOOST_TEST(transport.sentCount() == 2u);
}

BOOST_AUTO_TEST_CASE(many_callers_at_once_share_one_fetch) {
  FakeTransport transport;
  transport.script("169.254.170.23",
                   FakeTransport::json(200, keysJson("ASIAONCE", "2026-01-01T06:00:00Z")).delayHead(300ms));
  cloud::AwsCredentialStore store(transport, mapEnvironment(kContainer));
  std::atomic<int> served{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 16; ++i) {
    callers.emplace_back([&] {
      auto keys = store.get(chainCredential(), kT0);
      if (keys && keys->access_key_id == "ASIAONCE") ++served;
    });
  }
  for (auto& caller : callers) caller.join();
  BOOST_TEST(served.load() == 16);
  BOOST_TEST(transport.sentCount() == 1u);
  BOOST_TEST(store.fetches() == 1u);
}

BOOST_AUTO_TEST_CASE(standing_says_pending_usable_or_why_not_and_never_a_key) {
  FakeTransport transport;
  transport.script("169.254.170.23", FakeTransport::json(200, keysJson("ASIAPOD", "2026-01-01T00:10:00Z")));
  cloud::AwsCredentialStore store(transport, mapEnvironment(kContainer));
  catalog::Catalog catalog;
  catalog.credentials.push_back(chainCredential());
  auto before = store.standing(catalog, kT0);
  BOOST_REQUIRE_EQUAL(before.size(), 1u);
  BOOST_TEST(!before[0].usable);
  BOOST_TEST(before[0].pending);
  BOOST_TEST(transport.sentCount() == 0u);  // standing never fetches
  BOOST_REQUIRE(store.get(chainCredential(), kT0).has_value());
  auto after = store.standing(catalog, kT0 + 1min);
  BOOST_TEST(after[0].usable);
  BOOST_TEST(after[0].detail == "temporary keys from container credentials, 540 s left");
  BOOST_TEST(after[0].detail.find("secret-of") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
