#include "server/wire/bedrock/invoke.h"

#include <boost/test/unit_test.hpp>

#include "server/wire/json_parse.h"
#include "server/wire/sse.h"

using namespace sluice::wire::bedrock;
using sluice::wire::Json;
using sluice::wire::parseJsonText;

namespace {

std::string base64(std::string_view text) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < text.size(); i += 3) {
    uint32_t n = (uint8_t(text[i]) << 16) | (uint8_t(text[i + 1]) << 8) | uint8_t(text[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(alphabet[(n >> s) & 63]);
  }
  if (i + 1 == text.size()) {
    uint32_t n = uint8_t(text[i]) << 16;
    out += {alphabet[(n >> 18) & 63], alphabet[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == text.size()) {
    uint32_t n = (uint8_t(text[i]) << 16) | (uint8_t(text[i + 1]) << 8);
    out += {alphabet[(n >> 18) & 63], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], '='};
  }
  return out;
}

std::string chunk(std::string_view anthropic_event) {
  EventMessage message;
  message.headers.push_back({":event-type", HeaderType::String, "chunk", 0});
  message.headers.push_back({":content-type", HeaderType::String, "application/json", 0});
  message.headers.push_back({":message-type", HeaderType::String, "event", 0});
  message.payload = "{\"bytes\":\"" + base64(anthropic_event) + "\",\"p\":\"abcdefgh\"}";
  return encodeEventMessage(message);
}

std::string exception(std::string_view type, std::string_view message_text) {
  EventMessage message;
  message.headers.push_back({":exception-type", HeaderType::String, std::string(type), 0});
  message.headers.push_back({":content-type", HeaderType::String, "application/json", 0});
  message.headers.push_back({":message-type", HeaderType::String, "exception", 0});
  message.payload = "{\"message\":\"" + std::string(message_text) + "\"}";
  return encodeEventMessage(message);
}

const std::string kStart =
    R"({"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","content":[],"usage":{"input_tokens":9,"output_tokens":1}}})";
const std::string kDelta = R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé!"}})";
const std::string kStop = R"({"type":"message_stop"})";

}  // namespace

BOOST_AUTO_TEST_SUITE(bedrock_invoke)

BOOST_AUTO_TEST_CASE(path_encodes_the_model_id_colon_and_arn_slash) {
  BOOST_TEST(invokePath("us.anthropic.claude-sonnet-4-5-20250929-v1:0", false) ==
             "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
  BOOST_TEST(invokePath("arn:aws:bedrock:us-east-1:1:inference-profile/p", true) ==
             "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fp/invoke-with-response-stream");
}

BOOST_AUTO_TEST_CASE(body_drops_model_and_stream_and_sets_the_bedrock_version) {
  auto body = invokeBody(
      R"({"model":"claude","max_tokens":5,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]})",
      "");
  BOOST_REQUIRE(body);
  Json json = parseJsonText(*body);
  BOOST_TEST(!json.contains("model"));
  BOOST_TEST(!json.contains("stream"));
  BOOST_TEST(json["anthropic_version"] == "bedrock-2023-05-31");
  BOOST_TEST(json["messages"][0]["content"][0]["cache_control"]["type"] == "ephemeral");
  BOOST_TEST(!json.contains("anthropic_beta"));
}

BOOST_AUTO_TEST_CASE(body_takes_the_beta_header_into_anthropic_beta) {
  auto body = invokeBody(R"({"model":"m","anthropic_beta":["a"]})", " a, interleaved-thinking-2025-05-14 ,,b");
  BOOST_REQUIRE(body);
  Json json = parseJsonText(*body);
  BOOST_TEST(json["anthropic_beta"].dump() == R"(["a","interleaved-thinking-2025-05-14","b"])");
  BOOST_TEST(!invokeBody("[1]", ""));
  BOOST_TEST(!invokeBody("not json", ""));
}

BOOST_AUTO_TEST_CASE(chunks_become_the_same_anthropic_sse_events) {
  const std::string stream = chunk(kStart) + chunk(kDelta) + chunk(kStop);
  InvokeStreamReframer reframer;
  std::string sse;
  for (char c : stream) sse += reframer.feed(std::string_view(&c, 1));
  sse += reframer.finish();
  BOOST_TEST(!reframer.failure());
  sluice::wire::SseParser parser;
  auto events = parser.feed(sse);
  BOOST_REQUIRE_EQUAL(events.size(), 3u);
  BOOST_TEST(events[0].event == "message_start");
  BOOST_TEST(parseJsonText(events[0].data) == parseJsonText(kStart));
  BOOST_TEST(events[1].event == "content_block_delta");
  BOOST_TEST(parseJsonText(events[1].data)["delta"]["text"] == "Hé!");
  BOOST_TEST(events[2].event == "message_stop");
}

BOOST_AUTO_TEST_CASE(exceptions_become_anthropic_error_events) {
  InvokeStreamReframer reframer;
  const std::string sse = reframer.feed(chunk(kStart) + exception("throttlingException", "Too many requests"));
  sluice::wire::SseParser parser;
  auto events = parser.feed(sse);
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_TEST(events[1].event == "error");
  Json error = parseJsonText(events[1].data);
  BOOST_TEST(error["error"]["type"] == "rate_limit_error");
  BOOST_TEST(error["error"]["message"] == "Too many requests");
  BOOST_TEST(anthropicErrorType("serviceUnavailableException") == "overloaded_error");
  BOOST_TEST(anthropicErrorType("modelStreamErrorException") == "api_error");
  BOOST_TEST(anthropicErrorType("validationException") == "invalid_request_error");
}

BOOST_AUTO_TEST_CASE(a_bad_frame_or_a_chunk_without_an_event_is_a_failure) {
  std::string bad = chunk(kStart) + chunk(kDelta);
  bad[bad.size() - 3] ^= 0x10;  // the second frame's message CRC
  InvokeStreamReframer crc;
  const std::string sse = crc.feed(bad);
  BOOST_TEST(sse.find("message_start") != std::string::npos);
  BOOST_REQUIRE(crc.failure());
  BOOST_TEST(crc.failure()->find("CRC") != std::string::npos);

  InvokeStreamReframer cut;
  cut.feed(chunk(kStart).substr(0, 30));
  cut.finish();
  BOOST_TEST(cut.failure().has_value());

  EventMessage junk;
  junk.headers.push_back({":event-type", HeaderType::String, "chunk", 0});
  junk.payload = R"({"bytes":"!!!"})";
  InvokeStreamReframer garbage;
  BOOST_TEST(garbage.feed(encodeEventMessage(junk)).empty());
  BOOST_TEST(garbage.failure().has_value());
}

BOOST_AUTO_TEST_SUITE_END()
