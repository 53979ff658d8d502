#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::wire::ContentBlock;
using sluice::wire::ImageSource;
using sluice::wire::Json;
using sluice::wire::Request;
using sluice::wire::ResponseFormat;
using sluice::wire::Role;
using sluice::wire::ToolChoice;
using Type = sluice::wire::ContentBlock::Type;

namespace {

Request decoded(const std::string& body) {
  auto request = chat::decodeRequest(body);
  BOOST_REQUIRE_MESSAGE(request.has_value(), "decode failed: " + (request ? std::string() : request.error().message));
  return *request;
}

void expectRefused(const std::string& body, const std::string& key, const std::string& param) {
  const auto request = chat::decodeRequest(body);
  BOOST_REQUIRE(!request.has_value());
  BOOST_TEST(request.error().status == 400);
  BOOST_TEST(request.error().key == key);
  BOOST_TEST(request.error().param.value_or("") == param);
}

Json recordedRequest(const std::string& cassette, size_t interaction) {
  return yamlToJson(loadCassette(cassette)[interaction]["request"]["parsed_body"]);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_decode)

BOOST_AUTO_TEST_CASE(decodes_the_recorded_first_tool_turn) {
  const auto body = recordedRequest("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml", 0);
  const Request request = decoded(body.dump());
  BOOST_TEST(request.model == "gpt-4o-mini");
  BOOST_TEST(request.stream);
  BOOST_REQUIRE_EQUAL(request.messages.size(), 1u);
  BOOST_TEST((request.messages[0].role == Role::User));
  BOOST_REQUIRE_EQUAL(request.messages[0].content.size(), 1u);
  BOOST_TEST(request.messages[0].content[0].text == "What is the capital of the UK? Use the tool, then answer.");
  BOOST_REQUIRE_EQUAL(request.tools.size(), 1u);
  BOOST_TEST(request.tools[0].name == "get_capital");
  BOOST_TEST(request.tools[0].description.empty());
  BOOST_TEST(request.tools[0].strict.value_or(false));
  BOOST_TEST(request.tools[0].input_schema["properties"]["country"]["type"] == "string");
  BOOST_TEST(request.tools[0].input_schema["additionalProperties"] == false);
  BOOST_REQUIRE(request.tool_choice.has_value());
  BOOST_TEST((request.tool_choice->mode == ToolChoice::Mode::Auto));
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_tool_result_turn) {
  const auto body = recordedRequest("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml", 1);
  const Request request = decoded(body.dump());
  BOOST_REQUIRE_EQUAL(request.messages.size(), 3u);
  const auto& assistant = request.messages[1];
  BOOST_TEST((assistant.role == Role::Assistant));
  BOOST_REQUIRE_EQUAL(assistant.content.size(), 1u);
  BOOST_TEST((assistant.content[0].type == Type::ToolUse));
  BOOST_TEST(assistant.content[0].tool_id == "call_ZR5UUuTt3pf61kjwAJIYdVMj");
  BOOST_TEST(assistant.content[0].tool_name == "get_capital");
  BOOST_TEST(assistant.content[0].tool_input == Json::parse(R"({"country":"UK"})"));
  const auto& results = request.messages[2];
  BOOST_TEST((results.role == Role::User));
  BOOST_REQUIRE_EQUAL(results.content.size(), 1u);
  BOOST_TEST((results.content[0].type == Type::ToolResult));
  BOOST_TEST(results.content[0].tool_use_id == "call_ZR5UUuTt3pf61kjwAJIYdVMj");
  BOOST_REQUIRE_EQUAL(results.content[0].result.size(), 1u);
  BOOST_TEST(results.content[0].result[0].text == "London");
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_prompt_cache_request_with_unknown_fields) {
  for (size_t turn = 0; turn < 2; ++turn) {
    const auto body = recordedRequest("openai-chat/pydantic-ai__test_openai_chat_prompt_cache_e2e.yaml", turn);
    const Request request = decoded(body.dump());
    BOOST_TEST(request.model == "gpt-5.6-sol");
    BOOST_TEST(!request.stream);
    BOOST_REQUIRE_EQUAL(request.messages.size(), 1u);
    BOOST_REQUIRE_EQUAL(request.messages[0].content.size(), 2u);
    BOOST_TEST(request.messages[0].content[0].text.starts_with("Reference catalogue for the prompt cache test corpus."));
    BOOST_TEST(request.messages[0].content[1].text == "Reply with exactly: OK");
  }
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_developer_message_as_system) {
  const auto body = recordedRequest("openai-chat/pydantic-ai__test_openai_o1_mini_system_role--developer.yaml", 0);
  const Request request = decoded(body.dump());  // n: 1 is accepted
  BOOST_REQUIRE_EQUAL(request.system.size(), 1u);
  BOOST_TEST(request.system[0].text == "You are a helpful assistant.");
  BOOST_REQUIRE_EQUAL(request.messages.size(), 1u);
  BOOST_TEST(request.messages[0].content[0].text == "Hello");
}

BOOST_AUTO_TEST_CASE(hoists_system_and_developer_messages_in_order) {
  const Request request = decoded(R"({"model":"m","messages":[
    {"role":"system","content":"first"},
    {"role":"user","content":"hi"},
    {"role":"developer","content":[{"type":"text","text":"second"},{"type":"text","text":"third"}]},
    {"role":"assistant","content":"hello"}]})");
  BOOST_REQUIRE_EQUAL(request.system.size(), 3u);
  BOOST_TEST(request.system[0].text == "first");
  BOOST_TEST(request.system[1].text == "second");
  BOOST_TEST(request.system[2].text == "third");
  BOOST_REQUIRE_EQUAL(request.messages.size(), 2u);
  BOOST_TEST((request.messages[1].role == Role::Assistant));
  BOOST_TEST(request.messages[1].content[0].text == "hello");
}

