#include <boost/test/unit_test.hpp>

#include "server/wire/anthropic/codec.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;
using Type = StreamEvent::Type;
using BlockType = ContentBlock::Type;

// Decodes the stream whole and in random pieces (several seeds), checks every way gives the same
// events, and returns them.
std::vector<StreamEvent> decodeEveryWay(const std::string& sse) {
  const std::vector<StreamEvent> whole = decodeWhole(sse);
  const Json expected = toJson(whole);
  for (uint32_t seed : {1u, 7u, 42u, 1234u}) {
    BOOST_TEST_CONTEXT("seed " << seed) { BOOST_TEST(toJson(decodeInPieces(sse, seed)) == expected); }
  }
  BOOST_TEST(toJson(decodeInPieces(sse, 99u, 1)) == expected);  // byte by byte
  return whole;
}

std::string cassetteStream(const std::string& relative, size_t interaction = 0) {
  return cassette(relative)["interactions"][interaction]["response"]["body"]["string"].get<std::string>();
}

BOOST_AUTO_TEST_SUITE(stream_decoder)

BOOST_AUTO_TEST_CASE(decodes_recorded_text_stream_with_ping_and_cumulative_usage) {
  const Rebuilt got = rebuild(decodeEveryWay(sseFromChunks("anthropic/vercel-ai__anthropic-text.chunks.txt")));
  BOOST_TEST(got.id == "msg_01QC4g3HwBThD4BaNtBckFDJ");
  BOOST_TEST(got.model == "claude-sonnet-4-5-20250929");
  BOOST_TEST(got.start_usage.input_tokens == 12);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(static_cast<int>(got.blocks[0].type) == static_cast<int>(BlockType::Text));
  BOOST_TEST(got.blocks[0].text ==
             "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
  BOOST_TEST(got.blocks[0].stopped);
  BOOST_TEST(got.pings == 1);
  BOOST_REQUIRE(got.stop_reason.has_value());
  BOOST_TEST(static_cast<int>(*got.stop_reason) == static_cast<int>(StopReason::EndTurn));
  BOOST_TEST(got.usage.input_tokens == 12);
  BOOST_TEST(got.usage.output_tokens == 30);
  BOOST_TEST(got.usage.cache_read_tokens == 0);
  BOOST_TEST(got.message_stop);
  BOOST_TEST(got.errors.empty());
}

BOOST_AUTO_TEST_CASE(tool_call_without_arguments_gets_empty_object_input) {
  const auto events = decodeEveryWay(sseFromChunks("anthropic/vercel-ai__anthropic-tool-no-args.chunks.txt"));
  const Rebuilt got = rebuild(events);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 2u);
  BOOST_TEST(got.blocks[0].text == "I'll update the issue list for you.");
  BOOST_TEST(static_cast<int>(got.blocks[1].type) == static_cast<int>(BlockType::ToolUse));
  BOOST_TEST(got.blocks[1].start.tool_id == "toolu_01QE1WLsSVp5hy5Q3GmGTmjP");
  BOOST_TEST(got.blocks[1].start.tool_name == "updateIssueList");
  BOOST_TEST(got.blocks[1].json == "{}");
  BOOST_TEST(got.pings == 3);
  BOOST_TEST(static_cast<int>(got.stop_reason.value()) == static_cast<int>(StopReason::ToolUse));
  BOOST_TEST(got.usage.input_tokens == 565);
  BOOST_TEST(got.usage.output_tokens == 48);
  // The {} comes before the block's stop, where a consumer parses the arguments.
  size_t json_at = 0, stop_at = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].type == Type::BlockDelta && events[i].index == 1) json_at = i;
    if (events[i].type == Type::BlockStop && events[i].index == 1) stop_at = i;
  }
  BOOST_TEST(json_at + 1 == stop_at);
}

