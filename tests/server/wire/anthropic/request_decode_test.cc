#include <boost/test/unit_test.hpp>

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;
using BlockType = ContentBlock::Type;

Request decodeOk(const std::string& body) {
  auto decoded = decodeRequest(body);
  BOOST_REQUIRE_MESSAGE(decoded.has_value(), (decoded ? "" : decoded.error().message));
  return *decoded;
}

ApiError decodeFails(const std::string& body) {
  auto decoded = decodeRequest(body);
  BOOST_REQUIRE(!decoded.has_value());
  return decoded.error();
}

std::string requestBody(const std::string& fixture, size_t interaction) {
  return dumpJsonText(cassette(fixture)["interactions"][interaction]["request"]["parsed_body"]);
}

BOOST_AUTO_TEST_SUITE(request_decode)

BOOST_AUTO_TEST_CASE(decodes_recorded_parallel_tool_result_turn) {
  const Request got = decodeOk(requestBody("anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml", 1));
  BOOST_TEST(got.model == "claude-haiku-4-5");
  BOOST_TEST(got.max_tokens.value() == 4096);
  BOOST_TEST(!got.stream);
  BOOST_REQUIRE_EQUAL(got.system.size(), 1u);
  BOOST_TEST(got.system[0].text.find("Use the `retrieve_entity_info` tool") != std::string::npos);
  BOOST_REQUIRE_EQUAL(got.tools.size(), 1u);
  BOOST_TEST(got.tools[0].name == "retrieve_entity_info");
  BOOST_TEST(got.tools[0].description == "Get the knowledge about the given entity.");
  BOOST_TEST(got.tools[0].input_schema["required"] == Json::array({"name"}));
  BOOST_TEST(got.tools[0].input_schema["additionalProperties"] == false);
  BOOST_REQUIRE(got.tool_choice.has_value());
  BOOST_TEST(static_cast<int>(got.tool_choice->mode) == static_cast<int>(ToolChoice::Mode::Auto));
  BOOST_REQUIRE_EQUAL(got.messages.size(), 3u);
  const Message& assistant = got.messages[1];
  BOOST_TEST(static_cast<int>(assistant.role) == static_cast<int>(Role::Assistant));
  BOOST_REQUIRE_EQUAL(assistant.content.size(), 5u);
  BOOST_TEST(assistant.content[4].tool_id == "toolu_013mnQZbgtK2oe3Mo3XKJsx3");
  BOOST_TEST(assistant.content[4].tool_input == Json({{"name", "Daisy"}}));
  const Message& results = got.messages[2];
  BOOST_REQUIRE_EQUAL(results.content.size(), 4u);
  BOOST_TEST(static_cast<int>(results.content[0].type) == static_cast<int>(BlockType::ToolResult));
  BOOST_TEST(results.content[0].tool_use_id == "toolu_0167cfEnoQaPviGdVXA95zcu");
  BOOST_TEST(!results.content[0].is_error);
  BOOST_REQUIRE_EQUAL(results.content[3].result.size(), 1u);
  BOOST_TEST(results.content[3].result[0].text == "daisy is bob's daughter and charlie's younger sister");
}

BOOST_AUTO_TEST_CASE(decodes_recorded_thinking_request) {
  const Request got = decodeOk(requestBody("anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml", 0));
  BOOST_TEST(got.stream);
  BOOST_REQUIRE(got.reasoning.has_value());
  BOOST_TEST(got.reasoning->enabled);
  BOOST_TEST(got.reasoning->budget_tokens.value() == 1024);
  BOOST_TEST(got.messages.at(0).content.at(0).text == "How do I cross the street?");
}

