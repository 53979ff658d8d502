#include <boost/test/unit_test.hpp>

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;
using BlockType = ContentBlock::Type;

EncodeOptions options(std::string model = "claude-sonnet-4-5-20250929") {
  EncodeOptions value;
  value.upstream_model = std::move(model);
  return value;
}

Json encodeOk(const Request& request, const EncodeOptions& with = options()) {
  auto encoded = encodeRequest(request, with);
  BOOST_REQUIRE_MESSAGE(encoded.has_value(), (encoded ? "" : encoded.error().message));
  const Json body = Json::parse(*encoded, nullptr, false);
  BOOST_REQUIRE(body.is_object());
  return body;
}

ContentBlock text(std::string value) {
  ContentBlock block;
  block.text = std::move(value);
  return block;
}

ContentBlock toolUse(std::string id, std::string name, Json input) {
  ContentBlock block;
  block.type = BlockType::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  block.tool_input = std::move(input);
  return block;
}

ContentBlock toolResult(std::string id, std::string value) {
  ContentBlock block;
  block.type = BlockType::ToolResult;
  block.tool_use_id = std::move(id);
  block.result.push_back(text(std::move(value)));
  return block;
}

ContentBlock thinking(std::string value, std::string signature, std::optional<catalog::Wire> wire) {
  ContentBlock block;
  block.type = BlockType::Thinking;
  block.text = std::move(value);
  block.signature = std::move(signature);
  block.signature_wire = wire;
  return block;
}

Request hello() {
  Request request;
  request.model = "claude-alias";
  request.messages.push_back(Message{Role::User, {text("Hello")}});
  return request;
}

Request decodeOk(const std::string& body) {
  auto decoded = decodeRequest(body);
  BOOST_REQUIRE_MESSAGE(decoded.has_value(), (decoded ? "" : decoded.error().message));
  return *decoded;
}

void checkRoundTrip(const Request& original) {
  auto encoded = encodeRequest(original, options(original.model));
  BOOST_REQUIRE(encoded.has_value());
  auto decoded = decodeRequest(*encoded);
  BOOST_REQUIRE(decoded.has_value());
  BOOST_TEST(toJson(*decoded) == toJson(original));
}

BOOST_AUTO_TEST_SUITE(request_encode)

BOOST_AUTO_TEST_CASE(minimal_request_gets_upstream_model_and_default_max_tokens) {
  EncodeOptions with = options();
  with.default_max_tokens = 8192;
  BOOST_TEST(encodeOk(hello(), with) ==
             Json::parse(R"({"model":"claude-sonnet-4-5-20250929","max_tokens":8192,
                            "messages":[{"role":"user","content":[{"type":"text","text":"Hello"}]}]})"));
}

BOOST_AUTO_TEST_CASE(max_tokens_is_clamped_to_the_model_ceiling) {
  Request request = hello();
  request.max_tokens = 100000;
  EncodeOptions with = options();
  with.max_output = 64000;
  BOOST_TEST(encodeOk(request, with)["max_tokens"] == 64000);
  request.max_tokens.reset();
  with.default_max_tokens = 128000;
  BOOST_TEST(encodeOk(request, with)["max_tokens"] == 64000);
  request.max_tokens = 500;
  BOOST_TEST(encodeOk(request, with)["max_tokens"] == 500);
}

BOOST_AUTO_TEST_CASE(system_is_hoisted_as_string_or_blocks_with_cache_control) {
  Request request = hello();
  request.system.push_back(text("Be brief."));
  BOOST_TEST(encodeOk(request)["system"] == "Be brief.");
  request.system.push_back(text("Use tools."));
  request.system[1].cache_control = Json{{"type", "ephemeral"}};
  BOOST_TEST(encodeOk(request)["system"] ==
             Json::parse(R"([{"type":"text","text":"Be brief."},
                             {"type":"text","text":"Use tools.","cache_control":{"type":"ephemeral"}}])"));
}

