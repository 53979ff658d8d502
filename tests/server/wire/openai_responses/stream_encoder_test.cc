#include <boost/test/unit_test.hpp>

#include "server/wire/openai_responses/codec.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {
namespace {

using Type = ContentBlock::Type;
using Kind = StreamEvent::DeltaKind;

const ResponseContext kContext{"gpt-5", "req-9", 1765552659};

StreamEvent messageStart(Usage usage = {}, bool reported = false) {
  StreamEvent event;
  event.type = StreamEvent::Type::MessageStart;
  event.id = "msg_upstream";
  event.model = "claude-x";
  event.usage = usage;
  event.usage_reported = reported;
  return event;
}

StreamEvent blockStart(int index, ContentBlock block) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockStart;
  event.index = index;
  event.block = std::move(block);
  return event;
}

StreamEvent delta(int index, Kind kind, std::string text) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::move(text);
  return event;
}

StreamEvent blockStop(int index) {
  StreamEvent event;
  event.type = StreamEvent::Type::BlockStop;
  event.index = index;
  return event;
}

StreamEvent messageDelta(StopReason stop, Usage usage) {
  StreamEvent event;
  event.type = StreamEvent::Type::MessageDelta;
  event.stop_reason = stop;
  event.usage = usage;
  event.usage_reported = true;
  return event;
}

StreamEvent messageStop() {
  StreamEvent event;
  event.type = StreamEvent::Type::MessageStop;
  return event;
}

ContentBlock ofType(Type type) {
  ContentBlock block;
  block.type = type;
  return block;
}

ContentBlock toolStart(std::string id, std::string name) {
  ContentBlock block = ofType(Type::ToolUse);
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  return block;
}

ContentBlock thinkingStart(catalog::Wire wire) {
  ContentBlock block = ofType(Type::Thinking);
  block.signature_wire = wire;
  return block;
}

std::vector<std::string> names(const std::vector<test::SentEvent>& events) {
  std::vector<std::string> out;
  for (const auto& event : events) out.push_back(event.event);
  return out;
}

