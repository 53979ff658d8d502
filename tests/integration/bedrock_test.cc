// AWS Bedrock through the real gateway and the mock provider, which checks every SigV4 signature
// with the real algorithm and answers InvokeModel as Bedrock does (event-stream frames when
// streamed). The catalog is tests/integration/catalogs/bedrock: `bedrock` passes the test's
// x-mock-script on (the fault) and fails over to `backup`; `wrong` signs with a secret the mock
// does not know; `keyed` sends a Bedrock API key. Every client format, streamed and not, with
// tools, is in translation_test.cc (the shipped catalog's claude-sonnet-4-5-bedrock).

#include <string>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/sse.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::attemptResultsOf;
using sluice::test::auditRow;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;

namespace {

struct Fixture {
  Fixture() : url(testDatabaseUrl()), gateway(options(url)) {}

  static GatewayOptions options(const std::string& database_url) {
    GatewayOptions options;
    options.services = sluice::test::sourceDir() + "/tests/integration/catalogs/bedrock";
    options.extra_args = {"--database-url", database_url, "--audit-spool",
                          "/tmp/sluice-it-bedrock-" + std::to_string(::getpid())};
    options.extra_env = {{"WRONG_SECRET_ACCESS_KEY", "not-the-mocks-secret"}, {"BEDROCK_API_KEY", "bedrock-api-key-it"}};
    return options;
  }

  std::string body(const std::string& model, bool stream) {
    return R"({"model":")" + model + R"(","max_tokens":50,"stream":)" + (stream ? "true" : "false") +
           R"(,"messages":[{"role":"user","content":"hi"}]})";
  }
  sluice::test::Headers headers(const std::string& script) {
    sluice::test::Headers out{{"anthropic-version", "2023-06-01"}};
    if (!script.empty()) out.emplace_back("x-mock-script", script);
    return out;
  }
  sluice::test::HttpResponse messages(const std::string& model, const std::string& script = "") {
    return gateway.call("POST", "/v1/messages", headers(script), body(model, false));
  }
  sluice::test::StreamResult messagesStream(const std::string& model, const std::string& script = "") {
    return gateway.stream("/v1/messages", headers(script), body(model, true));
  }
  json row(const std::string& request_id) { return auditRow(url, request_id); }

