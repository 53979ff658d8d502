#include "tools/mock-provider/answer.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/tools/mock-provider/test_util.h"
#include "tools/mock-provider/tokens.h"
#include "tools/mock-provider/tool_arguments.h"

using namespace sluice::mock;
using sluice::mock::testing::plan;

namespace {
const char* kWeatherTools = R"("tools":[{"type":"function","function":{"name":"get_weather","parameters":
  {"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"unit":{"enum":["c","f"]}}}}},
  {"type":"function","function":{"name":"other","parameters":{}}}])";

std::string chat(const std::string& user_text, const std::string& extra = "") {
  return R"({"model":"gpt-test","messages":[{"role":"user","content":")" + user_text + "\"}]" +
         (extra.empty() ? "" : "," + extra) + "}";
}
}  // namespace

BOOST_AUTO_TEST_SUITE(answer)

BOOST_AUTO_TEST_CASE(answers_the_default_text_with_predictable_usage) {
  const Answer answer = plan(Wire::OpenAiChat, chat("Hello there"));
  BOOST_TEST(answer.text == "Hello from the mock provider (gpt-test).");
  BOOST_TEST(answer.model == "gpt-test");
  BOOST_TEST(!answer.tool_call.has_value());
  BOOST_TEST(!answer.thinking.has_value());
  BOOST_TEST((answer.finish == AnswerFinish::Stop));
  BOOST_TEST(answer.usage.input_tokens == 3);   // "Hello there": 11 bytes
  BOOST_TEST(answer.usage.output_tokens == 10); // 40 bytes
  BOOST_TEST(answer.usage.reasoning == 0);
}

BOOST_AUTO_TEST_CASE(calls_the_first_tool_when_the_user_asks_for_a_tool) {
  const Answer answer = plan(Wire::OpenAiChat, chat("Please use a TOOL", kWeatherTools));
  BOOST_TEST_REQUIRE(answer.tool_call.has_value());
  BOOST_TEST(answer.tool_call->name == "get_weather");
  BOOST_TEST(answer.tool_call->arguments == R"({"city":"mock-city","days":1,"unit":"c"})");
  BOOST_TEST(answer.text.empty());
  BOOST_TEST((answer.finish == AnswerFinish::ToolUse));
  BOOST_TEST(answer.usage.output_tokens == countTokens(answer.tool_call->arguments));
}

BOOST_AUTO_TEST_CASE(does_not_call_a_tool_unasked_after_a_result_or_when_forbidden) {
  BOOST_TEST(!plan(Wire::OpenAiChat, chat("What is the weather?", kWeatherTools)).tool_call);
  BOOST_TEST(!plan(Wire::OpenAiChat, chat("use a tool", std::string(kWeatherTools) + R"(,"tool_choice":"none")")).tool_call);
  BOOST_TEST(!plan(Wire::OpenAiChat, chat("use a tool")).tool_call);  // no tools
  BOOST_TEST(!plan(Wire::OpenAiChat, chat("use a tool", kWeatherTools), R"({"tool_call":false})").tool_call);
  const std::string after_result = R"({"model":"m","messages":[{"role":"user","content":"use a tool"},
    {"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"c","content":"sunny"}],)" + std::string(kWeatherTools) + "}";
  BOOST_TEST(!plan(Wire::OpenAiChat, after_result).tool_call);
}

BOOST_AUTO_TEST_CASE(forced_or_scripted_tool_calls_pick_the_named_tool) {
  const auto forced = plan(Wire::OpenAiChat,
                           chat("hi", std::string(kWeatherTools) + R"(,"tool_choice":{"type":"function","function":{"name":"other"}})"));
  BOOST_TEST(forced.tool_call->name == "other");
  BOOST_TEST(forced.tool_call->arguments == "{}");
  const auto scripted = plan(Wire::OpenAiChat, chat("hi"), R"({"tool_call":true,"tool_name":"lookup","tool_arguments":{"q":"x"},"text":"Let me look."})");
  BOOST_TEST(scripted.tool_call->name == "lookup");
  BOOST_TEST(scripted.tool_call->arguments == R"({"q":"x"})");
  BOOST_TEST(scripted.text == "Let me look.");
}

BOOST_AUTO_TEST_CASE(thinking_adds_reasoning_tokens_to_the_output) {
  const Answer answer = plan(Wire::OpenAiChat, chat("hi", R"("reasoning_effort":"high")"));
  BOOST_TEST_REQUIRE(answer.thinking.has_value());
  BOOST_TEST(answer.usage.reasoning == countTokens(*answer.thinking));
  BOOST_TEST(answer.usage.output_tokens == countTokens(answer.text) + answer.usage.reasoning);
  BOOST_TEST(!answer.signature.empty());
  BOOST_TEST(!plan(Wire::OpenAiChat, chat("hi", R"("reasoning_effort":"high")"), R"({"thinking":false})").thinking);
}

BOOST_AUTO_TEST_CASE(script_overrides_usage_text_and_finish) {
  const Answer answer = plan(Wire::OpenAiChat, chat("hi"),
                             R"({"text":"Short.","finish":"length","usage":{"input_tokens":100,"output_tokens":7,"cache_read":40,"cache_write":2,"reasoning":3}})");
  BOOST_TEST(answer.text == "Short.");
  BOOST_TEST((answer.finish == AnswerFinish::Length));
  BOOST_TEST(answer.usage.input_tokens == 100);
  BOOST_TEST(answer.usage.output_tokens == 7);
  BOOST_TEST(answer.usage.cache_read == 40);
  BOOST_TEST(answer.usage.cache_write == 2);
  BOOST_TEST(answer.usage.promptTotal() == 142);
  BOOST_TEST(answer.usage.visibleOutput() == 4);
}

BOOST_AUTO_TEST_CASE(arguments_follow_the_schema) {
  const auto schema = nlohmann::ordered_json::parse(R"({"type":"OBJECT","properties":{
    "n":{"type":"NUMBER"},"ok":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},
    "opt":{"type":["null","integer"]},"inner":{"type":"object","properties":{"k":{"const":"v"}}},
    "any":{"anyOf":[{"type":"integer"},{"type":"string"}]}}})");
  BOOST_TEST(argumentsForSchema(schema).dump() ==
             R"({"n":1.5,"ok":true,"tags":["mock-tags"],"opt":1,"inner":{"k":"v"},"any":1})");
  BOOST_TEST(argumentsForSchema(nullptr).dump() == "{}");
}

BOOST_AUTO_TEST_SUITE_END()
