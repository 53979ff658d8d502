#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/codec.h"
#include "server/wire/gemini/tool_ids.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

using test::chunkLines;
using test::decodeInPieces;
using test::decodeWhole;
using test::describe;
using test::fold;
using test::sseBody;

// Decodes `body` whole and in random pieces (1 byte up to 64 bytes, several seeds); every
// decoding must give the same events. Returns the whole one.
std::vector<StreamEvent> decodeEveryWay(const std::string& body) {
  const std::vector<StreamEvent> whole = decodeWhole(body);
  const std::string expected = describe(whole);
  for (const size_t max_piece : {size_t{1}, size_t{3}, size_t{17}, size_t{64}}) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      BOOST_TEST(describe(decodeInPieces(body, seed, max_piece)) == expected,
                 "pieces of at most " << max_piece << " bytes, seed " << seed);
    }
  }
  return whole;
}

std::string cassetteStream(const std::string& relative) {
  const auto interactions = test::loadCassette(relative);
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  BOOST_TEST_REQUIRE(interactions[0].response_is_raw);
  return interactions[0].response_body;
}

BOOST_AUTO_TEST_SUITE(stream_decoder)

BOOST_AUTO_TEST_CASE(text_stream_joins_chunks_and_keeps_trailing_signature) {
  const auto events = decodeEveryWay(sseBody(chunkLines("gemini/vercel-ai__google-text.chunks.txt")));
  const auto folded = fold(events);
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const Response& response = folded.response;
  BOOST_TEST(response.id == "bH6LaZW8Fp_3nsEPqtaSwQ4");
  BOOST_TEST(response.model == "gemini-3-pro-preview");
  BOOST_TEST(folded.start_usage_reported);
  BOOST_TEST(folded.start_usage.input_tokens == 9);
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  BOOST_TEST(response.content[0].text == "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y");
  BOOST_TEST((response.content[1].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response.content[1].text.empty());
  BOOST_TEST(response.content[1].signature.starts_with("EqsFCqgFAb4+9vvtAF5n87lB4OGDOoTRMOqp35jW65"));
  BOOST_TEST(response.content[1].signature.ends_with("y4xaNqwew3FwAG37eeWcow="));
  BOOST_TEST((response.content[1].signature_wire == catalog::Wire::Gemini));
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage.input_tokens == 9);
  BOOST_TEST(response.usage.output_tokens == 23 + 185);
  BOOST_TEST(response.usage.reasoning_tokens == 185);
}

BOOST_AUTO_TEST_CASE(text_deltas_leave_as_soon_as_their_chunk_is_complete) {
  const auto lines = chunkLines("gemini/vercel-ai__google-text.chunks.txt");
  auto decoder = makeStreamDecoder();
  const auto first = decoder->feed("data: " + lines[0] + "\r\n\r\n");
  BOOST_TEST_REQUIRE(first.size() == 3u);  // MessageStart, BlockStart, BlockDelta
  BOOST_TEST((first[0].type == StreamEvent::Type::MessageStart));
  BOOST_TEST((first[2].type == StreamEvent::Type::BlockDelta));
  BOOST_TEST(first[2].delta == "There are **3**");
  const auto half = decoder->feed("data: " + lines[1].substr(0, 40));
  BOOST_TEST(half.empty());
}

BOOST_AUTO_TEST_CASE(tool_call_stream_emits_one_complete_arguments_delta) {
  const auto events = decodeEveryWay(sseBody(chunkLines("gemini/vercel-ai__google-tool-call.chunks.txt")));
  const auto folded = fold(events);
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const Response& response = folded.response;
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  BOOST_TEST(response.content[0].signature.starts_with("EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7I"));
  const ContentBlock& call = response.content[1];
  BOOST_TEST(call.tool_name == "weather");
  BOOST_TEST(call.tool_input.dump() == R"({"location":"San Francisco"})");
  BOOST_TEST(call.tool_id == mintToolCallId("b36LacjwM668nsEP2tbsgQQ", 0, 0, "weather"));
  BOOST_TEST(folded.tool_json_deltas == 1);
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
  BOOST_TEST(response.usage.input_tokens == 29);
  BOOST_TEST(response.usage.output_tokens == 15 + 45);
  BOOST_TEST(response.usage.reasoning_tokens == 45);
}

