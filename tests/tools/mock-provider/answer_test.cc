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

BOOST_AUTO_TEST_CASE(echo_text_answers_the_last_user_text_and_echoes_it_into_tool_arguments) {
  const Answer text = plan(Wire::OpenAiChat, chat("mail ann@example.com now"), R"({"echo_text":true})");
  BOOST_TEST(text.text == "mail ann@example.com now");
  BOOST_TEST(!text.tool_call.has_value());
  const Answer call = plan(Wire::OpenAiChat, chat("use a tool for ann@example.com", kWeatherTools), R"({"echo_text":true})");
  BOOST_TEST_REQUIRE(call.tool_call.has_value());
  BOOST_TEST(call.tool_call->arguments == R"({"text":"use a tool for ann@example.com"})");
  BOOST_TEST(call.text == "use a tool for ann@example.com");
  const Answer scripted = plan(Wire::OpenAiChat, chat("use a tool", kWeatherTools),
                               R"({"echo_text":true,"tool_arguments":{"city":"Oslo"}})");
  BOOST_TEST(scripted.tool_call->arguments == R"({"city":"Oslo"})");
}

BOOST_AUTO_TEST_CASE(text_chunk_bytes_streams_small_pieces_never_inside_a_character) {
  Answer answer = plan(Wire::OpenAiChat, chat("hi"), R"({"text":"a \u27e6EMAIL_1\u27e7 b","text_chunk_bytes":2})");
  const auto pieces = textPieces(answer);
  std::string joined;
  for (const auto& piece : pieces) joined += piece;
  BOOST_TEST(joined == answer.text);
  BOOST_TEST(pieces.size() > 6u);
  BOOST_TEST(pieces[0] == "a ");
  BOOST_TEST(pieces[1] == "\xE2\x9F\xA6");  // the bracket whole, longer than the 2 bytes asked
  BOOST_TEST(pieces[2] == "EM");
  answer.text_chunk_bytes = 0;
  BOOST_TEST(textPieces(answer).size() == 3u);  // words
}

BOOST_AUTO_TEST_SUITE_END()