BOOST_AUTO_TEST_CASE(decodes_images_by_url_and_by_base64_data_url) {
  const Request request = decoded(R"({"model":"m","messages":[{"role":"user","content":[
    {"type":"text","text":"what is this?"},
    {"type":"image_url","image_url":{"url":"https://example.com/cat.png","detail":"high"}},
    {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQ"}}]}]})");
  const auto& content = request.messages[0].content;
  BOOST_REQUIRE_EQUAL(content.size(), 3u);
  BOOST_TEST((content[1].type == Type::Image));
  BOOST_TEST((content[1].image.kind == ImageSource::Kind::Url));
  BOOST_TEST(content[1].image.url == "https://example.com/cat.png");
  BOOST_TEST((content[2].image.kind == ImageSource::Kind::Base64));
  BOOST_TEST(content[2].image.media_type == "image/jpeg");
  BOOST_TEST(content[2].image.data == "/9j/4AAQ");
}

BOOST_AUTO_TEST_CASE(refuses_a_data_url_that_is_not_base64) {
  expectRefused(R"({"model":"m","messages":[{"role":"user","content":[
    {"type":"image_url","image_url":{"url":"data:image/png,rawbytes"}}]}]})",
                "invalid_request", "messages[0].content[0].image_url.url");
}

BOOST_AUTO_TEST_CASE(puts_parallel_tool_results_and_following_text_in_one_user_message) {
  const Request request = decoded(R"({"model":"m","messages":[
    {"role":"user","content":"weather in Paris and Rome?"},
    {"role":"assistant","content":null,"tool_calls":[
      {"id":"call_a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
      {"id":"call_b","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},
    {"role":"tool","tool_call_id":"call_a","content":"sunny"},
    {"role":"tool","tool_call_id":"call_b","content":[{"type":"text","text":"rain"}]},
    {"role":"user","content":"and tomorrow?"}]})");
  BOOST_REQUIRE_EQUAL(request.messages.size(), 3u);
  const auto& assistant = request.messages[1].content;
  BOOST_REQUIRE_EQUAL(assistant.size(), 2u);
  BOOST_TEST(assistant[0].tool_id == "call_a");
  BOOST_TEST(assistant[1].tool_input["city"] == "Rome");
  const auto& user = request.messages[2].content;
  BOOST_REQUIRE_EQUAL(user.size(), 3u);
  BOOST_TEST((user[0].type == Type::ToolResult));
  BOOST_TEST(user[0].tool_use_id == "call_a");
  BOOST_TEST(user[0].result[0].text == "sunny");
  BOOST_TEST(user[1].tool_use_id == "call_b");
  BOOST_TEST(user[1].result[0].text == "rain");
  BOOST_TEST((user[2].type == Type::Text));
  BOOST_TEST(user[2].text == "and tomorrow?");
}

BOOST_AUTO_TEST_CASE(reads_empty_arguments_as_an_empty_object) {
  const Request request = decoded(R"({"model":"m","messages":[
    {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"now","arguments":""}}]}]})");
  BOOST_TEST(request.messages[0].content[0].tool_input == Json::object());
}

BOOST_AUTO_TEST_CASE(refuses_invalid_tool_arguments_naming_the_field) {
  expectRefused(R"({"model":"m","messages":[{"role":"user","content":"x"},
    {"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}]})",
                "invalid_request", "messages[1].tool_calls[0].function.arguments");
}

BOOST_AUTO_TEST_CASE(reads_reasoning_content_as_thinking_without_signature) {
  const Request request = decoded(R"({"model":"deepseek-reasoner","messages":[
    {"role":"user","content":"2+2?"},
    {"role":"assistant","content":"4","reasoning_content":"Adding two and two."}]})");
  const auto& content = request.messages[1].content;
  BOOST_REQUIRE_EQUAL(content.size(), 2u);
  BOOST_TEST((content[0].type == Type::Thinking));
  BOOST_TEST(content[0].text == "Adding two and two.");
  BOOST_TEST(content[0].signature.empty());
  BOOST_TEST(!content[0].signature_wire.has_value());
  BOOST_TEST(content[1].text == "4");
}