BOOST_AUTO_TEST_CASE(consecutive_same_role_turns_merge_and_tool_results_come_first) {
  Request request = hello();
  request.messages.push_back(Message{Role::Assistant, {text("Let me check."), toolUse("call_1", "weather", {{"city", "Paris"}})}});
  request.messages.push_back(Message{Role::Assistant, {toolUse("call_2", "weather", {{"city", "Rome"}})}});
  // Chat sends each result as its own tool message, then maybe a user text.
  request.messages.push_back(Message{Role::User, {text("Also, hurry.")}});
  request.messages.push_back(Message{Role::User, {toolResult("call_1", "18C")}});
  request.messages.push_back(Message{Role::User, {toolResult("call_2", "25C")}});
  const Json messages = encodeOk(request)["messages"];
  BOOST_TEST(messages == Json::parse(R"([
    {"role":"user","content":[{"type":"text","text":"Hello"}]},
    {"role":"assistant","content":[{"type":"text","text":"Let me check."},
      {"type":"tool_use","id":"call_1","name":"weather","input":{"city":"Paris"}},
      {"type":"tool_use","id":"call_2","name":"weather","input":{"city":"Rome"}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"18C"},
      {"type":"tool_result","tool_use_id":"call_2","content":"25C"},
      {"type":"text","text":"Also, hurry."}]}])"));
}

BOOST_AUTO_TEST_CASE(tool_result_with_image_error_flag_and_empty_content) {
  Request request = hello();
  ContentBlock result = toolResult("toolu_1", "see image");
  ContentBlock image;
  image.type = BlockType::Image;
  image.image = ImageSource{ImageSource::Kind::Base64, "image/png", "iVBORw0KGgo=", ""};
  result.result.push_back(image);
  result.is_error = true;
  ContentBlock empty;
  empty.type = BlockType::ToolResult;
  empty.tool_use_id = "toolu_2";
  request.messages.push_back(Message{Role::Assistant, {toolUse("toolu_1", "shot", Json::object()), toolUse("toolu_2", "noop", Json::object())}});
  request.messages.push_back(Message{Role::User, {result, empty}});
  const Json user = encodeOk(request)["messages"][2];
  BOOST_TEST(user["content"][0] == Json::parse(R"({"type":"tool_result","tool_use_id":"toolu_1","content":[
      {"type":"text","text":"see image"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}],"is_error":true})"));
  BOOST_TEST(user["content"][1] == Json::parse(R"({"type":"tool_result","tool_use_id":"toolu_2"})"));
}

