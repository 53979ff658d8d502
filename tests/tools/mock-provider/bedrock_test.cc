// The mock's Bedrock: signatures checked the way AWS checks them (the gateway's signer's output
// accepted; a wrong secret, a tampered body, an expired temporary key refused with AWS's error
// names), the InvokeModel body checked, the model id taken from the path, frames as Bedrock's.
#include <boost/test/unit_test.hpp>

#include "server/upstream/sigv4.h"
#include "server/wire/bedrock/event_stream.h"
#include "tools/mock-provider/bedrock_auth.h"
#include "tools/mock-provider/bedrock_render.h"
#include "tools/mock-provider/route.h"

namespace sluice::mock {
namespace {

using Clock = std::chrono::system_clock;
const Clock::time_point kNow = Clock::from_time_t(1'796'000'000);

ReceivedRequest signedRequest(const std::string& key_id, const std::string& secret, const std::string& token = "",
                              Clock::time_point at = kNow) {
  ReceivedRequest request;
  request.method = "POST";
  request.path = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke";
  request.body = R"({"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[]})";
  request.headers = {{"Host", "127.0.0.1:9000"}, {"Content-Type", "application/json"}, {"Accept", "application/json"}};
  upstream::aws::SigningInput input;
  input.method = "POST";
  input.host = "127.0.0.1:9000";
  input.path = request.path;
  input.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  input.payload = request.body;
  input.region = "us-east-1";
  input.now = at;
  input.sign_content_sha256 = true;
  upstream::aws::SigningKeyCache cache;
  for (const auto& header : upstream::aws::sign(input, {key_id, secret, token}, cache).headers) {
    request.headers.push_back(header);
  }
  return request;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bedrock)

BOOST_AUTO_TEST_CASE(a_sigv4_signature_from_the_right_secret_is_accepted) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  BOOST_TEST(!checkBedrockAuth(signedRequest("AKIDMOCK", "mock-secret"), keys, std::nullopt, kNow).has_value());
}

BOOST_AUTO_TEST_CASE(a_wrong_secret_or_a_changed_body_is_refused_as_aws_refuses_it) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  auto wrong = checkBedrockAuth(signedRequest("AKIDMOCK", "not-the-secret"), keys, std::nullopt, kNow);
  BOOST_REQUIRE(wrong.has_value());
  BOOST_TEST(wrong->status == 403);
  BOOST_TEST(wrong->type == "InvalidSignatureException");
  BOOST_TEST(wrong->message.find("signature we calculated does not match") != std::string::npos);
  auto tampered = signedRequest("AKIDMOCK", "mock-secret");
  tampered.body[tampered.body.size() - 2] = ' ';
  BOOST_TEST(checkBedrockAuth(tampered, keys, std::nullopt, kNow)->type == "InvalidSignatureException");
  BOOST_TEST(checkBedrockAuth(signedRequest("AKIDOTHER", "mock-secret"), keys, std::nullopt, kNow)->type ==
             "UnrecognizedClientException");
  BOOST_TEST(checkBedrockAuth(signedRequest("AKIDMOCK", "mock-secret", "", kNow - std::chrono::minutes(6)), keys,
                              std::nullopt, kNow)->message.starts_with("Signature expired"));
  ReceivedRequest unsigned_request;
  BOOST_TEST(checkBedrockAuth(unsigned_request, keys, std::nullopt, kNow)->type == "MissingAuthenticationTokenException");
}

BOOST_AUTO_TEST_CASE(temporary_credentials_work_until_they_expire) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  keys.configure(std::chrono::seconds(60), "");
  const auto issued = keys.issue(kNow);
  const auto request = signedRequest(issued.access_key_id, issued.secret_access_key, issued.session_token);
  BOOST_TEST(!checkBedrockAuth(request, keys, std::nullopt, kNow).has_value());
  const auto later = kNow + std::chrono::seconds(61);
  const auto late = signedRequest(issued.access_key_id, issued.secret_access_key, issued.session_token, later);
  BOOST_TEST(checkBedrockAuth(late, keys, std::nullopt, later)->type == "ExpiredTokenException");
}

BOOST_AUTO_TEST_CASE(a_bedrock_api_key_is_a_bearer_token) {
  AwsKeyring keys("AKIDMOCK", "mock-secret");
  ReceivedRequest request;
  request.headers = {{"Authorization", "Bearer key-1"}};
  BOOST_TEST(!checkBedrockAuth(request, keys, std::nullopt, kNow).has_value());
  BOOST_TEST(checkBedrockAuth(request, keys, std::string("key-2"), kNow)->type == "AccessDeniedException");
}

BOOST_AUTO_TEST_CASE(the_model_id_comes_from_the_path_and_the_body_is_checked) {
  const auto route = matchRoute("/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fp/invoke-with-response-stream");
  BOOST_REQUIRE(route.has_value());
  BOOST_TEST(route->bedrock);
  BOOST_TEST((route->endpoint == Endpoint::BedrockInvokeStream));
  BOOST_TEST(route->model == "arn:aws:bedrock:us-east-1:1:inference-profile/p");
  BOOST_TEST(messagesBodyOf(R"({"model":"x","anthropic_version":"bedrock-2023-05-31"})", "m", false).error().message ==
             "Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.");
  BOOST_TEST(messagesBodyOf(R"({"max_tokens":1})", "m", false).error().type == "ValidationException");
  const auto body = messagesBodyOf(R"({"anthropic_version":"bedrock-2023-05-31","max_tokens":1})", "m", true);
  BOOST_TEST(*body == R"({"max_tokens":1,"model":"m","stream":true})");
}

BOOST_AUTO_TEST_CASE(events_become_chunk_frames_an_error_an_exception_and_a_bad_frame_a_bad_crc) {
  Script script;
  script.bad_frame_after = 1;
  const auto frames = eventStreamFrames({{"message_start", R"({"type":"message_start"})"},
                                         {"ping", R"({"type":"ping"})"},
                                         {"error", R"({"type":"error","error":{"type":"overloaded_error","message":"busy"}})"}},
                                        script);
  BOOST_REQUIRE_EQUAL(frames.size(), 3u);
  std::string why;
  const auto first = wire::bedrock::decodeEventMessage(frames[0], why);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->text(":event-type").value_or("") == "chunk");
  BOOST_TEST(!wire::bedrock::decodeEventMessage(frames[1], why).has_value());
  const auto last = wire::bedrock::decodeEventMessage(frames[2], why);
  BOOST_TEST(last->text(":message-type").value_or("") == "exception");
  BOOST_TEST(last->text(":exception-type").value_or("") == "modelStreamErrorException");
  BOOST_TEST(last->payload == R"({"message":"busy"})");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::mock