BOOST_AUTO_TEST_CASE(vertex_partial_args_stream_as_several_deltas_per_call) {
  const auto events =
      decodeEveryWay(sseBody(chunkLines("gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt")));
  const auto folded = fold(events);
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const Response& response = folded.response;
  BOOST_TEST(!folded.start_usage_reported);  // the first chunk only has trafficType
  BOOST_TEST_REQUIRE(response.content.size() == 3u);
  BOOST_TEST((response.content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response.content[0].signature.starts_with("CiMBjz1rX25KieIB4d4AwFn8"));
  BOOST_TEST(response.content[1].tool_name == "getWeather");
  BOOST_TEST(response.content[1].tool_input.dump() == R"({"location":"Boston"})");
  BOOST_TEST(response.content[2].tool_name == "getWeather");
  BOOST_TEST(response.content[2].tool_input.dump() == R"({"location":"San Francisco"})");
  BOOST_TEST(response.content[1].tool_id == mintToolCallId("dqHOab6xGLzWodAPkPuViA4", 0, 0, "getWeather"));
  BOOST_TEST(response.content[2].tool_id == mintToolCallId("dqHOab6xGLzWodAPkPuViA4", 0, 1, "getWeather"));
  BOOST_TEST(folded.tool_json_deltas > 2);
  BOOST_TEST((response.stop_reason == StopReason::ToolUse));
  BOOST_TEST(response.usage.input_tokens == 26);
  BOOST_TEST(response.usage.output_tokens == 23 + 132);
  BOOST_TEST(response.usage.reasoning_tokens == 132);
}

BOOST_AUTO_TEST_CASE(vertex_nested_partial_args_with_continuation_pieces_build_one_object) {
  const std::vector<std::string> lines = {
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"cookRecipe","willContinue":true},"thoughtSignature":"Q21JQg=="}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"},"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].amount","stringValue":"16 oz","willContinue":true}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].amount","stringValue":""}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].name","stringValue":"Lasagna noodles","willContinue":true}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.ingredients[0].name","stringValue":""}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.steps[0]","stringValue":"In a 9x13 baking dish, spread a","willContinue":true}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.steps[0]","stringValue":" thin layer of meat sauce.","willContinue":true}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.recipe.steps[0]","stringValue":""}],"willContinue":true}}]}}],"responseId":"tjXV"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":31,"candidatesTokenCount":684,"thoughtsTokenCount":1026},"responseId":"tjXV"})",
  };
  const auto folded = fold(decodeEveryWay(sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST_REQUIRE(folded.response.content.size() == 2u);
  BOOST_TEST(folded.response.content[1].tool_name == "cookRecipe");
  BOOST_TEST(folded.response.content[1].tool_input.dump() ==
             R"({"recipe":{"ingredients":[{"amount":"16 oz","name":"Lasagna noodles"}],"steps":["In a 9x13 baking dish, spread a thin layer of meat sauce."]}})");
  BOOST_TEST(folded.response.usage.output_tokens == 684 + 1026);
}

BOOST_AUTO_TEST_CASE(thought_summaries_stream_as_thinking_before_the_answer) {
  const auto events = decodeEveryWay(cassetteStream("gemini/pydantic-ai__test_google_model_thinking_part_iter.yaml"));
  const auto folded = fold(events);
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const Response& response = folded.response;
  BOOST_TEST(response.id == "beHBaJfEMIi-qtsP3769-Q8");
  BOOST_TEST(response.model == "gemini-2.5-pro");
  // The signature rides on the first answer part; it closes the thought run, signed.
  BOOST_TEST_REQUIRE(response.content.size() == 2u);
  const ContentBlock& thoughts = response.content[0];
  BOOST_TEST((thoughts.type == ContentBlock::Type::Thinking));
  BOOST_TEST(thoughts.text.starts_with("**Clarifying User Goals**"));
  BOOST_TEST(thoughts.text.find("**Crafting Safe Instructions**") != std::string::npos);
  BOOST_TEST(thoughts.signature.starts_with("CiIB0e2Kb6Syj1a961EfbWv4W5C8RgAA"));
  BOOST_TEST((thoughts.signature_wire == catalog::Wire::Gemini));
  const ContentBlock& answer = response.content[1];
  BOOST_TEST((answer.type == ContentBlock::Type::Text));
  BOOST_TEST(answer.text.starts_with("This is a great question! Safely crossing the street"));
  BOOST_TEST(answer.text.ends_with("Always assume a driver might not see you."));
  BOOST_TEST(answer.text.find("**Clarifying") == std::string::npos);
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(folded.start_usage.input_tokens == 34);
  BOOST_TEST(response.usage.input_tokens == 34);
  BOOST_TEST(response.usage.output_tokens == 469 + 787);
  BOOST_TEST(response.usage.reasoning_tokens == 787);
}

BOOST_AUTO_TEST_CASE(a_signature_after_the_answer_stays_where_gemini_sent_it) {
  // Gemini 3 streams thought summaries, the answer, then the signature on an empty last part.
  // The thought run has closed unsigned by then; the signature becomes a block of its own after
  // the text rather than holding the answer back.
  const std::vector<std::string> lines = {
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Thinking it over.","thought":true}]}}],"responseId":"g3"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Two."}]}}],"responseId":"g3"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"U0lH"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"thoughtsTokenCount":4},"responseId":"g3"})",
  };
  const auto folded = fold(decodeEveryWay(sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const auto& content = folded.response.content;
  BOOST_TEST_REQUIRE(content.size() == 3u);
  BOOST_TEST((content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(content[0].text == "Thinking it over.");
  BOOST_TEST(content[0].signature.empty());
  BOOST_TEST((content[0].signature_wire == catalog::Wire::Gemini));
  BOOST_TEST(content[1].text == "Two.");
  BOOST_TEST((content[2].type == ContentBlock::Type::Thinking));
  BOOST_TEST(content[2].text.empty());
  BOOST_TEST(content[2].signature == "U0lH");

  // Sent back, the turn is the parts Gemini streamed: no thought text, the signature last.
  Request request;
  request.model = "m";
  request.max_tokens = 10;
  Message user;
  user.role = Role::User;
  ContentBlock question;
  question.text = "1+1?";
  user.content.push_back(question);
  Message assistant;
  assistant.role = Role::Assistant;
  assistant.content = content;
  request.messages = {user, assistant, user};
  const auto encoded = encodeRequest(request, EncodeOptions{});
  BOOST_TEST_REQUIRE(encoded.has_value());
  const Json body = Json::parse(*encoded);
  BOOST_TEST(body["contents"][1]["parts"] ==
             Json::parse(R"([{"text":"Two."},{"text":"","thoughtSignature":"U0lH"}])"));
}

BOOST_AUTO_TEST_CASE(a_signed_thought_part_closes_its_own_run) {
  // Code Assist and Gemini 2.5 sign the last thought part itself: its text belongs to the run
  // the signature closes, and the next thought starts a new block.
  const std::vector<std::string> lines = {
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"First ","thought":true}]}}],"responseId":"g4"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"idea.","thought":true,"thoughtSignature":"QQ=="}]}}],"responseId":"g4"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"","thought":true,"thoughtSignature":"Qg=="}]}}],"responseId":"g4"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Answer."}]},"finishReason":"STOP"}],"responseId":"g4"})",
  };
  const auto folded = fold(decodeEveryWay(sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const auto& content = folded.response.content;
  BOOST_TEST_REQUIRE(content.size() == 3u);
  BOOST_TEST(content[0].text == "First idea.");
  BOOST_TEST(content[0].signature == "QQ==");
  BOOST_TEST(content[1].text.empty());
  BOOST_TEST(content[1].signature == "Qg==");
  BOOST_TEST(content[2].text == "Answer.");
}

BOOST_AUTO_TEST_CASE(error_payload_inside_the_stream_becomes_an_error_event) {
  const std::string body =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}],\"responseId\":\"e1\"}\r\n\r\n"
      "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ignored\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n";
  const auto events = decodeEveryWay(body);
  const auto folded = fold(events);
  BOOST_TEST_REQUIRE(folded.error.has_value());
  BOOST_TEST(folded.error->status == 503);
  BOOST_TEST(folded.error->key == "UNAVAILABLE");
  BOOST_TEST(folded.error->message == "The model is overloaded.");
  BOOST_TEST((events.back().type == StreamEvent::Type::Error));
  BOOST_TEST(folded.response.content[0].text == "Hi");
}

