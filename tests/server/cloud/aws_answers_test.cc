// What AWS's credential sources answer, read defensively: STS's XML, the container and IMDS JSON,
// the container URL rule and the refresh lead. Strings in, values out.
#include "server/cloud/aws_answers.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::cloud;
using namespace std::chrono_literals;

namespace {

// AWS's documented AssumeRoleWithWebIdentity answer (the STS API reference's example).
const std::string kWebIdentityAnswer = R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>amzn1.account.AF6RHO7KZU5XRVQJGXK6HB56KR2A</SubjectFromWebIdentityToken>
    <Audience>client.5498841531868486423.1548@apps.example.com</Audience>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/FederatedWebIdentityRole/app1</Arn>
      <AssumedRoleId>AROACLKWSDQRAOEXAMPLE:app1</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE</SessionToken>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <Expiration>2014-10-24T23:00:23Z</Expiration>
      <AccessKeyId>ASgeIAIOSFODNN7EXAMPLE</AccessKeyId>
    </Credentials>
    <SourceIdentity>SourceIdentityValue</SourceIdentity>
    <Provider>www.amazon.com</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata>
    <RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId>
  </ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>)";

}  // namespace

BOOST_AUTO_TEST_SUITE(aws_answers_suite)

BOOST_AUTO_TEST_CASE(an_sts_answer_gives_its_keys_and_expiration) {
  auto keys = readStsAnswer("AssumeRoleWithWebIdentity", 200, kWebIdentityAnswer);
  BOOST_REQUIRE(keys.has_value());
  BOOST_TEST(keys->keys.access_key_id == "ASgeIAIOSFODNN7EXAMPLE");
  BOOST_TEST(keys->keys.secret_access_key == "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY");
  BOOST_TEST(keys->keys.session_token == "AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE");
  BOOST_TEST(keys->expiration->time_since_epoch() == std::chrono::sys_days(std::chrono::year(2014) / 10 / 24).time_since_epoch() + 23h + 23s);
}

BOOST_AUTO_TEST_CASE(an_sts_error_gives_its_code_and_message_never_more) {
  const std::string error = R"(<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>
<Code>AccessDenied</Code><Message>User: arn:aws:sts::1:assumed-role/x is not authorized to perform: sts:AssumeRole</Message>
</Error><RequestId>1</RequestId></ErrorResponse>)";
  auto keys = readStsAnswer("AssumeRole", 403, error);
  BOOST_REQUIRE(!keys.has_value());
  BOOST_TEST(keys.error() == "STS AssumeRole answered 403: AccessDenied: User: arn:aws:sts::1:assumed-role/x is not "
                             "authorized to perform: sts:AssumeRole");
  BOOST_TEST(readStsAnswer("AssumeRole", 500, std::string(1000, 'A') + "<Message>" + std::string(5000, 'm') + "</Message>")
                 .error().size() < 300u);
}

BOOST_AUTO_TEST_CASE(malformed_sts_answers_are_refused_without_quoting_a_key) {
  BOOST_TEST(readStsAnswer("AssumeRole", 200, "not xml").error() == "STS AssumeRole: the answer has no <Credentials>");
  std::string no_expiry = kWebIdentityAnswer;
  no_expiry.replace(no_expiry.find("<Expiration>"), 45, "");
  BOOST_TEST(readStsAnswer("AssumeRole", 200, no_expiry).error() == "STS AssumeRole: the answer's Expiration is not an ISO 8601 time");
  std::string injected = kWebIdentityAnswer;
  injected.replace(injected.find("AQoD"), 4, "AQ\r\nX-Evil: 1\r\n");
  const auto refused = readStsAnswer("AssumeRole", 200, injected);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error() == "STS AssumeRole: the answer's session token is malformed");
  std::string nested = kWebIdentityAnswer;
  nested.replace(nested.find("ASgeIAIOSFODNN7EXAMPLE"), 22, "<b>ASgeIAIOSFODNN7EXAMPLE</b>");
  BOOST_TEST(readStsAnswer("AssumeRole", 200, nested).error() == "STS AssumeRole: the answer's AccessKeyId is missing or malformed");
  BOOST_TEST(readStsAnswer("AssumeRole", 200, std::string(kMaxAnswerBytes + 1, ' ')).error() ==
             "STS AssumeRole: the answer is larger than 64 KiB");
}

