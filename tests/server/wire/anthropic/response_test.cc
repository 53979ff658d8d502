#include <boost/test/unit_test.hpp>

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;
using BlockType = ContentBlock::Type;

Response decodeOk(const std::string& body) {
  auto decoded = decodeResponse(body);
  BOOST_REQUIRE_MESSAGE(decoded.has_value(), (decoded ? "" : decoded.error().message));
  return *decoded;
}

Json responseBody(const Json& cassette_json, size_t interaction) {
  return cassette_json["interactions"][interaction]["response"]["parsed_body"];
}

BOOST_AUTO_TEST_SUITE(response)

BOOST_AUTO_TEST_CASE(decodes_recorded_text_response) {
  const Response got = decodeOk(readFixture("anthropic/vercel-ai__anthropic-text.json"));
  BOOST_TEST(got.id == "msg_01VdEjxAP5ahtHKrrRdNBteQ");
  BOOST_TEST(got.model == "claude-sonnet-4-5-20250929");
  BOOST_REQUIRE_EQUAL(got.content.size(), 1u);
  BOOST_TEST(got.content[0].text ==
             "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?");
  BOOST_TEST(static_cast<int>(got.stop_reason) == static_cast<int>(StopReason::EndTurn));
  BOOST_TEST(got.usage_reported);
  BOOST_TEST(got.usage.input_tokens == 12);
  BOOST_TEST(got.usage.output_tokens == 29);
}

BOOST_AUTO_TEST_CASE(decodes_recorded_tool_call_without_arguments) {
  const Response got = decodeOk(readFixture("anthropic/vercel-ai__anthropic-tool-no-args.json"));
  BOOST_REQUIRE_EQUAL(got.content.size(), 2u);
  BOOST_TEST(got.content[0].text.starts_with("<thinking>\nThe updateIssueList tool"));
  BOOST_TEST(static_cast<int>(got.content[1].type) == static_cast<int>(BlockType::ToolUse));
  BOOST_TEST(got.content[1].tool_id == "toolu_01LRmxn9vGM1d2DZSDBowdZ1");
  BOOST_TEST(got.content[1].tool_name == "updateIssueList");
  BOOST_TEST(got.content[1].tool_input == Json::object());
  BOOST_TEST(static_cast<int>(got.stop_reason) == static_cast<int>(StopReason::ToolUse));
  BOOST_TEST(got.usage.input_tokens == 602);
  BOOST_TEST(got.usage.output_tokens == 93);
}

BOOST_AUTO_TEST_CASE(decodes_recorded_nested_tool_input) {
  const Response got = decodeOk(readFixture("anthropic/vercel-ai__anthropic-json-tool.1.json"));
  BOOST_REQUIRE_EQUAL(got.content.size(), 1u);
  BOOST_TEST(got.content[0].tool_id == "toolu_01Q9ExVZnzZj7E2QQYHYtNUa");
  BOOST_TEST(got.content[0].tool_input["elements"].size() == 4u);
  BOOST_TEST(got.content[0].tool_input["elements"][3]["location"] == "Berlin");
  BOOST_TEST(got.content[0].tool_input["elements"][3]["temperature"] == -9);
  BOOST_TEST(got.usage.input_tokens == 1151);
  BOOST_TEST(got.usage.output_tokens == 87);
  BOOST_TEST(got.stop_sequence.empty());  // absent in this recording
}

