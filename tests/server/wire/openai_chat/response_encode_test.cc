#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/ir_builders.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::catalog::Wire;
using sluice::wire::Json;
using sluice::wire::Response;
using sluice::wire::ResponseContext;
using sluice::wire::StopReason;

namespace {

const ResponseContext kContext{"sluice-model", "req-123", 1770000000};

Response withUsage(Response response) {
  response.usage.input_tokens = 120;
  response.usage.output_tokens = 45;
  response.usage.cache_read_tokens = 100;
  response.usage.reasoning_tokens = 20;
  response.usage_reported = true;
  return response;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(response_encode)

BOOST_AUTO_TEST_CASE(writes_a_text_completion_with_usage) {
  Response response;
  response.id = "msg_01";
  response.model = "claude-sonnet";
  response.content = {thinking("Let me think.", "sig", Wire::Anthropic), text("Hello"), text(" world")};
  response.stop_reason = StopReason::EndTurn;
  const Json expected = Json::parse(R"({"id":"chatcmpl-req-123","object":"chat.completion","created":1770000000,
    "model":"sluice-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello world",
    "reasoning_content":"Let me think.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
    "usage":{"prompt_tokens":120,"completion_tokens":45,"total_tokens":165,"prompt_tokens_details":{"cached_tokens":100},
    "completion_tokens_details":{"reasoning_tokens":20}}})");
  BOOST_TEST(chat::encodeResponse(withUsage(response), kContext) == expected.dump());
}

BOOST_AUTO_TEST_CASE(writes_parallel_tool_calls_with_null_content) {
  Response response;
  response.content = {toolUse("toolu_1", "weather", Json{{"city", "Paris"}}), toolUse("toolu_2", "now", Json::object())};
  response.stop_reason = StopReason::ToolUse;
  const Json body = Json::parse(chat::encodeResponse(response, kContext));
  const Json& message = body["choices"][0]["message"];
  BOOST_TEST(message["content"].is_null());
  BOOST_TEST(message["tool_calls"].dump() ==
             R"([{"id":"toolu_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},)"
             R"({"id":"toolu_2","type":"function","function":{"name":"now","arguments":"{}"}}])");
  BOOST_TEST(body["choices"][0]["finish_reason"] == "tool_calls");
  BOOST_TEST(!message.contains("reasoning_content"));
}

BOOST_AUTO_TEST_CASE(maps_stop_reasons_to_finish_reasons) {
  auto finishFor = [](StopReason reason) {
    Response response;
    response.content = {text("x")};
    response.stop_reason = reason;
    return Json::parse(chat::encodeResponse(response, kContext))["choices"][0]["finish_reason"].get<std::string>();
  };
  BOOST_TEST(finishFor(StopReason::EndTurn) == "stop");
  BOOST_TEST(finishFor(StopReason::StopSequence) == "stop");
  BOOST_TEST(finishFor(StopReason::MaxTokens) == "length");
  BOOST_TEST(finishFor(StopReason::ContextWindowExceeded) == "length");
  BOOST_TEST(finishFor(StopReason::ToolUse) == "tool_calls");
  BOOST_TEST(finishFor(StopReason::Refusal) == "content_filter");
  BOOST_TEST(finishFor(StopReason::PauseTurn) == "stop");
}

BOOST_AUTO_TEST_CASE(reports_cache_writes_when_there_were_some) {
  Response response;
  response.usage.input_tokens = 4020;
  response.usage.cache_write_tokens = 4012;
  const Json usage = Json::parse(chat::encodeResponse(response, kContext))["usage"];
  BOOST_TEST(usage["prompt_tokens"] == 4020);
  BOOST_TEST(usage["prompt_tokens_details"]["cache_write_tokens"] == 4012);
  BOOST_TEST(Json::parse(chat::encodeResponse(response, kContext))["choices"][0]["message"]["content"] == "");
}

BOOST_AUTO_TEST_SUITE_END()
