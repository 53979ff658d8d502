#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/codec.h"
#include "server/wire/gemini/tool_ids.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

using test::loadCassette;
using test::readFixture;

Response decodeOk(const std::string& body) {
  auto response = decodeResponse(body);
  BOOST_TEST_REQUIRE(response.has_value(), "decodeResponse failed: " << (response ? "" : response.error().message));
  return *response;
}

BOOST_AUTO_TEST_SUITE(response)

BOOST_AUTO_TEST_CASE(text_part_with_signature_decodes_to_signature_block_then_text) {
  const Response response = decodeOk(readFixture("gemini/vercel-ai__google-text.json"));
  BOOST_TEST(response.id == "Un6LacrVMcjUxs0PmJfWoQc");
  BOOST_TEST(response.model == "gemini-3-pro-preview");
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  const ContentBlock& signature = response.content[0];
  BOOST_TEST((signature.type == ContentBlock::Type::Thinking));
  BOOST_TEST(signature.text.empty());
  BOOST_TEST(signature.signature.starts_with("EtoFCtcFAb4+9vtfe4MXRxQjw48U1WKrR"));
  BOOST_TEST(signature.signature.ends_with("bepqsSPjY0VU7HEzkeCBIfy1fu5t9aUZ4IZ65aWagqbBrV45fc97olcg"));
  BOOST_TEST((signature.signature_wire == catalog::Wire::Gemini));
  BOOST_TEST((response.content[1].type == ContentBlock::Type::Text));
  BOOST_TEST(response.content[1].text ==
             "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.");
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage_reported);
  BOOST_TEST(response.usage.input_tokens == 9);
  BOOST_TEST(response.usage.output_tokens == 28 + 244);
  BOOST_TEST(response.usage.reasoning_tokens == 244);
  BOOST_TEST(response.usage.cache_read_tokens == 0);
}

BOOST_AUTO_TEST_CASE(thought_summary_is_signed_by_the_part_that_follows_it) {
  // Gemini signs the first answer part, not the summary: the summary block takes the signature,
  // so the client sees one signed thinking block before the text, and replay puts the signature
  // back on the text part.
  const Response response = decodeOk(R"({"candidates":[{"content":{"role":"model","parts":[
      {"text":"Counting letters.","thought":true},{"text":"Three.","thoughtSignature":"U0lH"}]},
      "finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":1,
      "thoughtsTokenCount":3},"responseId":"r1"})");
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  BOOST_TEST((response.content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response.content[0].text == "Counting letters.");
  BOOST_TEST(response.content[0].signature == "U0lH");
  BOOST_TEST(response.content[1].text == "Three.");
  Request request;
  request.model = "m";
  Message user;
  user.role = Role::User;
  ContentBlock question;
  question.text = "How many r?";
  user.content.push_back(question);
  Message assistant;
  assistant.role = Role::Assistant;
  assistant.content = response.content;
  request.messages = {user, assistant, user};
  const auto encoded = encodeRequest(request, EncodeOptions{});
  BOOST_TEST_REQUIRE(encoded.has_value());
  BOOST_TEST(nlohmann::json::parse(*encoded)["contents"][1]["parts"] ==
             nlohmann::json::parse(R"([{"text":"Three.","thoughtSignature":"U0lH"}])"));
}