BOOST_AUTO_TEST_CASE(stream_without_finish_reason_is_truncated) {
  const auto lines = chunkLines("gemini/vercel-ai__google-text.chunks.txt");
  const auto events = decodeEveryWay(sseBody({lines[0], lines[1]}));
  BOOST_TEST_REQUIRE(!events.empty());
  BOOST_TEST((events.back().type == StreamEvent::Type::Error));
  BOOST_TEST(events.back().error.status == 502);
  BOOST_TEST(events.back().error.key == "upstream_stream_truncated");
  for (size_t i = 0; i + 1 < events.size(); ++i) BOOST_TEST((events[i].type != StreamEvent::Type::MessageDelta));
}

BOOST_AUTO_TEST_CASE(empty_stream_is_truncated) {
  const auto events = decodeWhole("");
  BOOST_TEST_REQUIRE(events.size() == 1u);
  BOOST_TEST((events[0].type == StreamEvent::Type::Error));
  BOOST_TEST(events[0].error.key == "upstream_stream_truncated");
}

BOOST_AUTO_TEST_CASE(last_event_without_blank_line_is_still_read_at_finish) {
  const auto lines = chunkLines("gemini/vercel-ai__google-tool-call.chunks.txt");
  const std::string body = "data: " + lines[0] + "\r\n\r\ndata: " + lines[1];
  const auto folded = fold(decodeEveryWay(body));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST((folded.response.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(invalid_json_event_is_an_invalid_upstream_response) {
  const auto events = decodeEveryWay("data: {\"candidates\": [\r\n\r\ndata: {}\r\n\r\n");
  BOOST_TEST_REQUIRE(events.size() == 1u);
  BOOST_TEST((events[0].type == StreamEvent::Type::Error));
  BOOST_TEST(events[0].error.status == 502);
  BOOST_TEST(events[0].error.key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(padding_comments_lf_framing_and_done_marker_are_tolerated) {
  const std::string body =
      ": keep-alive\n\n"
      "data:   {\"candidates\": [ {\"content\": {\"parts\": [{\"text\": \"A\"}]}} ] , \"responseId\": \"p1\"}   \n\n"
      "event: ping\ndata: \n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"B\"}]},\"finishReason\":\"STOP\"}],"
      "\"usageMetadata\":{\"promptTokenCount\":4,\"candidatesTokenCount\":2},\"newField\":[1]}\n\n"
      "data: [DONE]\n\n";
  const auto folded = fold(decodeEveryWay(body));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST_REQUIRE(folded.response.content.size() == 1u);
  BOOST_TEST(folded.response.content[0].text == "AB");
  BOOST_TEST(folded.response.usage.output_tokens == 2);
  BOOST_TEST(!folded.start_usage_reported);
}

BOOST_AUTO_TEST_CASE(tool_calls_without_arguments_stream_empty_objects) {
  const std::string body =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"now\"}}]}}],\"responseId\":\"n1\"}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"later\",\"willContinue\":true}}]}}]}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n";
  const auto folded = fold(decodeEveryWay(body));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST_REQUIRE(folded.response.content.size() == 2u);
  BOOST_TEST(folded.response.content[0].tool_input == Json::object());
  BOOST_TEST(folded.response.content[1].tool_input == Json::object());
  BOOST_TEST(folded.response.content[1].tool_name == "later");
}

BOOST_AUTO_TEST_CASE(parallel_calls_in_one_chunk_become_separate_blocks) {
  const std::string body =
      "data: {\"candidates\":[{\"content\":{\"parts\":["
      "{\"functionCall\":{\"name\":\"weather\",\"args\":{\"city\":\"Paris\"}},\"thoughtSignature\":\"c2lnMQ==\"},"
      "{\"functionCall\":{\"name\":\"weather\",\"args\":{\"city\":\"Rome\"}}}]},\"finishReason\":\"STOP\"}],"
      "\"responseId\":\"par\"}\r\n\r\n";
  const auto folded = fold(decodeEveryWay(body));
  BOOST_TEST_REQUIRE(folded.response.content.size() == 3u);
  BOOST_TEST(folded.response.content[1].tool_input["city"] == "Paris");
  BOOST_TEST(folded.response.content[2].tool_input["city"] == "Rome");
  BOOST_TEST(folded.response.content[1].tool_id == mintToolCallId("par", 0, 0, "weather"));
  BOOST_TEST(folded.response.content[2].tool_id == mintToolCallId("par", 0, 1, "weather"));
  BOOST_TEST((folded.response.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(blocked_prompt_stream_ends_with_refusal) {
  const auto folded = fold(decodeEveryWay(
      "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"},\"usageMetadata\":{\"promptTokenCount\":8}}\r\n\r\n"));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST(folded.response.content.empty());
  BOOST_TEST((folded.response.stop_reason == StopReason::Refusal));
  BOOST_TEST(folded.response.usage.input_tokens == 8);
}

BOOST_AUTO_TEST_CASE(max_tokens_stream_closes_the_open_block) {
  const auto folded = fold(decodeEveryWay(
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Par\"}]}}]}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\"},\"finishReason\":\"MAX_TOKENS\"}],"
      "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":1,\"thoughtsTokenCount\":9}}\r\n\r\n"));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  BOOST_TEST((folded.response.stop_reason == StopReason::MaxTokens));
  BOOST_TEST(folded.response.usage.output_tokens == 10);
}

BOOST_AUTO_TEST_CASE(streamed_and_unstreamed_decodings_agree) {
  for (const std::string fixture : {"gemini/vercel-ai__google-text.chunks.txt", "gemini/vercel-ai__google-tool-call.chunks.txt",
                                    "gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt"}) {
    const auto lines = chunkLines(fixture);
    std::string array = "[";
    for (size_t i = 0; i < lines.size(); ++i) array += (i > 0 ? "," : "") + lines[i];
    array += "]";
    const auto unstreamed = decodeResponse(array);
    BOOST_TEST_REQUIRE(unstreamed.has_value(), fixture);
    const Response streamed = fold(decodeWhole(sseBody(lines))).response;
    BOOST_TEST_REQUIRE(streamed.content.size() == unstreamed->content.size(), fixture);
    for (size_t i = 0; i < streamed.content.size(); ++i) {
      BOOST_TEST(streamed.content[i].text == unstreamed->content[i].text);
      BOOST_TEST(streamed.content[i].signature == unstreamed->content[i].signature);
      BOOST_TEST(streamed.content[i].tool_id == unstreamed->content[i].tool_id);
      BOOST_TEST(streamed.content[i].tool_input == unstreamed->content[i].tool_input);
    }
    BOOST_TEST((streamed.stop_reason == unstreamed->stop_reason));
    BOOST_TEST(streamed.usage.output_tokens == unstreamed->usage.output_tokens);
  }
}

BOOST_AUTO_TEST_CASE(every_prefix_of_a_stream_ends_in_an_error_or_a_full_answer) {
  const std::string body = sseBody(chunkLines("gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt"));
  for (size_t length = 0; length <= body.size(); length += 7) {
    std::vector<StreamEvent> events;
    BOOST_REQUIRE_NO_THROW(events = decodeWhole(body.substr(0, length)));
    BOOST_TEST_REQUIRE(!events.empty());
    const auto last = events.back().type;
    BOOST_TEST((last == StreamEvent::Type::Error || last == StreamEvent::Type::MessageStop));
  }
}

BOOST_AUTO_TEST_CASE(garbage_bytes_never_throw) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919 + 13) % 256));
  std::vector<StreamEvent> events;
  BOOST_REQUIRE_NO_THROW(events = decodeInPieces("data: " + garbage + "\n\n" + garbage, 9, 50));
  BOOST_TEST_REQUIRE(!events.empty());
  BOOST_TEST((events.back().type == StreamEvent::Type::Error));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