BOOST_AUTO_TEST_CASE(tool_use_as_first_block_concatenates_argument_fragments) {
  const Rebuilt got = rebuild(decodeEveryWay(sseFromChunks("anthropic/vercel-ai__anthropic-json-tool.1.chunks.txt")));
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(got.blocks[0].start.tool_id == "toolu_01KFbKqPYSuAKujiL6mTfzYA");
  BOOST_TEST(got.blocks[0].start.tool_name == "json");
  BOOST_TEST(Json::parse(got.blocks[0].json) ==
             Json::parse(R"({"elements":[{"location":"San Francisco","temperature":58,"condition":"sunny"}]})"));
  BOOST_TEST(static_cast<int>(got.stop_reason.value()) == static_cast<int>(StopReason::ToolUse));
  BOOST_TEST(got.usage.input_tokens == 849);
  BOOST_TEST(got.usage.output_tokens == 47);
}

BOOST_AUTO_TEST_CASE(thinking_block_keeps_text_and_signature_from_recording) {
  const Rebuilt got = rebuild(decodeEveryWay(sseFromChunks("anthropic/vercel-ai__anthropic-clear-thinking.1.chunks.txt")));
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 2u);
  BOOST_TEST(static_cast<int>(got.blocks[0].type) == static_cast<int>(BlockType::Thinking));
  BOOST_TEST((got.blocks[0].start.signature_wire == catalog::Wire::Anthropic));
  BOOST_TEST(got.blocks[0].text == "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185");
  BOOST_TEST(got.blocks[0].signature ==
             "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+"
             "QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ik"
             "ZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB");
  BOOST_TEST(got.blocks[1].text == "925 ÷ 5 = 185");
  BOOST_TEST(got.usage.input_tokens == 69);
  BOOST_TEST(got.usage.output_tokens == 53);
}

BOOST_AUTO_TEST_CASE(server_tool_blocks_pass_as_opaque_and_cache_counts_are_neutral) {
  const Rebuilt got =
      rebuild(decodeEveryWay(sseFromChunks("anthropic/vercel-ai__anthropic-code-execution-20260120-prompt-cache.1.chunks.txt")));
  // message_start: input 2, cache write 3068.
  BOOST_TEST(got.start_usage.input_tokens == 2 + 3068);
  BOOST_TEST(got.start_usage.cache_write_tokens == 3068);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST(static_cast<int>(got.blocks[i].type) == static_cast<int>(BlockType::Opaque));
    BOOST_TEST((got.blocks[i].start.raw_wire == catalog::Wire::Anthropic));
  }
  BOOST_TEST(got.blocks[0].start.raw["type"] == "server_tool_use");
  BOOST_TEST(got.blocks[0].start.raw["name"] == "bash_code_execution");
  BOOST_TEST(Json::parse(got.blocks[0].json)["command"] == "for n in $(seq 1 12); do echo \"$n: $((n*n))\"; done");
  BOOST_TEST(got.blocks[1].start.raw["type"] == "bash_code_execution_tool_result");
  BOOST_TEST(got.blocks[3].start.raw["content"]["stdout"] == "Sum: 650\n");
  BOOST_TEST(got.blocks[4].text == "The sum of the squares of the numbers 1 through 12 is **650**.");
  // message_delta repeats input and cache counts, and they differ from message_start's.
  BOOST_TEST(got.usage.input_tokens == 6 + 3337 + 6289);
  BOOST_TEST(got.usage.cache_read_tokens == 6289);
  BOOST_TEST(got.usage.cache_write_tokens == 3337);
  BOOST_TEST(got.usage.output_tokens == 198);
  BOOST_TEST(got.usage.reasoning_tokens == 0);
  BOOST_TEST(static_cast<int>(got.stop_reason.value()) == static_cast<int>(StopReason::EndTurn));
}

