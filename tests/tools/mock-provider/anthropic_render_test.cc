#include "tools/mock-provider/anthropic_render.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"

using namespace sluice::mock;
using namespace sluice::mock::testing;
using nlohmann::json;

namespace {
const std::string kToolRequest = R"({"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"use the tool"}],
  "tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
  "thinking":{"type":"enabled","budget_tokens":1024}})";
}

BOOST_AUTO_TEST_SUITE(anthropic_render)

BOOST_AUTO_TEST_CASE(stream_follows_the_documented_event_order) {
  const Answer answer = plan(Wire::Anthropic, R"({"model":"claude-test","max_tokens":10,"messages":[{"role":"user","content":"Hello"}]})");
  const auto events = renderAnthropicStream(answer);
  const auto data = parseData(events);
  std::vector<std::string> types;
  for (std::size_t i = 0; i < events.size(); ++i) {
    BOOST_TEST(events[i].name == data[i]["type"].get<std::string>());  // event: name == json.type
    types.push_back(events[i].name);
  }
  const std::vector<std::string> expected{"message_start", "content_block_start", "ping",
                                          "content_block_delta", "content_block_delta", "content_block_delta",
                                          "content_block_delta", "content_block_delta", "content_block_delta",
                                          "content_block_stop", "message_delta", "message_stop"};
  BOOST_TEST(types == expected, boost::test_tools::per_element());

  const json& start = data.front()["message"];
  BOOST_TEST(start["usage"]["input_tokens"] == 2);  // "Hello"
  BOOST_TEST(start["usage"]["output_tokens"] == 1);
  BOOST_TEST(start["stop_reason"].is_null());
  BOOST_TEST(start["content"].empty());
  std::string text;
  for (const auto& event : data)
    if (event["type"] == "content_block_delta") text += event["delta"]["text"].get<std::string>();
  BOOST_TEST(text == "Hello from the mock provider (claude-test).");
  const json& delta = data[data.size() - 2];
  BOOST_TEST(delta["delta"]["stop_reason"] == "end_turn");
  BOOST_TEST(delta["usage"]["output_tokens"] == answer.usage.output_tokens);
  BOOST_TEST(delta["usage"]["input_tokens"] == 2);
}

BOOST_AUTO_TEST_CASE(thinking_then_tool_use_blocks_stream_in_fragments) {
  const Answer answer = plan(Wire::Anthropic, kToolRequest);
  const auto data = parseData(renderAnthropicStream(answer));
  std::string thinking;
  std::string partial_json;
  std::vector<std::string> thinking_deltas;
  int signature_deltas = 0;
  int fragments = 0;
  for (const auto& event : data) {
    if (event["type"] != "content_block_delta") continue;
    const json& delta = event["delta"];
    if (delta["type"] == "thinking_delta") {
      BOOST_TEST(event["index"] == 0);
      thinking += delta["thinking"].get<std::string>();
      thinking_deltas.push_back(delta["thinking"]);
    } else if (delta["type"] == "signature_delta") {
      ++signature_deltas;
      BOOST_TEST(delta["signature"] == answer.signature);
    } else if (delta["type"] == "input_json_delta") {
      BOOST_TEST(event["index"] == 1);
      partial_json += delta["partial_json"].get<std::string>();
      ++fragments;
    }
  }
  BOOST_TEST(thinking == *answer.thinking);
  BOOST_TEST(thinking_deltas.back() == "");  // an empty thinking_delta before the signature
  BOOST_TEST(signature_deltas == 1);
  BOOST_TEST(fragments > 1);
  BOOST_TEST(json::parse(partial_json) == json::parse(R"({"city":"mock-city"})"));
  const auto tool_start = std::find_if(data.begin(), data.end(), [](const json& e) {
    return e["type"] == "content_block_start" && e["content_block"]["type"] == "tool_use";
  });
  BOOST_TEST_REQUIRE((tool_start != data.end()));
  BOOST_TEST((*tool_start)["content_block"]["input"] == json::object());
  BOOST_TEST((*tool_start)["content_block"]["id"] == "toolu_mock_7");
  BOOST_TEST(data[data.size() - 2]["delta"]["stop_reason"] == "tool_use");
}

BOOST_AUTO_TEST_CASE(a_tool_call_without_arguments_sends_one_empty_fragment) {
  const Answer answer = plan(Wire::Anthropic, R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"tool"}],
    "tools":[{"name":"now","input_schema":{"type":"object"}}]})");
  int fragments = 0;
  for (const auto& event : parseData(renderAnthropicStream(answer)))
    if (event["type"] == "content_block_delta") {
      BOOST_TEST(event["delta"]["partial_json"] == "");
      ++fragments;
    }
  BOOST_TEST(fragments == 1);
}

BOOST_AUTO_TEST_CASE(message_body_has_blocks_and_full_usage) {
  const Answer answer = plan(Wire::Anthropic, kToolRequest, R"({"usage":{"cache_read":11,"cache_write":5}})");
  const json body = json::parse(renderAnthropicMessage(answer));
  BOOST_TEST(body["type"] == "message");
  BOOST_TEST(body["id"] == "msg_mock_7");
  BOOST_TEST(body["content"].size() == 2u);
  BOOST_TEST(body["content"][0]["type"] == "thinking");
  BOOST_TEST(body["content"][1]["type"] == "tool_use");
  BOOST_TEST(body["content"][1]["input"]["city"] == "mock-city");
  BOOST_TEST(body["stop_reason"] == "tool_use");
  BOOST_TEST(body["usage"]["input_tokens"] == 3);  // "use the tool"
  BOOST_TEST(body["usage"]["cache_read_input_tokens"] == 11);
  BOOST_TEST(body["usage"]["cache_creation_input_tokens"] == 5);
  BOOST_TEST(body["usage"]["cache_creation"]["ephemeral_5m_input_tokens"] == 5);
  BOOST_TEST(json::parse(renderAnthropicCountTokens(42))["input_tokens"] == 42);
}

BOOST_AUTO_TEST_SUITE_END()
