// SigV4 against the AWS Signature Version 4 test suite (credentials AKIDEXAMPLE, 2015-08-30
// 12:36:00Z, us-east-1, service "service"), then the Bedrock cases the suite does not cover.
#include "server/upstream/sigv4.h"

#include <boost/test/unit_test.hpp>

using namespace sluice::upstream::aws;

namespace {

const Credentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const std::string kToken =
    "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIe"
    "oIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5V"
    "SXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yj"
    "c8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";
const auto kSuiteTime = std::chrono::system_clock::from_time_t(1440938160);  // 2015-08-30T12:36:00Z
const std::string kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SigningInput suiteInput(std::string_view method, std::string_view path = "/", std::string_view query = "") {
  SigningInput input;
  input.method = method;
  input.host = "example.amazonaws.com";
  input.path = path;
  input.query = query;
  input.region = "us-east-1";
  input.service = "service";
  input.now = kSuiteTime;
  return input;
}

std::string headerOf(const Signature& signature, std::string_view name) {
  for (const auto& [key, value] : signature.headers) if (key == name) return value;
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sigv4_test_suite)

BOOST_AUTO_TEST_CASE(get_vanilla) {
  SigningKeyCache cache;
  auto s = sign(suiteInput("GET"), kSuite, cache);
  BOOST_TEST(s.canonical_request ==
             "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + kEmptyHash);
  BOOST_TEST(s.signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  BOOST_TEST(headerOf(s, "authorization") ==
             "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
             "SignedHeaders=host;x-amz-date, "
             "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  BOOST_TEST(headerOf(s, "x-amz-date") == "20150830T123600Z");
}

BOOST_AUTO_TEST_CASE(post_vanilla_and_post_vanilla_query) {
  SigningKeyCache cache;
  BOOST_TEST(sign(suiteInput("POST"), kSuite, cache).signature ==
             "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  BOOST_TEST(sign(suiteInput("POST", "/", "Param1=value1"), kSuite, cache).signature ==
             "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11");
}

BOOST_AUTO_TEST_CASE(get_vanilla_query_order_key_sorts_the_query) {
  SigningKeyCache cache;
  BOOST_TEST(sign(suiteInput("GET", "/", "Param2=value2&Param1=value1"), kSuite, cache).signature ==
             "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

BOOST_AUTO_TEST_CASE(header_names_lowered_and_values_trimmed) {
  SigningKeyCache cache;
  auto key_case = suiteInput("POST");
  key_case.headers = {{"MY-HEADER1", "value1"}};
  BOOST_TEST(sign(key_case, kSuite, cache).signature ==
             "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c");
  auto value_case = suiteInput("POST");
  value_case.headers = {{"My-Header1", "VALUE1"}};
  BOOST_TEST(sign(value_case, kSuite, cache).signature ==
             "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d");
  auto trim = suiteInput("GET");
  trim.headers = {{"My-Header1", " value1"}, {"My-Header2", "\"a   b   c\""}};
  BOOST_TEST(sign(trim, kSuite, cache).signature ==
             "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
}

BOOST_AUTO_TEST_CASE(post_x_www_form_urlencoded_hashes_the_payload) {
  SigningKeyCache cache;
  auto input = suiteInput("POST");
  input.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  input.payload = "Param1=value1";
  auto s = sign(input, kSuite, cache);
  BOOST_TEST(s.canonical_request ==
             "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\n"
             "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
             "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  BOOST_TEST(s.string_to_sign ==
             "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
             "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281");
  BOOST_TEST(s.signature == "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
}

BOOST_AUTO_TEST_CASE(post_sts_header_before_signs_the_session_token) {
  SigningKeyCache cache;
  auto s = sign(suiteInput("POST"), Credentials{kSuite.access_key_id, kSuite.secret_access_key, kToken}, cache);
  BOOST_TEST(s.signed_headers == "host;x-amz-date;x-amz-security-token");
  BOOST_TEST(s.string_to_sign ==
             "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
             "c237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6");
  BOOST_TEST(s.signature == "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead");
  BOOST_TEST(headerOf(s, "x-amz-security-token") == kToken);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sigv4_bedrock)

BOOST_AUTO_TEST_CASE(model_id_colon_is_encoded_again_in_the_canonical_uri) {
  const std::string path = "/model/" + uriEncode("us.anthropic.claude-sonnet-4-5-20250929-v1:0") + "/invoke";
  BOOST_TEST(path == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
  BOOST_TEST(canonicalUri(path) == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%253A0/invoke");
  const std::string arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/x";
  BOOST_TEST(uriEncode(arn) == "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx");
}

// The same request signed by AWS's own signer (@smithy/signature-v4) in tests/e2e/sigv4.test.mjs.
BOOST_AUTO_TEST_CASE(bedrock_invoke_signature_matches_aws_signer) {
  SigningKeyCache cache;
  const std::string path = "/model/" + uriEncode("us.anthropic.claude-sonnet-4-5-20250929-v1:0") + "/invoke";
  SigningInput input;
  input.method = "POST";
  input.host = "bedrock-runtime.us-east-1.amazonaws.com";
  input.path = path;
  input.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  input.payload =
      R"({"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]})";
  input.region = "us-east-1";
  input.now = kSuiteTime;
  auto s = sign(input, kSuite, cache);
  BOOST_TEST(s.signed_headers == "accept;content-type;host;x-amz-date");
  BOOST_TEST(s.canonical_request.find("\n/model/us.anthropic.claude-sonnet-4-5-20250929-v1%253A0/invoke\n") !=
             std::string::npos);
  BOOST_TEST(s.signature == "b071ff8ef787562f65701016937b3e85dd7545764b9f356d30c7a9fc81584dd3");
}

BOOST_AUTO_TEST_CASE(canonical_uri_resolves_dot_segments) {
  BOOST_TEST(canonicalUri("") == "/");
  BOOST_TEST(canonicalUri("/") == "/");
  BOOST_TEST(canonicalUri("/example/..") == "/");
  BOOST_TEST(canonicalUri("/./a/b/../c") == "/a/c");
  BOOST_TEST(canonicalUri("/a b") == "/a%20b");
}

BOOST_AUTO_TEST_CASE(signs_content_sha256_when_asked) {
  SigningKeyCache cache;
  auto input = suiteInput("POST", "/model/m%3A0/invoke");
  input.payload = "{}";
  input.sign_content_sha256 = true;
  auto s = sign(input, kSuite, cache);
  BOOST_TEST(headerOf(s, "x-amz-content-sha256") == sha256Hex("{}"));
  BOOST_TEST(s.signed_headers == "host;x-amz-content-sha256;x-amz-date");
}

BOOST_AUTO_TEST_CASE(signing_key_is_derived_once_per_day_and_region) {
  SigningKeyCache cache;
  auto input = suiteInput("POST");
  sign(input, kSuite, cache);
  input.now += std::chrono::hours(1);  // same day
  sign(input, kSuite, cache);
  BOOST_TEST(cache.derivations() == 1u);
  input.region = "eu-west-1";
  sign(input, kSuite, cache);
  BOOST_TEST(cache.derivations() == 2u);
  input.now += std::chrono::hours(24);
  sign(input, kSuite, cache);
  BOOST_TEST(cache.derivations() == 3u);
  sign(input, Credentials{"AKIDEXAMPLE", "another secret", ""}, cache);  // a rotated secret
  BOOST_TEST(cache.derivations() == 4u);
  BOOST_TEST(cache.key(kSuite, "20150830", "us-east-1", "service") ==
             deriveSigningKey(kSuite.secret_access_key, "20150830", "us-east-1", "service"));
}

BOOST_AUTO_TEST_CASE(the_secret_never_appears_in_what_is_sent) {
  SigningKeyCache cache;
  auto s = sign(suiteInput("POST"), kSuite, cache);
  for (const auto& [name, value] : s.headers) BOOST_TEST(value.find(kSuite.secret_access_key) == std::string::npos);
  BOOST_TEST(s.canonical_request.find(kSuite.secret_access_key) == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