BOOST_AUTO_TEST_CASE(container_and_imds_json_give_their_keys) {
  auto keys = readJsonKeys("container credentials", 200,
                           R"({"AccessKeyId":"ASIAC1","SecretAccessKey":"s/1+","Token":"t=","Expiration":"2026-01-02T03:04:05.123+01:00"})");
  BOOST_REQUIRE(keys.has_value());
  BOOST_TEST(keys->keys.session_token == "t=");
  BOOST_TEST((*keys->expiration == *parseIso8601("2026-01-02T02:04:05Z")));
  auto imds = readJsonKeys("imds", 200, R"({"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAI1",)"
                                        R"("SecretAccessKey":"s","Token":"t","Expiration":"2026-01-02T03:04:05Z"})");
  BOOST_REQUIRE(imds.has_value());
  BOOST_TEST(readJsonKeys("imds", 200, R"({"Code":"AssumeRoleUnauthorizedAccess","Message":"no"})").error() ==
             "imds: the answer's Code is AssumeRoleUnauthorizedAccess: no");
  BOOST_TEST(readJsonKeys("imds", 200, std::string(100000, '[')).error() == "imds: the answer is larger than 64 KiB");
  BOOST_TEST(readJsonKeys("imds", 200, std::string(500, '[') + std::string(500, ']')).error() ==
             "imds: the answer is not a JSON object");
  BOOST_TEST(readJsonKeys("c", 403, R"({"code":"AccessDenied","message":"bad token"})").error() ==
             "c answered 403: AccessDenied: bad token");
}

BOOST_AUTO_TEST_CASE(iso8601_times_are_read_strictly) {
  BOOST_TEST(!parseIso8601("2026-02-30T00:00:00Z").has_value());
  BOOST_TEST(!parseIso8601("2026-01-01 00:00:00Z").has_value());
  BOOST_TEST(!parseIso8601("2026-01-01T00:00:00").has_value());
  BOOST_TEST(!parseIso8601("2026-01-01T00:00:00+0100").has_value());
  BOOST_TEST(parseIso8601("2026-01-01T00:00:00Z").has_value());
}

BOOST_AUTO_TEST_CASE(a_full_container_uri_is_https_or_a_loopback_or_link_local_host) {
  for (const char* url : {"https://creds.example.com/x", "http://127.0.0.1:8080/creds", "http://127.1.2.3/c",
                          "http://localhost/c", "http://[::1]:9/c", "http://169.254.170.2/v2/credentials/x",
                          "http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials"}) {
    BOOST_TEST(containerUrlRefusal(url).empty(), url);
  }
  for (const char* url : {"http://10.0.0.1/creds", "http://169.254.169.254/latest", "http://127.0.0.1.evil.com/",
                          "http://user@127.0.0.1/", "ftp://127.0.0.1/", "http://128.0.0.1/"}) {
    BOOST_TEST(!containerUrlRefusal(url).empty(), url);
  }
}

BOOST_AUTO_TEST_CASE(keys_are_refreshed_five_minutes_ahead_or_a_quarter_of_a_short_life_ahead) {
  const auto t0 = std::chrono::system_clock::time_point{} + std::chrono::hours(1000);
  BOOST_TEST((refreshLead(t0, t0 + 1h) == std::chrono::system_clock::duration(5min)));
  BOOST_TEST((refreshLead(t0, t0 + 20s) == std::chrono::system_clock::duration(5s)));
  BOOST_TEST((refreshLead(t0, t0 - 1s) == std::chrono::system_clock::duration::zero()));
}

BOOST_AUTO_TEST_CASE(sts_bodies_are_form_encoded) {
  BOOST_TEST(assumeRoleBody("arn:aws:iam::1:role/r", "s") ==
             "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr&RoleSessionName=s");
  BOOST_TEST(assumeRoleWithWebIdentityBody("arn:aws:iam::1:role/r", "s", "a.b+c").ends_with("&WebIdentityToken=a.b%2Bc"));
}

BOOST_AUTO_TEST_SUITE_END()
