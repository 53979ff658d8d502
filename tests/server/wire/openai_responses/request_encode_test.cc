#include <boost/test/unit_test.hpp>

#include "server/wire/openai_responses/codec.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {
namespace {

using Type = ContentBlock::Type;

ContentBlock text(std::string value) {
  ContentBlock block;
  block.text = std::move(value);
  return block;
}

ContentBlock toolUse(std::string id, std::string name, Json input) {
  ContentBlock block;
  block.type = Type::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  block.tool_input = std::move(input);
  return block;
}

ContentBlock toolResult(std::string id, std::vector<ContentBlock> result) {
  ContentBlock block;
  block.type = Type::ToolResult;
  block.tool_use_id = std::move(id);
  block.result = std::move(result);
  return block;
}

ContentBlock thinking(std::string value, std::string signature, catalog::Wire wire, std::string id = "") {
  ContentBlock block;
  block.type = Type::Thinking;
  block.text = std::move(value);
  block.signature = std::move(signature);
  block.signature_wire = wire;
  block.reasoning_id = std::move(id);
  return block;
}

ContentBlock image(ImageSource::Kind kind, std::string media_type, std::string data, std::string url) {
  ContentBlock block;
  block.type = Type::Image;
  block.image = {kind, std::move(media_type), std::move(data), std::move(url)};
  return block;
}

Json encoded(const Request& request, const EncodeOptions& options = {"gpt-5", 4096, std::nullopt}) {
  auto body = encodeRequest(request, options);
  BOOST_REQUIRE(body.has_value());
  return Json::parse(*body);
}

// A request touching every field the Responses wire can carry, used for exact-JSON and
// round-trip checks.
Request fullRequest() {
  Request request;
  request.model = "gpt-5";
  request.system = {text("You are terse.")};
  request.messages = {
      Message{Role::User, {text("Look:"), image(ImageSource::Kind::Base64, "image/png", "iVBORw0KGgo=", ""),
                           image(ImageSource::Kind::Url, "", "", "https://example.com/a.png")}},
      Message{Role::Assistant,
              {thinking("Need the weather.", "gAAAA-enc", catalog::Wire::OpenAIResponses, "rs_1"), text("Checking."),
               toolUse("call_1", "weather", {{"city", "Paris"}}), toolUse("call_2", "clock", Json::object())}},
      Message{Role::User, {toolResult("call_1", {text("sunny")}), toolResult("call_2", {text("noon")}), text("Thanks")}},
  };
  Tool weather;
  weather.name = "weather";
  weather.description = "Weather by city.";
  weather.input_schema = {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}};
  weather.strict = false;
  Tool clock;
  clock.name = "clock";
  clock.input_schema = {{"type", "object"}, {"properties", Json::object()}};
  clock.strict = true;
  request.tools = {weather, clock};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Any, "", false};
  request.parallel_tool_calls = true;
  request.max_tokens = 1000;
  request.temperature = 0.5;
  request.top_p = 0.9;
  request.stream = true;
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonSchema, "answer", {{"type", "object"}}, true};
  request.reasoning = Reasoning{true, std::nullopt, "high", "auto"};
  request.user = "user-42";
  return request;
}

