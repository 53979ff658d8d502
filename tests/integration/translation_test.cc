// Every client endpoint in front of every provider wire, streamed and not, through the real
// gateway and the mock provider. The SDK-level checks live in tests/e2e; these assert the wire
// bytes: the right event names, the text, tool calls and usage.

#include <boost/test/unit_test.hpp>
#include <boost/test/data/test_case.hpp>

#include "tests/integration/gateway_fixture.h"
#include "tests/support/sse.h"

using nlohmann::json;
using sluice::test::Gateway;

namespace {

// One model per provider wire in the shipped catalog.
// claude-sonnet-4-5-bedrock: the anthropic wire on AWS Bedrock (InvokeModel, SigV4 checked by the
// mock, the stream as event-stream frames).
const std::vector<std::string> kModels = {"claude-sonnet-5-5", "deepseek-flash", "gpt-5-5", "gemini-3-flash",
                                          "claude-sonnet-4-5-bedrock"};

std::string expectedText(const std::string& model) {
  // The mock answers with the model name it received: the deployment's upstream model (a Bedrock
  // model id, from the InvokeModel path).
  const std::string upstream =
      model == "claude-sonnet-4-5-bedrock" ? "us.anthropic.claude-sonnet-4-5-20250929-v1:0" : model;
  return "Hello from the mock provider (" + upstream + ").";
}

json request(const std::string& path, const std::string& model, bool stream, bool tools = false) {
  const json schema = json::parse(R"({"type":"object","properties":{"city":{"type":"string"}}})");
  const std::string prompt = tools ? "Use the tool for Paris" : "Hello there";
  json body = {{"model", model}};
  if (path == "/v1/messages") {
    body["max_tokens"] = 256;
    body["messages"] = json::array({{{"role", "user"}, {"content", prompt}}});
    if (tools) {
      body["tools"] = json::array({{{"name", "get_weather"}, {"description", "Weather for a city"}, {"input_schema", schema}}});
    }
  } else if (path == "/v1/chat/completions") {
    body["messages"] = json::array({{{"role", "user"}, {"content", prompt}}});
    if (tools) {
      json function = {{"name", "get_weather"}, {"parameters", schema}};
      body["tools"] = json::array({{{"type", "function"}, {"function", function}}});
    }
  } else {
    body["input"] = prompt;
    if (tools) body["tools"] = json::array({{{"type", "function"}, {"name", "get_weather"}, {"parameters", schema}}});
  }
  if (stream) body["stream"] = true;
  if (stream && path == "/v1/chat/completions") body["stream_options"] = {{"include_usage", true}};
  return body;
}

// The text of a non-streamed answer in the client's format.
std::string answerText(const std::string& path, const json& body) {
  if (path == "/v1/messages") {
    std::string text;
    for (const auto& block : body["content"]) {
      if (block["type"] == "text") text += block["text"].get<std::string>();
    }
    return text;
  }
  if (path == "/v1/chat/completions") return body["choices"][0]["message"]["content"].get<std::string>();
  std::string text;
  for (const auto& item : body["output"]) {
    if (item["type"] != "message") continue;
    for (const auto& part : item["content"]) text += part.value("text", "");
  }
  return text;
}

struct Streamed {
  std::string text;
  std::string tool_name;
  std::string tool_arguments;
  bool terminated = false;  // the client format's own end marker arrived
  int64_t output_tokens = -1;
};

Streamed readStream(const std::string& path, const std::string& body) {
  Streamed out;
  for (const auto& event : sluice::test::parseSse(body)) {
    if (path == "/v1/chat/completions") {
      if (event.data == "[DONE]") {
        out.terminated = true;
        continue;
      }
      const json chunk = json::parse(event.data);
      if (chunk.contains("usage") && chunk["usage"].is_object()) out.output_tokens = chunk["usage"]["completion_tokens"];
      if (chunk["choices"].empty()) continue;
      const auto& delta = chunk["choices"][0]["delta"];
      if (delta.contains("content") && delta["content"].is_string()) out.text += delta["content"].get<std::string>();
      if (delta.contains("tool_calls")) {
        for (const auto& call : delta["tool_calls"]) {
          if (call["function"].contains("name")) out.tool_name = call["function"]["name"];
          out.tool_arguments += call["function"].value("arguments", "");
        }
      }
      continue;
    }
    const json data = json::parse(event.data);
    BOOST_TEST(data["type"] == event.event);  // both wires name every event
    if (path == "/v1/messages") {
      if (event.event == "content_block_start" && data["content_block"]["type"] == "tool_use") {
        out.tool_name = data["content_block"]["name"];
      }
      if (event.event == "content_block_delta") {
        if (data["delta"]["type"] == "text_delta") out.text += data["delta"]["text"].get<std::string>();
        if (data["delta"]["type"] == "input_json_delta") out.tool_arguments += data["delta"]["partial_json"].get<std::string>();
      }
      if (event.event == "message_delta") out.output_tokens = data["usage"]["output_tokens"];
      if (event.event == "message_stop") out.terminated = true;
    } else {
      if (event.event == "response.output_text.delta") out.text += data["delta"].get<std::string>();
      if (event.event == "response.output_item.added" && data["item"]["type"] == "function_call") {
        out.tool_name = data["item"]["name"];
      }
      if (event.event == "response.function_call_arguments.delta") out.tool_arguments += data["delta"].get<std::string>();
      if (event.event == "response.completed") {
        out.terminated = true;
        out.output_tokens = data["response"]["usage"]["output_tokens"];
      }
    }
  }
  return out;
}

const std::vector<std::string> kPaths = {"/v1/messages", "/v1/chat/completions", "/v1/responses"};

}  // namespace

