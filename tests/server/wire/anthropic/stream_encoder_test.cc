#include <boost/test/unit_test.hpp>

#include "server/wire/anthropic/codec.h"
#include "tests/server/wire/anthropic/test_support.h"

namespace sluice::wire::anthropic {
namespace {

using namespace test;
using Type = StreamEvent::Type;
using DeltaKind = StreamEvent::DeltaKind;

const ResponseContext kContext{"claude-alias", "req123", 1700000000};

StreamEvent start(std::string id, Usage usage, bool reported = true) {
  StreamEvent event;
  event.type = Type::MessageStart;
  event.id = std::move(id);
  event.model = "upstream-model";
  event.usage = usage;
  event.usage_reported = reported;
  return event;
}

StreamEvent blockStart(int index, ContentBlock block) {
  StreamEvent event;
  event.type = Type::BlockStart;
  event.index = index;
  event.block = std::move(block);
  return event;
}

StreamEvent delta(int index, DeltaKind kind, std::string text) {
  StreamEvent event;
  event.type = Type::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::move(text);
  return event;
}

StreamEvent simple(Type type, int index = 0) {
  StreamEvent event;
  event.type = type;
  event.index = index;
  return event;
}

StreamEvent messageDelta(std::optional<StopReason> reason, Usage usage, bool reported = true) {
  StreamEvent event;
  event.type = Type::MessageDelta;
  event.stop_reason = reason;
  event.usage = usage;
  event.usage_reported = reported;
  return event;
}

Usage usage(int64_t input, int64_t output, int64_t cache_read = 0, int64_t cache_write = 0) {
  Usage value;
  value.input_tokens = input;
  value.output_tokens = output;
  value.cache_read_tokens = cache_read;
  value.cache_write_tokens = cache_write;
  return value;
}

ContentBlock textBlock() { return ContentBlock{}; }

ContentBlock toolBlock(std::string id, std::string name) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  return block;
}

// Encodes each event and finish(), checking each call returns its own bytes at once.
std::string encodeAll(const std::vector<StreamEvent>& events, const ResponseContext& context = kContext) {
  auto encoder = makeStreamEncoder(context);
  std::string out;
  for (const StreamEvent& event : events) out += encoder->encode(event);
  return out + encoder->finish();
}

std::vector<std::string> names(const std::vector<std::pair<std::string, Json>>& events) {
  std::vector<std::string> out;
  for (const auto& [name, data] : events) out.push_back(name);
  return out;
}

BOOST_AUTO_TEST_SUITE(stream_encoder)

BOOST_AUTO_TEST_CASE(message_start_carries_real_input_usage_in_anthropic_counting) {
  auto encoder = makeStreamEncoder(kContext);
  const std::string bytes = encoder->encode(start("chatcmpl-9", usage(1200, 0, 1000, 150)));
  const auto events = sseEvents(bytes);
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].first == "message_start");
  const Json& message = events[0].second["message"];
  BOOST_TEST(message["id"] == "msg_req123");  // a foreign id is replaced by one from the request id
  BOOST_TEST(message["model"] == "claude-alias");
  BOOST_TEST(message["role"] == "assistant");
  BOOST_TEST(message["content"] == Json::array());
  BOOST_TEST(message["stop_reason"].is_null());
  BOOST_TEST(message["usage"]["input_tokens"] == 50);
  BOOST_TEST(message["usage"]["cache_read_input_tokens"] == 1000);
  BOOST_TEST(message["usage"]["cache_creation_input_tokens"] == 150);
}

