#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/codec.h"
#include "server/wire/gemini/request_contents.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

using test::plain;

ContentBlock text(std::string value) {
  ContentBlock block;
  block.type = ContentBlock::Type::Text;
  block.text = std::move(value);
  return block;
}

ContentBlock toolUse(std::string id, std::string name, Json input) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  block.tool_input = std::move(input);
  return block;
}

ContentBlock toolResult(std::string id, std::string output, bool is_error = false) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolResult;
  block.tool_use_id = std::move(id);
  block.result.push_back(text(std::move(output)));
  block.is_error = is_error;
  return block;
}

ContentBlock thinking(std::string thought, std::string signature, std::optional<catalog::Wire> wire) {
  ContentBlock block;
  block.type = ContentBlock::Type::Thinking;
  block.text = std::move(thought);
  block.signature = std::move(signature);
  block.signature_wire = wire;
  return block;
}

ContentBlock image(ImageSource::Kind kind, std::string media_type, std::string data_or_url) {
  ContentBlock block;
  block.type = ContentBlock::Type::Image;
  block.image.kind = kind;
  block.image.media_type = std::move(media_type);
  if (kind == ImageSource::Kind::Base64) {
    block.image.data = std::move(data_or_url);
  } else {
    block.image.url = std::move(data_or_url);
  }
  return block;
}

ContentBlock redacted() {
  ContentBlock block;
  block.type = ContentBlock::Type::RedactedThinking;
  block.data = "opaque";
  return block;
}

Message message(Role role, std::vector<ContentBlock> content) { return Message{role, std::move(content)}; }

Request userSays(std::string words) {
  Request request;
  request.model = "gemini-3-pro";
  request.messages.push_back(message(Role::User, {text(std::move(words))}));
  return request;
}

nlohmann::json encodeOk(const Request& request, const EncodeOptions& options = {}) {
  auto body = encodeRequest(request, options);
  BOOST_TEST_REQUIRE(body.has_value(), "encodeRequest failed: " << (body ? "" : body.error().message));
  return plain(*body);
}

ApiError encodeFails(const Request& request) {
  auto body = encodeRequest(request, {});
  BOOST_TEST_REQUIRE(!body.has_value(), "expected a refusal, got " << (body ? *body : ""));
  return body.error();
}

BOOST_AUTO_TEST_SUITE(request_encode)