BOOST_AUTO_TEST_CASE(refuses_more_than_one_choice) {
  expectRefused(R"({"model":"m","n":2,"messages":[{"role":"user","content":"x"}]})", "unsupported_field", "n");
}

BOOST_AUTO_TEST_CASE(refuses_bodies_without_messages_or_json) {
  expectRefused(R"({"model":"m"})", "invalid_request", "messages");
  expectRefused(R"({"model":"m","messages":{}})", "invalid_request", "messages");
  expectRefused("{not json", "invalid_json", "");
  expectRefused("[1,2]", "invalid_request", "");
  expectRefused(R"({"messages":[]})", "invalid_request", "model");
  expectRefused(R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})", "invalid_request", "messages[0].role");
  expectRefused(R"({"model":"m","messages":[{"role":"tool","content":"x"}]})", "invalid_request",
                "messages[0].tool_call_id");
  expectRefused(R"({"model":"m","messages":[],"temperature":"hot"})", "invalid_request", "temperature");
  expectRefused(R"({"model":"m","messages":[],"functions":[]})", "unsupported_field", "functions");
}

BOOST_AUTO_TEST_CASE(reads_sampling_and_output_options) {
  const Request request = decoded(R"({"model":"m","messages":[{"role":"user","content":"x"}],
    "max_tokens":100,"max_completion_tokens":200,"temperature":1.7,"top_p":0.9,"stop":"END",
    "response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":true}},
    "reasoning_effort":"low","user":"u-42","parallel_tool_calls":false,"seed":7,"logprobs":false})");
  BOOST_TEST(request.max_tokens.value_or(0) == 200);
  BOOST_TEST(request.temperature.value_or(0) == 1.7);
  BOOST_TEST(request.top_p.value_or(0) == 0.9);
  BOOST_REQUIRE_EQUAL(request.stop_sequences.size(), 1u);
  BOOST_TEST(request.stop_sequences[0] == "END");
  BOOST_REQUIRE(request.response_format.has_value());
  BOOST_TEST((request.response_format->kind == ResponseFormat::Kind::JsonSchema));
  BOOST_TEST(request.response_format->name == "answer");
  BOOST_TEST(request.response_format->schema == Json::parse(R"({"type":"object"})"));
  BOOST_TEST(request.response_format->strict.value_or(false));
  BOOST_REQUIRE(request.reasoning.has_value());
  BOOST_TEST(request.reasoning->effort == "low");
  BOOST_TEST(request.user.value_or("") == "u-42");
  BOOST_TEST(!request.parallel_tool_calls.value_or(true));

  const Request legacy = decoded(R"({"model":"m","messages":[],"max_tokens":50,"stop":["a","b"],
    "response_format":{"type":"json_object"}})");
  BOOST_TEST(legacy.max_tokens.value_or(0) == 50);
  BOOST_TEST(legacy.stop_sequences.size() == 2u);
  BOOST_TEST((legacy.response_format->kind == ResponseFormat::Kind::JsonObject));
}

BOOST_AUTO_TEST_CASE(reads_every_tool_choice_form) {
  auto choiceOf = [](const std::string& value) {
    return decoded(R"({"model":"m","messages":[],"tool_choice":)" + value + "}").tool_choice.value();
  };
  BOOST_TEST((choiceOf(R"("none")").mode == ToolChoice::Mode::None));
  BOOST_TEST((choiceOf(R"("auto")").mode == ToolChoice::Mode::Auto));
  BOOST_TEST((choiceOf(R"("required")").mode == ToolChoice::Mode::Any));
  const auto named = choiceOf(R"({"type":"function","function":{"name":"get_capital"}})");
  BOOST_TEST((named.mode == ToolChoice::Mode::Tool));
  BOOST_TEST(named.name == "get_capital");
  BOOST_TEST((choiceOf(R"({"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[]}})").mode ==
              ToolChoice::Mode::Any));
  expectRefused(R"({"model":"m","messages":[],"tool_choice":"sometimes"})", "invalid_request", "tool_choice");
}

BOOST_AUTO_TEST_CASE(keeps_custom_tools_and_unknown_parts_for_this_wire_only) {
  const Request request = decoded(R"({"model":"m","messages":[{"role":"user","content":[
    {"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}],
    "tools":[{"type":"custom","custom":{"name":"grammar","description":"free text"}}]})");
  BOOST_REQUIRE_EQUAL(request.tools.size(), 1u);
  BOOST_TEST(request.tools[0].name == "grammar");
  BOOST_TEST((request.tools[0].raw_wire == sluice::catalog::Wire::OpenAIChat));
  BOOST_TEST(request.tools[0].raw["custom"]["description"] == "free text");
  const auto& part = request.messages[0].content.at(0);
  BOOST_TEST((part.type == Type::Opaque));
  BOOST_TEST((part.raw_wire == sluice::catalog::Wire::OpenAIChat));
  BOOST_TEST(part.raw["input_audio"]["format"] == "wav");
}

BOOST_AUTO_TEST_SUITE_END()