BOOST_AUTO_TEST_CASE(text_stream_has_the_full_event_sequence) {
  const std::string bytes = encodeAll({start("msg_abc", usage(12, 1)), blockStart(0, textBlock()),
                                       delta(0, DeltaKind::Text, "Hel"), delta(0, DeltaKind::Text, "lo"),
                                       simple(Type::BlockStop, 0), messageDelta(StopReason::EndTurn, usage(12, 30)),
                                       simple(Type::MessageStop)});
  const auto events = sseEvents(bytes);
  BOOST_TEST(names(events) == (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                                         "content_block_delta", "content_block_stop", "message_delta",
                                                         "message_stop"}),
             boost::test_tools::per_element());
  BOOST_TEST(events[0].second["message"]["id"] == "msg_abc");
  BOOST_TEST(events[1].second == Json::parse(R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"));
  BOOST_TEST(events[2].second == Json::parse(R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}})"));
  BOOST_TEST(events[4].second == Json::parse(R"({"type":"content_block_stop","index":0})"));
  BOOST_TEST(events[5].second ==
             Json::parse(R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},
                            "usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":30}})"));
  BOOST_TEST(events[6].second == Json::parse(R"({"type":"message_stop"})"));
  // Each frame is "event: <name>\ndata: <json>\n\n".
  BOOST_TEST(bytes.starts_with("event: message_start\ndata: {"));
}

BOOST_AUTO_TEST_CASE(tool_use_start_payload_is_empty_and_arguments_stream_as_input_json) {
  const auto events = sseEvents(encodeAll({start("msg_1", usage(5, 1)), blockStart(3, toolBlock("call_9", "get_weather")),
                                           delta(3, DeltaKind::ToolInputJson, "{\"city\":"),
                                           delta(3, DeltaKind::ToolInputJson, "\"Paris\"}"), simple(Type::BlockStop, 3),
                                           messageDelta(StopReason::ToolUse, usage(5, 9)), simple(Type::MessageStop)}));
  // The provider's index 3 is the client's first block: index 0.
  BOOST_TEST(events[1].second ==
             Json::parse(R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"call_9","name":"get_weather","input":{}}})"));
  BOOST_TEST(events[2].second["delta"] == Json::parse(R"({"type":"input_json_delta","partial_json":"{\"city\":"})"));
  BOOST_TEST(events[2].second["index"] == 0);
  BOOST_TEST(events[5].second["delta"]["stop_reason"] == "tool_use");
}

BOOST_AUTO_TEST_CASE(thinking_start_is_empty_and_foreign_signature_is_wrapped) {
  ContentBlock thinking;
  thinking.type = ContentBlock::Type::Thinking;
  thinking.signature_wire = catalog::Wire::Gemini;
  const auto events = sseEvents(encodeAll({start("", usage(1, 1)), blockStart(0, thinking),
                                           delta(0, DeltaKind::Thinking, "hmm"), delta(0, DeltaKind::Signature, "Et0B"),
                                           delta(0, DeltaKind::Signature, "xyz"), simple(Type::BlockStop, 0),
                                           simple(Type::MessageStop)}));
  BOOST_TEST(events[1].second["content_block"] == Json::parse(R"({"type":"thinking","thinking":"","signature":""})"));
  BOOST_TEST(events[2].second["delta"] == Json::parse(R"({"type":"thinking_delta","thinking":"hmm"})"));
  BOOST_TEST(events[3].second["delta"] == Json::parse(R"({"type":"signature_delta","signature":"sluice:gemini::Et0B"})"));
  BOOST_TEST(events[4].second["delta"]["signature"] == "xyz");
}

BOOST_AUTO_TEST_CASE(gemini_signature_in_the_start_block_survives_a_claude_code_turn) {
  // The gemini decoder puts a thoughtSignature on an empty Thinking block before the call.
  ContentBlock signature;
  signature.type = ContentBlock::Type::Thinking;
  signature.signature = "EskgCsYgAb";
  signature.signature_wire = catalog::Wire::Gemini;
  const auto events = sseEvents(encodeAll({start("", usage(9, 0)), blockStart(0, signature), simple(Type::BlockStop, 0),
                                           blockStart(1, toolBlock("gemini_call_0", "weather")),
                                           delta(1, DeltaKind::ToolInputJson, "{\"city\":\"Paris\"}"),
                                           simple(Type::BlockStop, 1), messageDelta(StopReason::ToolUse, usage(9, 15)),
                                           simple(Type::MessageStop)}));
  BOOST_TEST(events[2].second["delta"] == Json::parse(R"({"type":"signature_delta","signature":"sluice:gemini::EskgCsYgAb"})"));
  // Claude Code sends the rebuilt blocks back on its next turn.
  Json history = Json::parse(R"({"model":"m","messages":[{"role":"user","content":"weather?"},
      {"role":"assistant","content":[{"type":"thinking","thinking":""},
        {"type":"tool_use","id":"gemini_call_0","name":"weather","input":{"city":"Paris"}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"gemini_call_0","content":"sunny"}]}]})");
  history["messages"][1]["content"][0]["signature"] = events[2].second["delta"]["signature"];
  auto decoded = decodeRequest(history.dump());
  BOOST_REQUIRE(decoded.has_value());
  const ContentBlock& back = decoded->messages.at(1).content.at(0);
  BOOST_TEST((back.signature_wire == catalog::Wire::Gemini));
  BOOST_TEST(back.signature == "EskgCsYgAb");
  BOOST_TEST(decoded->messages.at(1).content.at(1).tool_id == "gemini_call_0");
}