BOOST_AUTO_TEST_CASE(top_level_cache_control_marks_the_last_block) {
  const Request got = decodeOk(requestBody("anthropic/pydantic-ai__test_anthropic_cache_real_api.yaml", 1));
  BOOST_REQUIRE_EQUAL(got.messages.size(), 3u);
  BOOST_TEST(got.system.at(0).text == "You are a helpful assistant.");
  BOOST_TEST(got.messages[2].content.back().text == "Can you summarize that in one sentence?");
  BOOST_TEST(got.messages[2].content.back().cache_control == Json::parse(R"({"ttl":"5m","type":"ephemeral"})"));
  BOOST_TEST(got.messages[0].content.back().cache_control.is_null());
}

BOOST_AUTO_TEST_CASE(count_tokens_body_without_max_tokens_decodes) {
  const Request got = decodeOk(requestBody("anthropic/pydantic-ai__test_anthropic_cache_count_tokens.yaml", 0));
  BOOST_TEST(!got.max_tokens.has_value());
  BOOST_TEST(got.model == "claude-sonnet-4-5");
}

BOOST_AUTO_TEST_CASE(effort_in_output_config_becomes_reasoning_effort) {
  const Request got =
      decodeOk(requestBody("anthropic/pydantic-ai__test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml", 0));
  BOOST_REQUIRE(got.reasoning.has_value());
  BOOST_TEST(got.reasoning->effort == "xhigh");
  BOOST_TEST(!got.reasoning->budget_tokens.has_value());
}

BOOST_AUTO_TEST_CASE(decodes_every_field_claude_code_sends) {
  const Request got = decodeOk(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
    "system": [{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}},
               {"type":"text","text":"Be brief."}],
    "messages": [
      {"role":"user","content":[
        {"type":"text","text":"What is in this image?"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
        {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]},
      {"role":"assistant","content":[
        {"type":"thinking","thinking":"Look closely.","signature":"EqQBCgIYAhIM"},
        {"type":"redacted_thinking","data":"EmwKAhgB"},
        {"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"/tmp/a"}}]},
      {"role":"user","content":[
        {"type":"tool_result","tool_use_id":"toolu_01","is_error":true,
         "content":[{"type":"text","text":"no such file"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}}]},
        {"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"}}]}],
    "tools": [{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}},
               "cache_control":{"type":"ephemeral"},"strict":true},
              {"type":"web_search_20250305","name":"web_search","max_uses":5}],
    "tool_choice": {"type":"tool","name":"Read","disable_parallel_tool_use":true},
    "thinking": {"type":"enabled","budget_tokens":10000},
    "metadata": {"user_id":"user_abc"},
    "stop_sequences": ["\n\nHuman:"],
    "temperature": 1, "top_p": 0.9, "top_k": 40,
    "output_config": {"format":{"type":"json_schema","schema":{"type":"object"}}},
    "some_future_field": {"x": 1}
  })");
  BOOST_TEST(got.stream);
  BOOST_TEST(got.max_tokens.value() == 32000);
  BOOST_REQUIRE_EQUAL(got.system.size(), 2u);
  BOOST_TEST(got.system[0].cache_control == Json::parse(R"({"type":"ephemeral"})"));
  const auto& user = got.messages.at(0).content;
  BOOST_TEST(static_cast<int>(user[1].image.kind) == static_cast<int>(ImageSource::Kind::Base64));
  BOOST_TEST(user[1].image.media_type == "image/png");
  BOOST_TEST(user[1].image.data == "iVBORw0KGgo=");
  BOOST_TEST(static_cast<int>(user[2].image.kind) == static_cast<int>(ImageSource::Kind::Url));
  BOOST_TEST(user[2].image.url == "https://example.com/cat.jpg");
  const auto& assistant = got.messages.at(1).content;
  BOOST_TEST(assistant[0].signature == "EqQBCgIYAhIM");
  BOOST_TEST((assistant[0].signature_wire == catalog::Wire::Anthropic));
  BOOST_TEST(static_cast<int>(assistant[1].type) == static_cast<int>(BlockType::RedactedThinking));
  BOOST_TEST(assistant[1].data == "EmwKAhgB");
  BOOST_TEST(assistant[2].tool_input == Json({{"file_path", "/tmp/a"}}));
  const auto& results = got.messages.at(2).content;
  BOOST_TEST(results[0].is_error);
  BOOST_REQUIRE_EQUAL(results[0].result.size(), 2u);
  BOOST_TEST(static_cast<int>(results[0].result[1].type) == static_cast<int>(BlockType::Image));
  BOOST_TEST(static_cast<int>(results[1].type) == static_cast<int>(BlockType::Opaque));
  BOOST_TEST((results[1].raw_wire == catalog::Wire::Anthropic));
  BOOST_TEST(results[1].raw["source"]["data"] == "notes");
  BOOST_REQUIRE_EQUAL(got.tools.size(), 2u);
  BOOST_TEST(got.tools[0].strict.value());
  BOOST_TEST(got.tools[0].cache_control == Json::parse(R"({"type":"ephemeral"})"));
  BOOST_TEST(got.tools[1].name == "web_search");
  BOOST_TEST(got.tools[1].raw["max_uses"] == 5);
  BOOST_TEST((got.tools[1].raw_wire == catalog::Wire::Anthropic));
  BOOST_TEST(static_cast<int>(got.tool_choice->mode) == static_cast<int>(ToolChoice::Mode::Tool));
  BOOST_TEST(got.tool_choice->name == "Read");
  BOOST_TEST(got.tool_choice->disable_parallel);
  BOOST_TEST(got.parallel_tool_calls.value() == false);
  BOOST_TEST(got.reasoning->budget_tokens.value() == 10000);
  BOOST_TEST(got.user.value() == "user_abc");
  BOOST_TEST(got.stop_sequences == std::vector<std::string>{"\n\nHuman:"}, boost::test_tools::per_element());
  BOOST_TEST(got.temperature.value() == 1.0);  // the client's own value: encoders clamp
  BOOST_TEST(got.top_p.value() == 0.9);
  BOOST_TEST(got.top_k.value() == 40);
  BOOST_TEST(static_cast<int>(got.response_format->kind) == static_cast<int>(ResponseFormat::Kind::JsonSchema));
  BOOST_TEST(got.response_format->schema == Json::parse(R"({"type":"object"})"));
}

