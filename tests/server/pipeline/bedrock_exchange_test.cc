// Bedrock (platform: bedrock, wire: anthropic) on the request path, in-process: the InvokeModel call
// the gateway sends (path, body, SigV4 or a Bedrock API key) and Bedrock's answers (JSON, event
// stream, errors, exceptions, bad frames) relayed, translated, retried and failed over.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/upstream/sigv4.h"
#include "server/wire/bedrock/invoke.h"
#include "server/wire/sse.h"
#include "tests/server/http/request_path_harness.h"

namespace sluice::testing {
namespace {

using fakes::FakeTransport;
namespace bedrock = wire::bedrock;

constexpr const char* kModelId = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
constexpr const char* kInvokePath = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke";

std::shared_ptr<const catalog::Catalog> bedrockCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  aws-main:
    kind: platform
    aws: { access_key_id: env:KEY_ID, secret_access_key: env:SECRET, session_token: env:TOKEN }
  bedrock-key: { kind: platform, secret: env:BEDROCK_API_KEY }
  aws-chain: { kind: platform, aws: { chain: default } }
  second: { kind: platform, secret: env:SECOND_KEY }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  bedrock-us:
    credential: aws-main
    platform: bedrock
    region: us-east-1
    retry: { attempts: 1, backoff_ms: 1 }
    endpoints:
      claude: { wire: anthropic, url: "https://bedrock.example" }
  bedrock-keyed:
    credential: bedrock-key
    platform: bedrock
    region: eu-west-1
    endpoints:
      claude: { wire: anthropic, url: "https://keyed.example" }
  bedrock-chain:
    credential: aws-chain
    platform: bedrock
    region: us-west-2
    endpoints:
      claude: { wire: anthropic, url: "https://chain.example" }
  second:
    credential: second
    endpoints:
      api: { wire: anthropic, url: "https://second.example" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  claude:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  keyed:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  chained:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  claude:
    - { endpoint: bedrock-us/claude, upstream_model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" }
    - second/api
  keyed:
    - { endpoint: bedrock-keyed/claude, upstream_model: "anthropic.claude-haiku-4-5-v1:0" }
  chained:
    - { endpoint: bedrock-chain/claude, upstream_model: "anthropic.claude-haiku-4-5-v1:0" }
    - second/api
)"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", "gateway:\n  default_model: claude\n"};
  sources.env = {{"KEY_ID", "AKIDEXAMPLE"}, {"SECRET", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
                 {"TOKEN", "session-token"}, {"BEDROCK_API_KEY", "bedrock-api-key-1"}, {"SECOND_KEY", "sk-second"}};
  auto result = catalog::compileCatalog(sources);
  BOOST_REQUIRE(result.ok());
  return result.catalog;
}

const std::vector<std::string> kEvents = {
    R"({"type":"message_start","message":{"id":"msg_bdrk_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}})",
    R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})",
    R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello from Bedrock"}})",
    R"({"type":"content_block_stop","index":0})",
    R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}})",
    R"({"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":4}})",
};

// An event-stream answer: one chunk of the transport per frame given.
fakes::Scripted eventStream(const std::vector<std::string>& frames) {
  fakes::Scripted answer;
  answer.header("Content-Type", "application/vnd.amazon.eventstream").header("x-amzn-RequestId", "aws-req-1");
  for (const auto& frame : frames) answer.chunk(frame);
  return answer;
}

std::vector<std::string> chunks(size_t count = kEvents.size()) {
  std::vector<std::string> frames;
  for (size_t i = 0; i < count; ++i) frames.push_back(bedrock::chunkFrame(kEvents[i]));
  return frames;
}

std::vector<std::string> results(const audit::Record& row) {
  std::vector<std::string> out;
  for (const auto& attempt : row.attempts) out.push_back(attempt.endpoint + " " + attempt.result);
  return out;
}

std::string path(const upstream::Request& request) {
  return request.url.substr(request.url.find('/', std::string("https://").size()));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bedrock_exchange)