BOOST_AUTO_TEST_CASE(unsigned_foreign_thinking_still_ends_with_its_envelope_as_in_the_whole_answer) {
  // A Gemini thought summary Gemini did not sign: the streamed block ends with the same envelope
  // the whole answer carries, so streamed and whole messages agree and every block is signed.
  ContentBlock thinking;
  thinking.type = ContentBlock::Type::Thinking;
  thinking.signature_wire = catalog::Wire::Gemini;
  const auto events = sseEvents(encodeAll({start("", usage(1, 1)), blockStart(0, thinking),
                                           delta(0, DeltaKind::Thinking, "hmm"), simple(Type::BlockStop, 0),
                                           blockStart(1, textBlock()), delta(1, DeltaKind::Text, "hi"),
                                           simple(Type::BlockStop, 1), simple(Type::MessageStop)}));
  BOOST_TEST_REQUIRE(events.size() >= 5u);
  BOOST_TEST(events[3].first == "content_block_delta");
  BOOST_TEST(events[3].second["delta"] == Json::parse(R"({"type":"signature_delta","signature":"sluice:gemini::"})"));
  BOOST_TEST(events[4].first == "content_block_stop");
  Response whole;
  whole.content.push_back(thinking);
  whole.content.back().text = "hmm";
  const Json encoded = Json::parse(encodeResponse(whole, kContext));
  BOOST_TEST(encoded["content"][0]["signature"] == "sluice:gemini::");

  // Anthropic's own unsigned thinking (never seen in practice) gets no invented signature.
  ContentBlock own = thinking;
  own.signature_wire = catalog::Wire::Anthropic;
  const auto plain = sseEvents(encodeAll({start("", usage(1, 1)), blockStart(0, own),
                                          delta(0, DeltaKind::Thinking, "hmm"), simple(Type::BlockStop, 0),
                                          simple(Type::MessageStop)}));
  BOOST_TEST(plain[3].first == "content_block_stop");
}

BOOST_AUTO_TEST_CASE(anthropic_signature_passes_unchanged) {
  ContentBlock thinking;
  thinking.type = ContentBlock::Type::Thinking;
  thinking.signature_wire = catalog::Wire::Anthropic;
  const auto events = sseEvents(encodeAll({start("msg_1", usage(1, 1)), blockStart(0, thinking),
                                           delta(0, DeltaKind::Signature, "EvQBCkYI=="), simple(Type::BlockStop, 0)}));
  BOOST_TEST(events[2].second["delta"]["signature"] == "EvQBCkYI==");
}

BOOST_AUTO_TEST_CASE(error_event_renders_anthropic_error_and_ends_the_stream) {
  auto encoder = makeStreamEncoder(kContext);
  std::string bytes = encoder->encode(start("msg_1", usage(1, 1)));
  bytes += encoder->encode(blockStart(0, textBlock()));
  StreamEvent error = simple(Type::Error);
  error.error = ApiError{529, "overloaded_error", "Overloaded", {}, {}};
  const std::string error_bytes = encoder->encode(error);
  BOOST_TEST(error_bytes.starts_with("event: error\ndata: "));
  const auto events = sseEvents(error_bytes);
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].second["type"] == "error");
  BOOST_TEST(events[0].second["error"]["type"] == "overloaded_error");
  BOOST_TEST(events[0].second["error"]["message"] == "Overloaded");
  BOOST_TEST(events[0].second["request_id"] == "req123");
  BOOST_TEST(encoder->encode(simple(Type::MessageStop)).empty());
  BOOST_TEST(encoder->finish().empty());
}