  std::string url;
  Gateway gateway;
};

std::string streamedText(const std::string& body) {
  std::string text;
  for (const auto& event : sluice::test::parseSse(body)) {
    if (event.event != "content_block_delta") continue;
    const json data = json::parse(event.data);
    if (data["delta"].contains("text")) text += data["delta"]["text"].get<std::string>();
  }
  return text;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(bedrock, Fixture)

BOOST_AUTO_TEST_CASE(a_signed_invoke_model_call_is_answered_and_audited_with_bedrocks_counts) {
  const auto whole = messages("claude");
  BOOST_REQUIRE_EQUAL(whole.status, 200);
  BOOST_TEST(whole.json()["content"][0]["text"] ==
             "Hello from the mock provider (us.anthropic.claude-sonnet-4-5-20250929-v1:0).");
  const json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
  BOOST_TEST(!sent["json"].contains("model"));
  BOOST_TEST(sent["json"]["anthropic_version"] == "bedrock-2023-05-31");
  BOOST_TEST(sent["headers"]["authorization"].get<std::string>().starts_with(
      "AWS4-HMAC-SHA256 Credential=AKIDSLUICEMOCK/"));
  const json audit = row(whole.header("x-sluice-request-id"));
  BOOST_TEST(attemptResultsOf(audit) == "bedrock/claude=ok");
  BOOST_TEST(audit["output_tokens"].get<int64_t>() > 0);
  BOOST_TEST(audit["cost_microdollars"].get<int64_t>() > 0);

  const auto streamed = messagesStream("claude");
  BOOST_REQUIRE_EQUAL(streamed.status, 200);
  BOOST_TEST(streamed.complete);
  BOOST_TEST(streamedText(streamed.body) == "Hello from the mock provider (us.anthropic.claude-sonnet-4-5-20250929-v1:0).");
  BOOST_TEST(gateway.mockJson("/_mock/last")["headers"]["accept"] == "application/vnd.amazon.eventstream");
  const json streamed_row = row(streamed.header("x-sluice-request-id"));
  BOOST_TEST(streamed_row["output_tokens"] == audit["output_tokens"]);

  // /readyz says which AWS credentials can sign (ids and reasons only).
  const auto ready = gateway.call("GET", "/readyz");
  BOOST_TEST(ready.json()["cloud_credentials"]["aws"]["usable"] == true);
  BOOST_TEST(ready.body.find("sluice-mock-secret-access-key") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(throttling_is_retried_then_failed_over_to_another_provider) {
  const auto response = messages("claude", R"({"status":429})");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  BOOST_TEST(response.json()["content"][0]["text"] == "Hello from the mock provider (claude-backup).");
  const json audit = row(response.header("x-sluice-request-id"));
  BOOST_TEST(attemptResultsOf(audit) == "bedrock/claude=status_429,bedrock/claude=status_429,backup/api=ok");
  BOOST_TEST(audit["attempts"][0]["error"].get<std::string>().find("Too many requests") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_throttling_exception_as_the_first_event_fails_over_before_the_first_byte) {
  const auto result = messagesStream("claude", R"({"in_stream_error":0,"error_type":"throttlingException"})");
  BOOST_REQUIRE_EQUAL(result.status, 200);
  BOOST_TEST(streamedText(result.body) == "Hello from the mock provider (claude-backup).");
  BOOST_TEST(attemptResultsOf(row(result.header("x-sluice-request-id"))) ==
             "bedrock/claude=status_429,bedrock/claude=status_429,backup/api=ok");
}

BOOST_AUTO_TEST_CASE(a_bad_frame_fails_over_before_the_first_byte_and_ends_the_stream_after_it) {
  const auto first = messagesStream("claude", R"({"bad_frame_after":0})");
  BOOST_REQUIRE_EQUAL(first.status, 200);
  BOOST_TEST(streamedText(first.body) == "Hello from the mock provider (claude-backup).");
  const json failed_over = row(first.header("x-sluice-request-id"));
  BOOST_TEST(attemptResultsOf(failed_over).starts_with("bedrock/claude=transport:protocol"));
  BOOST_TEST(attemptResultsOf(failed_over).ends_with("backup/api=ok"));

  const auto later = messagesStream("claude", R"({"bad_frame_after":4})");
  BOOST_REQUIRE_EQUAL(later.status, 200);
  const auto events = sluice::test::parseSse(later.body);
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST(events.front().event == "message_start");
  BOOST_TEST(events.back().event == "error");
  BOOST_TEST(attemptResultsOf(row(later.header("x-sluice-request-id"))) == "bedrock/claude=stream_broken");
}

BOOST_AUTO_TEST_CASE(an_exception_mid_stream_reaches_a_chat_client_as_its_own_error) {
  const std::string chat =
      R"({"model":"claude","stream":true,"messages":[{"role":"user","content":"hi"}]})";
  const auto result = gateway.stream("/v1/chat/completions",
                                     {{"x-mock-script", R"({"in_stream_error":3,"error_message":"The model stopped"})"}},
                                     chat);
  BOOST_REQUIRE_EQUAL(result.status, 200);
  BOOST_TEST(result.body.find("The model stopped") != std::string::npos);
  BOOST_TEST(attemptResultsOf(row(result.header("x-sluice-request-id"))) == "bedrock/claude=stream_broken");
}

BOOST_AUTO_TEST_CASE(a_wrong_secret_is_refused_the_way_aws_refuses_it) {
  const auto response = messages("wrong-secret");
  BOOST_TEST(response.status == 403);
  const json error = response.json();
  BOOST_TEST(error["type"] == "error");
  BOOST_TEST(error["error"]["type"] == "permission_error");
  BOOST_TEST(error["error"]["message"].get<std::string>().find("signature we calculated does not match") !=
             std::string::npos);
  BOOST_TEST(response.body.find("not-the-mocks-secret") == std::string::npos);
  BOOST_TEST(attemptResultsOf(row(response.header("x-sluice-request-id"))) == "wrong/claude=status_403");
}

BOOST_AUTO_TEST_CASE(a_bedrock_api_key_reaches_an_inference_profile_arn) {
  const auto response = messages("keyed");
  BOOST_REQUIRE_EQUAL(response.status, 200);
  const json sent = gateway.mockJson("/_mock/last");
  BOOST_TEST(sent["path"] ==
             "/model/arn%3Aaws%3Abedrock%3Aeu-west-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-haiku/invoke");
  BOOST_TEST(sent["headers"]["authorization"] == "Bearer bedrock-api-key-it");
}

BOOST_AUTO_TEST_SUITE_END()
