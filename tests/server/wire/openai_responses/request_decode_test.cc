#include <boost/test/unit_test.hpp>

#include "server/wire/openai_responses/codec.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {
namespace {

using test::yamlToJson;
using Type = ContentBlock::Type;

Request decoded(const Json& body) {
  auto request = decodeRequest(body.dump());
  if (!request) BOOST_FAIL("decodeRequest refused: " + request.error().message);
  return *request;
}

ApiError refused(const Json& body) {
  auto request = decodeRequest(body.dump());
  BOOST_REQUIRE(!request.has_value());
  return request.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_decode)

BOOST_AUTO_TEST_CASE(string_input_becomes_one_user_message_and_instructions_the_first_system_block) {
  const Request request = decoded({{"model", "gpt-5"},
                                   {"instructions", "Be terse."},
                                   {"input", Json::array({{{"role", "developer"}, {"content", "Answer in French."}},
                                                          {{"role", "user"}, {"content", "hello"}}})},
                                   {"stream", true}});
  BOOST_TEST(request.model == "gpt-5");
  BOOST_TEST(request.stream);
  BOOST_REQUIRE_EQUAL(request.system.size(), 2u);
  BOOST_TEST(request.system[0].text == "Be terse.");
  BOOST_TEST(request.system[1].text == "Answer in French.");
  BOOST_REQUIRE_EQUAL(request.messages.size(), 1u);
  BOOST_TEST((request.messages[0].role == Role::User));
  BOOST_TEST(request.messages[0].content.at(0).text == "hello");

  const Request simple = decoded({{"model", "m"}, {"input", "What is the capital of France?"}});
  BOOST_REQUIRE_EQUAL(simple.messages.size(), 1u);
  BOOST_TEST(simple.messages[0].content.at(0).text == "What is the capital of France?");
  BOOST_TEST(simple.system.empty());
}

BOOST_AUTO_TEST_CASE(recorded_cassette_requests_decode) {
  for (const char* file : {"openai-responses/pydantic-ai__test_openai_responses_prompt_cache_e2e.yaml",
                           "openai-responses/pydantic-ai__test_model_name_suggestion--openai-responses.yaml",
                           "openai-responses/pydantic-ai__test_openai_responses_model_http_error.yaml"}) {
    for (const auto& interaction : test::loadCassette(file)) {
      const Json body = yamlToJson(interaction["request"]["parsed_body"]);
      const Request request = decoded(body);
      BOOST_TEST(request.model == body.at("model").get<std::string>());
      BOOST_REQUIRE(!request.messages.empty());
      BOOST_TEST((request.messages[0].role == Role::User));
    }
  }
  const Json cache = yamlToJson(
      test::loadCassette("openai-responses/pydantic-ai__test_openai_responses_prompt_cache_e2e.yaml")[0]["request"]["parsed_body"]);
  const Request request = decoded(cache);
  BOOST_REQUIRE_EQUAL(request.messages[0].content.size(), 2u);
  BOOST_TEST(request.messages[0].content[0].text.starts_with("Reference catalogue for the prompt cache test corpus."));
  BOOST_TEST(request.messages[0].content[1].text == "Reply with exactly: OK");

  const Json error_body = yamlToJson(
      test::loadCassette("openai-responses/pydantic-ai__test_openai_responses_model_http_error.yaml")[0]["request"]["parsed_body"]);
  const Request with_temperature = decoded(error_body);
  BOOST_REQUIRE(with_temperature.temperature.has_value());
  BOOST_TEST(*with_temperature.temperature == -1.0);  // kept as the client sent it
  BOOST_TEST(with_temperature.system.empty());        // instructions '' says nothing
}

BOOST_AUTO_TEST_CASE(function_calls_and_outputs_keep_their_call_ids_and_merge_by_role) {
  const Json input = Json::array({
      {{"role", "user"}, {"content", "Compute 12+7 then times 3."}},
      {{"type", "reasoning"},
       {"id", "rs_1"},
       {"summary", Json::array({{{"type", "summary_text"}, {"text", "First add."}},
                                {{"type", "summary_text"}, {"text", "Then multiply."}}})},
       {"encrypted_content", "gAAAA-secret"}},
      {{"type", "function_call"}, {"id", "fc_1"}, {"call_id", "call_A"}, {"name", "calculator"},
       {"arguments", R"({"a":12,"b":7,"op":"add"})"}},
      {{"type", "function_call"}, {"call_id", "call_B"}, {"name", "clock"}, {"arguments", ""}},
      {{"type", "function_call_output"}, {"call_id", "call_A"}, {"output", "19"}},
      {{"type", "function_call_output"},
       {"call_id", "call_B"},
       {"output", Json::array({{{"type", "input_text"}, {"text", "noon"}}})}},
      {{"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", "Go on."}}})}},
  });
  const Request request = decoded({{"model", "m"}, {"input", input}});
  BOOST_REQUIRE_EQUAL(request.messages.size(), 3u);

  const Message& assistant = request.messages[1];
  BOOST_TEST((assistant.role == Role::Assistant));
  BOOST_REQUIRE_EQUAL(assistant.content.size(), 3u);
  const ContentBlock& thinking = assistant.content[0];
  BOOST_TEST((thinking.type == Type::Thinking));
  BOOST_TEST(thinking.text == "First add.\n\nThen multiply.");
  BOOST_TEST(thinking.signature == "gAAAA-secret");
  BOOST_TEST((thinking.signature_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(thinking.reasoning_id == "rs_1");
  BOOST_TEST((assistant.content[1].type == Type::ToolUse));
  BOOST_TEST(assistant.content[1].tool_id == "call_A");
  BOOST_TEST(assistant.content[1].tool_name == "calculator");
  BOOST_TEST(assistant.content[1].tool_input == Json::parse(R"({"a":12,"b":7,"op":"add"})"));
  BOOST_TEST(assistant.content[2].tool_input == Json::object());  // "" arguments -> {}

  const Message& results = request.messages[2];
  BOOST_TEST((results.role == Role::User));
  BOOST_REQUIRE_EQUAL(results.content.size(), 3u);
  BOOST_TEST((results.content[0].type == Type::ToolResult));
  BOOST_TEST(results.content[0].tool_use_id == "call_A");
  BOOST_TEST(results.content[0].result.at(0).text == "19");
  BOOST_TEST(results.content[1].tool_use_id == "call_B");
  BOOST_TEST(results.content[1].result.at(0).text == "noon");
  BOOST_TEST(results.content[2].text == "Go on.");
}

BOOST_AUTO_TEST_CASE(images_by_url_and_data_url_become_image_blocks) {
  const Json content = Json::array({
      {{"type", "input_text"}, {"text", "What is this?"}},
      {{"type", "input_image"}, {"image_url", "https://example.com/cat.png"}, {"detail", "auto"}},
      {{"type", "input_image"}, {"image_url", "data:image/jpeg;base64,/9j/4AAQ"}},
  });
  const Request request = decoded({{"model", "m"}, {"input", Json::array({{{"role", "user"}, {"content", content}}})}});
  const auto& blocks = request.messages.at(0).content;
  BOOST_REQUIRE_EQUAL(blocks.size(), 3u);
  BOOST_TEST((blocks[1].type == Type::Image));
  BOOST_TEST((blocks[1].image.kind == ImageSource::Kind::Url));
  BOOST_TEST(blocks[1].image.url == "https://example.com/cat.png");
  BOOST_TEST((blocks[2].image.kind == ImageSource::Kind::Base64));
  BOOST_TEST(blocks[2].image.media_type == "image/jpeg");
  BOOST_TEST(blocks[2].image.data == "/9j/4AAQ");
}

BOOST_AUTO_TEST_CASE(image_by_file_id_is_refused_naming_the_field) {
  const Json content = Json::array({{{"type", "input_image"}, {"file_id", "file-123"}}});
  const ApiError error = refused({{"model", "m"}, {"input", Json::array({{{"role", "user"}, {"content", content}}})}});
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "unsupported_field");
  BOOST_TEST(error.param.value_or("") == "input[0].content[0].file_id");
}