BOOST_AUTO_TEST_CASE(decodes_recorded_parallel_tool_calls) {
  const Json recording = cassette("anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml");
  const Response first = decodeOk(dumpJsonText(responseBody(recording, 0)));
  BOOST_REQUIRE_EQUAL(first.content.size(), 5u);
  const std::vector<std::pair<std::string, std::string>> calls = {{"toolu_0167cfEnoQaPviGdVXA95zcu", "Alice"},
                                                                  {"toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "Bob"},
                                                                  {"toolu_01XFyAjstT3966qvRynZyVPo", "Charlie"},
                                                                  {"toolu_013mnQZbgtK2oe3Mo3XKJsx3", "Daisy"}};
  for (size_t i = 0; i < calls.size(); ++i) {
    const ContentBlock& call = first.content[i + 1];
    BOOST_TEST(static_cast<int>(call.type) == static_cast<int>(BlockType::ToolUse));
    BOOST_TEST(call.tool_id == calls[i].first);
    BOOST_TEST(call.tool_name == "retrieve_entity_info");
    BOOST_TEST(call.tool_input == Json({{"name", calls[i].second}}));
  }
  BOOST_TEST(static_cast<int>(first.stop_reason) == static_cast<int>(StopReason::ToolUse));
  BOOST_TEST(first.usage.input_tokens == 423);
  BOOST_TEST(first.usage.output_tokens == 202);

  const Response second = decodeOk(dumpJsonText(responseBody(recording, 1)));
  BOOST_REQUIRE_EQUAL(second.content.size(), 1u);
  BOOST_TEST(second.content[0].text.find("Daisy is the youngest") != std::string::npos);
  BOOST_TEST(second.usage.input_tokens == 771);
  BOOST_TEST(second.usage.output_tokens == 77);
}

BOOST_AUTO_TEST_CASE(cache_reads_and_writes_are_added_to_neutral_input) {
  const Json recording = cassette("anthropic/pydantic-ai__test_anthropic_cache_real_api.yaml");
  const Response first = decodeOk(dumpJsonText(responseBody(recording, 0)));
  BOOST_TEST(first.usage.input_tokens == 3 + 1111);
  BOOST_TEST(first.usage.cache_read_tokens == 1111);
  BOOST_TEST(first.usage.cache_write_tokens == 0);
  BOOST_TEST(first.usage.output_tokens == 406);
  BOOST_TEST(first.usage.uncachedInputTokens() == 3);
  BOOST_TEST(first.content.at(0).text.starts_with("# What is Python?"));
  const Response second = decodeOk(dumpJsonText(responseBody(recording, 1)));
  BOOST_TEST(second.usage.input_tokens == 3 + 1111 + 418);
  BOOST_TEST(second.usage.cache_read_tokens == 1111);
  BOOST_TEST(second.usage.cache_write_tokens == 418);
  BOOST_TEST(second.usage.output_tokens == 33);
}

BOOST_AUTO_TEST_CASE(count_tokens_recording_messages_and_token_count_answer) {
  const Json recording = cassette("anthropic/pydantic-ai__test_anthropic_cache_count_tokens.yaml");
  // The count_tokens answer ({"input_tokens":1114}) is not a message.
  BOOST_TEST(responseBody(recording, 0) == Json({{"input_tokens", 1114}}));
  const auto not_a_message = decodeResponse(dumpJsonText(responseBody(recording, 0)));
  BOOST_REQUIRE(!not_a_message.has_value());
  BOOST_TEST(not_a_message.error().status == 502);
  BOOST_TEST(not_a_message.error().key == "upstream_invalid_response");
  const Response message = decodeOk(dumpJsonText(responseBody(recording, 1)));
  BOOST_TEST(message.usage.input_tokens == 1114);
  BOOST_TEST(message.usage.cache_read_tokens == 1111);
  BOOST_TEST(message.usage.output_tokens == 414);
}

BOOST_AUTO_TEST_CASE(thinking_redacted_and_unknown_blocks_are_kept) {
  const Response got = decodeOk(R"({"id":"msg_x","type":"message","role":"assistant","model":"m",
    "content":[{"type":"thinking","thinking":"let me see","signature":"EqQBCgIYAhIM"},
               {"type":"redacted_thinking","data":"EmwKAhgBEgy3"},
               {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
               {"type":"text","text":"done","citations":[{"type":"char_location"}]}],
    "stop_reason":"pause_turn","stop_sequence":null,
    "usage":{"input_tokens":10,"output_tokens":50,"output_tokens_details":{"thinking_tokens":30}}})");
  BOOST_REQUIRE_EQUAL(got.content.size(), 4u);
  BOOST_TEST(got.content[0].signature == "EqQBCgIYAhIM");
  BOOST_TEST((got.content[0].signature_wire == catalog::Wire::Anthropic));
  BOOST_TEST(got.content[1].data == "EmwKAhgBEgy3");
  BOOST_TEST(static_cast<int>(got.content[2].type) == static_cast<int>(BlockType::Opaque));
  BOOST_TEST(got.content[2].raw["tool_use_id"] == "srvtoolu_1");
  BOOST_TEST(got.content[3].text == "done");
  BOOST_TEST(static_cast<int>(got.stop_reason) == static_cast<int>(StopReason::PauseTurn));
  BOOST_TEST(got.usage.reasoning_tokens == 30);
  BOOST_TEST(got.usage.output_tokens == 50);
}

BOOST_AUTO_TEST_CASE(every_stop_reason_maps_both_ways) {
  for (const char* reason : {"end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn",
                             "model_context_window_exceeded"}) {
    const Response got = decodeOk(std::string(R"({"content":[],"stop_reason":")") + reason +
                                  R"(","stop_sequence":"STOP"})");
    BOOST_TEST(Json::parse(encodeResponse(got, {"m", "r", 0}))["stop_reason"] == reason);
  }
  Response error;
  error.stop_reason = StopReason::Error;
  BOOST_TEST(Json::parse(encodeResponse(error, {"m", "r", 0}))["stop_reason"] == "end_turn");
}