BOOST_AUTO_TEST_CASE(raw_recorded_stream_with_padding_decodes_thinking_then_text) {
  const Rebuilt got =
      rebuild(decodeEveryWay(cassetteStream("anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml")));
  BOOST_TEST(got.id == "msg_01ALwQ87pTS7hH1PjSdC9wJD");
  BOOST_TEST(got.model == "claude-sonnet-4-20250514");
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 2u);
  BOOST_TEST(got.blocks[0].text ==
             "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about "
             "how to safely cross a street. This is basic safety information that could help prevent accidents.");
  BOOST_TEST(got.blocks[0].signature.starts_with("EvMCCkYICxgCKkCHP2cSuEdcJK/0rFwqES"));
  BOOST_TEST(got.blocks[0].signature.ends_with("gb7wwzDvP/UhjfQYAQ=="));
  BOOST_TEST(got.blocks[1].text.starts_with("Here are the basic steps for safely crossing the street:\n\n**At intersections"));
  BOOST_TEST(got.blocks[1].text.ends_with("Always prioritize safety over speed when crossing streets."));
  BOOST_TEST(got.pings == 1);
  BOOST_TEST(got.start_usage.input_tokens == 43);
  BOOST_TEST(got.usage.input_tokens == 43);
  BOOST_TEST(got.usage.output_tokens == 282);
  BOOST_TEST(got.message_stop);
}

BOOST_AUTO_TEST_CASE(message_start_event_carries_input_usage) {
  const auto events = decodeWhole(sseFromChunks("anthropic/vercel-ai__anthropic-json-tool.1.chunks.txt"));
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST(static_cast<int>(events[0].type) == static_cast<int>(Type::MessageStart));
  BOOST_TEST(events[0].usage_reported);
  BOOST_TEST(events[0].usage.input_tokens == 849);
  BOOST_TEST(events[0].usage.output_tokens == 10);
}

BOOST_AUTO_TEST_CASE(error_event_in_a_200_stream_becomes_an_overloaded_error) {
  const std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}   }\n\n"
      "event: ping\ndata: {\"type\":\"ping\"}\n\n";
  const auto events = decodeEveryWay(sse);
  BOOST_REQUIRE_EQUAL(events.size(), 2u);  // nothing after the error, and finish() adds nothing
  BOOST_TEST(static_cast<int>(events[1].type) == static_cast<int>(Type::Error));
  BOOST_TEST(events[1].error.status == 529);
  BOOST_TEST(events[1].error.key == "overloaded_error");
  BOOST_TEST(events[1].error.message == "Overloaded");
}

BOOST_AUTO_TEST_CASE(error_event_of_rate_limit_type_keeps_its_status) {
  const auto events = decodeWhole(
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}\n\n");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].error.status == 429);
  BOOST_TEST(events[0].error.key == "rate_limit_error");
}

BOOST_AUTO_TEST_CASE(truncated_stream_ends_with_upstream_stream_truncated) {
  std::string sse = sseFromChunks("anthropic/vercel-ai__anthropic-text.chunks.txt");
  sse = sse.substr(0, sse.find("event: message_delta"));
  const auto events = decodeEveryWay(sse);
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST(static_cast<int>(events.back().type) == static_cast<int>(Type::Error));
  BOOST_TEST(events.back().error.status == 502);
  BOOST_TEST(events.back().error.key == "upstream_stream_truncated");
  BOOST_TEST(rebuild(events).blocks.at(0).text.starts_with("Hello! I'm doing well"));
}

BOOST_AUTO_TEST_CASE(stream_cut_inside_an_event_is_truncated_not_invalid) {
  std::string sse = sseFromChunks("anthropic/vercel-ai__anthropic-text.chunks.txt");
  sse = sse.substr(0, sse.find("event: message_stop") + 30);  // half of the last data line
  const auto events = decodeWhole(sse);
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST(events.back().error.status == 502);
  // The half JSON is either reported as invalid or as a truncation; never as success.
  BOOST_TEST((events.back().error.key == "upstream_stream_truncated" || events.back().error.key == "upstream_invalid_response"));
}

BOOST_AUTO_TEST_CASE(empty_stream_is_truncated) {
  const auto events = decodeWhole("");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].error.key == "upstream_stream_truncated");
}