// An answer as another provider's decoder would give it: thinking, text, two parallel calls.
std::vector<StreamEvent> translatedAnswer() {
  return {messageStart({50, 1, 0, 0, 0}, true),
          blockStart(0, thinkingStart(catalog::Wire::Anthropic)),
          delta(0, Kind::Thinking, "Two "),
          delta(0, Kind::Thinking, "cities."),
          delta(0, Kind::Signature, "anthropic-sig"),
          blockStop(0),
          blockStart(1, ofType(Type::Text)),
          delta(1, Kind::Text, "Checking"),
          delta(1, Kind::Text, " both."),
          blockStop(1),
          blockStart(2, toolStart("toolu_1", "weather")),
          delta(2, Kind::ToolInputJson, R"({"city":)"),
          delta(2, Kind::ToolInputJson, R"("Paris"})"),
          blockStop(2),
          blockStart(3, toolStart("toolu_2", "clock")),
          delta(3, Kind::ToolInputJson, ""),
          blockStop(3),
          messageDelta(StopReason::ToolUse, {50, 30, 20, 0, 12}),
          messageStop()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stream_encoder)

BOOST_AUTO_TEST_CASE(writes_the_full_event_sequence_with_growing_sequence_numbers) {
  const auto sent = test::parseSent(test::encodeStream(translatedAnswer(), kContext));
  const std::vector<std::string> expected = {
      "response.created", "response.in_progress",
      "response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
      "response.output_text.done", "response.content_part.done", "response.output_item.done",
      "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
      "response.function_call_arguments.done", "response.output_item.done",
      "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed"};
  BOOST_TEST(names(sent) == expected, boost::test_tools::per_element());
  for (size_t i = 0; i < sent.size(); ++i) {
    BOOST_TEST(sent[i].data["type"] == sent[i].event);
    BOOST_TEST(sent[i].data["sequence_number"] == i);
  }
  const Json& created = sent[0].data["response"];
  BOOST_TEST(created["id"] == "resp_req-9");
  BOOST_TEST(created["status"] == "in_progress");
  BOOST_TEST(created["output"] == Json::array());
  BOOST_TEST(created["usage"].is_null());
  BOOST_TEST(created["model"] == "gpt-5");
  BOOST_TEST(created["created_at"] == 1765552659);

  BOOST_TEST(sent[2].data["item"] == Json::parse(R"({"id":"rs_req-9_0","type":"reasoning","summary":[]})"));
  BOOST_TEST(sent[6].data["text"] == "Two cities.");
  // An Anthropic signature travels in the envelope, so the client's replay can reach Anthropic again.
  BOOST_TEST(sent[8].data["item"] == Json::parse(
      R"({"id":"rs_req-9_0","type":"reasoning","summary":[{"type":"summary_text","text":"Two cities."}],
          "encrypted_content":"sluice:anthropic::anthropic-sig"})"));
  BOOST_TEST(sent[9].data["item"] == Json::parse(
      R"({"id":"msg_req-9_1","type":"message","status":"in_progress","content":[],"role":"assistant"})"));
  BOOST_TEST(sent[11].data == Json::parse(R"({"type":"response.output_text.delta","sequence_number":11,
      "item_id":"msg_req-9_1","output_index":1,"content_index":0,"delta":"Checking","logprobs":[]})"));
  BOOST_TEST(sent[15].data["item"]["content"][0]["text"] == "Checking both.");
  BOOST_TEST(sent[16].data["item"] == Json::parse(
      R"({"id":"fc_req-9_2","type":"function_call","status":"in_progress","arguments":"","call_id":"toolu_1","name":"weather"})"));
  BOOST_TEST(sent[19].data["arguments"] == R"({"city":"Paris"})");
  BOOST_TEST(sent[20].data["item"]["status"] == "completed");
  BOOST_TEST(sent[20].data["item"]["arguments"] == R"({"city":"Paris"})");
  // The call with no arguments says "{}".
  BOOST_TEST(sent[22].data["delta"] == "{}");
  BOOST_TEST(sent[23].data["arguments"] == "{}");
  BOOST_TEST(sent[24].data["item"]["call_id"] == "toolu_2");
  BOOST_TEST(sent[24].data["output_index"] == 3);

  const Json& completed = sent.back().data["response"];
  BOOST_TEST(completed["status"] == "completed");
  BOOST_REQUIRE_EQUAL(completed["output"].size(), 4u);
  BOOST_TEST(completed["output"][1] == sent[15].data["item"]);
  BOOST_TEST(completed["output"][3] == sent[24].data["item"]);
  BOOST_TEST(completed["usage"] == Json::parse(R"({"input_tokens":50,"input_tokens_details":{"cached_tokens":20},
      "output_tokens":30,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":80})"));
}

BOOST_AUTO_TEST_CASE(a_delta_cut_inside_a_character_is_written_without_throwing) {
  auto encoder = makeStreamEncoder(kContext);
  encoder->encode(messageStart());
  encoder->encode(blockStart(0, ofType(Type::Text)));
  const auto sent = test::parseSent(encoder->encode(delta(0, Kind::Text, "caf\xC3")));
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].data["delta"] == "caf\xEF\xBF\xBD");  // U+FFFD
}

BOOST_AUTO_TEST_CASE(each_delta_is_written_at_once) {
  auto encoder = makeStreamEncoder(kContext);
  BOOST_TEST(!encoder->encode(messageStart()).empty());
  BOOST_TEST(!encoder->encode(blockStart(0, ofType(Type::Text))).empty());
  const std::string bytes = encoder->encode(delta(0, Kind::Text, "partial answer"));
  const auto sent = test::parseSent(bytes);
  BOOST_REQUIRE_EQUAL(sent.size(), 1u);
  BOOST_TEST(sent[0].data["delta"] == "partial answer");
  StreamEvent ping;
  ping.type = StreamEvent::Type::Ping;
  BOOST_TEST(encoder->encode(ping).empty());
}

BOOST_AUTO_TEST_CASE(decoding_what_was_encoded_gives_the_recorded_answers_back) {
  const auto responses = test::splitResponses(
      test::fixtureLines("openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt"));
  for (const auto& lines : responses) {
    const auto events = test::decodeWhole(test::chunksToSse(lines));
    const std::string encoded = test::encodeStream(events, kContext);
    const auto again = test::decodeInPieces(encoded, 11);
    const test::Assembled first = test::assemble(events);
    const test::Assembled second = test::assemble(again);
    BOOST_TEST(second.id == "resp_req-9");
    BOOST_TEST(second.model == "gpt-5");
    BOOST_REQUIRE_EQUAL(first.blocks.size(), second.blocks.size());
    for (size_t i = 0; i < first.blocks.size(); ++i) {
      BOOST_TEST((first.blocks[i].type == second.blocks[i].type));
      BOOST_TEST(first.blocks[i].text == second.blocks[i].text);
      BOOST_TEST(first.blocks[i].tool_id == second.blocks[i].tool_id);
      BOOST_TEST(first.blocks[i].tool_name == second.blocks[i].tool_name);
      // Signatures this wire minted go back to the client unchanged, with their item id.
      BOOST_TEST(first.blocks[i].signature == second.blocks[i].signature);
      BOOST_TEST(first.blocks[i].reasoning_id == second.blocks[i].reasoning_id);
    }
    BOOST_TEST((first.stop_reason == second.stop_reason));
    BOOST_TEST(first.usage.input_tokens == second.usage.input_tokens);
    BOOST_TEST(first.usage.output_tokens == second.usage.output_tokens);
    BOOST_TEST(first.usage.reasoning_tokens == second.usage.reasoning_tokens);
    BOOST_TEST(second.errors.empty());
  }
}