BOOST_AUTO_TEST_SUITE(translation)

BOOST_AUTO_TEST_CASE(every_client_format_reaches_every_provider_wire_unstreamed) {
  Gateway gateway;
  for (const auto& path : kPaths) {
    for (const auto& model : kModels) {
      BOOST_TEST_CONTEXT(path << " -> " << model) {
        auto response = gateway.call("POST", path, {}, request(path, model, false).dump());
        BOOST_REQUIRE_EQUAL(response.status, 200);
        BOOST_TEST(answerText(path, response.json()) == expectedText(model));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_client_format_reaches_every_provider_wire_streamed) {
  Gateway gateway;
  for (const auto& path : kPaths) {
    for (const auto& model : kModels) {
      BOOST_TEST_CONTEXT(path << " -> " << model) {
        auto result = gateway.stream(path, {}, request(path, model, true).dump());
        BOOST_REQUIRE_EQUAL(result.status, 200);
        BOOST_TEST(result.complete);
        BOOST_TEST(result.header("content-type").find("text/event-stream") == 0u);
        const auto streamed = readStream(path, result.body);
        BOOST_TEST(streamed.text == expectedText(model));
        BOOST_TEST(streamed.terminated);
        // The mock counts ceil(bytes / 4) of the answer text.
        BOOST_TEST(streamed.output_tokens == static_cast<int64_t>((expectedText(model).size() + 3) / 4));
      }
    }
  }
}

// OpenAI sends stream usage only when asked; the gateway asks every provider for it (to account
// the request) but must not show it to a client that did not ask, passthrough or translated.
BOOST_AUTO_TEST_CASE(chat_streams_carry_usage_only_when_the_client_asked) {
  Gateway gateway;
  for (const auto& model : kModels) {
    BOOST_TEST_CONTEXT(model) {
      json body = request("/v1/chat/completions", model, true);
      body.erase("stream_options");
      auto result = gateway.stream("/v1/chat/completions", {}, body.dump());
      BOOST_REQUIRE_EQUAL(result.status, 200);
      const auto events = sluice::test::parseSse(result.body);
      BOOST_REQUIRE(!events.empty());
      BOOST_TEST(events.back().data == "[DONE]");
      std::string text;
      for (const auto& event : events) {
        if (event.data == "[DONE]") continue;
        const json chunk = json::parse(event.data);
        BOOST_TEST(!chunk.contains("usage"), event.data);
        BOOST_REQUIRE(chunk["choices"].is_array());
        BOOST_TEST(!chunk["choices"].empty(), event.data);  // every chunk has choices[0]
        const auto& delta = chunk["choices"][0]["delta"];
        if (delta.contains("content") && delta["content"].is_string()) text += delta["content"].get<std::string>();
      }
      BOOST_TEST(text == expectedText(model));
    }
  }
}

BOOST_AUTO_TEST_CASE(tool_calls_cross_every_wire_with_their_arguments_whole) {
  Gateway gateway;
  for (const auto& path : kPaths) {
    for (const auto& model : kModels) {
      BOOST_TEST_CONTEXT(path << " -> " << model) {
        auto result = gateway.stream(path, {}, request(path, model, true, true).dump());
        BOOST_REQUIRE_EQUAL(result.status, 200);
        const auto streamed = readStream(path, result.body);
        BOOST_TEST(streamed.tool_name == "get_weather");
        BOOST_TEST(json::parse(streamed.tool_arguments) == json({{"city", "mock-city"}}));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