BOOST_AUTO_TEST_CASE(string_content_and_adaptive_or_disabled_thinking) {
  Request got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"adaptive"}})");
  BOOST_TEST(got.messages.at(0).content.at(0).text == "hi");
  BOOST_TEST(got.reasoning->enabled);
  BOOST_TEST(!got.reasoning->budget_tokens.has_value());
  got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"disabled"}})");
  BOOST_TEST(!got.reasoning->enabled);
  got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"none"}})");
  BOOST_TEST(static_cast<int>(got.tool_choice->mode) == static_cast<int>(ToolChoice::Mode::None));
  got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"any"}})");
  BOOST_TEST(static_cast<int>(got.tool_choice->mode) == static_cast<int>(ToolChoice::Mode::Any));
  BOOST_TEST(!got.parallel_tool_calls.has_value());
}

BOOST_AUTO_TEST_CASE(tool_result_with_string_content_is_one_text_block) {
  const Request got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":[
      {"type":"tool_result","tool_use_id":"toolu_1","content":"42"}]}]})");
  const ContentBlock& result = got.messages.at(0).content.at(0);
  BOOST_TEST(result.tool_use_id == "toolu_1");
  BOOST_REQUIRE_EQUAL(result.result.size(), 1u);
  BOOST_TEST(result.result[0].text == "42");
}