BOOST_AUTO_TEST_CASE(images_are_sent_as_base64_or_url_sources) {
  Request request = hello();
  ContentBlock url;
  url.type = BlockType::Image;
  url.image.kind = ImageSource::Kind::Url;
  url.image.url = "https://example.com/a.png";
  ContentBlock inline_image;
  inline_image.type = BlockType::Image;
  inline_image.image = ImageSource{ImageSource::Kind::Base64, "image/jpeg", "/9j/4AAQ", ""};
  request.messages[0].content.push_back(url);
  request.messages[0].content.push_back(inline_image);
  const Json content = encodeOk(request)["messages"][0]["content"];
  BOOST_TEST(content[1] == Json::parse(R"({"type":"image","source":{"type":"url","url":"https://example.com/a.png"}})"));
  BOOST_TEST(content[2] == Json::parse(R"({"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}})"));
}

BOOST_AUTO_TEST_CASE(only_anthropic_signed_thinking_is_sent_back) {
  Request request = hello();
  ContentBlock redacted;
  redacted.type = BlockType::RedactedThinking;
  redacted.data = "EmwKAhgB";
  redacted.signature_wire = catalog::Wire::Anthropic;
  ContentBlock foreign_redacted = redacted;
  foreign_redacted.signature_wire = catalog::Wire::OpenAIResponses;
  request.messages.push_back(Message{Role::Assistant,
                                     {thinking("mine", "EqQBCgIYAhIM", catalog::Wire::Anthropic),
                                      thinking("gemini's", "Et0B", catalog::Wire::Gemini),
                                      thinking("unsigned", "", std::nullopt), redacted, foreign_redacted,
                                      toolUse("toolu_1", "f", Json::object())}});
  request.messages.push_back(Message{Role::User, {toolResult("toolu_1", "ok")}});
  const Json assistant = encodeOk(request)["messages"][1]["content"];
  BOOST_TEST(assistant == Json::parse(R"([
    {"type":"thinking","thinking":"mine","signature":"EqQBCgIYAhIM"},
    {"type":"redacted_thinking","data":"EmwKAhgB"},
    {"type":"tool_use","id":"toolu_1","name":"f","input":{}}])"));
}

BOOST_AUTO_TEST_CASE(foreign_opaque_blocks_and_tools_are_dropped_and_empty_turns_vanish) {
  Request request = hello();
  ContentBlock opaque;
  opaque.type = BlockType::Opaque;
  opaque.raw = Json{{"type", "executableCode"}};
  opaque.raw_wire = catalog::Wire::Gemini;
  ContentBlock own = opaque;
  own.raw = Json{{"type", "document"}, {"source", {{"type", "text"}, {"media_type", "text/plain"}, {"data", "x"}}}};
  own.raw_wire = catalog::Wire::Anthropic;
  request.messages.push_back(Message{Role::Assistant, {opaque, thinking("x", "", std::nullopt), text("")}});
  request.messages.push_back(Message{Role::User, {own, text("more")}});
  Tool hosted;
  hosted.name = "web_search_preview";
  hosted.raw = Json{{"type", "web_search_preview"}};
  hosted.raw_wire = catalog::Wire::OpenAIResponses;
  Tool server;
  server.name = "web_search";
  server.raw = Json{{"type", "web_search_20250305"}, {"name", "web_search"}};
  server.raw_wire = catalog::Wire::Anthropic;
  request.tools = {hosted, server};
  const Json body = encodeOk(request);
  BOOST_REQUIRE_EQUAL(body["messages"].size(), 1u);  // the assistant turn had nothing to send: users merged
  BOOST_TEST(body["messages"][0]["content"].size() == 3u);
  BOOST_TEST(body["messages"][0]["content"][1] == own.raw);
  BOOST_TEST(body["tools"] == Json::array({server.raw}));
}

BOOST_AUTO_TEST_CASE(request_with_nothing_to_send_is_refused_naming_messages) {
  Request request;
  request.model = "m";
  request.system.push_back(text("only a system prompt"));
  auto encoded = encodeRequest(request, options());
  BOOST_REQUIRE(!encoded.has_value());
  BOOST_TEST(encoded.error().status == 400);
  BOOST_TEST(encoded.error().key == "unsupported_field");
  BOOST_TEST(encoded.error().param.value() == "messages");
}

BOOST_AUTO_TEST_CASE(tools_and_tool_choice_have_the_exact_anthropic_shape) {
  Request request = hello();
  Tool tool;
  tool.name = "get_weather";
  tool.description = "Weather for a city";
  tool.input_schema = Json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})");
  tool.strict = true;
  Tool bare;
  bare.name = "ping";
  bare.strict = false;
  request.tools = {tool, bare};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Tool, "get_weather", false};
  request.parallel_tool_calls = false;
  const Json body = encodeOk(request);
  BOOST_TEST(body["tools"] == Json::parse(R"([
    {"name":"get_weather","description":"Weather for a city",
     "input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true},
    {"name":"ping","input_schema":{"type":"object"}}])"));
  BOOST_TEST(body["tool_choice"] == Json::parse(R"({"type":"tool","name":"get_weather","disable_parallel_tool_use":true})"));
  for (auto [mode, type] : {std::pair{ToolChoice::Mode::Auto, "auto"}, std::pair{ToolChoice::Mode::Any, "any"},
                            std::pair{ToolChoice::Mode::None, "none"}}) {
    request.tool_choice = ToolChoice{mode, "", false};
    request.parallel_tool_calls.reset();
    BOOST_TEST(encodeOk(request)["tool_choice"] == Json({{"type", type}}));
  }
  request.tool_choice.reset();
  request.parallel_tool_calls = false;
  BOOST_TEST(encodeOk(request)["tool_choice"] == Json::parse(R"({"type":"auto","disable_parallel_tool_use":true})"));
  request.tools.clear();
  BOOST_TEST(!encodeOk(request).contains("tool_choice"));  // no tools: no choice to make
}