BOOST_AUTO_TEST_CASE(upstream_503_error_is_shown_as_overloaded_and_truncation_as_api_error) {
  StreamEvent overloaded = simple(Type::Error);
  overloaded.error = ApiError{503, "UNAVAILABLE", "model overloaded", {}, {}};
  BOOST_TEST(sseEvents(encodeAll({overloaded}))[0].second["error"]["type"] == "overloaded_error");
  StreamEvent truncated = simple(Type::Error);
  truncated.error = ApiError{502, "upstream_stream_truncated", "cut", {}, {}};
  const auto events = sseEvents(encodeAll({start("msg_1", usage(1, 1)), truncated}));
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_TEST(events[1].second["error"]["type"] == "api_error");
  BOOST_TEST(events[1].second["error"]["error_key"] == "upstream_stream_truncated");
}

BOOST_AUTO_TEST_CASE(finish_closes_open_blocks_and_ends_the_message) {
  const auto events = sseEvents(encodeAll({start("msg_1", usage(7, 1)), blockStart(0, textBlock()),
                                           delta(0, DeltaKind::Text, "partial"), blockStart(1, toolBlock("t1", "f"))}));
  BOOST_TEST(names(events) == (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                                         "content_block_start", "content_block_stop",
                                                         "content_block_stop", "message_delta", "message_stop"}),
             boost::test_tools::per_element());
  BOOST_TEST(events[4].second["index"] == 0);
  BOOST_TEST(events[5].second["index"] == 1);
  BOOST_TEST(events[6].second["delta"]["stop_reason"] == "tool_use");  // a tool call was shown
  BOOST_TEST(events[6].second["usage"]["input_tokens"] == 7);
}

BOOST_AUTO_TEST_CASE(message_start_is_synthesized_when_the_provider_sent_none) {
  const auto events = sseEvents(encodeAll({delta(0, DeltaKind::Text, "hi"), messageDelta(StopReason::MaxTokens, usage(3, 4)),
                                           simple(Type::MessageStop)}));
  BOOST_TEST(names(events) == (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                                         "content_block_stop", "message_delta", "message_stop"}),
             boost::test_tools::per_element());
  BOOST_TEST(events[0].second["message"]["id"] == "msg_req123");
  BOOST_TEST(events[4].second["delta"]["stop_reason"] == "max_tokens");
}

BOOST_AUTO_TEST_CASE(usage_only_delta_after_stop_reason_keeps_the_stop_reason) {
  const auto events = sseEvents(encodeAll({start("msg_1", usage(10, 0)), blockStart(0, textBlock()),
                                           delta(0, DeltaKind::Text, "x"), simple(Type::BlockStop, 0),
                                           messageDelta(StopReason::StopSequence, usage(0, 0), false),
                                           messageDelta(std::nullopt, usage(10, 20, 4, 0)), simple(Type::MessageStop)}));
  BOOST_REQUIRE_EQUAL(events.size(), 7u);
  BOOST_TEST(events[4].second["delta"]["stop_reason"] == "stop_sequence");
  BOOST_TEST(events[4].second["usage"]["input_tokens"] == 10);  // the start's usage, not zeros
  BOOST_TEST(events[5].second["delta"]["stop_reason"] == "stop_sequence");
  BOOST_TEST(events[5].second["usage"]["output_tokens"] == 20);
  BOOST_TEST(events[5].second["usage"]["input_tokens"] == 6);
  BOOST_TEST(events[5].second["usage"]["cache_read_input_tokens"] == 4);
}

BOOST_AUTO_TEST_CASE(usage_without_input_side_keeps_the_input_from_message_start) {
  const auto events = sseEvents(encodeAll({start("msg_1", usage(300, 1, 200, 0)), blockStart(0, textBlock()),
                                           delta(0, DeltaKind::Text, "x"), simple(Type::BlockStop, 0),
                                           messageDelta(StopReason::EndTurn, usage(0, 42)), simple(Type::MessageStop)}));
  BOOST_TEST(events[4].second["usage"] ==
             Json::parse(R"({"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":200,"output_tokens":42})"));
}

