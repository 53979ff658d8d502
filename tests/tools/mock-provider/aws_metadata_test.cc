// The mock's AWS credential sources: STS (AssumeRoleWithWebIdentity unsigned, AssumeRole with its
// SigV4 checked for service `sts`), the container endpoint with its token, IMDSv2's token dance,
// and the container and IMDS answers kept until half their life, as AWS's are.
#include <boost/test/unit_test.hpp>

#include "server/upstream/sigv4.h"
#include "tools/mock-provider/aws_metadata.h"

namespace sluice::mock {
namespace {

using Clock = std::chrono::system_clock;
const Clock::time_point kNow = Clock::from_time_t(1'796'000'000);

ReceivedRequest stsRequest(const std::string& body) {
  ReceivedRequest request;
  request.method = "POST";
  request.path = "/sts";
  request.body = body;
  request.headers = {{"Host", "127.0.0.1:9000"}, {"Content-Type", "application/x-www-form-urlencoded"}};
  return request;
}

ReceivedRequest assumeRole(const upstream::aws::Credentials& keys, Clock::time_point at = kNow) {
  ReceivedRequest request = stsRequest("Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr&RoleSessionName=s");
  upstream::aws::SigningInput input;
  input.method = "POST";
  input.host = "127.0.0.1:9000";
  input.path = "/sts";
  input.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  input.payload = request.body;
  input.region = "us-east-1";
  input.service = "sts";
  input.now = at;
  upstream::aws::SigningKeyCache cache;
  for (const auto& header : upstream::aws::sign(input, keys, cache).headers) request.headers.push_back(header);
  return request;
}

ReceivedRequest get(const std::string& path, std::vector<std::pair<std::string, std::string>> headers = {}) {
  ReceivedRequest request;
  request.method = "GET";
  request.path = path;
  request.headers = std::move(headers);
  return request;
}

std::string between(const std::string& text, const std::string& open, const std::string& close) {
  const size_t start = text.find(open);
  if (start == std::string::npos) return "";
  return text.substr(start + open.size(), text.find(close, start) - start - open.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(aws_metadata_suite)

BOOST_AUTO_TEST_CASE(web_identity_is_answered_with_sts_xml_and_assume_role_checks_its_signature) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  keys.configure(std::chrono::seconds(20), "");
  const auto web = answerAwsCredentials(
      stsRequest("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr&"
                 "RoleSessionName=s&WebIdentityToken=t"), keys, kNow);
  BOOST_TEST(web.status == 200);
  BOOST_TEST(web.body.find("<AssumeRoleWithWebIdentityResult>") != std::string::npos);
  const std::string key_id = between(web.body, "<AccessKeyId>", "</AccessKeyId>");
  const std::string secret = between(web.body, "<SecretAccessKey>", "</SecretAccessKey>");
  const std::string token = between(web.body, "<SessionToken>", "</SessionToken>");
  BOOST_TEST(between(web.body, "<Expiration>", "</Expiration>") == "2026-11-30T00:53:40Z");  // kNow + 20 s

  BOOST_TEST(answerAwsCredentials(assumeRole({key_id, secret, token}), keys, kNow).status == 200);
  const auto wrong = answerAwsCredentials(assumeRole({key_id, "not-the-secret", token}), keys, kNow);
  BOOST_TEST(wrong.status == 403);
  BOOST_TEST(between(wrong.body, "<Code>", "</Code>") == "SignatureDoesNotMatch");
  const auto later = kNow + std::chrono::seconds(21);
  BOOST_TEST(between(answerAwsCredentials(assumeRole({key_id, secret, token}, later), keys, later).body, "<Code>",
                     "</Code>") == "ExpiredToken");
  BOOST_TEST(between(answerAwsCredentials(stsRequest("Action=AssumeRole&Version=2011-06-15"), keys, kNow).body, "<Code>",
                     "</Code>") == "MissingAuthenticationToken");
}

BOOST_AUTO_TEST_CASE(the_container_endpoint_wants_its_token_and_keeps_its_keys_for_half_their_life) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  keys.configure(std::chrono::seconds(20), "pod-token");
  BOOST_TEST(answerAwsCredentials(get("/container/credentials"), keys, kNow).status == 401);
  const auto first = answerAwsCredentials(get("/container/credentials", {{"Authorization", "pod-token"}}), keys, kNow);
  BOOST_TEST(first.status == 200);
  const auto again = answerAwsCredentials(get("/container/credentials", {{"Authorization", "pod-token"}}), keys,
                                          kNow + std::chrono::seconds(9));
  BOOST_TEST(again.body == first.body);
  const auto renewed = answerAwsCredentials(get("/container/credentials", {{"Authorization", "pod-token"}}), keys,
                                            kNow + std::chrono::seconds(11));
  BOOST_TEST(renewed.body != first.body);
  BOOST_TEST(keys.servedBySource().at("container") == 3u);
}

BOOST_AUTO_TEST_CASE(imdsv2_wants_a_session_token_first) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  const std::string path = "/latest/meta-data/iam/security-credentials/";
  BOOST_TEST(answerAwsCredentials(get(path), keys, kNow).status == 401);  // IMDSv1 is off
  ReceivedRequest put = get("/latest/api/token", {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}});
  put.method = "PUT";
  const auto token = answerAwsCredentials(put, keys, kNow);
  BOOST_REQUIRE(token.status == 200);
  const auto role = answerAwsCredentials(get(path, {{"X-aws-ec2-metadata-token", token.body}}), keys, kNow);
  BOOST_TEST(role.body == "sluice-mock-role");
  const auto creds = answerAwsCredentials(get(path + role.body, {{"X-aws-ec2-metadata-token", token.body}}), keys, kNow);
  BOOST_TEST(creds.body.find(R"("Code":"Success")") != std::string::npos);
  BOOST_TEST(answerAwsCredentials(get(path + "other", {{"X-aws-ec2-metadata-token", token.body}}), keys, kNow).status == 404);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::mock
