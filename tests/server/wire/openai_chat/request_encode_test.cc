#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/ir_builders.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::catalog::Wire;
using sluice::wire::ContentBlock;
using sluice::wire::EncodeOptions;
using sluice::wire::Json;
using sluice::wire::Message;
using sluice::wire::Reasoning;
using sluice::wire::Request;
using sluice::wire::ResponseFormat;
using sluice::wire::Role;
using sluice::wire::Tool;
using sluice::wire::ToolChoice;

namespace {

Json encoded(const Request& request, EncodeOptions options = {}) {
  if (options.upstream_model.empty()) options.upstream_model = "upstream-model";
  const auto body = chat::encodeRequest(request, options);
  BOOST_REQUIRE_MESSAGE(body.has_value(), "encode failed: " + (body ? std::string() : body.error().message));
  return Json::parse(*body);
}

Request simple(std::string prompt) {
  Request request;
  request.model = "client-model";
  request.messages.push_back(Message{Role::User, {text(std::move(prompt))}});
  return request;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_encode)

BOOST_AUTO_TEST_CASE(writes_system_history_tool_calls_and_results_as_chat_messages) {
  Request request;
  request.model = "claude-sonnet";
  request.system = {text("You are terse."), text("Answer in French.")};
  request.messages.push_back(Message{Role::User, {text("Weather in Paris and Rome?")}});
  request.messages.push_back(Message{
      Role::Assistant,
      {thinking("Two cities: two calls.", "sig-abc", Wire::Anthropic), text("Checking."),
       toolUse("toolu_1", "weather", Json{{"city", "Paris"}}), toolUse("toolu_2", "weather", Json{{"city", "Rome"}})}});
  request.messages.push_back(Message{Role::User,
                                     {toolResult("toolu_1", {text("sunny")}),
                                      toolResult("toolu_2", {text("rain"), imageBase64("image/png", "iVBOR")}),
                                      text("And tomorrow?")}});
  const Json expected = Json::parse(R"({"model":"upstream-model","messages":[
    {"role":"system","content":"You are terse.\n\nAnswer in French."},
    {"role":"user","content":"Weather in Paris and Rome?"},
    {"role":"assistant","content":"Checking.","reasoning_content":"Two cities: two calls.","tool_calls":[
      {"id":"toolu_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
      {"id":"toolu_2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},
    {"role":"tool","tool_call_id":"toolu_1","content":"sunny"},
    {"role":"tool","tool_call_id":"toolu_2","content":"rain"},
    {"role":"user","content":[
      {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR"}},
      {"type":"text","text":"And tomorrow?"}]}]})");
  BOOST_TEST(encoded(request).dump() == expected.dump());
}

BOOST_AUTO_TEST_CASE(writes_null_content_for_an_assistant_turn_with_only_tool_calls) {
  Request request = simple("time?");
  request.messages.push_back(Message{Role::Assistant, {toolUse("call_1", "now", Json::object())}});
  request.messages.push_back(Message{Role::User, {toolResult("call_1", {})}});
  const Json body = encoded(request);
  const Json& assistant = body["messages"][1];
  BOOST_TEST(assistant["content"].is_null());
  BOOST_TEST(assistant["tool_calls"][0]["function"]["arguments"] == "{}");  // a call without arguments
  BOOST_TEST(body["messages"][2].dump() == R"({"role":"tool","tool_call_id":"call_1","content":""})");
  BOOST_TEST(body["messages"].size() == 3u);
}

BOOST_AUTO_TEST_CASE(writes_images_by_url_and_as_data_urls) {
  Request request;
  request.messages.push_back(Message{Role::User, {imageUrl("https://example.com/a.jpg"), imageBase64("image/webp", "UklG")}});
  const Json body = encoded(request);
  BOOST_TEST(body["messages"][0]["content"].dump() ==
             R"([{"type":"image_url","image_url":{"url":"https://example.com/a.jpg"}},)"
             R"({"type":"image_url","image_url":{"url":"data:image/webp;base64,UklG"}}])");
}

BOOST_AUTO_TEST_CASE(writes_tools_tool_choice_and_parallel_flag) {
  Request request = simple("capital of the UK?");
  Tool tool = functionTool("get_capital", "Looks up a capital",
                           Json::parse(R"({"type":"object","properties":{"country":{"type":"string"}}})"));
  tool.strict = true;
  request.tools.push_back(tool);
  request.tools.push_back(functionTool("ping", "", Json::object()));
  Tool hosted;  // a hosted tool of another provider: cannot run here
  hosted.name = "web_search";
  hosted.raw = Json{{"type", "web_search_20250305"}, {"name", "web_search"}};
  hosted.raw_wire = Wire::Anthropic;
  request.tools.push_back(hosted);
  request.tool_choice = ToolChoice{ToolChoice::Mode::Tool, "get_capital", true};
  const Json body = encoded(request);
  BOOST_TEST(body["tools"].dump() ==
             R"([{"type":"function","function":{"name":"get_capital","description":"Looks up a capital",)"
             R"("parameters":{"type":"object","properties":{"country":{"type":"string"}}},"strict":true}},)"
             R"({"type":"function","function":{"name":"ping"}}])");
  BOOST_TEST(body["tool_choice"].dump() == R"({"type":"function","function":{"name":"get_capital"}})");
  BOOST_TEST(body["parallel_tool_calls"] == false);

  request.tool_choice = ToolChoice{ToolChoice::Mode::Any, "", false};
  request.parallel_tool_calls = true;
  BOOST_TEST(encoded(request)["tool_choice"] == "required");
  BOOST_TEST(encoded(request)["parallel_tool_calls"] == true);
  request.tool_choice = ToolChoice{ToolChoice::Mode::None, "", false};
  BOOST_TEST(encoded(request)["tool_choice"] == "none");
  request.tool_choice = ToolChoice{};
  BOOST_TEST(encoded(request)["tool_choice"] == "auto");
}

BOOST_AUTO_TEST_CASE(leaves_out_tool_choice_when_there_are_no_tools) {
  Request request = simple("hi");
  request.tool_choice = ToolChoice{ToolChoice::Mode::Auto, "", true};
  request.parallel_tool_calls = false;
  const Json body = encoded(request);
  BOOST_TEST(!body.contains("tools"));
  BOOST_TEST(!body.contains("tool_choice"));
  BOOST_TEST(!body.contains("parallel_tool_calls"));
}

BOOST_AUTO_TEST_CASE(clamps_max_tokens_and_sampling_to_the_chat_ranges) {
  Request request = simple("hi");
  request.max_tokens = 64000;
  request.temperature = 2.5;
  request.top_p = 1.2;
  request.top_k = 40;
  request.stop_sequences = {"END", "STOP"};
  EncodeOptions options;
  options.max_output = 16384;
  const Json body = encoded(request, options);
  BOOST_TEST(body["max_tokens"] == 16384);
  BOOST_TEST(body["temperature"] == 2.0);
  BOOST_TEST(body["top_p"] == 1.0);
  BOOST_TEST(!body.contains("top_k"));
  BOOST_TEST(body["stop"].dump() == R"(["END","STOP"])");
  BOOST_TEST(!body.contains("max_completion_tokens"));

  request.max_tokens = 100;
  BOOST_TEST(encoded(request, options)["max_tokens"] == 100);
  request.max_tokens.reset();
  BOOST_TEST(!encoded(request, options).contains("max_tokens"));  // optional in Chat
}

BOOST_AUTO_TEST_CASE(asks_for_usage_when_streaming) {
  Request request = simple("hi");
  request.stream = true;
  const Json body = encoded(request);
  BOOST_TEST(body["stream"] == true);
  BOOST_TEST(body["stream_options"].dump() == R"({"include_usage":true})");
  BOOST_TEST(!encoded(simple("hi")).contains("stream"));
}

BOOST_AUTO_TEST_CASE(writes_response_formats_reasoning_effort_and_user) {
  Request request = simple("hi");
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonSchema, "answer", Json::parse(R"({"type":"object"})"), true};
  request.reasoning = Reasoning{true, std::nullopt, "high", ""};
  request.user = "u-1";
  Json body = encoded(request);
  BOOST_TEST(body["response_format"].dump() ==
             R"({"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":true}})");
  BOOST_TEST(body["reasoning_effort"] == "high");
  BOOST_TEST(body["user"] == "u-1");

  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonObject, "", nullptr, std::nullopt};
  request.reasoning = Reasoning{true, 2048, "", ""};  // a thinking budget has no faithful effort
  body = encoded(request);
  BOOST_TEST(body["response_format"].dump() == R"({"type":"json_object"})");
  BOOST_TEST(!body.contains("reasoning_effort"));
}

BOOST_AUTO_TEST_CASE(uses_the_upstream_model_name) {
  BOOST_TEST(encoded(simple("hi"))["model"] == "upstream-model");
}

BOOST_AUTO_TEST_CASE(drops_signatures_and_redacted_thinking) {
  Request request = simple("hi");
  ContentBlock redacted;
  redacted.type = ContentBlock::Type::RedactedThinking;
  redacted.data = "opaque";
  request.messages.push_back(Message{Role::Assistant, {redacted, thinking("hmm", "sig", Wire::Gemini), text("Hello")}});
  const Json assistant = encoded(request)["messages"][1];
  BOOST_TEST(assistant.dump() == R"({"role":"assistant","content":"Hello","reasoning_content":"hmm"})");
}

BOOST_AUTO_TEST_CASE(refuses_a_user_block_of_another_wire_naming_it) {
  Request request = simple("summarise this");
  ContentBlock document;
  document.type = ContentBlock::Type::Opaque;
  document.raw = Json::parse(R"({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"}})");
  document.raw_wire = Wire::Anthropic;
  request.messages[0].content.push_back(document);
  const auto body = chat::encodeRequest(request, EncodeOptions{});
  BOOST_REQUIRE(!body.has_value());
  BOOST_TEST(body.error().status == 400);
  BOOST_TEST(body.error().key == "unsupported_field");
  BOOST_TEST(body.error().param.value_or("") == "messages[0].content[1]");
}

BOOST_AUTO_TEST_CASE(sends_parts_of_its_own_wire_verbatim) {
  Request request = simple("listen");
  ContentBlock audio;
  audio.type = ContentBlock::Type::Opaque;
  audio.raw = Json::parse(R"({"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}})");
  audio.raw_wire = Wire::OpenAIChat;
  request.messages[0].content.push_back(audio);
  BOOST_TEST(encoded(request)["messages"][0]["content"].dump() ==
             R"([{"type":"text","text":"listen"},{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}])");
}

BOOST_AUTO_TEST_SUITE_END()