void checkSameRequest(const Request& a, const Request& b) {
  BOOST_TEST(a.model == b.model);
  BOOST_REQUIRE_EQUAL(a.system.size(), b.system.size());
  for (size_t i = 0; i < a.system.size(); ++i) BOOST_TEST(a.system[i].text == b.system[i].text);
  BOOST_REQUIRE_EQUAL(a.messages.size(), b.messages.size());
  for (size_t m = 0; m < a.messages.size(); ++m) {
    BOOST_TEST((a.messages[m].role == b.messages[m].role));
    BOOST_REQUIRE_EQUAL(a.messages[m].content.size(), b.messages[m].content.size());
    for (size_t i = 0; i < a.messages[m].content.size(); ++i) {
      const ContentBlock& x = a.messages[m].content[i];
      const ContentBlock& y = b.messages[m].content[i];
      BOOST_TEST((x.type == y.type));
      BOOST_TEST(x.text == y.text);
      BOOST_TEST((x.image.kind == y.image.kind));
      BOOST_TEST(x.image.media_type == y.image.media_type);
      BOOST_TEST(x.image.data == y.image.data);
      BOOST_TEST(x.image.url == y.image.url);
      BOOST_TEST(x.tool_id == y.tool_id);
      BOOST_TEST(x.tool_name == y.tool_name);
      BOOST_TEST(x.tool_input == y.tool_input);
      BOOST_TEST(x.tool_use_id == y.tool_use_id);
      BOOST_REQUIRE_EQUAL(x.result.size(), y.result.size());
      for (size_t r = 0; r < x.result.size(); ++r) BOOST_TEST(x.result[r].text == y.result[r].text);
      BOOST_TEST(x.signature == y.signature);
      BOOST_TEST((x.signature_wire == y.signature_wire));
      BOOST_TEST(x.reasoning_id == y.reasoning_id);
      BOOST_TEST(x.raw == y.raw);
    }
  }
  BOOST_REQUIRE_EQUAL(a.tools.size(), b.tools.size());
  for (size_t i = 0; i < a.tools.size(); ++i) {
    BOOST_TEST(a.tools[i].name == b.tools[i].name);
    BOOST_TEST(a.tools[i].description == b.tools[i].description);
    BOOST_TEST(a.tools[i].input_schema == b.tools[i].input_schema);
    BOOST_TEST((a.tools[i].strict == b.tools[i].strict));
    BOOST_TEST(a.tools[i].raw == b.tools[i].raw);
  }
  BOOST_TEST(a.tool_choice.has_value() == b.tool_choice.has_value());
  if (a.tool_choice && b.tool_choice) {
    BOOST_TEST((a.tool_choice->mode == b.tool_choice->mode));
    BOOST_TEST(a.tool_choice->name == b.tool_choice->name);
  }
  BOOST_TEST((a.parallel_tool_calls == b.parallel_tool_calls));
  BOOST_TEST((a.max_tokens == b.max_tokens));
  BOOST_TEST((a.temperature == b.temperature));
  BOOST_TEST((a.top_p == b.top_p));
  BOOST_TEST(a.stream == b.stream);
  BOOST_TEST(a.response_format.has_value() == b.response_format.has_value());
  if (a.response_format && b.response_format) {
    BOOST_TEST((a.response_format->kind == b.response_format->kind));
    BOOST_TEST(a.response_format->name == b.response_format->name);
    BOOST_TEST(a.response_format->schema == b.response_format->schema);
    BOOST_TEST((a.response_format->strict == b.response_format->strict));
  }
  BOOST_TEST(a.reasoning.has_value() == b.reasoning.has_value());
  if (a.reasoning && b.reasoning) {
    BOOST_TEST(a.reasoning->enabled == b.reasoning->enabled);
    BOOST_TEST(a.reasoning->effort == b.reasoning->effort);
    BOOST_TEST(a.reasoning->summary == b.reasoning->summary);
  }
  BOOST_TEST((a.user == b.user));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_encode)