BOOST_AUTO_TEST_CASE(system_prompt_and_turns_map_to_system_instruction_and_contents) {
  Request request = userSays("What is 5 times 3?");
  request.system = {text("You are terse."), text("Answer in digits.")};
  request.messages.push_back(message(Role::Assistant, {text("15")}));
  request.messages.push_back(message(Role::User, {text("And 6 times 7?")}));
  BOOST_TEST(encodeOk(request) == plain(std::string(R"({
    "systemInstruction":{"parts":[{"text":"You are terse."},{"text":"Answer in digits."}]},
    "contents":[{"role":"user","parts":[{"text":"What is 5 times 3?"}]},
                {"role":"model","parts":[{"text":"15"}]},
                {"role":"user","parts":[{"text":"And 6 times 7?"}]}]})")));
}

BOOST_AUTO_TEST_CASE(keys_are_camel_case_in_gemini_order) {
  Request request = userSays("hi");
  request.system = {text("s")};
  request.max_tokens = 10;
  auto body = encodeRequest(request, {});
  BOOST_TEST_REQUIRE(body.has_value());
  BOOST_TEST(*body == R"({"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":10}})");
}

BOOST_AUTO_TEST_CASE(consecutive_same_role_turns_merge) {
  Request request = userSays("one");
  request.messages.push_back(message(Role::User, {text("two")}));
  request.messages.push_back(message(Role::Assistant, {text("three")}));
  request.messages.push_back(message(Role::Assistant, {text("four")}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"] == plain(std::string(R"([
    {"role":"user","parts":[{"text":"one"},{"text":"two"}]},
    {"role":"model","parts":[{"text":"three"},{"text":"four"}]}])")));
}

BOOST_AUTO_TEST_CASE(images_map_to_inline_and_file_data) {
  Request request;
  request.messages.push_back(message(
      Role::User, {text("Describe these."), image(ImageSource::Kind::Base64, "image/png", "iVBORw0KGgoAAAA"),
                   image(ImageSource::Kind::Base64, "", "/9j/4AAQSkZJRg"),
                   image(ImageSource::Kind::Url, "", "https://example.com/cat.WEBP?size=2"),
                   image(ImageSource::Kind::Url, "", "https://example.com/photo"),
                   image(ImageSource::Kind::Url, "", "data:image/gif;base64,R0lGODlhAQAB")}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][0]["parts"] == plain(std::string(R"([
    {"text":"Describe these."},
    {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgoAAAA"}},
    {"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQSkZJRg"}},
    {"fileData":{"mimeType":"image/webp","fileUri":"https://example.com/cat.WEBP?size=2"}},
    {"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/photo"}},
    {"inlineData":{"mimeType":"image/gif","data":"R0lGODlhAQAB"}}])")));
}

BOOST_AUTO_TEST_CASE(tools_become_function_declarations_with_full_json_schema) {
  Request request = userSays("weather?");
  Tool weather;
  weather.name = "weather";
  weather.description = "Current weather";
  weather.input_schema = Json::parse(
      R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})");
  weather.strict = true;
  Tool now;
  now.name = "now";
  now.input_schema = Json::object();
  Tool search;  // Gemini's own hosted tool
  search.raw = Json::parse(R"({"googleSearch":{}})");
  search.raw_wire = catalog::Wire::Gemini;
  Tool anthropic_search;  // another wire's hosted tool: dropped
  anthropic_search.raw = Json::parse(R"({"type":"web_search_20250305","name":"web_search"})");
  anthropic_search.raw_wire = catalog::Wire::Anthropic;
  request.tools = {weather, now, search, anthropic_search};
  const auto body = encodeOk(request);
  BOOST_TEST(body["tools"] == plain(std::string(R"([
    {"functionDeclarations":[
      {"name":"weather","description":"Current weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},
      {"name":"now","parametersJsonSchema":{"type":"object","properties":{}}}]},
    {"googleSearch":{}}])")));
  BOOST_TEST(!body.contains("toolConfig"));
}

BOOST_AUTO_TEST_CASE(tool_choice_maps_to_function_calling_config) {
  Request request = userSays("go");
  Tool tool;
  tool.name = "final_result";
  request.tools = {tool};
  const std::vector<std::pair<ToolChoice, std::string>> cases = {
      {ToolChoice{ToolChoice::Mode::Auto, "", false}, R"({"mode":"AUTO"})"},
      {ToolChoice{ToolChoice::Mode::Any, "", true}, R"({"mode":"ANY"})"},
      {ToolChoice{ToolChoice::Mode::None, "", false}, R"({"mode":"NONE"})"},
      {ToolChoice{ToolChoice::Mode::Tool, "final_result", false},
       R"({"mode":"ANY","allowedFunctionNames":["final_result"]})"},
  };
  for (const auto& [choice, expected] : cases) {
    request.tool_choice = choice;
    BOOST_TEST(encodeOk(request)["toolConfig"]["functionCallingConfig"] == plain(expected));
  }
}

BOOST_AUTO_TEST_CASE(sampling_settings_map_to_generation_config) {
  Request request = userSays("hi");
  request.max_tokens = 8192;
  request.temperature = 3.5;
  request.top_p = 0.9;
  request.top_k = 40;
  request.stop_sequences = {"END", "STOP"};
  request.parallel_tool_calls = false;
  request.user = "u-1";
  EncodeOptions options;
  options.max_output = 4096;
  const auto body = encodeOk(request, options);
  BOOST_TEST(body["generationConfig"] == plain(std::string(
      R"({"maxOutputTokens":4096,"temperature":2.0,"topP":0.9,"topK":40,"stopSequences":["END","STOP"]})")));
  request.temperature = -1;
  BOOST_TEST(encodeOk(request, options)["generationConfig"]["temperature"] == 0.0);
}

BOOST_AUTO_TEST_CASE(absent_max_tokens_is_omitted) {
  EncodeOptions options;
  options.default_max_tokens = 1234;
  options.max_output = 999;
  const auto body = encodeOk(userSays("hi"), options);
  BOOST_TEST(!body.contains("generationConfig"));
}

BOOST_AUTO_TEST_CASE(more_than_five_stop_sequences_are_refused) {
  Request request = userSays("hi");
  request.stop_sequences = {"a", "b", "c", "d", "e", "f"};
  const ApiError error = encodeFails(request);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "unsupported_field");
  BOOST_TEST(error.param.value_or("") == "stop_sequences");
}

BOOST_AUTO_TEST_CASE(json_response_formats_set_mime_type_and_schema) {
  Request request = userSays("list");
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonSchema, "people",
                                           Json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"type":"string"}})"), true};
  BOOST_TEST(encodeOk(request)["generationConfig"] ==
             plain(std::string(R"({"responseMimeType":"application/json","responseJsonSchema":{"type":"array","items":{"type":"string"}}})")));
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonObject, "", Json(), std::nullopt};
  BOOST_TEST(encodeOk(request)["generationConfig"] == plain(std::string(R"({"responseMimeType":"application/json"})")));
  request.response_format = ResponseFormat{};
  BOOST_TEST(!encodeOk(request).contains("generationConfig"));
}

