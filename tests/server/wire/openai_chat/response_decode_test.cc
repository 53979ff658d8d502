#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::wire::Json;
using sluice::wire::Response;
using sluice::wire::StopReason;
using Type = sluice::wire::ContentBlock::Type;

namespace {

Response decoded(const std::string& body) {
  auto response = chat::decodeResponse(body);
  BOOST_REQUIRE_MESSAGE(response.has_value(), "decode failed: " + (response ? std::string() : response.error().message));
  return *response;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(response_decode)

BOOST_AUTO_TEST_CASE(decodes_the_recorded_text_completion) {
  const Response response = decoded(readFixture("openai-chat/vercel-ai__openai-text.json"));
  BOOST_TEST(response.id == "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU");
  BOOST_TEST(response.model == "gpt-4.1-nano-2025-04-14");
  BOOST_REQUIRE_EQUAL(response.content.size(), 1u);
  BOOST_TEST((response.content[0].type == Type::Text));
  BOOST_TEST(response.content[0].text.starts_with("**Holiday Name:** Galaxy Day  \n\n**Date:** October 31st"));
  BOOST_TEST(response.content[0].text.ends_with("inspiring individuals to look up and dream beyond our world."));
  BOOST_TEST(response.content[0].text.find("darkness\u2014mirroring") != std::string::npos);
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage_reported);
  BOOST_TEST(response.usage.input_tokens == 16);
  BOOST_TEST(response.usage.output_tokens == 363);
  BOOST_TEST(response.usage.cache_read_tokens == 0);
  BOOST_TEST(response.usage.reasoning_tokens == 0);
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_cache_write_then_cache_read) {
  const auto cassette = loadCassette("openai-chat/pydantic-ai__test_openai_chat_prompt_cache_e2e.yaml");
  const Response first = decoded(yamlToJson(cassette[0]["response"]["parsed_body"]).dump());
  BOOST_TEST(first.id == "chatcmpl-E1mBLGr3Ql1FsH8cdc76XdGw3PleH");
  BOOST_TEST(first.content.at(0).text == "OK");
  BOOST_TEST(first.usage.input_tokens == 4020);  // includes the cached tokens, as usage.h counts
  BOOST_TEST(first.usage.cache_write_tokens == 4012);
  BOOST_TEST(first.usage.cache_read_tokens == 0);
  BOOST_TEST(first.usage.output_tokens == 4);
  const Response second = decoded(yamlToJson(cassette[1]["response"]["parsed_body"]).dump());
  BOOST_TEST(second.usage.input_tokens == 4020);
  BOOST_TEST(second.usage.cache_read_tokens == 4012);
  BOOST_TEST(second.usage.cache_write_tokens == 0);
  BOOST_TEST(second.usage.uncachedInputTokens() == 8);
}

BOOST_AUTO_TEST_CASE(decodes_tool_calls_with_null_content) {
  const Response response = decoded(R"({"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4.1-nano",
    "choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[
      {"id":"call_a","type":"function","function":{"name":"multiply","arguments":"{\"a\":1231,\"b\":2331}"}},
      {"id":"call_b","type":"function","function":{"name":"now","arguments":""}}]},
      "logprobs":null,"finish_reason":"tool_calls"}],
    "usage":{"prompt_tokens":16,"completion_tokens":363,"total_tokens":379}})");
  BOOST_REQUIRE_EQUAL(response.content.size(), 2u);
  BOOST_TEST((response.content[0].type == Type::ToolUse));
  BOOST_TEST(response.content[0].tool_id == "call_a");
  BOOST_TEST(response.content[0].tool_name == "multiply");
  BOOST_TEST(response.content[0].tool_input == Json::parse(R"({"a":1231,"b":2331})"));
  BOOST_TEST(response.content[1].tool_input == Json::object());  // no arguments -> {}
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(reads_tool_calls_as_tool_use_even_when_finish_reason_says_stop) {
  const Response response = decoded(R"({"choices":[{"message":{"role":"assistant","content":"",
    "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]})");
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
  BOOST_TEST(!response.usage_reported);
}

BOOST_AUTO_TEST_CASE(decodes_deepseek_reasoning_and_cache_hits) {
  const Response response = decoded(R"({"id":"x","model":"deepseek-reasoner","choices":[{"index":0,
    "message":{"role":"assistant","content":"4","reasoning_content":"2 plus 2 is 4."},"finish_reason":"stop"}],
    "usage":{"prompt_tokens":20,"completion_tokens":30,"total_tokens":50,"prompt_cache_hit_tokens":16,
             "prompt_cache_miss_tokens":4,"completion_tokens_details":{"reasoning_tokens":25}}})");
  BOOST_REQUIRE_EQUAL(response.content.size(), 2u);
  BOOST_TEST((response.content[0].type == Type::Thinking));
  BOOST_TEST(response.content[0].text == "2 plus 2 is 4.");
  BOOST_TEST(response.content[0].signature.empty());
  BOOST_TEST(response.content[1].text == "4");
  BOOST_TEST(response.usage.input_tokens == 20);
  BOOST_TEST(response.usage.cache_read_tokens == 16);
  BOOST_TEST(response.usage.output_tokens == 30);
  BOOST_TEST(response.usage.reasoning_tokens == 25);
}

BOOST_AUTO_TEST_CASE(maps_every_finish_reason) {
  auto stopFor = [](const std::string& finish) {
    return decoded(R"({"choices":[{"message":{"content":"x"},"finish_reason":")" + finish + R"("}]})").stop_reason;
  };
  BOOST_TEST((stopFor("stop") == StopReason::EndTurn));
  BOOST_TEST((stopFor("length") == StopReason::MaxTokens));
  BOOST_TEST((stopFor("tool_calls") == StopReason::ToolUse));
  BOOST_TEST((stopFor("function_call") == StopReason::ToolUse));
  BOOST_TEST((stopFor("content_filter") == StopReason::Refusal));
  BOOST_TEST((stopFor("something_new") == StopReason::EndTurn));
}

BOOST_AUTO_TEST_CASE(reads_a_refusal_as_text_with_refusal_stop) {
  const Response response = decoded(R"({"choices":[{"message":{"role":"assistant","content":null,
    "refusal":"I can't help with that."},"finish_reason":"stop"}]})");
  BOOST_REQUIRE_EQUAL(response.content.size(), 1u);
  BOOST_TEST(response.content[0].text == "I can't help with that.");
  BOOST_TEST((response.stop_reason == StopReason::Refusal));
}

BOOST_AUTO_TEST_CASE(refuses_answers_that_are_not_chat_completions) {
  for (const std::string& body : {std::string("not json"), std::string("[]"), std::string(R"({"choices":[]})"),
                                 std::string(R"({"choices":[{"index":0}]})")}) {
    const auto response = chat::decodeResponse(body);
    BOOST_REQUIRE(!response.has_value());
    BOOST_TEST(response.error().status == 502);
    BOOST_TEST(response.error().key == "upstream_invalid_response");
  }
}

BOOST_AUTO_TEST_CASE(reads_an_error_body_in_a_success_answer_as_that_error) {
  const auto response = chat::decodeResponse(R"({"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}})");
  BOOST_REQUIRE(!response.has_value());
  BOOST_TEST(response.error().status == 429);
  BOOST_TEST(response.error().key == "insufficient_quota");
}

BOOST_AUTO_TEST_SUITE_END()