BOOST_AUTO_TEST_CASE(writes_the_exact_responses_body) {
  const Json body = encoded(fullRequest());
  const Json expected = Json::parse(R"({
    "model": "gpt-5",
    "instructions": "You are terse.",
    "input": [
      {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "Look:"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"}]},
      {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Need the weather."}],
       "encrypted_content": "gAAAA-enc"},
      {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
      {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"},
      {"type": "function_call", "call_id": "call_2", "name": "clock", "arguments": "{}"},
      {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
      {"type": "function_call_output", "call_id": "call_2", "output": "noon"},
      {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Thanks"}]}
    ],
    "tools": [
      {"type": "function", "name": "weather", "description": "Weather by city.",
       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": false},
      {"type": "function", "name": "clock", "parameters": {"type": "object", "properties": {}}, "strict": true}
    ],
    "tool_choice": "required",
    "parallel_tool_calls": true,
    "max_output_tokens": 1000,
    "temperature": 0.5,
    "top_p": 0.9,
    "reasoning": {"effort": "high", "summary": "auto"},
    "text": {"format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}, "strict": true}},
    "user": "user-42",
    "store": false,
    "include": ["reasoning.encrypted_content"],
    "stream": true
  })");
  BOOST_TEST(body.dump(2) == expected.dump(2));
}

BOOST_AUTO_TEST_CASE(decoding_the_encoded_request_gives_it_back) {
  const Request original = fullRequest();
  auto body = encodeRequest(original, {"gpt-5", 4096, std::nullopt});
  BOOST_REQUIRE(body.has_value());
  auto back = decodeRequest(*body);
  BOOST_REQUIRE(back.has_value());
  checkSameRequest(original, *back);

  // And the other way: a client body decoded then encoded says the same things.
  const Json client = Json::parse(*body);
  auto again = encodeRequest(*back, {"gpt-5", 4096, std::nullopt});
  BOOST_REQUIRE(again.has_value());
  BOOST_TEST(Json::parse(*again).dump() == client.dump());
}

BOOST_AUTO_TEST_CASE(max_output_tokens_is_clamped_to_the_model_ceiling_and_omitted_when_absent) {
  Request request;
  request.messages = {Message{Role::User, {text("hi")}}};
  request.max_tokens = 100000;
  BOOST_TEST(encoded(request, {"gpt-5", 4096, 32000})["max_output_tokens"] == 32000);
  request.max_tokens = 1;
  BOOST_TEST(encoded(request)["max_output_tokens"] == 16);  // the API's floor
  request.max_tokens.reset();
  const Json body = encoded(request, {"gpt-5", 4096, 32000});
  BOOST_TEST(!body.contains("max_output_tokens"));
  BOOST_TEST(body["store"] == false);
  BOOST_TEST(!body.contains("include"));  // no reasoning asked for, none in history
  BOOST_TEST(!body.contains("tools"));
}

BOOST_AUTO_TEST_CASE(foreign_thinking_and_hosted_tools_are_dropped) {
  Request request;
  request.messages = {
      Message{Role::User, {text("hi")}},
      Message{Role::Assistant,
              {thinking("hmm", "anthropic-sig", catalog::Wire::Anthropic), text("Hello"),
               thinking("no enc", "", catalog::Wire::OpenAIResponses, "rs_9")}},
  };
  Tool hosted;
  hosted.name = "web_search";
  hosted.raw = {{"type", "web_search_20250305"}, {"name", "web_search"}};
  hosted.raw_wire = catalog::Wire::Anthropic;
  Tool own;
  own.name = "web_search";
  own.raw = {{"type", "web_search"}};
  own.raw_wire = catalog::Wire::OpenAIResponses;
  request.tools = {hosted, own};
  const Json body = encoded(request);
  BOOST_REQUIRE_EQUAL(body["input"].size(), 2u);
  BOOST_TEST(body["input"][1]["role"] == "assistant");
  BOOST_TEST(body["input"][1]["content"][0]["text"] == "Hello");
  BOOST_REQUIRE_EQUAL(body["tools"].size(), 1u);
  BOOST_TEST(body["tools"][0] == own.raw);
}

BOOST_AUTO_TEST_CASE(tool_results_with_images_become_output_parts_and_text_parts_join) {
  Request request;
  request.messages = {
      Message{Role::User,
              {toolResult("call_1", {text("line one"), text("line two")}),
               toolResult("call_2", {text("see"), image(ImageSource::Kind::Base64, "", "/9j/abc", "")})}},
  };
  const Json body = encoded(request);
  BOOST_TEST(body["input"][0]["output"] == "line one\nline two");
  const Json expected = Json::parse(R"([{"type":"input_text","text":"see"},
      {"type":"input_image","image_url":"data:image/jpeg;base64,/9j/abc","detail":"auto"}])");
  BOOST_TEST(body["input"][1]["output"] == expected);
}

BOOST_AUTO_TEST_CASE(reasoning_from_a_thinking_budget_becomes_an_effort) {
  Request request;
  request.messages = {Message{Role::User, {text("hi")}}};
  request.reasoning = Reasoning{true, 2048, "", ""};
  Json body = encoded(request);
  BOOST_TEST(body["reasoning"] == Json({{"effort", "low"}}));
  BOOST_TEST(body["include"] == Json::array({"reasoning.encrypted_content"}));
  request.reasoning = Reasoning{true, 32000, "", ""};
  BOOST_TEST(encoded(request)["reasoning"]["effort"] == "high");
  request.reasoning = Reasoning{false, std::nullopt, "", ""};
  body = encoded(request);
  BOOST_TEST(!body.contains("reasoning"));
  BOOST_TEST(!body.contains("include"));
}

BOOST_AUTO_TEST_CASE(tool_choice_variants_and_disabled_parallel_calls) {
  Request request;
  request.messages = {Message{Role::User, {text("hi")}}};
  Tool tool;
  tool.name = "f";
  request.tools = {tool};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Tool, "f", true};
  Json body = encoded(request);
  BOOST_TEST(body["tool_choice"] == Json({{"type", "function"}, {"name", "f"}}));
  BOOST_TEST(body["parallel_tool_calls"] == false);
  BOOST_TEST(body["tools"][0]["strict"] == false);  // a missing strict would mean true here
  request.tool_choice = ToolChoice{ToolChoice::Mode::None, "", false};
  body = encoded(request);
  BOOST_TEST(body["tool_choice"] == "none");
  BOOST_TEST(!body.contains("parallel_tool_calls"));
  request.tool_choice = ToolChoice{ToolChoice::Mode::Auto, "", false};
  BOOST_TEST(encoded(request)["tool_choice"] == "auto");
}

BOOST_AUTO_TEST_CASE(opaque_items_of_this_wire_pass_through_in_place) {
  Request request;
  ContentBlock call;
  call.type = Type::Opaque;
  call.raw = {{"type", "web_search_call"}, {"id", "ws_1"}, {"status", "completed"}};
  call.raw_wire = catalog::Wire::OpenAIResponses;
  ContentBlock file;
  file.type = Type::Opaque;
  file.raw = {{"type", "input_file"}, {"file_url", "https://example.com/a.pdf"}};
  file.raw_wire = catalog::Wire::OpenAIResponses;
  ContentBlock foreign;
  foreign.type = Type::Opaque;
  foreign.raw = {{"type", "document"}};
  foreign.raw_wire = catalog::Wire::Anthropic;
  request.messages = {Message{Role::User, {text("read"), file, foreign}}, Message{Role::Assistant, {call, text("done")}}};
  const Json body = encoded(request);
  BOOST_REQUIRE_EQUAL(body["input"].size(), 3u);
  BOOST_TEST(body["input"][0]["content"][1] == file.raw);
  BOOST_TEST(body["input"][0]["content"].size() == 2u);
  BOOST_TEST(body["input"][1] == call.raw);
  BOOST_TEST(body["input"][2]["content"][0]["type"] == "output_text");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