BOOST_AUTO_TEST_CASE(server_side_state_is_refused_because_the_gateway_is_stateless) {
  for (const char* field : {"previous_response_id", "conversation", "prompt"}) {
    const ApiError error = refused({{"model", "m"}, {"input", "hi"}, {field, "resp_123"}});
    BOOST_TEST(error.status == 400);
    BOOST_TEST(error.key == "unsupported_field");
    BOOST_TEST(error.param.value_or("") == field);
  }
  const ApiError reference =
      refused({{"model", "m"}, {"input", Json::array({{{"type", "item_reference"}, {"id", "msg_1"}}})}});
  BOOST_TEST(reference.key == "unsupported_field");
  BOOST_TEST(reference.param.value_or("") == "input[0]");
  // A null previous_response_id says nothing and is accepted.
  BOOST_TEST(decodeRequest(Json{{"model", "m"}, {"input", "hi"}, {"previous_response_id", nullptr}}.dump()).has_value());
}

BOOST_AUTO_TEST_CASE(tools_tool_choice_and_options_map_to_the_neutral_request) {
  const Json body = {
      {"model", "gpt-5"},
      {"input", "hi"},
      {"tools", Json::array({{{"type", "function"},
                              {"name", "calculator"},
                              {"description", "Adds."},
                              {"parameters", {{"type", "object"}, {"properties", {{"a", {{"type", "number"}}}}}}},
                              {"strict", true}},
                             {{"type", "web_search"}, {"search_context_size", "low"}}})},
      {"tool_choice", {{"type", "function"}, {"name", "calculator"}}},
      {"parallel_tool_calls", false},
      {"max_output_tokens", 512},
      {"temperature", 0.2},
      {"top_p", 0.9},
      {"reasoning", {{"effort", "high"}, {"summary", "detailed"}}},
      {"text", {{"format", {{"type", "json_schema"}, {"name", "answer"}, {"schema", {{"type", "object"}}}, {"strict", true}}}}},
      {"safety_identifier", "user-42"},
      {"store", false},
      {"include", Json::array({"reasoning.encrypted_content"})},
      {"metadata", {{"k", "v"}}},
      {"prompt_cache_key", "abc"},
      {"truncation", "auto"},
      {"service_tier", "default"},
  };
  const Request request = decoded(body);
  BOOST_REQUIRE_EQUAL(request.tools.size(), 2u);
  BOOST_TEST(request.tools[0].name == "calculator");
  BOOST_TEST(request.tools[0].description == "Adds.");
  BOOST_TEST(request.tools[0].input_schema == body["tools"][0]["parameters"]);
  BOOST_TEST(request.tools[0].strict.value_or(false));
  BOOST_TEST(!request.tools[0].raw_wire.has_value());
  BOOST_TEST((request.tools[1].raw_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(request.tools[1].raw == body["tools"][1]);
  BOOST_REQUIRE(request.tool_choice.has_value());
  BOOST_TEST((request.tool_choice->mode == ToolChoice::Mode::Tool));
  BOOST_TEST(request.tool_choice->name == "calculator");
  BOOST_TEST((request.parallel_tool_calls == std::optional<bool>(false)));
  BOOST_TEST((request.max_tokens == std::optional<int64_t>(512)));
  BOOST_TEST(*request.temperature == 0.2);
  BOOST_TEST(*request.top_p == 0.9);
  BOOST_REQUIRE(request.reasoning.has_value());
  BOOST_TEST(request.reasoning->enabled);
  BOOST_TEST(request.reasoning->effort == "high");
  BOOST_TEST(request.reasoning->summary == "detailed");
  BOOST_REQUIRE(request.response_format.has_value());
  BOOST_TEST((request.response_format->kind == ResponseFormat::Kind::JsonSchema));
  BOOST_TEST(request.response_format->name == "answer");
  BOOST_TEST(request.response_format->schema == Json({{"type", "object"}}));
  BOOST_TEST(request.user.value_or("") == "user-42");

  for (const auto& [choice, mode] : std::vector<std::pair<Json, ToolChoice::Mode>>{
           {"auto", ToolChoice::Mode::Auto}, {"none", ToolChoice::Mode::None}, {"required", ToolChoice::Mode::Any}}) {
    const Request with_choice = decoded({{"model", "m"}, {"input", "hi"}, {"tool_choice", choice}});
    BOOST_TEST((with_choice.tool_choice->mode == mode));
  }
  const Request no_reasoning = decoded({{"model", "m"}, {"input", "hi"}, {"reasoning", {{"effort", "none"}}}});
  BOOST_TEST(!no_reasoning.reasoning->enabled);
}

BOOST_AUTO_TEST_CASE(unknown_items_are_kept_as_opaque_blocks_of_this_wire) {
  const Json call = {{"type", "web_search_call"}, {"id", "ws_1"}, {"status", "completed"}};
  const Json output = {{"type", "custom_tool_call_output"}, {"call_id", "c1"}, {"output", "done"}};
  const Request request = decoded({{"model", "m"}, {"input", Json::array({call, output})}});
  BOOST_REQUIRE_EQUAL(request.messages.size(), 2u);
  BOOST_TEST((request.messages[0].role == Role::Assistant));
  BOOST_TEST((request.messages[0].content[0].type == Type::Opaque));
  BOOST_TEST(request.messages[0].content[0].raw == call);
  BOOST_TEST((request.messages[0].content[0].raw_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST((request.messages[1].role == Role::User));
  BOOST_TEST(request.messages[1].content[0].raw == output);
}

BOOST_AUTO_TEST_CASE(assistant_replays_keep_text_and_refusals) {
  const Json input = Json::array({
      {{"role", "user"}, {"content", "hi"}},
      {{"type", "message"},
       {"id", "msg_1"},
       {"role", "assistant"},
       {"status", "completed"},
       {"content", Json::array({{{"type", "output_text"}, {"text", "Hello!"}, {"annotations", Json::array()}},
                                {{"type", "refusal"}, {"refusal", "I can't help with that."}}})}},
  });
  const Request request = decoded({{"model", "m"}, {"input", input}});
  BOOST_REQUIRE_EQUAL(request.messages.size(), 2u);
  BOOST_TEST(request.messages[1].content.at(0).text == "Hello!");
  BOOST_TEST(request.messages[1].content.at(1).text == "I can't help with that.");
}

BOOST_AUTO_TEST_CASE(malformed_bodies_are_refused_with_the_field_at_fault) {
  BOOST_TEST(decodeRequest("{not json").error().key == "invalid_json");
  BOOST_TEST(decodeRequest("[]").error().key == "invalid_request");
  BOOST_TEST(refused({{"model", "m"}}).param.value_or("") == "input");
  BOOST_TEST(refused({{"model", 7}, {"input", "hi"}}).param.value_or("") == "model");
  BOOST_TEST(refused({{"model", "m"}, {"input", "hi"}, {"temperature", "hot"}}).param.value_or("") == "temperature");
  BOOST_TEST(refused({{"model", "m"}, {"input", "hi"}, {"max_output_tokens", 1.5}}).param.value_or("") ==
             "max_output_tokens");
  BOOST_TEST(refused({{"model", "m"}, {"input", Json::array({{{"role", "tool"}, {"content", "x"}}})}}).param.value_or("") ==
             "input[0].role");
  BOOST_TEST(refused({{"model", "m"},
                      {"input", Json::array({{{"type", "function_call"}, {"call_id", "c"}, {"name", "f"}, {"arguments", "{oops"}}})}})
                 .param.value_or("") == "input[0].arguments");
  BOOST_TEST(refused({{"model", "m"}, {"input", Json::array({{{"type", "function_call_output"}, {"output", "x"}}})}})
                 .param.value_or("") == "input[0].call_id");
  BOOST_TEST(refused({{"model", "m"}, {"input", "hi"}, {"tool_choice", "sometimes"}}).param.value_or("") == "tool_choice");
  BOOST_TEST(refused({{"model", "m"}, {"input", "hi"}, {"text", {{"format", {{"type", "yaml"}}}}}}).param.value_or("") ==
             "text.format.type");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses

namespace sluice::wire::openai_responses {

BOOST_AUTO_TEST_SUITE(request_decode)

BOOST_AUTO_TEST_CASE(enveloped_signatures_return_to_the_wire_that_minted_them) {
  const Json input = Json::array({
      {{"type", "reasoning"}, {"id", "rs_req_0"}, {"summary", Json::array()}, {"encrypted_content", "sluice:gemini::Et0Bxyz"}},
      {{"type", "reasoning"}, {"id", "rs_2"}, {"summary", Json::array()}, {"encrypted_content", "sluice:nowhere::abc"}},
  });
  const Request request = decoded({{"model", "m"}, {"input", input}});
  const auto& blocks = request.messages.at(0).content;
  BOOST_REQUIRE_EQUAL(blocks.size(), 2u);
  BOOST_TEST((blocks[0].signature_wire == catalog::Wire::Gemini));
  BOOST_TEST(blocks[0].signature == "Et0Bxyz");
  BOOST_TEST(blocks[0].reasoning_id == "");
  BOOST_TEST((blocks[1].signature_wire == catalog::Wire::OpenAIResponses));  // not an envelope: our own
  BOOST_TEST(blocks[1].signature == "sluice:nowhere::abc");
  BOOST_TEST(blocks[1].reasoning_id == "rs_2");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