BOOST_AUTO_TEST_CASE(wrapped_foreign_signature_comes_back_with_its_wire) {
  const Request got = decodeOk(R"({"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[
      {"type":"thinking","thinking":"","signature":"sluice:gemini::Et0BCtoB"},
      {"type":"thinking","thinking":"s","signature":"sluice:openai-responses:rs_1:gAAAA"},
      {"type":"redacted_thinking","data":"sluice:openai-responses:rs_2:gBBBB"},
      {"type":"tool_use","id":"call_1","name":"f","input":{}}]}]})");
  const auto& blocks = got.messages.at(1).content;
  BOOST_TEST((blocks[0].signature_wire == catalog::Wire::Gemini));
  BOOST_TEST(blocks[0].signature == "Et0BCtoB");
  BOOST_TEST((blocks[1].signature_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(blocks[1].reasoning_id == "rs_1");
  BOOST_TEST(blocks[1].signature == "gAAAA");
  BOOST_TEST((blocks[2].signature_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(blocks[2].reasoning_id == "rs_2");
  BOOST_TEST(blocks[2].data == "gBBBB");
}

BOOST_AUTO_TEST_CASE(mid_conversation_system_message_joins_the_system_prompt) {
  const Request got = decodeOk(R"({"model":"m","system":"first","messages":[{"role":"user","content":"hi"},
      {"role":"system","content":"second"},{"role":"user","content":"again"}]})");
  BOOST_REQUIRE_EQUAL(got.system.size(), 2u);
  BOOST_TEST(got.system[1].text == "second");
  BOOST_TEST(got.messages.size() == 2u);
}

BOOST_AUTO_TEST_CASE(missing_or_malformed_messages_is_a_400_naming_messages) {
  for (const char* body : {R"({"model":"m"})", R"({"model":"m","messages":{"role":"user"}})", R"({"model":"m","messages":"hi"})"}) {
    const ApiError error = decodeFails(body);
    BOOST_TEST(error.status == 400);
    BOOST_TEST(error.param.value() == "messages");
  }
}

BOOST_AUTO_TEST_CASE(malformed_fields_are_400s_naming_the_field) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model":5,"messages":[]})", "model"},
      {R"({"model":"m","messages":[{"role":"robot","content":"x"}]})", "messages[0].role"},
      {R"({"model":"m","messages":[{"role":"user"}]})", "messages[0].content"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":7}]}]})", "messages[0].content[0].text"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"text":"x"}]}]})", "messages[0].content[0].type"},
      {R"({"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":"{}"}]}]})",
       "messages[0].content[0].input"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]})",
       "messages[0].content[0].tool_use_id"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"x"}}]}]})",
       "messages[0].content[0].source.media_type"},
      {R"({"model":"m","messages":[],"max_tokens":"many"})", "max_tokens"},
      {R"({"model":"m","messages":[],"temperature":"hot"})", "temperature"},
      {R"({"model":"m","messages":[],"top_k":1.5})", "top_k"},
      {R"({"model":"m","messages":[],"stream":"yes"})", "stream"},
      {R"({"model":"m","messages":[],"stop_sequences":[1]})", "stop_sequences"},
      {R"({"model":"m","messages":[],"tools":{}})", "tools"},
      {R"({"model":"m","messages":[],"tools":[{"description":"x"}]})", "tools[0].name"},
      {R"({"model":"m","messages":[],"tool_choice":{"type":"sometimes"}})", "tool_choice.type"},
      {R"({"model":"m","messages":[],"tool_choice":{"type":"tool"}})", "tool_choice.name"},
      {R"({"model":"m","messages":[],"thinking":{"type":"enabled","budget_tokens":"lots"}})", "thinking.budget_tokens"},
      {R"({"model":"m","messages":[],"thinking":{"type":"maybe"}})", "thinking.type"},
      {R"({"model":"m","messages":[],"system":[{"type":"image","source":{"type":"url","url":"u"}}]})", "system[0]"},
  };
  for (const auto& [body, param] : cases) {
    BOOST_TEST_CONTEXT(body) {
      const ApiError error = decodeFails(body);
      BOOST_TEST(error.status == 400);
      BOOST_TEST(error.key == "invalid_request");
      BOOST_TEST(error.param.value_or("") == param);
    }
  }
}

BOOST_AUTO_TEST_CASE(body_that_is_not_json_or_not_an_object_is_refused) {
  BOOST_TEST(decodeFails("{").key == "invalid_json");
  BOOST_TEST(decodeFails("[]").key == "invalid_request");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