BOOST_AUTO_TEST_CASE(blocks_the_client_cannot_read_are_left_out_and_indexes_stay_contiguous) {
  ContentBlock foreign;
  foreign.type = ContentBlock::Type::Opaque;
  foreign.raw = Json{{"type", "web_search_call"}};
  foreign.raw_wire = catalog::Wire::OpenAIResponses;
  const auto events = sseEvents(encodeAll({start("msg_1", usage(1, 1)), blockStart(0, foreign),
                                           delta(0, DeltaKind::ToolInputJson, "{}"), simple(Type::BlockStop, 0),
                                           blockStart(1, textBlock()), delta(1, DeltaKind::Text, "answer"),
                                           simple(Type::BlockStop, 1), simple(Type::MessageStop)}));
  BOOST_TEST(names(events) == (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                                         "content_block_stop", "message_delta", "message_stop"}),
             boost::test_tools::per_element());
  BOOST_TEST(events[1].second["index"] == 0);
  BOOST_TEST(events[1].second["content_block"]["type"] == "text");
}

BOOST_AUTO_TEST_CASE(each_event_is_written_as_soon_as_it_is_encoded) {
  auto encoder = makeStreamEncoder(kContext);
  BOOST_TEST(encoder->encode(start("msg_1", usage(1, 1))).starts_with("event: message_start\n"));
  BOOST_TEST(encoder->encode(blockStart(0, textBlock())).starts_with("event: content_block_start\n"));
  const std::string piece = encoder->encode(delta(0, DeltaKind::Text, "tok"));
  BOOST_TEST(piece == "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                      "\"delta\":{\"type\":\"text_delta\",\"text\":\"tok\"}}\n\n");
  BOOST_TEST(encoder->encode(simple(Type::BlockStop, 0)).starts_with("event: content_block_stop\n"));
  BOOST_TEST(encoder->encode(simple(Type::MessageStop)).find("event: message_stop\n") != std::string::npos);
  BOOST_TEST(encoder->finish().empty());
}

BOOST_AUTO_TEST_CASE(ping_is_relayed) {
  auto encoder = makeStreamEncoder(kContext);
  BOOST_TEST(encoder->encode(simple(Type::Ping)) == "event: ping\ndata: {\"type\":\"ping\"}\n\n");
}

BOOST_AUTO_TEST_CASE(decoded_fixture_streams_reencode_to_equivalent_streams) {
  for (const char* fixture : {"anthropic/vercel-ai__anthropic-text.chunks.txt", "anthropic/vercel-ai__anthropic-tool-no-args.chunks.txt",
                              "anthropic/vercel-ai__anthropic-json-tool.1.chunks.txt",
                              "anthropic/vercel-ai__anthropic-clear-thinking.1.chunks.txt",
                              "anthropic/vercel-ai__anthropic-code-execution-20260120-prompt-cache.1.chunks.txt"}) {
    BOOST_TEST_CONTEXT(fixture) {
      const auto original = decodeWhole(sseFromChunks(fixture));
      const std::string reencoded = encodeAll(original, ResponseContext{"", "r", 0});
      const Rebuilt before = rebuild(original);
      const Rebuilt after = rebuild(decodeWhole(reencoded));
      BOOST_TEST(after.id == before.id);
      BOOST_REQUIRE_EQUAL(after.blocks.size(), before.blocks.size());
      for (size_t i = 0; i < before.blocks.size(); ++i) {
        BOOST_TEST(after.blocks[i].text == before.blocks[i].text);
        BOOST_TEST(after.blocks[i].json == before.blocks[i].json);
        BOOST_TEST(after.blocks[i].signature == before.blocks[i].signature);
        BOOST_TEST(toJson(after.blocks[i].start) == toJson(before.blocks[i].start));
      }
      BOOST_TEST(toJson(after.usage) == toJson(before.usage));
      BOOST_TEST(toJson(after.start_usage) == toJson(before.start_usage));
      BOOST_TEST(static_cast<int>(after.stop_reason.value()) == static_cast<int>(before.stop_reason.value()));
      BOOST_TEST(after.message_stop);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::anthropic