BOOST_AUTO_TEST_CASE(an_error_becomes_an_error_event_then_response_failed) {
  std::vector<StreamEvent> events = {messageStart(), blockStart(0, ofType(Type::Text)), delta(0, Kind::Text, "Hi")};
  StreamEvent failure;
  failure.type = StreamEvent::Type::Error;
  failure.error = {529, "overloaded_error", "Overloaded", {}, {}};
  events.push_back(failure);
  auto encoder = makeStreamEncoder(kContext);
  std::string body;
  for (const auto& event : events) body += encoder->encode(event);
  const std::string after = encoder->finish() + encoder->encode(messageStop());
  BOOST_TEST(after.empty());  // the stream is over after the failure
  const auto sent = test::parseSent(body);
  BOOST_REQUIRE_GE(sent.size(), 2u);
  const Json& error = sent[sent.size() - 2].data;
  BOOST_TEST(sent[sent.size() - 2].event == "error");
  BOOST_TEST(error["code"] == "overloaded_error");
  BOOST_TEST(error["message"] == "Overloaded");
  BOOST_TEST(error["param"].is_null());
  BOOST_TEST(error["error"]["code"] == "overloaded_error");
  BOOST_TEST(error["error"]["type"] == "service_unavailable_error");
  BOOST_TEST(error["sequence_number"] == sent.size() - 2);
  const Json& failed = sent.back().data;
  BOOST_TEST(sent.back().event == "response.failed");
  BOOST_TEST(failed["response"]["status"] == "failed");
  BOOST_TEST(failed["response"]["error"] == Json({{"code", "overloaded_error"}, {"message", "Overloaded"}}));

  // Our own decoder reads it back as exactly one error.
  const auto decoded = test::assemble(test::decodeWhole(body));
  BOOST_REQUIRE_EQUAL(decoded.errors.size(), 1u);
  BOOST_TEST(decoded.errors[0].key == "overloaded_error");
  BOOST_TEST(decoded.errors[0].message == "Overloaded");
}