BOOST_AUTO_TEST_CASE(function_call_decodes_to_tool_use_with_deterministic_minted_id) {
  const std::string body = readFixture("gemini/vercel-ai__google-tool-call.json");
  const Response response = decodeOk(body);
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  BOOST_TEST((response.content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response.content[0].signature.starts_with("EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI"));
  const ContentBlock& call = response.content[1];
  BOOST_TEST((call.type == ContentBlock::Type::ToolUse));
  BOOST_TEST(call.tool_name == "weather");
  BOOST_TEST(test::plain(call.tool_input) == test::plain(std::string(R"({"location":"San Francisco"})")));
  BOOST_TEST(call.tool_id == mintToolCallId("m36LaZGyCLz1xs0PtNSB-QU", 0, 0, "weather"));
  BOOST_TEST(isMintedToolCallId(call.tool_id));
  BOOST_TEST(decodeOk(body).content[1].tool_id == call.tool_id);  // same input, same id
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
  BOOST_TEST(response.usage.input_tokens == 29);
  BOOST_TEST(response.usage.output_tokens == 15 + 893);
  BOOST_TEST(response.usage.reasoning_tokens == 893);
}

BOOST_AUTO_TEST_CASE(max_tokens_with_content_lacking_parts_decodes_empty) {
  const auto interactions =
      loadCassette("gemini/pydantic-ai__test_google_model_max_tokens_thinking_model_empty_response.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  const Response response = decodeOk(interactions[0].response_body);
  BOOST_TEST(response.content.empty());
  BOOST_TEST((response.stop_reason == StopReason::MaxTokens));
  BOOST_TEST(response.id == "fH8oaunbEbr9qtsPjYGX4A0");
  BOOST_TEST(response.model == "gemini-2.5-pro");
  BOOST_TEST(response.usage.input_tokens == 15);
  BOOST_TEST(response.usage.output_tokens == 2);
  BOOST_TEST(response.usage.reasoning_tokens == 2);
}

BOOST_AUTO_TEST_CASE(cached_content_tokens_count_inside_input) {
  const auto interactions = loadCassette("gemini/pydantic-ai__test_google_model_mobile_youtube_video_url_input.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  const Response response = decodeOk(interactions[0].response_body);
  BOOST_TEST_REQUIRE(response.content.size() == 1u);
  BOOST_TEST(response.content[0].text.starts_with("This video demonstrates an AI assistant within a code editor"));
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage.input_tokens == 17713);
  BOOST_TEST(response.usage.cache_read_tokens == 17379);
  BOOST_TEST(response.usage.uncachedInputTokens() == 17713 - 17379);
  BOOST_TEST(response.usage.output_tokens == 68 + 821);
  BOOST_TEST(response.usage.reasoning_tokens == 821);
}

BOOST_AUTO_TEST_CASE(tool_output_cassette_decodes_both_turns) {
  const auto interactions = loadCassette("gemini/pydantic-ai__test_google_tool_output.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 2u);

  const Response first = decodeOk(interactions[0].response_body);
  BOOST_TEST_REQUIRE(first.content.size() == 1u);
  BOOST_TEST(first.content[0].tool_name == "get_user_country");
  BOOST_TEST(first.content[0].tool_input == Json::object());
  BOOST_TEST(first.content[0].tool_id == mintToolCallId("LlteaIDvD9m7nvgPz5Sb0Aw", 0, 0, "get_user_country"));
  BOOST_TEST((first.stop_reason == StopReason::ToolUse));
  BOOST_TEST(first.usage.input_tokens == 33);
  BOOST_TEST(first.usage.output_tokens == 5);

  const Response second = decodeOk(interactions[1].response_body);
  BOOST_TEST_REQUIRE(second.content.size() == 1u);
  BOOST_TEST(second.content[0].tool_name == "final_result");
  BOOST_TEST(test::plain(second.content[0].tool_input) ==
             test::plain(std::string(R"({"city":"Mexico City","country":"Mexico"})")));
  BOOST_TEST((second.stop_reason == StopReason::ToolUse));
  BOOST_TEST(second.usage.input_tokens == 47);
  BOOST_TEST(second.usage.output_tokens == 8);
  BOOST_TEST(first.content[0].tool_id != second.content[0].tool_id);
}

BOOST_AUTO_TEST_CASE(error_body_decodes_to_its_api_error) {
  const auto interactions = loadCassette("gemini/pydantic-ai__test_model_name_suggestion--google.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  const auto response = decodeResponse(interactions[0].response_body);
  BOOST_TEST_REQUIRE(!response.has_value());
  BOOST_TEST(response.error().status == 404);
  BOOST_TEST(response.error().key == "NOT_FOUND");
  BOOST_TEST(response.error().message.starts_with("models/gemini-3.6-flahs is not found"));
}

BOOST_AUTO_TEST_CASE(count_tokens_answer_is_not_a_generate_content_answer) {
  const auto interactions = loadCassette("gemini/pydantic-ai__test_google_model_usage_limit_exceeded.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  const auto response = decodeResponse(interactions[0].response_body);
  BOOST_TEST_REQUIRE(!response.has_value());
  BOOST_TEST(response.error().status == 502);
  BOOST_TEST(response.error().key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(blocked_prompt_decodes_to_refusal_without_content) {
  const Response response = decodeOk(
      R"({"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},"modelVersion":"gemini-2.5-flash","responseId":"r1"})");
  BOOST_TEST(response.content.empty());
  BOOST_TEST((response.stop_reason == StopReason::Refusal));
  BOOST_TEST(response.usage.input_tokens == 7);
  BOOST_TEST(response.usage.output_tokens == 0);
}

BOOST_AUTO_TEST_CASE(safety_finish_reason_decodes_to_refusal) {
  const Response response = decodeOk(
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"I can"}]},"finishReason":"SAFETY","index":0}]})");
  BOOST_TEST((response.stop_reason == StopReason::Refusal));
  BOOST_TEST(!response.usage_reported);
  BOOST_TEST_REQUIRE(response.content.size() == 1u);
  BOOST_TEST(response.content[0].text == "I can");
}