BOOST_AUTO_TEST_CASE(sampling_fields_are_clamped_to_anthropic_ranges) {
  Request request = hello();
  request.temperature = 1.6;  // an OpenAI client's value (range 0..2)
  request.top_k = 20;
  request.stop_sequences = {"END", "STOP"};
  request.user = "u-1";
  request.stream = true;
  Json body = encodeOk(request);
  BOOST_TEST(body["temperature"] == 1.0);
  BOOST_TEST(body["top_k"] == 20);
  BOOST_TEST(body["stop_sequences"] == Json::array({"END", "STOP"}));
  BOOST_TEST(body["metadata"] == Json::parse(R"({"user_id":"u-1"})"));
  BOOST_TEST(body["stream"] == true);
  request.temperature = -0.5;
  BOOST_TEST(encodeOk(request)["temperature"] == 0.0);
  // Current models refuse temperature with top_p: temperature wins.
  request.top_p = 0.8;
  body = encodeOk(request);
  BOOST_TEST(!body.contains("top_p"));
  request.temperature.reset();
  BOOST_TEST(encodeOk(request)["top_p"] == 0.8);
}

BOOST_AUTO_TEST_CASE(thinking_budget_stays_below_max_tokens_and_drops_forbidden_sampling) {
  Request request = hello();
  request.max_tokens = 4096;
  request.reasoning = Reasoning{true, 10000, "", ""};
  request.temperature = 0.2;
  request.top_k = 5;
  request.top_p = 0.5;
  Json body = encodeOk(request);
  BOOST_TEST(body["thinking"] == Json::parse(R"({"type":"enabled","budget_tokens":4095})"));
  BOOST_TEST(!body.contains("temperature"));
  BOOST_TEST(!body.contains("top_k"));
  BOOST_TEST(body["top_p"] == 0.95);
  request.max_tokens = 1000;  // no room for the minimum budget of 1024
  body = encodeOk(request);
  BOOST_TEST(!body.contains("thinking"));
  BOOST_TEST(body["temperature"] == 0.2);
  request.max_tokens = 8000;
  request.reasoning = Reasoning{true, 500, "", ""};
  BOOST_TEST(encodeOk(request)["thinking"]["budget_tokens"] == 1024);
}

BOOST_AUTO_TEST_CASE(reasoning_effort_becomes_a_budget_and_disabled_or_adaptive_map_directly) {
  Request request = hello();
  request.max_tokens = 32000;
  request.reasoning = Reasoning{true, std::nullopt, "high", ""};
  BOOST_TEST(encodeOk(request)["thinking"] == Json::parse(R"({"type":"enabled","budget_tokens":16384})"));
  request.reasoning = Reasoning{true, std::nullopt, "low", ""};
  BOOST_TEST(encodeOk(request)["thinking"]["budget_tokens"] == 2048);
  request.reasoning = Reasoning{true, std::nullopt, "none", ""};
  BOOST_TEST(encodeOk(request)["thinking"] == Json::parse(R"({"type":"disabled"})"));
  request.reasoning = Reasoning{false, std::nullopt, "", ""};
  BOOST_TEST(encodeOk(request)["thinking"] == Json::parse(R"({"type":"disabled"})"));
  request.reasoning = Reasoning{true, std::nullopt, "", ""};
  BOOST_TEST(encodeOk(request)["thinking"] == Json::parse(R"({"type":"adaptive"})"));
}

BOOST_AUTO_TEST_CASE(forced_tool_choice_wins_over_thinking) {
  Request request = hello();
  Tool tool;
  tool.name = "extract";
  tool.input_schema = Json{{"type", "object"}};
  request.tools = {tool};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Any, "", false};
  request.reasoning = Reasoning{true, 2048, "", ""};
  request.max_tokens = 4096;
  const Json body = encodeOk(request);
  BOOST_TEST(!body.contains("thinking"));
  BOOST_TEST(body["tool_choice"]["type"] == "any");
}