BOOST_AUTO_TEST_CASE(reasoning_maps_to_thinking_config) {
  Request request = userSays("think");
  request.reasoning = Reasoning{true, 2048, "", ""};
  BOOST_TEST(encodeOk(request)["generationConfig"]["thinkingConfig"] ==
             plain(std::string(R"({"thinkingBudget":2048,"includeThoughts":true})")));
  request.reasoning = Reasoning{true, std::nullopt, "high", ""};
  BOOST_TEST(encodeOk(request)["generationConfig"]["thinkingConfig"] ==
             plain(std::string(R"({"thinkingBudget":-1,"includeThoughts":true})")));
  request.reasoning = Reasoning{false, std::nullopt, "", ""};
  BOOST_TEST(encodeOk(request)["generationConfig"]["thinkingConfig"] == plain(std::string(R"({"thinkingBudget":0})")));
}

BOOST_AUTO_TEST_CASE(tool_results_become_function_responses_named_from_history) {
  Request request = userSays("weather in Paris and Rome?");
  request.messages.push_back(message(Role::Assistant, {text("Checking."),
                                                       toolUse("toolu_01", "weather", Json{{"city", "Paris"}}),
                                                       toolUse("toolu_02", "weather", Json{{"city", "Rome"}})}));
  request.messages.push_back(message(Role::User, {toolResult("toolu_01", "sunny"),
                                                  toolResult("toolu_02", "no such city", true),
                                                  text("Thanks!")}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][1] == plain(std::string(R"({"role":"model","parts":[
    {"text":"Checking."},
    {"functionCall":{"name":"weather","args":{"city":"Paris"}},"thoughtSignature":"skip_thought_signature_validator"},
    {"functionCall":{"name":"weather","args":{"city":"Rome"}}}]})")));
  BOOST_TEST(body["contents"][2] == plain(std::string(R"({"role":"user","parts":[
    {"functionResponse":{"name":"weather","response":{"output":"sunny"}}},
    {"functionResponse":{"name":"weather","response":{"error":"no such city"}}},
    {"text":"Thanks!"}]})")));
}

