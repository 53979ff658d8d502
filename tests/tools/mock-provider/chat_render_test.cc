#include "tools/mock-provider/chat_render.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"

using namespace sluice::mock;
using namespace sluice::mock::testing;
using nlohmann::json;

namespace {
const std::string kText = R"({"model":"gpt-test","messages":[{"role":"user","content":"Hello"}]})";
const std::string kTool = R"({"model":"gpt-test","messages":[{"role":"user","content":"call the tool"}],
  "tools":[{"type":"function","function":{"name":"multiply","parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}}}]})";
}  // namespace

BOOST_AUTO_TEST_SUITE(chat_render)

BOOST_AUTO_TEST_CASE(stream_sends_role_first_then_finish_then_usage_then_done) {
  const Answer answer = plan(Wire::OpenAiChat, kText);
  const auto events = renderChatStream(answer, true);
  BOOST_TEST(events.back().data == "[DONE]");
  const auto chunks = parseData(events);
  BOOST_TEST(chunks.front()["choices"][0]["delta"] == json::parse(R"({"role":"assistant","content":"","refusal":null})"));
  std::string text;
  for (std::size_t i = 0; i + 1 < chunks.size(); ++i) {
    BOOST_TEST(chunks[i]["object"] == "chat.completion.chunk");
    BOOST_TEST(chunks[i]["id"] == "chatcmpl-mock-7");
    BOOST_TEST(chunks[i]["usage"].is_null());
    BOOST_TEST(chunks[i]["choices"].size() == 1u);
    if (chunks[i]["choices"][0]["delta"].contains("content")) text += chunks[i]["choices"][0]["delta"]["content"].get<std::string>();
  }
  BOOST_TEST(text == answer.text);
  const json& finish = chunks[chunks.size() - 2];
  BOOST_TEST(finish["choices"][0]["delta"] == json::object());
  BOOST_TEST(finish["choices"][0]["finish_reason"] == "stop");
  const json& usage = chunks.back();
  BOOST_TEST(usage["choices"] == json::array());
  BOOST_TEST(usage["usage"]["prompt_tokens"] == 2);
  BOOST_TEST(usage["usage"]["completion_tokens"] == answer.usage.output_tokens);
  BOOST_TEST(usage["usage"]["total_tokens"] == 2 + answer.usage.output_tokens);
}

BOOST_AUTO_TEST_CASE(without_include_usage_there_is_no_usage_chunk_or_field) {
  const auto chunks = parseData(renderChatStream(plan(Wire::OpenAiChat, kText), false));
  for (const auto& chunk : chunks) {
    BOOST_TEST(!chunk.contains("usage"));
    BOOST_TEST(chunk["choices"].size() == 1u);
  }
}

BOOST_AUTO_TEST_CASE(tool_call_fragments_carry_the_id_and_name_only_first) {
  const Answer answer = plan(Wire::OpenAiChat, kTool);
  const auto chunks = parseData(renderChatStream(answer, true));
  const json& first = chunks.front()["choices"][0]["delta"];
  BOOST_TEST(first["role"] == "assistant");
  BOOST_TEST(first["content"].is_null());
  BOOST_TEST(first["tool_calls"][0]["id"] == "call_mock_7");
  BOOST_TEST(first["tool_calls"][0]["function"]["name"] == "multiply");
  BOOST_TEST(first["tool_calls"][0]["index"] == 0);
  std::string arguments;
  int fragments = 0;
  for (std::size_t i = 1; i < chunks.size(); ++i) {
    if (chunks[i]["choices"].empty() || !chunks[i]["choices"][0]["delta"].contains("tool_calls")) continue;
    const json& call = chunks[i]["choices"][0]["delta"]["tool_calls"][0];
    BOOST_TEST(call["index"] == 0);
    BOOST_TEST(!call.contains("id"));
    BOOST_TEST(!call["function"].contains("name"));
    arguments += call["function"]["arguments"].get<std::string>();
    ++fragments;
  }
  BOOST_TEST(fragments > 1);
  BOOST_TEST(json::parse(arguments) == json::parse(R"({"a":1,"b":1})"));
  BOOST_TEST(chunks[chunks.size() - 2]["choices"][0]["finish_reason"] == "tool_calls");
}

BOOST_AUTO_TEST_CASE(completion_body_and_reasoning_tokens) {
  const Answer answer = plan(Wire::OpenAiChat, R"({"model":"o-test","reasoning_effort":"low","messages":[{"role":"user","content":"Hello"}]})",
                             R"({"usage":{"cache_read":100}})");
  const json body = json::parse(renderChatCompletion(answer));
  BOOST_TEST(body["object"] == "chat.completion");
  BOOST_TEST(body["choices"][0]["message"]["content"] == answer.text);
  BOOST_TEST(!body["choices"][0]["message"].contains("tool_calls"));
  BOOST_TEST(body["choices"][0]["finish_reason"] == "stop");
  BOOST_TEST(body["usage"]["prompt_tokens"] == 102);  // includes the cached tokens
  BOOST_TEST(body["usage"]["prompt_tokens_details"]["cached_tokens"] == 100);
  BOOST_TEST(body["usage"]["completion_tokens_details"]["reasoning_tokens"] == answer.usage.reasoning);
  BOOST_TEST(answer.usage.reasoning > 0);
  BOOST_TEST(body["usage"]["completion_tokens"] == answer.usage.output_tokens);

  const json tool = json::parse(renderChatCompletion(plan(Wire::OpenAiChat, kTool)));
  BOOST_TEST(tool["choices"][0]["message"]["content"].is_null());
  BOOST_TEST(tool["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == R"({"a":1,"b":1})");
  BOOST_TEST(tool["choices"][0]["finish_reason"] == "tool_calls");
}

BOOST_AUTO_TEST_SUITE_END()