BOOST_AUTO_TEST_CASE(thinking_is_left_out_when_the_last_tool_turn_has_no_thinking_block) {
  Request request = hello();
  request.max_tokens = 8000;
  request.reasoning = Reasoning{true, 2048, "", ""};
  // A Chat client's history: the tool-calling turn came without any thinking block.
  request.messages.push_back(Message{Role::Assistant, {toolUse("call_1", "f", Json::object())}});
  request.messages.push_back(Message{Role::User, {toolResult("call_1", "ok")}});
  BOOST_TEST(!encodeOk(request).contains("thinking"));
  // With the Anthropic-signed thinking block first, thinking stays on.
  request.messages[1].content.insert(request.messages[1].content.begin(),
                                     thinking("plan", "EqQBCgIYAhIM", catalog::Wire::Anthropic));
  BOOST_TEST(encodeOk(request)["thinking"] == Json::parse(R"({"type":"enabled","budget_tokens":2048})"));
  // A foreign-signed thinking block is dropped, so the turn again has none.
  request.messages[1].content[0].signature_wire = catalog::Wire::Gemini;
  BOOST_TEST(!encodeOk(request).contains("thinking"));
  // An earlier tool turn followed by a plain assistant answer does not matter.
  request.messages.push_back(Message{Role::Assistant, {text("done")}});
  request.messages.push_back(Message{Role::User, {text("thanks")}});
  BOOST_TEST(encodeOk(request).contains("thinking"));
}

BOOST_AUTO_TEST_CASE(json_schema_response_format_becomes_output_config_and_json_object_is_dropped) {
  Request request = hello();
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonSchema, "person",
                                           Json::parse(R"({"type":"object","properties":{"name":{"type":"string"}}})"), true};
  BOOST_TEST(encodeOk(request)["output_config"] ==
             Json::parse(R"({"format":{"type":"json_schema","schema":{"type":"object","properties":{"name":{"type":"string"}}}}})"));
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonObject, "", nullptr, std::nullopt};
  BOOST_TEST(!encodeOk(request).contains("output_config"));
}

BOOST_AUTO_TEST_CASE(round_trips_recorded_requests) {
  for (auto [fixture, interaction] :
       {std::pair{"anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml", 0},
        std::pair{"anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml", 1},
        std::pair{"anthropic/pydantic-ai__test_anthropic_cache_real_api.yaml", 1},
        std::pair{"anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml", 0},
        std::pair{"anthropic/pydantic-ai__test_model_name_suggestion--anthropic.yaml", 0}}) {
    BOOST_TEST_CONTEXT(fixture << " #" << interaction) {
      const Request original =
          decodeOk(dumpJsonText(cassette(fixture)["interactions"][static_cast<size_t>(interaction)]["request"]["parsed_body"]));
      checkRoundTrip(original);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_a_request_with_every_expressible_field) {
  const Request original = decodeOk(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
    "system": [{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Be brief."}],
    "messages": [
      {"role":"user","content":[{"type":"text","text":"What is this?"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
        {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]},
      {"role":"assistant","content":[{"type":"thinking","thinking":"Look.","signature":"EqQBCgIYAhIM"},
        {"type":"redacted_thinking","data":"EmwKAhgB"},
        {"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"/tmp/a"}},
        {"type":"tool_use","id":"toolu_02","name":"Read","input":{}}]},
      {"role":"user","content":[
        {"type":"tool_result","tool_use_id":"toolu_01","is_error":true,"content":[{"type":"text","text":"no such file"},
          {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}}]},
        {"type":"tool_result","tool_use_id":"toolu_02","content":"fine"},
        {"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"}},
        {"type":"text","text":"go on","cache_control":{"type":"ephemeral","ttl":"1h"}}]}],
    "tools": [{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}},
               "cache_control":{"type":"ephemeral"},"strict":true},
              {"type":"web_search_20250305","name":"web_search","max_uses":5}],
    "tool_choice": {"type":"auto","disable_parallel_tool_use":true},
    "thinking": {"type":"enabled","budget_tokens":10000},
    "metadata": {"user_id":"user_abc"},
    "stop_sequences": ["\n\nHuman:"],
    "top_p": 0.97,
    "output_config": {"format":{"type":"json_schema","schema":{"type":"object"}}}
  })");
  checkRoundTrip(original);
  const Request plain = decodeOk(R"({"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}],
    "temperature":0.3,"top_k":7,"tool_choice":{"type":"none"},"tools":[{"name":"f","input_schema":{"type":"object"}}],
    "thinking":{"type":"disabled"}})");
  checkRoundTrip(plain);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