BOOST_AUTO_TEST_CASE(tool_result_for_an_unknown_call_is_refused_naming_the_id) {
  Request request = userSays("hi");
  request.messages.push_back(message(Role::User, {toolResult("call_missing", "42")}));
  const ApiError error = encodeFails(request);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "unsupported_field");
  BOOST_TEST(error.param.value_or("") == "messages[1].content[0].tool_use_id");
  BOOST_TEST(error.message.find("call_missing") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tool_result_images_follow_the_function_response) {
  Request request = userSays("screenshot");
  request.messages.push_back(message(Role::Assistant, {toolUse("call_1", "shoot", Json::object())}));
  ContentBlock result = toolResult("call_1", "here");
  result.result.push_back(image(ImageSource::Kind::Base64, "image/png", "iVBORw0KGgo"));
  request.messages.push_back(message(Role::User, {result}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][2]["parts"] == plain(std::string(R"([
    {"functionResponse":{"name":"shoot","response":{"output":"here"}}},
    {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo"}}])")));
}

BOOST_AUTO_TEST_CASE(gemini_signatures_ride_on_the_next_part_and_others_are_dropped) {
  Request request = userSays("go");
  request.messages.push_back(message(
      Role::Assistant, {thinking("I should call it.", "", catalog::Wire::Gemini),  // thought text: not resent
                        thinking("", "U0lHMQ==", catalog::Wire::Gemini),
                        toolUse("call_aaaaaaaaaaaaaaaaaaaaaaaa", "lookup", Json{{"q", "x"}}),
                        thinking("anthropic thought", "EqQBanthropic", catalog::Wire::Anthropic),
                        redacted(),
                        text("Done."),
                        thinking("", "U0lHMg==", catalog::Wire::Gemini)}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][1]["parts"] == plain(std::string(R"([
    {"functionCall":{"name":"lookup","args":{"q":"x"}},"thoughtSignature":"U0lHMQ=="},
    {"text":"Done."},
    {"text":"","thoughtSignature":"U0lHMg=="}])")));
}

BOOST_AUTO_TEST_CASE(two_signatures_in_a_row_keep_their_own_parts) {
  Request request = userSays("go");
  request.messages.push_back(message(Role::Assistant, {thinking("", "QQ==", catalog::Wire::Gemini),
                                                       thinking("", "Qg==", catalog::Wire::Gemini), text("x")}));
  BOOST_TEST(encodeOk(request)["contents"][1]["parts"] == plain(std::string(R"([
    {"text":"","thoughtSignature":"QQ=="},{"text":"x","thoughtSignature":"Qg=="}])")));
}

BOOST_AUTO_TEST_CASE(signature_ending_one_message_rides_on_the_next_message_of_the_turn) {
  Request request = userSays("go");
  request.messages.push_back(message(Role::Assistant, {thinking("", "U0lH", catalog::Wire::Gemini)}));
  request.messages.push_back(message(Role::Assistant, {toolUse("call_x1", "lookup", Json::object())}));
  BOOST_TEST(encodeOk(request)["contents"][1] == plain(std::string(R"({"role":"model","parts":[
    {"functionCall":{"name":"lookup","args":{}},"thoughtSignature":"U0lH"}]})")));
}

BOOST_AUTO_TEST_CASE(only_ids_gemini_sent_go_back_upstream) {
  Request request = userSays("go");
  request.messages.push_back(message(Role::Assistant, {thinking("", "c2ln", catalog::Wire::Gemini),
                                                       toolUse("gx-17", "a", Json::object()),
                                                       toolUse("call_0123456789abcdef01234567", "b", Json::object()),
                                                       toolUse("toolu_01A", "c", Json::object())}));
  request.messages.push_back(message(Role::User, {toolResult("gx-17", "1"),
                                                  toolResult("call_0123456789abcdef01234567", "2"),
                                                  toolResult("toolu_01A", "3")}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][1]["parts"] == plain(std::string(R"([
    {"functionCall":{"name":"a","args":{},"id":"gx-17"},"thoughtSignature":"c2ln"},
    {"functionCall":{"name":"b","args":{}}},
    {"functionCall":{"name":"c","args":{}}}])")));
  BOOST_TEST(body["contents"][2]["parts"] == plain(std::string(R"([
    {"functionResponse":{"name":"a","response":{"output":"1"},"id":"gx-17"}},
    {"functionResponse":{"name":"b","response":{"output":"2"}}},
    {"functionResponse":{"name":"c","response":{"output":"3"}}}])")));
}

BOOST_AUTO_TEST_CASE(opaque_blocks_go_only_to_their_own_wire) {
  Request request = userSays("run it");
  ContentBlock code;
  code.type = ContentBlock::Type::Opaque;
  code.raw = Json::parse(R"({"executableCode":{"language":"PYTHON","code":"print 1"}})");
  code.raw_wire = catalog::Wire::Gemini;
  ContentBlock server_tool;
  server_tool.type = ContentBlock::Type::Opaque;
  server_tool.raw = Json::parse(R"({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}})");
  server_tool.raw_wire = catalog::Wire::Anthropic;
  request.messages.push_back(message(Role::Assistant, {code, server_tool, text("1")}));
  ContentBlock document;
  document.type = ContentBlock::Type::Opaque;
  document.raw = Json::parse(R"({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQ="}})");
  document.raw_wire = catalog::Wire::Anthropic;
  request.messages.push_back(message(Role::User, {document, text("Summarize.")}));
  const auto body = encodeOk(request);
  BOOST_TEST(body["contents"][1]["parts"] == plain(std::string(R"([
    {"executableCode":{"language":"PYTHON","code":"print 1"}},{"text":"1"}])")));
  BOOST_TEST(body["contents"][2]["parts"] == plain(std::string(R"([
    {"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQ="}},{"text":"Summarize."}])")));
}

BOOST_AUTO_TEST_CASE(turns_left_empty_are_skipped_and_neighbours_merge) {
  Request request = userSays("a");
  request.messages.push_back(message(Role::Assistant, {thinking("secret", "sig", catalog::Wire::Anthropic)}));
  request.messages.push_back(message(Role::User, {text("b")}));
  BOOST_TEST(encodeOk(request)["contents"] ==
             plain(std::string(R"([{"role":"user","parts":[{"text":"a"},{"text":"b"}]}])")));
}

BOOST_AUTO_TEST_CASE(a_request_with_nothing_to_send_is_refused) {
  Request request;
  request.system = {text("only a system prompt")};
  const ApiError error = encodeFails(request);
  BOOST_TEST(error.key == "unsupported_field");
  BOOST_TEST(error.param.value_or("") == "messages");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