BOOST_AUTO_TEST_CASE(an_error_before_anything_else_still_opens_the_response) {
  StreamEvent failure;
  failure.type = StreamEvent::Type::Error;
  failure.error = {502, "upstream_stream_truncated", "cut", {}, {}};
  const auto sent = test::parseSent(test::encodeStream({failure}, kContext));
  std::vector<std::string> expected = {"response.created", "response.in_progress", "error", "response.failed"};
  BOOST_TEST(names(sent) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(max_tokens_ends_with_response_incomplete) {
  const std::vector<StreamEvent> events = {messageStart(), blockStart(0, ofType(Type::Text)),
                                           delta(0, Kind::Text, "Once upon"),
                                           messageDelta(StopReason::MaxTokens, {10, 16, 0, 0, 0}), messageStop()};
  const auto sent = test::parseSent(test::encodeStream(events, kContext));
  BOOST_TEST(sent.back().event == "response.incomplete");
  BOOST_TEST(sent.back().data["response"]["status"] == "incomplete");
  BOOST_TEST(sent.back().data["response"]["incomplete_details"] == Json({{"reason", "max_output_tokens"}}));
  // The open block was closed before the terminal event.
  BOOST_TEST(sent[sent.size() - 2].event == "response.output_item.done");
  BOOST_TEST(sent.back().data["response"]["output"][0]["content"][0]["text"] == "Once upon");
}

BOOST_AUTO_TEST_CASE(own_signatures_are_sent_as_encrypted_content_with_their_item_id) {
  ContentBlock start = thinkingStart(catalog::Wire::OpenAIResponses);
  start.reasoning_id = "rs_upstream";
  const std::vector<StreamEvent> events = {messageStart(), blockStart(0, start), delta(0, Kind::Signature, "gAAAA"),
                                           delta(0, Kind::Signature, "-rest"), blockStop(0),
                                           messageDelta(StopReason::EndTurn, {}), messageStop()};
  const auto sent = test::parseSent(test::encodeStream(events, kContext));
  std::vector<std::string> expected = {"response.created", "response.in_progress", "response.output_item.added",
                                       "response.output_item.done", "response.completed"};
  BOOST_TEST(names(sent) == expected, boost::test_tools::per_element());
  BOOST_TEST(sent[3].data["item"] == Json::parse(
      R"({"id":"rs_upstream","type":"reasoning","summary":[],"encrypted_content":"gAAAA-rest"})"));
}

BOOST_AUTO_TEST_CASE(unsigned_foreign_reasoning_carries_its_envelope_as_in_the_whole_answer) {
  // A Gemini thought summary no part signed: streamed and whole answers both give the item the
  // empty Gemini envelope, so every reasoning item carries encrypted_content.
  const std::vector<StreamEvent> events = {messageStart(), blockStart(0, thinkingStart(catalog::Wire::Gemini)),
                                           delta(0, Kind::Thinking, "Pondering."), blockStop(0),
                                           messageDelta(StopReason::EndTurn, {}), messageStop()};
  const auto sent = test::parseSent(test::encodeStream(events, kContext));
  const Json* done = nullptr;
  for (const auto& event : sent) {
    if (event.event == "response.output_item.done") done = &event.data;
  }
  BOOST_TEST_REQUIRE(done != nullptr);
  BOOST_TEST((*done)["item"]["encrypted_content"] == "sluice:gemini::");
  Response whole;
  whole.content.push_back(thinkingStart(catalog::Wire::Gemini));
  whole.content.back().text = "Pondering.";
  const Json encoded = Json::parse(encodeResponse(whole, kContext));
  BOOST_TEST(encoded["output"][0]["encrypted_content"] == (*done)["item"]["encrypted_content"]);
}

BOOST_AUTO_TEST_CASE(finish_completes_a_stream_that_never_said_message_stop) {
  auto encoder = makeStreamEncoder(kContext);
  std::string body = encoder->encode(messageStart());
  body += encoder->encode(blockStart(0, ofType(Type::Text)));
  body += encoder->encode(delta(0, Kind::Text, "done"));
  body += encoder->encode(messageDelta(StopReason::EndTurn, {3, 1, 0, 0, 0}));
  body += encoder->finish();
  BOOST_TEST(encoder->finish().empty());
  const auto sent = test::parseSent(body);
  BOOST_TEST(sent.back().event == "response.completed");
  BOOST_TEST(sent.back().data["response"]["usage"]["input_tokens"] == 3);
  BOOST_TEST(makeStreamEncoder(kContext)->finish().empty());  // nothing started, nothing to close
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses

namespace sluice::wire::openai_responses {

BOOST_AUTO_TEST_SUITE(stream_encoder)

BOOST_AUTO_TEST_CASE(a_client_replaying_the_streamed_items_gives_back_the_original_thinking_and_calls) {
  const auto sent = test::parseSent(test::encodeStream(translatedAnswer(), kContext));
  Json input = Json::array({{{"role", "user"}, {"content", "Weather in Paris?"}}});
  for (const auto& event : sent) {
    if (event.event == "response.output_item.done") input.push_back(event.data["item"]);
  }
  input.push_back({{"type", "function_call_output"}, {"call_id", "toolu_1"}, {"output", "sunny"}});
  auto request = decodeRequest(Json{{"model", "gpt-5"}, {"input", input}}.dump());
  BOOST_REQUIRE(request.has_value());
  BOOST_REQUIRE_EQUAL(request->messages.size(), 3u);
  const auto& assistant = request->messages[1].content;
  BOOST_REQUIRE_EQUAL(assistant.size(), 4u);
  BOOST_TEST((assistant[0].type == Type::Thinking));
  BOOST_TEST(assistant[0].text == "Two cities.");
  BOOST_TEST(assistant[0].signature == "anthropic-sig");
  BOOST_TEST((assistant[0].signature_wire == catalog::Wire::Anthropic));
  BOOST_TEST(assistant[1].text == "Checking both.");
  BOOST_TEST(assistant[2].tool_id == "toolu_1");
  BOOST_TEST(assistant[2].tool_input == Json({{"city", "Paris"}}));
  BOOST_TEST(assistant[3].tool_id == "toolu_2");
  BOOST_TEST(assistant[3].tool_input == Json::object());
  BOOST_TEST(request->messages[2].content.at(0).tool_use_id == "toolu_1");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