BOOST_AUTO_TEST_CASE(an_anthropic_request_becomes_a_signed_invoke_model_call) {
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("bedrock.example", FakeTransport::json(200, anthropicAnswer("hi there")));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude"),
                                   {{"anthropic-version", "2023-06-01"}, {"anthropic-beta", "tools-x, context-y"}});
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "hi there");
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(path(sent[0]) == kInvokePath);
  const nlohmann::json body = nlohmann::json::parse(sent[0].body);
  BOOST_TEST(!body.contains("model"));
  BOOST_TEST(!body.contains("stream"));
  BOOST_TEST(body["anthropic_version"] == "bedrock-2023-05-31");
  BOOST_TEST(body["anthropic_beta"] == nlohmann::json({"tools-x", "context-y"}));
  BOOST_TEST(sentHeader(sent[0], "anthropic-beta").empty());
  BOOST_TEST(sentHeader(sent[0], "anthropic-version").empty());
  BOOST_TEST(sentHeader(sent[0], "x-api-key").empty());
  BOOST_TEST(sentHeader(sent[0], "x-amz-security-token") == "session-token");
  BOOST_TEST(sentHeader(sent[0], "x-amz-content-sha256") == upstream::aws::sha256Hex(sent[0].body));
  const std::string authorization = sentHeader(sent[0], "authorization");
  BOOST_TEST(authorization.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"));
  BOOST_TEST(authorization.find("/us-east-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-"
                                "content-sha256;x-amz-date;x-amz-security-token, Signature=") != std::string::npos);
  // The signature is the one SigV4 gives for what was sent (the model id's ':' encoded twice).
  upstream::aws::SigningInput input;
  input.method = "POST";
  input.host = "bedrock.example";
  input.path = kInvokePath;
  input.headers = {{"accept", sentHeader(sent[0], "accept")}, {"content-type", sentHeader(sent[0], "content-type")}};
  input.payload = sent[0].body;
  input.region = "us-east-1";
  const std::string date = sentHeader(sent[0], "x-amz-date");
  std::tm tm{};
  BOOST_REQUIRE(strptime(date.c_str(), "%Y%m%dT%H%M%SZ", &tm) != nullptr);
  input.now = std::chrono::system_clock::from_time_t(timegm(&tm));
  input.sign_content_sha256 = true;
  upstream::aws::SigningKeyCache cache;
  const auto expected = upstream::aws::sign(input, {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token"}, cache);
  BOOST_TEST(authorization.ends_with("Signature=" + expected.signature));
  BOOST_TEST(expected.canonical_request.find("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%253A0/invoke\n") !=
             std::string::npos);
  const auto row = gateway.onlyRow();
  BOOST_TEST(row.served_endpoint == "bedrock-us/claude");
  BOOST_TEST(row.usage.input_tokens == 10);
  BOOST_TEST(row.usage.output_tokens == 3);
}

BOOST_AUTO_TEST_CASE(a_streamed_answer_is_reframed_into_the_same_anthropic_events) {
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("bedrock.example", eventStream(chunks()));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude", true));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.head.find("text/event-stream") != std::string::npos);
  wire::SseParser parser;
  const auto events = parser.feed(reply.body);
  BOOST_REQUIRE_EQUAL(events.size(), kEvents.size());
  for (size_t i = 0; i < events.size(); ++i) {
    BOOST_TEST(nlohmann::json::parse(events[i].data) == nlohmann::json::parse(kEvents[i]));
  }
  const auto sent = gateway.transport.sent();
  BOOST_TEST(path(sent[0]) == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream");
  BOOST_TEST(sentHeader(sent[0], "accept") == "application/vnd.amazon.eventstream");
  const auto row = gateway.onlyRow();
  BOOST_TEST(row.outcome == "ok");
  BOOST_TEST(row.usage.input_tokens == 12);
  BOOST_TEST(row.usage.output_tokens == 4);
  BOOST_TEST(row.cost_microdollars == 20);  // 12 x $1/M + 4 x $2/M
}

BOOST_AUTO_TEST_CASE(chat_and_responses_clients_get_bedrock_answers_in_their_own_shape) {
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("bedrock.example", eventStream(chunks()));
  gateway.transport.script("bedrock.example", FakeTransport::json(200, anthropicAnswer("whole")));
  const std::string chat = R"({"model":"claude","stream":true,"messages":[{"role":"user","content":"hi"}]})";
  const Reply streamed = gateway.send("POST", "/v1/chat/completions", chat, {{"authorization", "Bearer x"}});
  BOOST_TEST(streamed.status == 200);
  BOOST_TEST(streamed.body.find("\"content\":\"Hello from Bedrock\"") != std::string::npos);
  BOOST_TEST(streamed.body.find("data: [DONE]") != std::string::npos);
  const Reply whole = gateway.send("POST", "/v1/responses", R"({"model":"claude","input":"hi"})");
  BOOST_TEST(whole.status == 200);
  BOOST_TEST(whole.json()["output"][0]["content"][0]["text"] == "whole");
  for (const auto& sent : gateway.transport.sent()) BOOST_TEST(!nlohmann::json::parse(sent.body).contains("model"));
}

BOOST_AUTO_TEST_CASE(throttling_is_retried_then_failed_over_to_the_next_deployment) {
  RequestPath gateway(bedrockCatalog());
  const auto throttled = FakeTransport::json(400, R"({"message":"Too many requests, please wait before trying again."})",
                                             {{"x-amzn-ErrorType", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}});
  gateway.transport.script("bedrock.example", throttled);
  gateway.transport.script("bedrock.example", throttled);
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude"));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(reply.json()["content"][0]["text"] == "from second");
  const auto row = gateway.onlyRow();
  BOOST_TEST(results(row) == (std::vector<std::string>{"bedrock-us/claude status_429", "bedrock-us/claude status_429",
                                                       "second/api ok"}),
             boost::test_tools::per_element());
  BOOST_TEST(row.attempts[0].error.find("Too many requests") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_exception_as_the_first_event_fails_over_like_an_http_error) {
  RequestPath gateway(bedrockCatalog());
  const auto busy = eventStream({bedrock::exceptionFrame("serviceUnavailableException", "Bedrock is busy")});
  gateway.transport.script("bedrock.example", busy);
  gateway.transport.script("bedrock.example", busy);
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude", true));
  BOOST_TEST(reply.status == 200);
  BOOST_TEST(results(gateway.onlyRow()) == (std::vector<std::string>{"bedrock-us/claude status_503",
                                                                      "bedrock-us/claude status_503", "second/api ok"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_bad_frame_before_the_first_byte_fails_over) {
  RequestPath gateway(bedrockCatalog());
  std::string corrupt = bedrock::chunkFrame(kEvents[0]);
  corrupt[corrupt.size() - 2] ^= 0x01;  // the message CRC
  gateway.transport.script("bedrock.example", eventStream({corrupt}));
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  const Reply reply = gateway.send("POST", "/v1/messages", messagesBody("claude", true));
  BOOST_TEST(reply.status == 200);
  const auto row = gateway.onlyRow();
  BOOST_REQUIRE_EQUAL(row.attempts.size(), 2u);
  BOOST_TEST(row.attempts[0].result == "transport:protocol");
  BOOST_TEST(row.attempts[0].error.find("CRC") != std::string::npos);
  BOOST_TEST(row.served_endpoint == "second/api");
}

BOOST_AUTO_TEST_CASE(a_bad_frame_or_an_exception_mid_stream_ends_the_clients_stream_with_an_error) {
  RequestPath gateway(bedrockCatalog());
  auto frames = chunks(3);
  std::string truncated = bedrock::chunkFrame(kEvents[3]);
  frames.push_back(truncated.substr(0, truncated.size() / 2));
  gateway.transport.script("bedrock.example", eventStream(frames));
  auto thrown = chunks(3);
  thrown.push_back(bedrock::exceptionFrame("modelStreamErrorException", "The model stopped"));
  gateway.transport.script("bedrock.example", eventStream(thrown));

  const Reply cut = gateway.send("POST", "/v1/messages", messagesBody("claude", true));
  BOOST_TEST(cut.status == 200);
  BOOST_TEST(cut.body.find("Hello from Bedrock") != std::string::npos);
  BOOST_TEST(cut.body.find("event: error") != std::string::npos);
  const std::string chat = R"({"model":"claude","stream":true,"messages":[{"role":"user","content":"hi"}]})";
  const Reply thrown_reply = gateway.send("POST", "/v1/chat/completions", chat);
  BOOST_TEST(thrown_reply.body.find("Hello from Bedrock") != std::string::npos);
  BOOST_TEST(thrown_reply.body.find("The model stopped") != std::string::npos);
  const auto rows = gateway.sink.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);
  for (const auto& row : rows) {
    BOOST_REQUIRE_EQUAL(row.attempts.size(), 1u);  // never failed over after the first byte
    BOOST_TEST(row.attempts[0].result == "stream_broken");
  }
}

BOOST_AUTO_TEST_CASE(a_bedrock_api_key_is_sent_as_a_bearer_token) {
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("keyed.example", FakeTransport::json(200, anthropicAnswer()));
  BOOST_TEST(gateway.send("POST", "/v1/messages", messagesBody("keyed")).status == 200);
  const auto sent = gateway.transport.sent();
  BOOST_TEST(path(sent[0]) == "/model/anthropic.claude-haiku-4-5-v1%3A0/invoke");
  BOOST_TEST(sentHeader(sent[0], "authorization") == "Bearer bedrock-api-key-1");
  BOOST_TEST(sentHeader(sent[0], "x-amz-date").empty());
}

// Sets (or, with nullopt, unsets) the chain's variables for one test, restoring them after: the
// gateway's credential store reads the process's environment as AWS's SDKs do.
class ChainEnvironment {
 public:
  using Values = std::vector<std::pair<std::string, std::optional<std::string>>>;
  explicit ChainEnvironment(Values values) {
    for (const char* name : {"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                             "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                             "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_EC2_METADATA_DISABLED"}) {
      values.emplace_back(name, std::nullopt);
    }
    for (const auto& [name, value] : values) {
      if (saved_.contains(name)) continue;
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  ~ChainEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

BOOST_AUTO_TEST_CASE(aws_keys_that_cannot_be_had_fail_the_attempt_with_the_reason_in_the_row) {
  ChainEnvironment env(ChainEnvironment::Values{{"AWS_EC2_METADATA_DISABLED", "true"}});
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("second.example", FakeTransport::json(200, anthropicAnswer("from second")));
  BOOST_TEST(gateway.send("POST", "/v1/messages", messagesBody("chained")).status == 200);
  const auto row = gateway.onlyRow();
  BOOST_REQUIRE_EQUAL(row.attempts.size(), 2u);
  BOOST_TEST(row.attempts[0].result == "skipped:credential_unavailable");
  BOOST_TEST(row.attempts[0].error.find("chain: default found no AWS keys") != std::string::npos);
  BOOST_TEST(gateway.transport.sentCount() == 1u);
}

BOOST_AUTO_TEST_CASE(chain_default_signs_with_the_container_credentials_fetched_once_through_the_transport) {
  ChainEnvironment env(ChainEnvironment::Values{{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:9/v1/credentials"},
                                                {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "pod-identity-token"}});
  RequestPath gateway(bedrockCatalog());
  gateway.transport.script("127.0.0.1:9/v1/credentials",
                           FakeTransport::json(200, R"({"AccessKeyId":"ASIACONTAINER1","SecretAccessKey":"container-secret",)"
                                                    R"("Token":"container-token","Expiration":"2099-01-01T00:00:00Z"})"));
  gateway.transport.script("chain.example", FakeTransport::json(200, anthropicAnswer("from the chain")).repeating());
  BOOST_TEST(gateway.send("POST", "/v1/messages", messagesBody("chained")).status == 200);
  BOOST_TEST(gateway.send("POST", "/v1/messages", messagesBody("chained")).status == 200);
  const auto sent = gateway.transport.sent();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);  // the keys once, then two calls signed with them
  BOOST_TEST(sentHeader(sent[0], "authorization") == "pod-identity-token");
  for (size_t i : {1u, 2u}) {
    BOOST_TEST(sentHeader(sent[i], "authorization").find("Credential=ASIACONTAINER1/") != std::string::npos);
    BOOST_TEST(sentHeader(sent[i], "x-amz-security-token") == "container-token");
  }
  for (const auto& standing : gateway.gateway().awsCredentials().standing(*gateway.gateway().catalog(),
                                                                         std::chrono::system_clock::now())) {
    if (standing.id != "aws-chain") continue;
    BOOST_TEST(standing.usable);
    BOOST_TEST(standing.detail.starts_with("temporary keys from container credentials, "));
    BOOST_TEST(standing.detail.find("container-secret") == std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::testing