BOOST_AUTO_TEST_CASE(invalid_answers_are_upstream_invalid_response) {
  for (const char* body : {"", "not json", "[1,2]", R"({"id":"msg_1","content":"text"})"}) {
    const auto got = decodeResponse(body);
    BOOST_REQUIRE(!got.has_value());
    BOOST_TEST(got.error().status == 502);
    BOOST_TEST(got.error().key == "upstream_invalid_response");
  }
}

BOOST_AUTO_TEST_CASE(error_body_with_status_200_is_an_error) {
  const auto got = decodeResponse(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  BOOST_REQUIRE(!got.has_value());
  BOOST_TEST(got.error().status == 529);
  BOOST_TEST(got.error().key == "overloaded_error");
}

BOOST_AUTO_TEST_CASE(encodes_message_for_anthropic_clients_with_exact_fields) {
  Response response;
  response.id = "resp_123";
  response.model = "gpt-5";
  ContentBlock text;
  text.text = "Here you go";
  ContentBlock call;
  call.type = BlockType::ToolUse;
  call.tool_id = "call_abc";
  call.tool_name = "get_weather";
  call.tool_input = Json{{"city", "Paris"}};
  response.content = {text, call};
  response.stop_reason = StopReason::ToolUse;
  response.usage.input_tokens = 1500;
  response.usage.cache_read_tokens = 1200;
  response.usage.output_tokens = 80;
  response.usage_reported = true;
  const Json got = Json::parse(encodeResponse(response, {"claude-alias", "req_42", 0}));
  BOOST_TEST(got == Json::parse(R"({"id":"msg_req_42","type":"message","role":"assistant","model":"claude-alias",
      "content":[{"type":"text","text":"Here you go"},
                 {"type":"tool_use","id":"call_abc","name":"get_weather","input":{"city":"Paris"}}],
      "stop_reason":"tool_use","stop_sequence":null,
      "usage":{"input_tokens":300,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":80}})"));
}

BOOST_AUTO_TEST_CASE(foreign_thinking_is_shown_with_wrapped_signature_and_foreign_opaque_dropped) {
  Response response;
  response.id = "msg_1";
  ContentBlock thinking;
  thinking.type = BlockType::Thinking;
  thinking.text = "summary";
  thinking.signature = "gAAAAB";
  thinking.signature_wire = catalog::Wire::OpenAIResponses;
  thinking.reasoning_id = "rs_9";
  ContentBlock opaque;
  opaque.type = BlockType::Opaque;
  opaque.raw = Json{{"type", "web_search_call"}};
  opaque.raw_wire = catalog::Wire::OpenAIResponses;
  response.content = {thinking, opaque};
  const Json got = Json::parse(encodeResponse(response, {"m", "r", 0}));
  BOOST_TEST(got["id"] == "msg_1");
  BOOST_REQUIRE_EQUAL(got["content"].size(), 1u);
  BOOST_TEST(got["content"][0] ==
             Json::parse(R"({"type":"thinking","thinking":"summary","signature":"sluice:openai-responses:rs_9:gAAAAB"})"));
}

BOOST_AUTO_TEST_CASE(round_trips_recorded_responses_through_encode_and_decode) {
  for (const char* fixture : {"anthropic/vercel-ai__anthropic-text.json", "anthropic/vercel-ai__anthropic-tool-no-args.json",
                              "anthropic/vercel-ai__anthropic-json-tool.1.json"}) {
    BOOST_TEST_CONTEXT(fixture) {
      const Response original = decodeOk(readFixture(fixture));
      const Response again = decodeOk(encodeResponse(original, {original.model, "r", 0}));
      BOOST_TEST(toJson(again) == toJson(original));
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_response_with_cache_reasoning_and_stop_sequence) {
  Response original;
  original.id = "msg_7";
  original.model = "m";
  ContentBlock thinking;
  thinking.type = BlockType::Thinking;
  thinking.text = "t";
  thinking.signature = "Et0B";
  thinking.signature_wire = catalog::Wire::Gemini;
  ContentBlock text;
  text.text = "a";
  original.content = {thinking, text};
  original.stop_reason = StopReason::StopSequence;
  original.stop_sequence = "END";
  original.usage = Usage{900, 70, 500, 100, 20};
  original.usage_reported = true;
  const Response again = decodeOk(encodeResponse(original, {"m", "r", 0}));
  BOOST_TEST(toJson(again) == toJson(original));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