BOOST_AUTO_TEST_CASE(invalid_json_in_an_event_is_upstream_invalid_response) {
  const auto events = decodeWhole("event: content_block_delta\ndata: {not json\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].error.status == 502);
  BOOST_TEST(events[0].error.key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(unknown_events_and_delta_types_are_ignored) {
  const std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: something_new\ndata: {\"type\":\"something_new\",\"x\":1}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\",\"citations\":[]}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":{}}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\",\"extra\":true}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"stop_sequence\",\"stop_sequence\":\"END\"},\"usage\":{\"output_tokens\":3}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Rebuilt got = rebuild(decodeEveryWay(sse));
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(got.blocks[0].text == "ok");
  BOOST_TEST(static_cast<int>(got.stop_reason.value()) == static_cast<int>(StopReason::StopSequence));
  BOOST_TEST(got.stop_sequence == "END");
  // message_delta gave only output_tokens: the input from message_start is kept.
  BOOST_TEST(got.usage.input_tokens == 1);
  BOOST_TEST(got.usage.output_tokens == 3);
  BOOST_TEST(got.message_stop);
  BOOST_TEST(got.errors.empty());
}

BOOST_AUTO_TEST_CASE(crlf_line_ends_and_missing_event_lines_are_accepted) {
  const std::string sse =
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"model\":\"m\",\"usage\":{\"input_tokens\":4,\"output_tokens\":1}}}\r\n\r\n"
      "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}\r\n\r\n"
      "data: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
      "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":2,\"output_tokens_details\":{\"thinking_tokens\":1}}}\r\n\r\n"
      "data: {\"type\":\"message_stop\"}\r\n\r\n";
  const Rebuilt got = rebuild(decodeEveryWay(sse));
  BOOST_TEST(got.blocks.at(0).text == "Hi");  // text already in the start block is a delta
  BOOST_TEST(static_cast<int>(got.stop_reason.value()) == static_cast<int>(StopReason::MaxTokens));
  BOOST_TEST(got.usage.reasoning_tokens == 1);
  BOOST_TEST(got.message_stop);
}

BOOST_AUTO_TEST_CASE(parallel_tool_calls_stream_as_separate_indexed_blocks) {
  std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\",\"model\":\"m\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n";
  const char* names[] = {"Alice", "Bob"};
  for (int i = 0; i < 2; ++i) {
    const std::string index = std::to_string(i);
    sse += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" + index +
           ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_" + index + "\",\"name\":\"lookup\",\"input\":{}}}\n\n";
    sse += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" + index +
           ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"name\\\": \\\"\"}}\n\n";
    sse += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" + index +
           ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"" + names[i] + "\\\"}\"}}\n\n";
    sse += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" + index + "}\n\n";
  }
  sse += "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":40}}\n\n"
         "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Rebuilt got = rebuild(decodeEveryWay(sse));
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 2u);
  BOOST_TEST(got.blocks[0].start.tool_id == "toolu_0");
  BOOST_TEST(Json::parse(got.blocks[0].json)["name"] == "Alice");
  BOOST_TEST(got.blocks[1].start.tool_id == "toolu_1");
  BOOST_TEST(Json::parse(got.blocks[1].json)["name"] == "Bob");
}

BOOST_AUTO_TEST_CASE(redacted_thinking_block_keeps_its_data) {
  const std::string sse =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_4\",\"model\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgB\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Rebuilt got = rebuild(decodeEveryWay(sse));
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(static_cast<int>(got.blocks[0].type) == static_cast<int>(BlockType::RedactedThinking));
  BOOST_TEST(got.blocks[0].start.data == "EmwKAhgB");
  BOOST_TEST((got.blocks[0].start.signature_wire == catalog::Wire::Anthropic));
}

BOOST_AUTO_TEST_CASE(events_are_returned_as_soon_as_their_bytes_complete) {
  auto decoder = makeStreamDecoder();
  BOOST_TEST(decoder->feed("event: ping\ndata: {\"type\": \"ping\"}\n").empty());
  const auto events = decoder->feed("\n");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(static_cast<int>(events[0].type) == static_cast<int>(Type::Ping));
}

BOOST_AUTO_TEST_CASE(bytes_after_message_stop_are_ignored) {
  std::string sse = sseFromChunks("anthropic/vercel-ai__anthropic-text.chunks.txt");
  sse += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":5,\"content_block\":{\"type\":\"text\",\"text\":\"late\"}}\n\n";
  const Rebuilt got = rebuild(decodeEveryWay(sse));
  BOOST_TEST(got.blocks.size() == 1u);
  BOOST_TEST(got.errors.empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