BOOST_AUTO_TEST_CASE(parallel_calls_get_distinct_ids_and_gemini_ids_are_kept) {
  const Response response = decodeOk(R"({"candidates":[{"content":{"role":"model","parts":[
      {"functionCall":{"name":"weather","args":{"city":"Paris"}},"thoughtSignature":"c2ln"},
      {"functionCall":{"name":"weather","args":{"city":"Rome"}}},
      {"functionCall":{"name":"time","args":{},"id":"gx-17"}}]},"finishReason":"STOP","index":0}],
      "responseId":"resp-1","modelVersion":"gemini-3-flash"})");
  BOOST_TEST_REQUIRE(response.content.size() == 4u);
  BOOST_TEST(response.content[0].signature == "c2ln");
  BOOST_TEST(response.content[1].tool_id == mintToolCallId("resp-1", 0, 0, "weather"));
  BOOST_TEST(response.content[2].tool_id == mintToolCallId("resp-1", 0, 1, "weather"));
  BOOST_TEST(response.content[1].tool_id != response.content[2].tool_id);
  BOOST_TEST(response.content[2].tool_input["city"] == "Rome");
  BOOST_TEST(response.content[3].tool_id == "gx-17");
  BOOST_TEST(response.content[3].tool_input == Json::object());
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(function_call_without_args_gets_empty_object) {
  const Response response = decodeOk(
      R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"now"}}]},"finishReason":"STOP"}]})");
  BOOST_TEST_REQUIRE(response.content.size() == 1u);
  BOOST_TEST(response.content[0].tool_input == Json::object());
}

BOOST_AUTO_TEST_CASE(thought_parts_decode_to_thinking_and_unknown_parts_to_opaque) {
  const Response response = decodeOk(R"({"candidates":[{"content":{"parts":[
      {"text":"Let me think.","thought":true},
      {"executableCode":{"language":"PYTHON","code":"print 1"}},
      {"text":"Done."}]},"finishReason":"STOP"}],"unknownTopLevel":{"x":1}})");
  BOOST_TEST_REQUIRE(response.content.size() == 3u);
  BOOST_TEST((response.content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response.content[0].text == "Let me think.");
  BOOST_TEST(response.content[0].signature.empty());
  BOOST_TEST((response.content[1].type == ContentBlock::Type::Opaque));
  BOOST_TEST((response.content[1].raw_wire == catalog::Wire::Gemini));
  BOOST_TEST(response.content[1].raw["executableCode"]["code"] == "print 1");
  BOOST_TEST(response.content[2].text == "Done.");
}

BOOST_AUTO_TEST_CASE(json_array_body_of_chunks_decodes_as_one_answer) {
  const Response response = decodeOk(R"([
      {"candidates":[{"content":{"parts":[{"text":"Hel"}]}}],"responseId":"a1","usageMetadata":{"promptTokenCount":3}},
      {"candidates":[{"content":{"parts":[{"text":"lo"}]},"finishReason":"STOP"}],"responseId":"a1",
       "usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5}}])");
  BOOST_TEST_REQUIRE(response.content.size() == 1u);
  BOOST_TEST(response.content[0].text == "Hello");
  BOOST_TEST(response.usage.input_tokens == 3);
  BOOST_TEST(response.usage.output_tokens == 2);
}

BOOST_AUTO_TEST_CASE(bad_bodies_are_invalid_upstream_responses) {
  for (const std::string body : {"", "not json", "42", "[]", R"("text")", R"({"unrelated":true})", "[1,2]"}) {
    const auto response = decodeResponse(body);
    BOOST_TEST_REQUIRE(!response.has_value(), "accepted: " << body);
    BOOST_TEST(response.error().status == 502);
    BOOST_TEST(response.error().key == "upstream_invalid_response");
  }
}

BOOST_AUTO_TEST_CASE(wrongly_typed_fields_are_ignored_not_thrown_on) {
  const Response response = decodeOk(R"({"candidates":[{"content":{"parts":[
      {"text":5},{"functionCall":"x"},{"functionCall":{"name":7}},"str",{"text":"ok","thoughtSignature":9}]},
      "finishReason":3,"index":"zero"}],"usageMetadata":{"promptTokenCount":"12","candidatesTokenCount":null},
      "responseId":5})");
  // {"text":5} and {"functionCall":"x"} are kept verbatim as opaque parts; the nameless call and
  // the non-object part are skipped; the number signature is ignored.
  BOOST_TEST_REQUIRE(response.content.size() == 3u);
  BOOST_TEST((response.content[0].type == ContentBlock::Type::Opaque));
  BOOST_TEST((response.content[1].type == ContentBlock::Type::Opaque));
  BOOST_TEST(response.content[2].text == "ok");
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage.input_tokens == 12);
}

BOOST_AUTO_TEST_CASE(every_prefix_of_a_body_decodes_or_fails_cleanly) {
  const std::string body = readFixture("gemini/vercel-ai__google-tool-call.json");
  for (size_t length = 0; length < body.size(); ++length) {
    std::expected<Response, ApiError> response = std::unexpected(ApiError{});
    BOOST_REQUIRE_NO_THROW(response = decodeResponse(std::string_view(body).substr(0, length)));
    if (!response) BOOST_TEST(response.error().status == 502);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
